// The transpose study: for each matrix size, check every rung against the CPU reference, then
// time it in both of the seeds' modes (loop over launches, loop inside the kernel).
#include "transpose/reference.hpp"
#include "transpose/variants.hpp"

#include "core/harness.hpp"
#include "core/study.hpp"

#include <charconv>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ladder::lab {

namespace {

constexpr int in_kernel_reps = 10; // the seeds' NUM_REPS for the loop-in-kernel mode

Shape parse_shape(const std::string& text) {
  const auto x = text.find('x');
  Shape s;
  auto parse = [&](std::string_view part, std::int64_t& value) {
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    return ec == std::errc() && end == part.data() + part.size() && value > 0;
  };
  const std::string_view all(text);
  if (x == std::string::npos || !parse(all.substr(0, x), s.rows) || !parse(all.substr(x + 1), s.cols))
    throw std::invalid_argument("--size for transpose must be ROWSxCOLS with positive integers, got '" +
                                text + "'");
  return s;
}

struct Case {
  Shape shape;
  std::string note;
};

std::vector<Case> cases(const RunContext& ctx) {
  std::vector<Case> out;
  if (!ctx.options.sizes.empty()) {
    for (const auto& size : ctx.options.sizes)
      out.push_back({parse_shape(size), ""});
  } else if (ctx.options.small) {
    out = {{{256, 256}, "small"}, {{96, 160}, "small"}, {{67, 45}, "small, odd"}};
  } else {
    out = {{{16384, 16384}, "default: 2 GiB moved, far larger than the L2"},
           {{16383, 16385}, "odd shape: seed rungs and 16-byte rungs skip it"},
           {{2048, 2048}, "the seeds' size: 32 MiB moved, fits in today's L2"}};
  }
  for (auto& c : out) {
    const double bytes = 2.0 * c.shape.rows * c.shape.cols * sizeof(float);
    if (bytes < 4.0 * ctx.device.l2_bytes && c.note.find("L2") == std::string::npos)
      c.note += std::string(c.note.empty() ? "" : "; ") + "fits in L2 or nearly: cache speed, not DRAM";
  }
  return out;
}

Table run_case(const RunContext& ctx, const Case& c, Stream& stream) {
  const Shape s = c.shape;
  const auto n = static_cast<std::size_t>(s.rows * s.cols);
  std::ostringstream title;
  title << "transpose " << s.rows << " x " << s.cols << " float";
  Table table;
  table.study = "transpose";
  table.title = title.str();
  table.case_note = c.note;
  table.bytes_formula = "2 x rows x cols x 4 B";
  table.bytes_moved = 2.0 * static_cast<double>(n) * sizeof(float);
  table.measured_peak_gbs = ctx.measured_peak_gbs;
  table.theoretical_peak_gbs = ctx.device.theoretical_bandwidth_gbs();
  table.groups = {"loop over launches", "loop in kernel (x" + std::to_string(in_kernel_reps) + ")"};

  DeviceBuffer<float> in(n), out(n);
  const std::uint64_t seed = fresh_seed();
  fill_random<float>(in.data(), static_cast<std::int64_t>(n), seed, -1.0, 1.0, stream);
  PinnedBuffer<float> host_in(n), host_out(n);
  std::map<TransposeResult, std::vector<float>> expected; // each kind computed once per case
  LADDER_CUDA(cudaMemcpyAsync(host_in.data(), in.data(), n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  table.footnotes.push_back("random input seed " + std::to_string(seed));
  table.footnotes.push_back(
      "loop in kernel: each block re-reads the tile it has just read, so since Fermi's L1/L2 this "
      "column measures the caches, not DRAM (it can pass 100% of peak); the GTX 280 had no such "
      "caches, which is why the seeds' two columns agree");

  for (const TransposeVariant& v : transpose_variants()) {
    Row row;
    row.name = std::string(v.name);
    row.idea = std::string(v.idea);
    row.is_reference = v.is_reference;
    row.timings.resize(table.groups.size());
    if (const char* reason = v.unsupported(s)) {
      row.check = CheckStatus::skipped;
      row.note = reason;
      table.rows.push_back(std::move(row));
      continue;
    }
    ctx.say("  transpose " + std::to_string(s.rows) + "x" + std::to_string(s.cols) + ": " + row.name);
    // Correct first: poisoned output, one run, every element against the CPU.
    poison(out.data(), out.bytes(), stream);
    v.launch(in.data(), out.data(), s, 1, stream);
    check_launch(row.name.c_str());
    LADDER_CUDA(cudaMemcpyAsync(host_out.data(), out.data(), n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    LADDER_CUDA(cudaStreamSynchronize(stream));
    auto [slot, fresh] = expected.try_emplace(v.result);
    if (fresh) {
      slot->second.resize(n);
      cpu_expected(v.result, {host_in.data(), n}, slot->second, s, seed_tile);
    }
    const std::int64_t out_row = v.result == TransposeResult::copy || v.result == TransposeResult::tile_local_transpose
                                     ? s.cols : s.rows;
    const std::string mismatch = compare_exact({host_out.data(), n}, slot->second, out_row);
    if (!mismatch.empty()) {
      row.check = CheckStatus::wrong;
      row.note = mismatch;
      table.rows.push_back(std::move(row));
      continue;
    }
    row.check = CheckStatus::passed;
    row.timings[0] = time_launches([&](cudaStream_t st) { v.launch(in.data(), out.data(), s, 1, st); },
                                   stream, ctx.options.timing);
    if (v.loops_in_kernel) {
      TimingOptions inner = ctx.options.timing;
      inner.warmups = 1;
      row.timings[1] = time_launches(
          [&](cudaStream_t st) { v.launch(in.data(), out.data(), s, in_kernel_reps, st); }, stream,
          inner, in_kernel_reps);
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::vector<Table> run(const RunContext& ctx) {
  Stream stream;
  std::vector<Table> tables;
  for (const Case& c : cases(ctx))
    tables.push_back(run_case(ctx, c, stream));
  return tables;
}

std::vector<RungInfo> rungs() {
  std::vector<RungInfo> out;
  for (const TransposeVariant& v : transpose_variants())
    out.push_back({v.name, v.idea, v.seed, v.is_reference, v.kernel, v.block_threads, 0});
  return out;
}

} // namespace

const Study& transpose_study() {
  static const Study study{"transpose",
                           "Matrix transpose (float, out-of-place, row-major)",
                           "000_733e1357adff97a9.txt (transpose), 002_4fadac83e6783e26.txt",
                           rungs, run, nullptr};
  return study;
}

} // namespace ladder::lab
