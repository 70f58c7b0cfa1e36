// The list of studies that the CLI, the tests and the benchmark iterate. Each study owns its own
// registry of rungs (e.g. transpose_variants()); this is the layer above it.
#pragma once

#include "core/harness.hpp"
#include "core/report.hpp"
#include "ladder/device.hpp"

#include <cstddef>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::lab {

// One rung or reference row, as `ladder list` shows it.
struct RungInfo {
  std::string_view name;
  std::string_view idea;
  std::string_view seed; // the seed table row it reproduces, "" beyond the seeds
  bool is_reference = false;
  // The kernel and launch shape, for the resource report (registers, shared memory, occupancy);
  // null for library calls such as cudaMemcpy or cuBLAS.
  const void* kernel = nullptr;
  int block_threads = 0;
  std::size_t dynamic_shared_bytes = 0;
};

struct RunOptions {
  std::vector<std::string> sizes; // study-specific size strings; empty = the study's defaults
  TimingOptions timing;
  bool small = false; // small sizes only (tests, sanitizers)
};

struct RunContext {
  RunOptions options;
  DeviceInfo device;
  double measured_peak_gbs = 0;
  std::ostream* progress = nullptr; // stderr in the CLI; may be null
  void say(const std::string& line) const;
};

struct Study {
  std::string_view name;
  std::string_view title;
  std::string_view source; // seed file(s) it reproduces
  std::vector<RungInfo> (*rungs)();
  std::vector<Table> (*run)(const RunContext&);
  // Text printed under the rung list by `ladder list` (e.g. Brent's-theorem figures).
  std::string (*notes)() = nullptr;
};

std::span<const Study> studies();
const Study* find_study(std::string_view name);

} // namespace ladder::lab
