// The one order every rung of every study follows: a rung that does not apply says why and is
// skipped; otherwise its output is poisoned, it runs once, every element is compared with the CPU
// reference, and only a rung that passed is timed (warm-ups, the median of a time budget, min and
// max kept). A wrong rung is reported wrong and never gets a speed.
#pragma once

#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "core/measurement.hpp"
#include "core/study.hpp"

#include <cuda_runtime.h>

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace ladder::lab {

// How one column group of a table times a rung.
struct TimedMode {
  std::size_t group = 0;
  std::function<void(cudaStream_t)> launch;
  TimingOptions timing;
  int ops_per_launch = 1; // a launch that loops k times inside the kernel counts k operations
};

// `what` prefixes the progress line ("transpose 16384 x 16384"). `unsupported` is null or why the
// rung does not apply; `check` runs the rung once on poisoned output and returns "" or what is
// wrong. Fills row.check, row.note and row.timings.
void measure_rung(const RunContext& ctx, const std::string& what, Row& row, const char* unsupported,
                  const std::function<std::string(cudaStream_t)>& check,
                  const std::vector<TimedMode>& modes, cudaStream_t stream);

// Every rung of `registry` that this run shows (variants only with --all), in order, as a fresh
// row numbered as `ladder list` numbers it: `measure(rung, row)` fills the row, which then joins
// `table`.
template <class Registry, class Measure>
void for_each_shown_rung(const RunContext& ctx, const Registry& registry, Table& table,
                         Measure&& measure) {
  const auto labels = rung_labels(infos_of(registry));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto& rung = registry[i];
    if (!ctx.shows(rung.info))
      continue;
    Row row = make_row(rung.info, labels[i], table.groups.size());
    measure(rung, row);
    table.rows.push_back(std::move(row));
  }
}

// The usual check: poison `count` elements at `out`, launch once, copy them to `host` and return
// compare(host's elements).
template <class T, class Launch, class Compare>
std::string check_output(T* out, std::size_t count, PinnedBuffer<T>& host, Launch&& launch,
                         Compare&& compare, cudaStream_t stream, const std::string& name) {
  poison(out, count * sizeof(T), stream);
  launch(stream);
  check_launch(name.c_str());
  LADDER_CUDA(cudaMemcpyAsync(host.data(), out, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  return compare(std::span<const T>(host.data(), count));
}

// A device buffer copied to pinned host memory (the CPU reference's input).
template <class T>
void copy_to_host(PinnedBuffer<T>& host, const T* device, std::size_t count, cudaStream_t stream) {
  LADDER_CUDA(
      cudaMemcpyAsync(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
}

} // namespace ladder::lab
