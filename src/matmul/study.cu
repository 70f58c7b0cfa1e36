// The matrix multiplication study: for each shape, the CPU computes C in double precision (with
// sum |a| |b| per element, the scale of float rounding), every rung is checked against it with C
// poisoned first, then timed. FLOP/s = 2 m n k / time, against the FP32 FMA peak. The same
// inputs, stored transposed, give the tables of the other three transpose combinations (the
// product is the same, so is the reference). Then a sweep of cubes, ladder::gemm against
// cuBLAS, each point checked by Freivalds' test (C x against A (B x), O(n^2) on the CPU).
#include "matmul/reference.hpp"
#include "matmul/variants.hpp"

#include "core/protocol.hpp"
#include "core/sizes.hpp"
#include "core/study.hpp"
#include "ladder/transpose.hpp"

#include <cmath>
#include <random>

namespace ladder::lab::matmul {

namespace {

void check_size(std::string_view text) { (void)parse_extent3(text, "--size"); }

struct Case {
  Shape shape;
  std::string label;
  bool headline = false;
  bool all_transposes = false; // also the tables of A^T, B^T and both
};

std::vector<Case> cases(const RunContext& ctx) {
  std::vector<Case> out;
  if (!ctx.options.sizes.empty()) {
    for (const auto& size : ctx.options.sizes)
      out.push_back({parse_extent3(size, "--size"), ""});
    out.front().headline = true;
    out.front().all_transposes = true; // the first size also gives the A^T, B^T and both tables
  } else if (ctx.options.small) {
    out = {{{128, 128, 128}, "small", true},
           {{100, 100, 100}, "the course's 100 x 100 boundary-check example"},
           {{65, 33, 17}, "small, odd", false, true}};
  } else {
    out = {{{4096, 4096, 4096}, "default size", true, true},
           {{1000, 1000, 1000}, "not a multiple of any tile: the boundary checks at work"},
           {{4097, 4095, 4093}, "odd in every dimension (no 16-byte loads: rows misaligned)"},
           {{8192, 8192, 128}, "short k: the prologue and epilogue weigh"},
           {{65536, 64, 4096}, "tall and skinny"},
           {{64, 65536, 4096}, "short and wide"}};
  }
  return out;
}

std::string layout_suffix(const Problem& p) {
  if (p.untransposed())
    return "";
  if (p.trans_a == Trans::transpose && p.trans_b == Trans::transpose)
    return ", op(A) = A^T, op(B) = B^T";
  return p.trans_a == Trans::transpose ? ", op(A) = A^T" : ", op(B) = B^T";
}

const char* trans_name(Trans t) { return t == Trans::none ? "N" : "T"; }

// Inputs of one shape, shared by its tables: A and B on the device and the host, their
// transposed copies (made by ladder::transpose), and the CPU's product.
struct Inputs {
  DeviceBuffer<float> a, b, a_t, b_t;
  std::vector<float> host_a, host_b;
  Expected expected;
  std::uint64_t seed = 0;
};

Inputs make_inputs(const RunContext& ctx, Shape s, Stream& stream) {
  const auto a_count = static_cast<std::size_t>(s.m * s.k),
             b_count = static_cast<std::size_t>(s.k * s.n);
  Inputs in{DeviceBuffer<float>(a_count), DeviceBuffer<float>(b_count),
            DeviceBuffer<float>(a_count), DeviceBuffer<float>(b_count)};
  in.seed = fresh_seed();
  fill_random<float>(in.a.data(), static_cast<std::int64_t>(a_count), in.seed, -1.0, 1.0, stream);
  fill_random<float>(in.b.data(), static_cast<std::int64_t>(b_count),
                     in.seed ^ 0x9E3779B97F4A7C15ull, -1.0, 1.0, stream);
  ladder::transpose(in.a.data(), in.a_t.data(), s.m, s.k, stream);
  ladder::transpose(in.b.data(), in.b_t.data(), s.k, s.n, stream);
  in.host_a.resize(a_count);
  in.host_b.resize(b_count);
  LADDER_CUDA(cudaMemcpyAsync(in.host_a.data(), in.a.data(), in.a.bytes(), cudaMemcpyDeviceToHost,
                              stream));
  LADDER_CUDA(cudaMemcpyAsync(in.host_b.data(), in.b.data(), in.b.bytes(), cudaMemcpyDeviceToHost,
                              stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  ctx.say("  matmul " + extent3_label(s) + ": the CPU reference (double precision)");
  in.expected = cpu_matmul(in.host_a, in.host_b, s.m, s.n, s.k);
  return in;
}

Table run_table(const RunContext& ctx, const Case& c, const Problem& problem, const Inputs& in,
                Stream& stream) {
  const Shape s = c.shape;
  const auto a_count = static_cast<std::size_t>(s.m * s.k),
             b_count = static_cast<std::size_t>(s.k * s.n),
             c_count = static_cast<std::size_t>(s.m * s.n);
  Table table;
  table.study = "matmul";
  table.title = "matmul " + extent3_label(s) + " float" + layout_suffix(problem);
  table.case_label = c.label;
  table.headline = c.headline && problem.untransposed();
  table.params = {{"m", s.m},
                  {"n", s.n},
                  {"k", s.k},
                  {"type", "float"},
                  {"trans_a", trans_name(problem.trans_a)},
                  {"trans_b", trans_name(problem.trans_b)}};
  table.work.elements = static_cast<double>(c_count);
  table.work.flops =
      2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
  table.work.bytes_read = 4.0 * static_cast<double>(a_count + b_count);
  table.work.bytes_written = 4.0 * static_cast<double>(c_count);
  table.work.formula = "2 x m x n x k";
  table.peak = ctx.peak(Bound::fp32_fma);
  table.groups = {"loop over launches"};
  table.params["seed"] = in.seed;
  table.footnotes.push_back("random input seed " + std::to_string(in.seed) +
                            ", A and B uniform in [-1, 1)");
  table.footnotes.push_back(
      "the check: |c - exact| <= (gamma_k + 2 x input rounding) x sum |a| |b| per element, "
      "gamma_k = k u / (1 - k u), u = 2^-24 (any order of k float products and sums)");

  DeviceBuffer<float> out(c_count);
  PinnedBuffer<float> host_out(c_count);
  const Operands operands{problem.trans_a == Trans::none ? in.a.data() : in.a_t.data(),
                          problem.trans_b == Trans::none ? in.b.data() : in.b_t.data(),
                          in.b_t.data(), out.data(), problem};
  for_each_shown_rung(ctx, registry(), table, [&](const Rung& rung, Row& row) {
    const auto check = [&](cudaStream_t st) {
      return check_output(
          out.data(), c_count, host_out, [&](cudaStream_t l) { rung.launch(operands, l); },
          [&](std::span<const float> got) {
            return compare_within_bound(got, in.expected, s.n, s.k, rung.input_rounding);
          },
          st, row.name);
    };
    measure_rung(ctx, table.title, row, rung.unsupported(problem), check,
                 {{0, [&](cudaStream_t st) { rung.launch(operands, st); }, ctx.options.timing}},
                 stream);
  });
  return table;
}

// Freivalds' test of a product too large for the CPU to redo: with x random (|x_j| in [1/2, 1],
// random signs), C x must match A (B x) within gamma_k x |A| (|B| |x|) per row, in double
// precision. An element wrong by more than its own bound shows up unless the other errors of its
// row cancel it; NaN (an unwritten, poisoned element) always does.
struct Freivalds {
  std::vector<double> x, want, bound;
};

Freivalds freivalds_reference(const std::vector<float>& a, const std::vector<float>& b, Shape s,
                              std::uint64_t seed) {
  Freivalds f;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> magnitude(0.5, 1.0);
  f.x.resize(static_cast<std::size_t>(s.n));
  for (double& v : f.x)
    v = (rng() & 1 ? 1 : -1) * magnitude(rng);
  std::vector<double> bx(static_cast<std::size_t>(s.k), 0), abx(static_cast<std::size_t>(s.k), 0);
  for (std::int64_t r = 0; r < s.k; ++r)
    for (std::int64_t j = 0; j < s.n; ++j) {
      const double v = b[static_cast<std::size_t>(r * s.n + j)];
      bx[static_cast<std::size_t>(r)] += v * f.x[static_cast<std::size_t>(j)];
      abx[static_cast<std::size_t>(r)] += std::fabs(v) * std::fabs(f.x[static_cast<std::size_t>(j)]);
    }
  const double u = 0x1p-24, ku = static_cast<double>(s.k) * u, gamma = ku / (1 - ku);
  f.want.assign(static_cast<std::size_t>(s.m), 0);
  f.bound.assign(static_cast<std::size_t>(s.m), 0);
  for (std::int64_t i = 0; i < s.m; ++i) {
    double sum = 0, scale = 0;
    for (std::int64_t r = 0; r < s.k; ++r) {
      const double v = a[static_cast<std::size_t>(i * s.k + r)];
      sum += v * bx[static_cast<std::size_t>(r)];
      scale += std::fabs(v) * abx[static_cast<std::size_t>(r)];
    }
    f.want[static_cast<std::size_t>(i)] = sum;
    // gamma_k for the float product, plus a margin for the double sums here (n + k terms).
    f.bound[static_cast<std::size_t>(i)] =
        (gamma + 4 * static_cast<double>(s.n + s.k) * 0x1p-53) * scale;
  }
  return f;
}

std::string freivalds_compare(const std::vector<float>& c, const Freivalds& f, Shape s) {
  for (std::int64_t i = 0; i < s.m; ++i) {
    double cx = 0;
    for (std::int64_t j = 0; j < s.n; ++j)
      cx += static_cast<double>(c[static_cast<std::size_t>(i * s.n + j)]) *
            f.x[static_cast<std::size_t>(j)];
    const double error = std::fabs(cx - f.want[static_cast<std::size_t>(i)]);
    if (!(error <= f.bound[static_cast<std::size_t>(i)]))
      return "row " + std::to_string(i) + ": C x differs from A (B x) by " + std::to_string(error) +
             " (bound " + std::to_string(f.bound[static_cast<std::size_t>(i)]) + ")";
  }
  return "";
}

Sweep sweep(const RunContext& ctx, int from_log2, int to_log2, Stream& stream) {
  const Rung* library = nullptr;
  const Rung* vendor = nullptr;
  for (const Rung& rung : registry()) {
    if (rung.info.role == Role::library)
      library = &rung;
    else if (rung.info.role == Role::reference && rung.info.vendor)
      vendor = &rung;
  }
  Sweep out;
  out.study = "matmul";
  out.title = "matmul sweep (float, n^3): ladder::gemm vs cublasSgemm";
  out.parameter = "n";
  out.series = {{"ladder::gemm", Role::library}, {"cublasSgemm", Role::reference}};
  out.ratios = {{"x cuBLAS", 0, 1}};
  out.footnotes.push_back("each point checked by Freivalds' test: C x against A (B x) in double "
                          "precision, within gamma_k x |A| (|B| |x|) per row");
  for (int e = from_log2; e <= to_log2; ++e) {
    const std::int64_t n = std::int64_t{1} << e;
    const Shape s{n, n, n};
    const auto count = static_cast<std::size_t>(n * n);
    DeviceBuffer<float> a(count), b(count), c(count);
    const std::uint64_t seed = fresh_seed();
    fill_random<float>(a.data(), n * n, seed, -1.0, 1.0, stream);
    fill_random<float>(b.data(), n * n, seed ^ 0x9E3779B97F4A7C15ull, -1.0, 1.0, stream);
    std::vector<float> host_a(count), host_b(count), host_c(count);
    LADDER_CUDA(cudaMemcpyAsync(host_a.data(), a.data(), a.bytes(), cudaMemcpyDeviceToHost, stream));
    LADDER_CUDA(cudaMemcpyAsync(host_b.data(), b.data(), b.bytes(), cudaMemcpyDeviceToHost, stream));
    LADDER_CUDA(cudaStreamSynchronize(stream));
    const Freivalds f = freivalds_reference(host_a, host_b, s, seed);
    const Operands operands{a.data(), b.data(), nullptr, c.data(), Problem{s}};
    SweepPoint point{n, count_label(n), {}, {}};
    for (const Rung* rung : {library, vendor}) {
      Row row = make_row(rung->info, "", 1);
      const auto check = [&](cudaStream_t st) {
        poison(c.data(), c.bytes(), st);
        rung->launch(operands, st);
        check_launch(rung->info.name.data());
        LADDER_CUDA(cudaMemcpyAsync(host_c.data(), c.data(), c.bytes(), cudaMemcpyDeviceToHost, st));
        LADDER_CUDA(cudaStreamSynchronize(st));
        return freivalds_compare(host_c, f, s);
      };
      measure_rung(ctx, "matmul sweep n = " + count_label(n), row, rung->unsupported(operands.problem),
                   check, {{0, [&](cudaStream_t st) { rung->launch(operands, st); }, ctx.options.timing}},
                   stream);
      point.times.push_back(row.timings[0]);
      point.checks.push_back(row.check);
    }
    out.points.push_back(std::move(point));
  }
  return out;
}

StudyResults run(const RunContext& ctx) {
  Stream stream;
  StudyResults results;
  for (const Case& c : cases(ctx)) {
    const Inputs in = make_inputs(ctx, c.shape, stream);
    std::vector<Problem> problems = {{c.shape}};
    if (c.all_transposes)
      for (const auto& [ta, tb] : {std::pair{Trans::transpose, Trans::none},
                                   std::pair{Trans::none, Trans::transpose},
                                   std::pair{Trans::transpose, Trans::transpose}})
        problems.push_back({c.shape, ta, tb});
    for (const Problem& p : problems)
      results.tables.push_back(run_table(ctx, c, p, in, stream));
  }
  if (ctx.options.sizes.empty())
    results.sweeps.push_back(ctx.options.small ? sweep(ctx, 6, 8, stream)
                                               : sweep(ctx, 7, 14, stream));
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
      .size_syntax = "MxNxK or N (a cube); the first size also gets the transposed tables"};
  return s;
}

} // namespace ladder::lab::matmul
