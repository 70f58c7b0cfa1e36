// The transpose study: for each matrix size, check every rung against the CPU reference, then
// time it in both of the course's modes (loop over launches, loop inside the kernel).
#include "transpose/reference.hpp"
#include "transpose/variants.hpp"

#include "core/protocol.hpp"
#include "core/sizes.hpp"
#include "core/study.hpp"

#include <map>

namespace ladder::lab::transpose {

namespace {

constexpr int in_kernel_reps = 10; // the course's NUM_REPS for the loop-in-kernel mode

void check_size(std::string_view text) { (void)parse_extent(text, "--size"); }

struct Case {
  Shape shape;
  std::string label;
  bool headline = false;
};

std::vector<Case> cases(const RunContext& ctx) {
  std::vector<Case> out;
  if (!ctx.options.sizes.empty()) {
    for (const auto& size : ctx.options.sizes)
      out.push_back({parse_extent(size, "--size"), ""});
    out.front().headline = true;
  } else if (ctx.options.small) {
    out = {{{256, 256}, "small", true}, {{96, 160}, "small"}, {{67, 45}, "small, odd"}};
  } else {
    out = {{{16384, 16384}, "default size: 2 GiB moved, far larger than the L2", true},
           {{2048, 2048}, "the course's size: 32 MiB moved, fits in today's L2"}};
    if (ctx.options.all)
      out.push_back(
          {{16383, 16385}, "odd shape: the course's and the aligned 16-byte rungs skip it"});
  }
  for (auto& c : out) {
    const double bytes = 2.0 * static_cast<double>(c.shape.rows * c.shape.cols) * sizeof(float);
    if (bytes < 4.0 * static_cast<double>(ctx.device.l2_bytes) &&
        c.label.find("L2") == std::string::npos)
      c.label +=
          std::string(c.label.empty() ? "" : "; ") + "fits in L2 or nearly: cache speed, not DRAM";
  }
  return out;
}

// The row length of a result (the output's leading dimension) for the mismatch report.
std::int64_t output_row_length(Result result, Shape s) {
  return result == Result::copy || result == Result::tile_local_transpose ? s.cols : s.rows;
}

Table run_case(const RunContext& ctx, const Case& c, Stream& stream) {
  const Shape s = c.shape;
  const auto n = static_cast<std::size_t>(s.rows * s.cols);
  Table table;
  table.study = "transpose";
  table.title = "transpose " + extent_label(s) + " float";
  table.case_label = c.label;
  table.headline = c.headline;
  table.params = {{"rows", s.rows}, {"cols", s.cols}, {"type", "float"}};
  table.work.elements = static_cast<double>(n);
  table.work.bytes_read = table.work.bytes_written = static_cast<double>(n) * sizeof(float);
  table.work.formula = "2 x rows x cols x 4 B";
  table.peak = ctx.peak(Bound::dram_copy);
  table.groups = {"loop over launches", "loop in kernel (x" + std::to_string(in_kernel_reps) + ")"};

  DeviceBuffer<float> in(n), out(n);
  const std::uint64_t seed = fresh_seed();
  fill_random<float>(in.data(), static_cast<std::int64_t>(n), seed, -1.0, 1.0, stream);
  PinnedBuffer<float> host_in(n), host_out(n);
  copy_to_host(host_in, in.data(), n, stream);
  std::map<Result, std::vector<float>> expected; // each kind computed once per case
  table.params["seed"] = seed; // replays the input: fill_random(seed, rows x cols)
  table.footnotes.push_back("random input seed " + std::to_string(seed));
  table.footnotes.push_back(
      "loop in kernel: each block re-reads the tile it has just read, so since Fermi's L1/L2 this "
      "column measures the caches, not DRAM (it can pass 100% of peak); the GTX 280 had no such "
      "caches, which is why the course's two columns agree");

  for_each_shown_rung(ctx, registry(), table, [&](const Rung& rung, Row& row) {
    const auto check = [&](cudaStream_t st) {
      return check_output(
          out.data(), n, host_out,
          [&](cudaStream_t l) { rung.launch(in.data(), out.data(), s, 1, l); },
          [&](std::span<const float> got) {
            auto [slot, fresh] = expected.try_emplace(rung.result);
            if (fresh) {
              slot->second.resize(n);
              cpu_expected(rung.result, {host_in.data(), n}, slot->second, s, seed_tile);
            }
            return compare_exact(got, slot->second, output_row_length(rung.result, s));
          },
          st, row.name);
    };
    TimingOptions in_kernel = ctx.options.timing;
    in_kernel.warmups = 1;
    std::vector<TimedMode> modes = {
        {0, [&](cudaStream_t st) { rung.launch(in.data(), out.data(), s, 1, st); },
         ctx.options.timing}};
    if (rung.loops_in_kernel)
      modes.push_back(
          {1, [&](cudaStream_t st) { rung.launch(in.data(), out.data(), s, in_kernel_reps, st); },
           in_kernel, in_kernel_reps});
    measure_rung(ctx, "transpose " + extent_label(s), row, rung.unsupported(s), check, modes,
                 stream);
  });
  return table;
}

StudyResults run(const RunContext& ctx) {
  Stream stream;
  StudyResults results;
  for (const Case& c : cases(ctx))
    results.tables.push_back(run_case(ctx, c, stream));
  return results;
}

} // namespace

const Study& study() {
  static const Study s{.name = "transpose",
                       .title = "Matrix transpose (float, out-of-place, row-major)",
                       .course =
                           "\"Optimizing CUDA code\" (Moreno Maza, UWO CS4402), after NVIDIA's "
                           "\"Optimizing Matrix Transpose in CUDA\" (Ruetsch and Micikevicius)",
                       .rungs = registry_infos<registry>,
                       .run = run,
                       .check_size = check_size,
                       .size_syntax = "ROWSxCOLS"};
  return s;
}

} // namespace ladder::lab::transpose
