// GPU tests of ladder::gemm against a double-precision CPU product: every transpose combination
// x awkward shapes (1, primes, non-multiples of every tile, k = 1, shapes that split k) x leading
// dimensions (packed and padded) x pointer offsets (16-byte aligned and one float off) x beta in
// {0, 1, -0.5}. C starts as random values, or NaN when beta is 0 (BLAS: C is then not read); the
// padding between C's rows must come back untouched. The error bound is the float dot product's,
// gamma_k x |alpha| x sum |a| |b| (Higham 3.1), plus one rounding of each term of alpha AB + beta C.
#include "gpu_test.hpp"

#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "ladder/gemm.hpp"
#include "matmul/gemm_packing.hpp"
#include "matmul/gemm_plan.hpp"
#include "matmul/gemm_policies.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace ladder::test {
namespace {

using lab::DeviceBuffer;

struct Case {
  std::int64_t m, n, k;
  Trans ta, tb;
  std::int64_t pad;   // added to every leading dimension
  std::int64_t shift; // elements added to every pointer (1: only 4-byte aligned)
  float alpha, beta;
};

std::string describe(const Case& c) {
  char text[200];
  std::snprintf(text, sizeof text, "%lld x %lld x %lld, %c%c, pad %lld, shift %lld, alpha %g, beta %g",
                static_cast<long long>(c.m), static_cast<long long>(c.n),
                static_cast<long long>(c.k), c.ta == Trans::none ? 'N' : 'T',
                c.tb == Trans::none ? 'N' : 'T', static_cast<long long>(c.pad),
                static_cast<long long>(c.shift), c.alpha, c.beta);
  return text;
}

// Runs one case on `stream` through launch(a, lda, b, ldb, c, ldc) and returns "" or the first
// mismatch.
template <class Launch>
std::string run_case_with(const Case& c, cudaStream_t stream, std::uint64_t seed, Launch&& launch) {
  const bool at = c.ta == Trans::transpose, bt = c.tb == Trans::transpose;
  const std::int64_t a_rows = at ? c.k : c.m, a_cols = at ? c.m : c.k;
  const std::int64_t b_rows = bt ? c.n : c.k, b_cols = bt ? c.k : c.n;
  const std::int64_t lda = std::max<std::int64_t>(a_cols, 1) + c.pad,
                     ldb = std::max<std::int64_t>(b_cols, 1) + c.pad,
                     ldc = std::max<std::int64_t>(c.n, 1) + c.pad;
  const auto a_size = static_cast<std::size_t>(a_rows * lda + c.shift),
             b_size = static_cast<std::size_t>(b_rows * ldb + c.shift),
             c_size = static_cast<std::size_t>(c.m * ldc + c.shift);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> ha(a_size), hb(b_size), hc(c_size);
  for (auto& v : ha)
    v = value(rng);
  for (auto& v : hb)
    v = value(rng);
  for (auto& v : hc)
    v = c.beta == 0.0f ? std::nanf("") : value(rng);
  DeviceBuffer<float> da(std::max<std::size_t>(a_size, 1)), db(std::max<std::size_t>(b_size, 1)),
      dc(std::max<std::size_t>(c_size, 1));
  if (a_size)
    EXPECT_EQ(cudaMemcpy(da.data(), ha.data(), a_size * 4, cudaMemcpyHostToDevice), cudaSuccess);
  if (b_size)
    EXPECT_EQ(cudaMemcpy(db.data(), hb.data(), b_size * 4, cudaMemcpyHostToDevice), cudaSuccess);
  if (c_size)
    EXPECT_EQ(cudaMemcpy(dc.data(), hc.data(), c_size * 4, cudaMemcpyHostToDevice), cudaSuccess);
  launch(da.data() + c.shift, lda, db.data() + c.shift, ldb, dc.data() + c.shift, ldc);
  std::vector<float> got(c_size);
  if (c_size)
    EXPECT_EQ(cudaMemcpyAsync(got.data(), dc.data(), c_size * 4, cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);

  const float* a = ha.data() + c.shift;
  const float* b = hb.data() + c.shift;
  const double u = 0x1p-24, ku = static_cast<double>(c.k) * u, gamma = ku / (1 - ku);
  for (std::int64_t i = 0; i < c.m; ++i)
    for (std::int64_t j = 0; j < ldc; ++j) {
      const auto at_c = static_cast<std::size_t>(c.shift + i * ldc + j);
      if (j >= c.n) { // row padding: untouched (NaN compares by bits)
        if (std::memcmp(&got[at_c], &hc[at_c], 4) != 0)
          return "padding of C written at row " + std::to_string(i) + ", column " +
                 std::to_string(j);
        continue;
      }
      double sum = 0, scale = 0;
      for (std::int64_t r = 0; r < c.k; ++r) {
        const double x = a[at ? r * lda + i : i * lda + r], y = b[bt ? j * ldb + r : r * ldb + j];
        sum += x * y;
        scale += std::fabs(x * y);
      }
      const double old = c.beta == 0.0f ? 0.0 : hc[at_c];
      const double want = c.alpha * sum + c.beta * old;
      const double bound = (gamma + 2 * u) * std::fabs(c.alpha) * scale +
                           2 * u * std::fabs(c.beta * old) + 2 * u * std::fabs(want);
      const double error = std::fabs(got[at_c] - want);
      if (!(error <= bound))
        return "C(" + std::to_string(i) + ", " + std::to_string(j) + ") = " +
               std::to_string(got[at_c]) + ", expected " + std::to_string(want) + " (bound " +
               std::to_string(bound) + ")";
    }
  return "";
}

// One case through ladder::gemm, or with `packing` through the library's entry that takes the
// packing as given.
std::string run_case(const Case& c, cudaStream_t stream, std::uint64_t seed,
                     const gemm_detail::Packing* packing = nullptr) {
  return run_case_with(c, stream, seed,
                       [&](const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                           float* out, std::int64_t ldc) {
                         if (packing)
                           gemm_detail::gemm_f32_packed(
                               {c.ta, c.tb, c.m, c.n, c.k, c.alpha, a, lda, b, ldb, c.beta, out, ldc},
                               *packing, stream);
                         else
                           ladder::gemm<float>(c.ta, c.tb, c.m, c.n, c.k, c.alpha, a, lda, b, ldb,
                                               c.beta, out, ldc, stream);
                       });
}

struct Shape3 {
  std::int64_t m, n, k;
};

std::vector<Shape3> shapes() {
  // 256 x 256 is whole tiles of every tile shape: the kernels without edge masks (the launch
  // picks them when m and n are whole tiles), with a partial last k-step.
  if (small_mode()) // under the sanitizers: an edge tile in every dimension, k = 1, a split k
    return {{7, 5, 3}, {129, 130, 17}, {64, 48, 1}, {70, 40, 600}, {256, 256, 45}};
  return {{1, 1, 1},     {7, 5, 3},       {33, 65, 31},     {129, 130, 17},
          {1, 257, 64},  {257, 1, 64},    {64, 48, 1},      {200, 136, 1031},
          {513, 255, 129}, {131, 1031, 67}, {256, 256, 45}};
}

TEST(Gemm, EveryTransposeShapeLeadingDimensionAlignmentAndBeta) {
  lab::Stream stream;
  std::uint64_t seed = lab::fresh_seed();
  int cases = 0;
  for (Trans ta : {Trans::none, Trans::transpose})
    for (Trans tb : {Trans::none, Trans::transpose})
      for (const Shape3 s : shapes())
        for (std::int64_t pad : {0, 3})
          for (std::int64_t shift : {0, 1})
            for (float beta : {0.0f, 1.0f, -0.5f}) {
              if (small_mode() && beta == 1.0f)
                continue; // under the sanitizers: fewer combinations, each layout still covered
              const Case c{s.m, s.n, s.k, ta, tb, pad, shift, 1.5f, beta};
              EXPECT_EQ(run_case(c, stream, ++seed), "") << describe(c);
              ++cases;
            }
  EXPECT_GT(cases, small_mode() ? 60 : 400);
}

// Every packing the library can take (gemm_packing.hpp: an operand transposed or repitched into
// scratch first, in one pass or in panels of C), forced on every layout it applies to, with
// padded leading dimensions and pointers off 16-byte boundaries.
TEST(Gemm, EveryPackingOnEveryLayoutItAppliesTo) {
  using gemm_detail::Pack;
  lab::Stream stream;
  std::uint64_t seed = lab::fresh_seed();
  std::vector<Shape3> packed_shapes = {{7, 5, 3}, {132, 129, 17}};
  if (!small_mode()) { // under the sanitizers: the two small shapes, every packing and panel
    packed_shapes.push_back({64, 300, 129});
    packed_shapes.push_back({260, 136, 1031}); // k split over blocks
  }
  int cases = 0;
  for (Trans ta : {Trans::none, Trans::transpose})
    for (Trans tb : {Trans::none, Trans::transpose})
      for (const Shape3 s : packed_shapes)
        for (Pack pa : {Pack::none, Pack::transpose, Pack::repitch})
          for (Pack pb : {Pack::none, Pack::transpose, Pack::repitch})
            for (std::int64_t panel : {0, 64})
              for (std::int64_t pad : {0, 3})
                for (std::int64_t shift : {0, 1}) {
                  const gemm_detail::Packing packing{pa, pb, panel};
                  const Case c{s.m, s.n, s.k, ta, tb, pad, shift, 1.5f, shift ? 0.0f : -0.5f};
                  const bool at = ta == Trans::transpose, bt = tb == Trans::transpose;
                  gemm_detail::Product p{ta, tb, c.m, c.n, c.k};
                  p.lda = (at ? c.m : c.k) + pad;
                  p.ldb = (bt ? c.k : c.n) + pad;
                  if (!packing.packs() || gemm_detail::packing_unsupported(p, packing))
                    continue;
                  EXPECT_EQ(run_case(c, stream, ++seed, &packing), "")
                      << describe(c) << ", packing A " << static_cast<int>(pa) << " B "
                      << static_cast<int>(pb) << " panel " << panel;
                  ++cases;
                }
  EXPECT_GT(cases, small_mode() ? 150 : 300);
}

// The library's own choice where it packs: op(B) = B^T at 1536^3 (B turned by ladder::transpose
// on the H200's figures; the packing is whatever this device's figures choose).
TEST(Gemm, PackedByTheLibrarysOwnChoice) {
  if (small_mode())
    GTEST_SKIP() << "a large product: not under the sanitizers";
  const Case c{1536, 1536, 1536, Trans::none, Trans::transpose, 0, 0, 1.0f, -0.5f};
  const gemm_detail::Product p{c.ta, c.tb, c.m, c.n, c.k, 1.0f, nullptr, c.k, nullptr, c.k};
  const auto chosen = gemm_detail::choose_packing(p, gemm_detail::device_rates());
  EXPECT_TRUE(chosen.packs()) << "this device's figures pack nothing at " << describe(c);
  lab::Stream stream;
  EXPECT_EQ(run_case(c, stream, lab::fresh_seed()), "") << describe(c);
}

TEST(Gemm, ShapesThatSplitKAndShapesThatDoNot) {
  // The plan splits k for few tiles and long k: both paths must agree with the reference.
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  ASSERT_GT(gemm_detail::plan(256, 256, 4096, sms).splits, 1);
  ASSERT_EQ(gemm_detail::plan(1024, 1024, 64, sms).splits, 1);
  lab::Stream stream;
  std::uint64_t seed = lab::fresh_seed();
  for (const Shape3 s : std::vector<Shape3>{{256, 256, 4096}, {1024, 1024, 64}})
    for (float beta : {0.0f, -0.5f}) {
      const Case c{s.m, s.n, s.k, Trans::none, Trans::none, 0, 0, 1.0f, beta};
      if (small_mode() && s.k > 1024)
        continue;
      EXPECT_EQ(run_case(c, stream, ++seed), "") << describe(c);
    }
}

// Every split count a launch may take, on the kernel directly: 2 .. 8 add up in a cluster where
// the device has clusters, 9 and 10 (past a cluster) and the forced atomic path by atomic adds
// into C scaled first; edge tiles, padded leading dimensions, one operand layout of each kind.
TEST(Gemm, EverySplitCountAndBothSplitSums) {
  lab::Stream stream;
  std::uint64_t seed = lab::fresh_seed();
  const std::int64_t k = small_mode() ? 700 : 2100;
  for (int splits = 2; splits <= 10; ++splits)
    for (gemm_detail::SplitSum sum : {gemm_detail::SplitSum::cluster, gemm_detail::SplitSum::atomic})
      for (float beta : {0.0f, -0.5f}) {
        if (sum == gemm_detail::SplitSum::atomic && splits > 3)
          continue; // past 3 the atomic path is the one 9 and 10 take anyway
        const bool a_t = splits % 2 == 0;
        const Case c{70, 150, k, a_t ? Trans::transpose : Trans::none, Trans::none, 3, 0,
                     1.5f, beta};
        const std::string error = run_case_with(
            c, stream, ++seed,
            [&](const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float* out,
                std::int64_t ldc) {
              const gemm_detail::Params prm{.m = c.m, .n = c.n, .k = c.k, .alpha = c.alpha,
                                            .beta = c.beta, .a = a, .lda = lda, .b = b,
                                            .ldb = ldb, .c = out, .ldc = ldc};
              gemm_detail::launch_any_layout<gemm_detail::WideAsync3>(
                  prm, !a_t, false, false, {.group_m = 8, .splits = splits, .split_sum = sum},
                  stream);
            });
        EXPECT_EQ(error, "") << describe(c) << ", " << splits << " splits, "
                             << (sum == gemm_detail::SplitSum::cluster ? "cluster" : "atomic");
      }
}

// Every tile shape of the plan through the library's own launch (launch_tile), whatever shape
// the plan would give these products: every layout, an edge tile in both dimensions and whole
// tiles of the huge one (256 x 128, either orientation, so the kernels without edge masks run
// too), 16-byte and element loads, k whole or split over 3 blocks. The huge tile computes
// untransposed products with 16-byte loads as their transpose (C stored transposed).
TEST(Gemm, EveryTileOnEveryLayoutThroughTheLibrarysLaunch) {
  lab::Stream stream;
  std::uint64_t seed = lab::fresh_seed();
  const std::vector<Shape3> tile_cases =
      small_mode() ? std::vector<Shape3>{{131, 70, 19}, {256, 256, 24}}
                   : std::vector<Shape3>{{7, 5, 3}, {300, 261, 37}, {256, 512, 40}, {512, 256, 33}};
  for (const gemm_detail::TileShape& t : gemm_detail::tile_shapes) {
    if (small_mode() && t.tile != gemm_detail::Tile::huge && t.tile != gemm_detail::Tile::wide)
      continue; // under the sanitizers: the tile with its own transposed path, and one other
    for (const Shape3 s : tile_cases)
      for (Trans ta : {Trans::none, Trans::transpose})
        for (Trans tb : {Trans::none, Trans::transpose})
          for (std::int64_t shift : {0, 1})
            for (std::int64_t splits : {1, 3}) {
              const Case c{s.m, s.n, s.k, ta, tb, shift, shift, 1.5f, splits == 1 ? 0.0f : -0.5f};
              const std::string error = run_case_with(
                  c, stream, ++seed,
                  [&](const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                      float* out, std::int64_t ldc) {
                    const gemm_detail::Params prm{.m = c.m, .n = c.n, .k = c.k, .alpha = c.alpha,
                                                  .beta = c.beta, .a = a, .lda = lda, .b = b,
                                                  .ldb = ldb, .c = out, .ldc = ldc};
                    gemm_detail::launch_tile(
                        t.tile, prm, ta == Trans::none, tb == Trans::transpose,
                        gemm_detail::vector_ok(a, lda) && gemm_detail::vector_ok(b, ldb),
                        {.group_m = 8, .splits = splits}, stream);
                  });
              EXPECT_EQ(error, "") << describe(c) << ", tile " << t.bm << " x " << t.bn << ", "
                                   << splits << " splits";
            }
  }
}

TEST(Gemm, QuickReturnsFollowBlas) {
  lab::Stream stream;
  std::uint64_t seed = lab::fresh_seed();
  // k == 0 and alpha == 0: beta C without reading A or B (beta 0: zeros over NaN).
  for (float beta : {0.0f, 2.0f}) {
    const Case zero_k{37, 41, 0, Trans::none, Trans::none, 2, 0, 1.0f, beta};
    EXPECT_EQ(run_case(zero_k, stream, ++seed), "") << describe(zero_k);
    const Case zero_alpha{37, 41, 9, Trans::transpose, Trans::none, 2, 1, 0.0f, beta};
    EXPECT_EQ(run_case(zero_alpha, stream, ++seed), "") << describe(zero_alpha);
  }
  // m == 0 or n == 0: nothing is touched, null pointers allowed.
  EXPECT_NO_THROW(ladder::gemm<float>(Trans::none, Trans::none, 0, 5, 5, 1.0f, nullptr, 5, nullptr,
                                      5, 0.0f, nullptr, 5, stream));
  EXPECT_NO_THROW(ladder::gemm<float>(Trans::none, Trans::none, 5, 0, 5, 1.0f, nullptr, 5, nullptr,
                                      1, 0.0f, nullptr, 1, stream));
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
}

// C = A B^T (150 x 70 x 90) captured on a fresh stream and replayed on fresh inputs; `packing`:
// through the entry that takes it (scratch allocated and freed inside the graph).
void capture_and_replay(const gemm_detail::Packing* packing) {
  const std::int64_t m = 150, n = 70, k = 90;
  lab::Stream stream;
  DeviceBuffer<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(n * k)),
      out(static_cast<std::size_t>(m * n));
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  if (packing)
    gemm_detail::gemm_f32_packed(
        {Trans::none, Trans::transpose, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, out.data(), n},
        *packing, stream);
  else
    ladder::gemm<float>(Trans::none, Trans::transpose, m, n, k, 1.0f, a.data(), k, b.data(), k,
                        0.0f, out.data(), n, stream);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 3; ++replay) {
    const std::uint64_t seed = lab::fresh_seed();
    lab::fill_random<float>(a.data(), m * k, seed, -1, 1, stream);
    lab::fill_random<float>(b.data(), n * k, seed + 1, -1, 1, stream);
    lab::poison(out.data(), out.bytes(), stream);
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    std::vector<float> ha(a.size()), hb(b.size()), hc(out.size());
    ASSERT_EQ(cudaMemcpyAsync(ha.data(), a.data(), a.bytes(), cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(hb.data(), b.data(), b.bytes(), cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(hc.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double sum = 0, scale = 0;
        for (std::int64_t r = 0; r < k; ++r) {
          sum += static_cast<double>(ha[i * k + r]) * hb[j * k + r];
          scale += std::fabs(static_cast<double>(ha[i * k + r]) * hb[j * k + r]);
        }
        ASSERT_LE(std::fabs(hc[i * n + j] - sum), 2 * (k + 2) * 0x1p-24 * scale)
            << "replay " << replay << " at (" << i << ", " << j << ")";
      }
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

TEST(Gemm, CapturedIntoAGraphOnAFreshStreamAndReplayed) { capture_and_replay(nullptr); }

TEST(Gemm, CapturedWithPackedOperands) {
  using gemm_detail::Pack;
  const gemm_detail::Packing transposed_in_panels{Pack::none, Pack::transpose, 32};
  capture_and_replay(&transposed_in_panels);
  const gemm_detail::Packing both_repitched{Pack::repitch, Pack::repitch, 0};
  capture_and_replay(&both_repitched);
}

TEST(Gemm, SeveralHostThreadsOnTheirOwnStreams) {
  std::vector<std::string> results(4);
  std::vector<std::thread> threads;
  const std::uint64_t seed = lab::fresh_seed();
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      lab::Stream stream;
      const Case c{97 + t, 131, 200 + 50 * t, t % 2 ? Trans::transpose : Trans::none,
                   t / 2 ? Trans::transpose : Trans::none, 0, 0, 1.0f, 0.5f};
      results[static_cast<std::size_t>(t)] = run_case(c, stream, seed + t);
    });
  for (auto& thread : threads)
    thread.join();
  for (const auto& r : results)
    EXPECT_EQ(r, "");
}

} // namespace
} // namespace ladder::test
