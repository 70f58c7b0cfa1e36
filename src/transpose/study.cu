// The transpose study: for each matrix size, check every rung against the CPU reference, then
// time it in both of the course's modes (loop over launches, loop inside the kernel).
#include "transpose/reference.hpp"
#include "transpose/variants.hpp"

#include "core/protocol.hpp"
#include "core/sizes.hpp"
#include "core/study.hpp"

#include <algorithm>
#include <cstddef>
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

// --- element sizes -----------------------------------------------------------------------------

std::string element_type_name(int bytes) {
  switch (bytes) {
  case 1: return "1-byte (int8)";
  case 2: return "2-byte (half)";
  case 4: return "4-byte (float)";
  case 8: return "8-byte (double)";
  default: return "16-byte (double2)";
  }
}

// One matrix of 1 GiB per element size (2 GiB moved, far past the L2), as square as powers of
// two allow: 8-byte elements at 8192 x 16384, the shape the library is held to against
// cublasDgeam. --small: a shape every aligned kernel takes (multiples of 16 elements), tiles
// partly outside it.
Shape element_shape(const RunContext& ctx, int bytes) {
  if (ctx.options.small)
    return {208, 144};
  switch (bytes) {
  case 1: return {32768, 32768};
  case 2: return {16384, 32768};
  case 4: return {16384, 16384};
  case 8: return {8192, 16384};
  default: return {8192, 8192};
  }
}

// The element-size table for `bytes`: every shown row of the element registry, checked bytewise
// against the CPU and timed.
Table run_element_case(const RunContext& ctx, int bytes, Stream& stream) {
  const Shape s = element_shape(ctx, bytes);
  const auto n = static_cast<std::size_t>(s.rows * s.cols);
  const std::size_t total = n * static_cast<std::size_t>(bytes);
  Table table;
  table.study = "transpose";
  table.title = "transpose " + extent_label(s) + ", " + element_type_name(bytes) + " elements";
  table.params = {{"rows", s.rows}, {"cols", s.cols}, {"element_bytes", bytes}};
  table.work.elements = static_cast<double>(n);
  table.work.bytes_read = table.work.bytes_written = static_cast<double>(total);
  table.work.formula = "2 x rows x cols x " + std::to_string(bytes) + " B";
  table.peak = ctx.peak(Bound::dram_copy);
  table.groups = {"loop over launches"};
  if (2.0 * static_cast<double>(total) < 4.0 * static_cast<double>(ctx.device.l2_bytes))
    table.case_label = "fits in L2 or nearly: cache speed, not DRAM";

  // Random 32-bit words below 2^30: every element size sees random bytes, and with bits 30 and 31
  // clear every float and double read from them is finite, so cublas?geam (alpha x A + 0 x B,
  // which turns any NaN into the canonical NaN) returns the same bits as a transpose.
  DeviceBuffer<std::uint32_t> in(total / 4), out(total / 4);
  const std::uint64_t seed = fresh_seed();
  fill_random<std::uint32_t>(in.data(), static_cast<std::int64_t>(total / 4), seed, 1.0,
                             1073741823.0, stream);
  PinnedBuffer<std::byte> host_in(total), host_out(total);
  LADDER_CUDA(cudaMemcpyAsync(host_in.data(), in.data(), total, cudaMemcpyDeviceToHost, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  std::vector<std::byte> transposed;
  const std::span<const std::byte> input(host_in.data(), total);
  table.params["seed"] = seed; // replays the input: fill_random<uint32>(seed, bytes / 4, 1, 2^30 - 1)
  table.footnotes.push_back("random input seed " + std::to_string(seed) +
                            " (random 30-bit words: random bytes for every element size, finite floats)");

  for_each_shown_rung(ctx, element_registry(), table, [&](const ElementRung& rung, Row& row) {
    const auto check = [&](cudaStream_t st) {
      poison(out.data(), total, st);
      rung.launch(in.data(), out.data(), s, bytes, st);
      check_launch(row.name.c_str());
      LADDER_CUDA(cudaMemcpyAsync(host_out.data(), out.data(), total, cudaMemcpyDeviceToHost, st));
      LADDER_CUDA(cudaStreamSynchronize(st));
      const std::span<const std::byte> got(host_out.data(), total);
      if (rung.result == Result::copy)
        return compare_elements(got, input, bytes, s.cols);
      if (transposed.empty()) {
        transposed.resize(total);
        cpu_transpose_bytes(input, transposed, s.rows, s.cols, bytes);
      }
      return compare_elements(got, transposed, bytes, s.rows);
    };
    measure_rung(ctx, "transpose " + extent_label(s) + " " + std::to_string(bytes) + " B", row,
                 rung.unsupported(s, bytes), check,
                 {{0, [&](cudaStream_t st) { rung.launch(in.data(), out.data(), s, bytes, st); },
                   ctx.options.timing}},
                 stream);
  });
  return table;
}

// The element-size sweep from the element tables: one row per element size, the library call
// beside the copy of the same bytes and cuBLAS geam.
Sweep element_sweep(const std::vector<Table>& tables) {
  Sweep sw;
  sw.study = "transpose";
  sw.title = "transpose by element size: ladder::transpose, cudaMemcpy of the same bytes, cuBLAS geam";
  sw.parameter = "element bytes";
  // The copy is the bound, not a vendor: its series is kept out of the summary's "x vendor" range.
  sw.series = {{"ladder", Role::library}, {"cudaMemcpy", Role::seed}, {"cuBLAS geam", Role::reference}};
  sw.ratios = {{"x copy", 0, 1}, {"x cuBLAS", 0, 2}};
  for (const Table& t : tables) {
    const int bytes = t.params["element_bytes"].get<int>();
    SweepPoint point{bytes, std::to_string(bytes) + " B, " + extent_label({t.params["rows"].get<std::int64_t>(), t.params["cols"].get<std::int64_t>()}), {}, {}};
    for (const char* name : {"ladder::transpose", "cudaMemcpy", "cublas_geam"}) {
      const auto row = std::find_if(t.rows.begin(), t.rows.end(),
                                    [&](const Row& r) { return r.name == name; });
      point.times.push_back(row == t.rows.end() ? std::nullopt : row->timings[0]);
      point.checks.push_back(row == t.rows.end() ? CheckStatus::skipped : row->check);
    }
    sw.points.push_back(std::move(point));
  }
  sw.footnotes.push_back("each matrix 1 GiB (2 GiB moved); x copy: the copy's time over the "
                         "library's (1.00 = the bound); geam: cublasSgeam, cublasDgeam, "
                         "cublasZgeam for 4, 8, 16 bytes (cuBLAS has none for 1 or 2)");
  return sw;
}

StudyResults run(const RunContext& ctx) {
  Stream stream;
  StudyResults results;
  for (const Case& c : cases(ctx))
    results.tables.push_back(run_case(ctx, c, stream));
  if (ctx.options.sizes.empty()) {
    // The tables hold only the library and the references unless --all shows the tuning
    // shapes; without --all only the sweep made from them is shown.
    std::vector<Table> by_size;
    for (const int bytes : element_sizes)
      by_size.push_back(run_element_case(ctx, bytes, stream));
    results.sweeps.push_back(element_sweep(by_size));
    if (ctx.options.all)
      for (Table& t : by_size)
        results.tables.push_back(std::move(t));
  }
  return results;
}

std::vector<RungInfo> rung_infos() {
  std::vector<RungInfo> out = infos_of(registry());
  for (const ElementRung& r : element_registry())
    if (r.info.role == Role::variant)
      out.push_back(r.info);
  return out;
}

} // namespace

const Study& study() {
  static const Study s{.name = "transpose",
                       .title = "Matrix transpose (float, out-of-place, row-major)",
                       .course =
                           "\"Optimizing CUDA code\" (Moreno Maza, UWO CS4402), after NVIDIA's "
                           "\"Optimizing Matrix Transpose in CUDA\" (Ruetsch and Micikevicius)",
                       .rungs = rung_infos,
                       .run = run,
                       .check_size = check_size,
                       .size_syntax = "ROWSxCOLS"};
  return s;
}

} // namespace ladder::lab::transpose
