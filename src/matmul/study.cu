// The matrix multiplication study: for each shape, the CPU computes C in double precision (with
// sum |a| |b| per element, the scale of float rounding), every rung is checked against it with C
// poisoned first, then timed. FLOP/s = 2 m n k / time, against the FP32 FMA peak.
#include "matmul/reference.hpp"
#include "matmul/variants.hpp"

#include "core/protocol.hpp"
#include "core/sizes.hpp"
#include "core/study.hpp"

namespace ladder::lab::matmul {

namespace {

void check_size(std::string_view text) { (void)parse_extent3(text, "--size"); }

struct Case {
  Shape shape;
  std::string label;
  bool headline = false;
};

std::vector<Case> cases(const RunContext& ctx) {
  std::vector<Case> out;
  if (!ctx.options.sizes.empty()) {
    for (const auto& size : ctx.options.sizes)
      out.push_back({parse_extent3(size, "--size"), ""});
    out.front().headline = true;
  } else if (ctx.options.small) {
    out = {{{128, 128, 128}, "small", true},
           {{100, 100, 100}, "the course's 100 x 100 boundary-check example"},
           {{65, 33, 17}, "small, odd"}};
  } else {
    out = {{{4096, 4096, 4096}, "default size", true},
           {{1000, 1000, 1000}, "not a multiple of any tile: the boundary checks at work"}};
    if (ctx.options.all)
      out.push_back({{4097, 4095, 4093}, "odd in every dimension"});
  }
  return out;
}

Table run_case(const RunContext& ctx, const Case& c, Stream& stream) {
  const Shape s = c.shape;
  const auto a_count = static_cast<std::size_t>(s.m * s.k),
             b_count = static_cast<std::size_t>(s.k * s.n),
             c_count = static_cast<std::size_t>(s.m * s.n);
  Table table;
  table.study = "matmul";
  table.title = "matmul " + extent3_label(s) + " float";
  table.case_label = c.label;
  table.headline = c.headline;
  table.params = {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"type", "float"}};
  table.work.elements = static_cast<double>(c_count);
  table.work.flops =
      2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
  table.work.bytes_read = 4.0 * static_cast<double>(a_count + b_count);
  table.work.bytes_written = 4.0 * static_cast<double>(c_count);
  table.work.formula = "2 x m x n x k";
  table.peak = ctx.peak(Bound::fp32_fma);
  table.groups = {"loop over launches"};

  DeviceBuffer<float> a(a_count), b(b_count), b_transposed(b_count), out(c_count);
  const std::uint64_t seed = fresh_seed();
  fill_random<float>(a.data(), static_cast<std::int64_t>(a_count), seed, -1.0, 1.0, stream);
  fill_random<float>(b.data(), static_cast<std::int64_t>(b_count), seed ^ 0x9E3779B97F4A7C15ull,
                     -1.0, 1.0, stream);
  PinnedBuffer<float> host_a(a_count), host_b(b_count), host_out(c_count);
  copy_to_host(host_a, a.data(), a_count, stream);
  copy_to_host(host_b, b.data(), b_count, stream);
  std::vector<float> transposed(b_count);
  for (std::int64_t i = 0; i < s.k; ++i)
    for (std::int64_t j = 0; j < s.n; ++j)
      transposed[static_cast<std::size_t>(j * s.k + i)] =
          host_b[static_cast<std::size_t>(i * s.n + j)];
  LADDER_CUDA(cudaMemcpyAsync(b_transposed.data(), transposed.data(), b_count * sizeof(float),
                              cudaMemcpyHostToDevice, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  ctx.say("  matmul " + extent3_label(s) + ": the CPU reference (double precision)");
  const Expected expected =
      cpu_matmul({host_a.data(), a_count}, {host_b.data(), b_count}, s.m, s.n, s.k);
  table.params["seed"] = seed;
  table.footnotes.push_back("random input seed " + std::to_string(seed) +
                            ", A and B uniform in [-1, 1)");
  table.footnotes.push_back(
      "the check: |c - exact| <= (gamma_k + 2 x input rounding) x sum |a| |b| per element, "
      "gamma_k = k u / (1 - k u), u = 2^-24 (any order of k float products and sums)");

  const Operands operands{a.data(), b.data(), b_transposed.data(), out.data(), s};
  for_each_shown_rung(ctx, registry(), table, [&](const Rung& rung, Row& row) {
    const auto check = [&](cudaStream_t st) {
      return check_output(
          out.data(), c_count, host_out, [&](cudaStream_t l) { rung.launch(operands, l); },
          [&](std::span<const float> got) {
            return compare_within_bound(got, expected, s.n, s.k, rung.input_rounding);
          },
          st, row.name);
    };
    measure_rung(ctx, "matmul " + extent3_label(s), row, rung.unsupported(s), check,
                 {{0, [&](cudaStream_t st) { rung.launch(operands, st); }, ctx.options.timing}},
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
  static const Study s{
      .name = "matmul",
      .title = "Tiled matrix multiplication (float, row-major) and thread coarsening",
      .course =
          "\"GPU architecture and programming\", lecture 3 (UCAS), and \"Programming Massively "
          "Parallel Processors\" (Hwu, Kirk, El Hajj), chapters 5 and 6",
      .rungs = registry_infos<registry>,
      .run = run,
      .check_size = check_size,
      .size_syntax = "MxNxK or N (a cube)",
      .not_in_default_run = "its kernels have not yet been checked and timed on a GPU; "
                            "`ladder run matmul` runs it"};
  return s;
}

} // namespace ladder::lab::matmul
