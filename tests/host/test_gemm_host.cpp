// ladder::gemm on the host: every bad argument is rejected with std::invalid_argument naming it
// before anything touches a device (so these run without a GPU), the plan that picks a tile shape
// and a split over k, and the choice of packing an operand first.
#include "invalid_argument.hpp"

#include "ladder/gemm.hpp"
#include "matmul/gemm_packing.hpp"
#include "matmul/gemm_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

namespace ladder::test {
namespace {

using ladder::Trans;

// A fake device address range: the checks only compare addresses.
float* fake(std::uintptr_t at) { return reinterpret_cast<float*>(at); }

std::string gemm_error(Trans ta, Trans tb, std::int64_t m, std::int64_t n, std::int64_t k,
                       const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                       float* c, std::int64_t ldc) {
  return invalid_argument_message(
      [&] { ladder::gemm<float>(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc); });
}

TEST(GemmArguments, NegativeSizesAreNamed) {
  float* a = fake(0x10000000);
  float* b = fake(0x20000000);
  float* c = fake(0x30000000);
  EXPECT_NE(gemm_error(Trans::none, Trans::none, -1, 4, 4, a, 4, b, 4, c, 4).find("m must be >= 0"),
            std::string::npos);
  EXPECT_NE(gemm_error(Trans::none, Trans::none, 4, -2, 4, a, 4, b, 4, c, 4).find("n must be >= 0"),
            std::string::npos);
  EXPECT_NE(gemm_error(Trans::none, Trans::none, 4, 4, -3, a, 4, b, 4, c, 4).find("k must be >= 0"),
            std::string::npos);
}

TEST(GemmArguments, LeadingDimensionsFollowTheStoredShapes) {
  float* a = fake(0x10000000);
  float* b = fake(0x20000000);
  float* c = fake(0x30000000);
  // A m x k (lda >= k) or k x m (lda >= m); B k x n (ldb >= n) or n x k (ldb >= k); ldc >= n.
  EXPECT_NE(gemm_error(Trans::none, Trans::none, 8, 6, 5, a, 4, b, 6, c, 6).find("lda must be >= 5"),
            std::string::npos);
  EXPECT_NE(
      gemm_error(Trans::transpose, Trans::none, 8, 6, 5, a, 5, b, 6, c, 6).find("lda must be >= 8"),
      std::string::npos);
  EXPECT_NE(gemm_error(Trans::none, Trans::none, 8, 6, 5, a, 5, b, 5, c, 6).find("ldb must be >= 6"),
            std::string::npos);
  EXPECT_NE(
      gemm_error(Trans::none, Trans::transpose, 8, 6, 5, a, 5, b, 4, c, 6).find("ldb must be >= 5"),
      std::string::npos);
  EXPECT_NE(gemm_error(Trans::none, Trans::none, 8, 6, 5, a, 5, b, 6, c, 5).find("ldc must be >= 6"),
            std::string::npos);
  EXPECT_NE(gemm_error(Trans::none, Trans::none, 8, 0, 0, a, 0, b, 1, c, 1).find("lda must be >= 1"),
            std::string::npos);
}

TEST(GemmArguments, NullPointersWithWorkToDo) {
  float* a = fake(0x10000000);
  float* b = fake(0x20000000);
  float* c = fake(0x30000000);
  EXPECT_NE(gemm_error(Trans::none, Trans::none, 4, 4, 4, nullptr, 4, b, 4, c, 4).find("A is null"),
            std::string::npos);
  EXPECT_NE(gemm_error(Trans::none, Trans::none, 4, 4, 4, a, 4, nullptr, 4, c, 4).find("B is null"),
            std::string::npos);
  EXPECT_NE(gemm_error(Trans::none, Trans::none, 4, 4, 4, a, 4, b, 4, nullptr, 4).find("C is null"),
            std::string::npos);
}

TEST(GemmArguments, COverlappingAOrB) {
  float* a = fake(0x10000000);
  float* b = fake(0x20000000);
  // C's last row ends inside A's first element, then C starts inside B's extent.
  EXPECT_NE(gemm_error(Trans::none, Trans::none, 4, 4, 4, a, 4, b, 4, a - 15, 4).find("C overlaps A"),
            std::string::npos);
  EXPECT_NE(gemm_error(Trans::none, Trans::none, 4, 4, 4, a, 4, b, 4, b + 15, 4).find("C overlaps B"),
            std::string::npos);
}

TEST(GemmArguments, ExtentsThatOverflowByteCounts) {
  float* a = fake(0x10000000);
  float* b = fake(0x20000000);
  float* c = fake(0x30000000);
  const std::int64_t huge = std::int64_t{1} << 40;
  EXPECT_NE(gemm_error(Trans::none, Trans::none, huge, 4, huge, a, huge, b, 4, c, 4)
                .find("overflows 64-bit byte counts"),
            std::string::npos);
}

TEST(GemmPlan, LargeTilesForLargeSquaresNarrowTilesForNarrowMatrices) {
  using gemm_detail::plan;
  using gemm_detail::Tile;
  const int h200_sms = 132;
  const auto big = plan(4096, 4096, 4096, h200_sms);
  EXPECT_EQ(big.tile, Tile::huge); // 16 x 32 tiles of 256 x 128, 1 per SM: 3.9 waves
  // Short k: the huge tile's deeper pipeline fill weighs; the large tile wins.
  EXPECT_EQ(plan(8192, 8192, 128, h200_sms).tile, Tile::large);
  EXPECT_EQ(big.splits, 1);
  // n = 64 (m = 64): half tiles, no split (k per block stays long).
  const auto tall = plan(65536, 64, 4096, h200_sms), wide = plan(64, 65536, 4096, h200_sms);
  EXPECT_TRUE(tall.tile == Tile::tall || tall.tile == Tile::tall_two);
  EXPECT_TRUE(wide.tile == Tile::wide || wide.tile == Tile::wide_two);
  EXPECT_EQ(tall.splits, 1);
  EXPECT_EQ(wide.splits, 1);
  // Rows not 16-byte aligned: element loads, where 64 x 128 tiles of 3 blocks per SM measured
  // fastest (3.028 ms against the large tile's 3.096).
  EXPECT_EQ(plan(4097, 4095, 4093, h200_sms, false).tile, Tile::wide);
  // Fewer tiles than SMs: one block to an SM runs at `solo` of a full SM's rate, not at a third
  // of it, so 1000^3 runs unsplit on 128 tiles of 64 x 128 (61.76 us against 69.1 split), in
  // eight warps (58.66 us against 59.94 in four; with B read along k 64.37 against 71.36 us).
  const auto cube = plan(1000, 1000, 1000, h200_sms);
  EXPECT_EQ(cube.tile, Tile::wide_eight_warps);
  EXPECT_EQ(cube.splits, 1);
  // Several waves: the tiles whose full-SM rates were measured.
  EXPECT_NE(plan(2048, 2048, 2048, h200_sms).tile, Tile::wide_eight_warps);
  EXPECT_NE(plan(4097, 4095, 4093, h200_sms).tile, Tile::wide_eight_warps);
  // Few tiles and a long k: split k rather than leave SMs idle.
  const auto few = plan(256, 256, 8192, h200_sms);
  EXPECT_GT(few.splits, 1);
  EXPECT_GT(few.score, 0.5);
  double best_rate = 0;
  for (const auto& t : gemm_detail::tile_shapes)
    best_rate = std::max({best_rate, t.rate, t.scalar_rate});
  for (const auto& p : {big, few, plan(1000, 1000, 1000, h200_sms), plan(1, 1, 1, h200_sms)}) {
    EXPECT_GT(p.score, 0.0);
    EXPECT_LE(p.score, best_rate);
    EXPECT_GE(p.splits, 1);
  }
  // A split needs enough k per block.
  EXPECT_EQ(plan(128, 128, 300, h200_sms).splits, 1);
}

// The packing choice on an H200's figures (132 SMs at 1.98 GHz, 6016-bit HBM3e at 3.2 GHz).
gemm_detail::DeviceRates h200() { return {132, 1.98e9, 2 * 3.201e9 * 6016 / 8}; }

// A dense product (every leading dimension its stored row length) at `shift` floats past
// 16-byte aligned addresses.
gemm_detail::Product dense(Trans ta, Trans tb, std::int64_t m, std::int64_t n, std::int64_t k,
                           std::uintptr_t shift = 0) {
  gemm_detail::Product p;
  p.trans_a = ta;
  p.trans_b = tb;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a = fake(0x10000000 + 4 * shift);
  p.lda = ta == Trans::none ? k : m;
  p.b = fake(0x20000000 + 4 * shift);
  p.ldb = tb == Trans::none ? n : k;
  p.c = fake(0x30000000);
  p.ldc = n;
  return p;
}

TEST(GemmPacking, TurnsOneOperandWhereBothAreKContiguous) {
  using gemm_detail::Pack;
  const Trans N = Trans::none, T = Trans::transpose;
  // op(B) = B^T: both operands k-contiguous. B is transposed (the untransposed product's layout).
  const auto nt = gemm_detail::choose_packing(dense(N, T, 4096, 4096, 4096), h200());
  EXPECT_EQ(nt.a, Pack::none);
  EXPECT_EQ(nt.b, Pack::transpose);
  EXPECT_EQ(nt.panel, 0);
  // The cheaper operand: B is 64 x 4096 in the first, A is in the second.
  const auto tall = gemm_detail::choose_packing(dense(N, T, 65536, 64, 4096), h200());
  EXPECT_EQ(tall.a, Pack::none);
  EXPECT_EQ(tall.b, Pack::transpose);
  const auto wide = gemm_detail::choose_packing(dense(N, T, 64, 65536, 4096), h200());
  EXPECT_EQ(wide.a, Pack::transpose);
  EXPECT_EQ(wide.b, Pack::none);
  // The layouts that run fast as they are stay as they are.
  for (const auto& [ta, tb] : {std::pair{N, N}, std::pair{T, N}, std::pair{T, T}}) {
    const auto p = gemm_detail::choose_packing(dense(ta, tb, 4096, 4096, 4096), h200());
    EXPECT_FALSE(p.packs());
  }
  // 1000^3 with B^T: transposing B first measured 66.93 against 73.82 us (H200) and 65.82 against
  // 71.84 (H100); at 1000^3 the other layouts stay as they are.
  const auto small_nt = gemm_detail::choose_packing(dense(N, T, 1000, 1000, 1000), h200());
  EXPECT_EQ(small_nt.a, Pack::none);
  EXPECT_EQ(small_nt.b, Pack::transpose);
  for (const auto& [ta, tb] : {std::pair{N, N}, std::pair{T, N}, std::pair{T, T}})
    EXPECT_FALSE(gemm_detail::choose_packing(dense(ta, tb, 1000, 1000, 1000), h200()).packs());
  // Small products: the copies' fixed costs outweigh the gain.
  EXPECT_FALSE(gemm_detail::choose_packing(dense(N, T, 129, 130, 17), h200()).packs());
  EXPECT_FALSE(gemm_detail::choose_packing(dense(N, T, 256, 256, 256), h200()).packs());
  // A transposed B that is not dense cannot be handed to ladder::transpose.
  auto padded = dense(N, T, 4096, 4096, 4096);
  padded.ldb = 4100;
  padded.lda = 4100;
  EXPECT_NE(gemm_detail::choose_packing(padded, h200()).b, Pack::transpose);
}

TEST(GemmPacking, LeavesRowsOffSixteenByteBoundariesAsTheyAre) {
  using gemm_detail::Pack;
  const Trans N = Trans::none;
  // Leading dimensions 4093 and 4095: repitching both measured slower than element loads
  // (gemm_packing.hpp), so the product runs on the operands as they are.
  const auto odd = gemm_detail::choose_packing(dense(N, N, 4097, 4095, 4093), h200());
  EXPECT_FALSE(odd.packs());
  // Pointers one float off: transposing A would align A alone, and B would still take element
  // loads; nothing is packed.
  const auto shifted = gemm_detail::choose_packing(dense(N, N, 4096, 4096, 4096, 1), h200());
  EXPECT_FALSE(shifted.packs());
  // The forced packing still applies and has an estimate (the lab's row gemm_repitch_both).
  EXPECT_EQ(gemm_detail::packing_unsupported(dense(N, N, 4097, 4095, 4093),
                                             {Pack::repitch, Pack::repitch, 0}),
            nullptr);
  EXPECT_GT(gemm_detail::estimate_seconds(dense(N, N, 4097, 4095, 4093),
                                          {Pack::repitch, Pack::repitch, 0}, h200()),
            0);
}

TEST(GemmPacking, LargeOperandsArePackedInPanelsUnderTheScratchBound) {
  using gemm_detail::Pack;
  const Trans N = Trans::none, T = Trans::transpose;
  // B^T of 16384 x 16384 is 1 GiB: 4 panels of 4096 columns, 256 MiB each.
  const auto p = dense(N, T, 16384, 16384, 16384);
  const auto big = gemm_detail::choose_packing(p, h200());
  EXPECT_EQ(big.b, Pack::transpose);
  EXPECT_EQ(big.panel, 4096);
  EXPECT_LE(gemm_detail::scratch_bytes(
                gemm_detail::packed_floats(big.b, p.b_k_contiguous(), p.k, big.panel)),
            gemm_detail::max_pack_bytes);
  // 8192^2 fits whole.
  EXPECT_EQ(gemm_detail::choose_packing(dense(N, T, 8192, 8192, 8192), h200()).panel, 0);
  // Both operands whole over the bound: no estimate.
  EXPECT_LT(gemm_detail::estimate_seconds(p, {Pack::repitch, Pack::repitch, 0}, h200()), 0);
  // Panels are whole multiples of 256 lines; none when 256 lines are over the bound.
  EXPECT_EQ(gemm_detail::panel_width(Pack::transpose, true, 1 << 16, 1 << 20), 1024);
  EXPECT_EQ(gemm_detail::panel_width(Pack::transpose, true, 1 << 18, 1 << 20), 256);
  EXPECT_EQ(gemm_detail::panel_width(Pack::transpose, true, 1 << 20, 1 << 20), -1);
}

TEST(GemmPacking, PackingsThatCannotRunAreNamed) {
  using gemm_detail::Pack;
  using gemm_detail::packing_unsupported;
  const Trans N = Trans::none, T = Trans::transpose;
  // Transposing needs the operand k-contiguous and dense.
  EXPECT_NE(packing_unsupported(dense(T, N, 64, 64, 64), {Pack::transpose, Pack::none, 0}), nullptr);
  EXPECT_NE(packing_unsupported(dense(N, N, 64, 64, 64), {Pack::none, Pack::transpose, 0}), nullptr);
  auto padded = dense(N, T, 64, 64, 64);
  padded.ldb = 68;
  EXPECT_NE(packing_unsupported(padded, {Pack::none, Pack::transpose, 0}), nullptr);
  EXPECT_EQ(packing_unsupported(dense(N, T, 64, 64, 64), {Pack::none, Pack::transpose, 0}), nullptr);
  // Panels with both operands packed, or with none.
  EXPECT_NE(packing_unsupported(dense(N, N, 64, 64, 64), {Pack::repitch, Pack::repitch, 16}), nullptr);
  EXPECT_NE(packing_unsupported(dense(N, N, 64, 64, 64), {Pack::none, Pack::none, 16}), nullptr);
  EXPECT_EQ(packing_unsupported(dense(N, N, 64, 64, 64), {Pack::repitch, Pack::none, 16}), nullptr);
  // Repitched operands take the stored lines rounded up to 16-byte words.
  EXPECT_EQ(gemm_detail::packed_floats(Pack::repitch, true, 4093, 10), 10 * 4096);
  EXPECT_EQ(gemm_detail::packed_floats(Pack::repitch, false, 4093, 10), 4093 * 12);
  EXPECT_EQ(gemm_detail::packed_floats(Pack::transpose, true, 4093, 10), 4093 * 10);
}

// The walk over panels, run on the CPU: packing an operand (transposed or repitched, whole or in
// panels of any width) must give exactly the product of the operands as they are, since the same
// values meet in the same order. C's padding must stay untouched.
namespace cpu {

std::int64_t pack(gemm_detail::Pack kind, const float* src, std::int64_t ld, std::int64_t rows,
                  std::int64_t cols, float* dst) {
  if (kind == gemm_detail::Pack::transpose) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c)
        dst[c * rows + r] = src[r * ld + c];
    return rows;
  }
  const std::int64_t packed_ld = gemm_detail::round_up4(cols);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < packed_ld; ++c)
      dst[r * packed_ld + c] = c < cols ? src[r * ld + c] : -1e30f; // rounding never read
  return packed_ld;
}

void multiply(const gemm_detail::Product& q) {
  const bool at = q.trans_a == Trans::transpose, bt = q.trans_b == Trans::transpose;
  for (std::int64_t i = 0; i < q.m; ++i)
    for (std::int64_t j = 0; j < q.n; ++j) {
      float sum = 0;
      for (std::int64_t r = 0; r < q.k; ++r)
        sum += (at ? q.a[r * q.lda + i] : q.a[i * q.lda + r]) *
               (bt ? q.b[j * q.ldb + r] : q.b[r * q.ldb + j]);
      float& out = q.c[i * q.ldc + j];
      out = q.alpha * sum + (q.beta != 0.0f ? q.beta * out : 0.0f);
    }
}

} // namespace cpu

TEST(GemmPacking, EveryPackingWalkGivesTheUnpackedProduct) {
  using gemm_detail::Pack;
  int walks = 0;
  for (Trans ta : {Trans::none, Trans::transpose})
    for (Trans tb : {Trans::none, Trans::transpose})
      for (const auto& [m, n, k] : {std::tuple{7, 5, 3}, std::tuple{37, 70, 13}, std::tuple{64, 33, 9}})
        for (const std::int64_t pad : {0, 3})
          for (Pack pa : {Pack::none, Pack::transpose, Pack::repitch})
            for (Pack pb : {Pack::none, Pack::transpose, Pack::repitch})
              for (const std::int64_t panel : {0, 1, 16, 36}) {
                const gemm_detail::Packing packing{pa, pb, panel};
                const bool at = ta == Trans::transpose, bt = tb == Trans::transpose;
                const std::int64_t a_rows = at ? k : m, a_cols = at ? m : k;
                const std::int64_t b_rows = bt ? n : k, b_cols = bt ? k : n;
                std::vector<float> a(static_cast<std::size_t>(a_rows * (a_cols + pad))),
                    b(static_cast<std::size_t>(b_rows * (b_cols + pad))),
                    c(static_cast<std::size_t>(m * (n + pad)));
                std::mt19937 rng(static_cast<unsigned>(walks));
                std::uniform_real_distribution<float> value(-1, 1);
                for (auto* v : {&a, &b, &c})
                  for (float& x : *v)
                    x = value(rng);
                const gemm_detail::Product p{ta,       tb,          m,     n,     k,
                                             1.5f,     a.data(),    a_cols + pad,
                                             b.data(), b_cols + pad, -0.5f, nullptr, n + pad};
                if (!packing.packs() || gemm_detail::packing_unsupported(p, packing))
                  continue;
                std::vector<float> want = c, got = c;
                gemm_detail::Product direct = p;
                direct.c = want.data();
                cpu::multiply(direct);
                gemm_detail::Product packed = p;
                packed.c = got.data();
                std::vector<float> scratch(
                    static_cast<std::size_t>(gemm_detail::packing_scratch_bytes(p, packing) / 4));
                int products = 0;
                gemm_detail::walk_packed(packed, packing, scratch.data(), cpu::pack,
                                         [&](const gemm_detail::Product& q) {
                                           cpu::multiply(q);
                                           ++products;
                                         });
                const std::int64_t extent = pb == Pack::none ? m : n;
                const bool one = (pa == Pack::none) != (pb == Pack::none);
                EXPECT_EQ(products, one && panel > 0 ? (extent + panel - 1) / panel : 1);
                EXPECT_EQ(got, want) << "packing A " << static_cast<int>(pa) << " B "
                                     << static_cast<int>(pb) << " panel " << panel << ", " << m
                                     << " x " << n << " x " << k << (at ? " A^T" : "")
                                     << (bt ? " B^T" : "") << ", pad " << pad;
                ++walks;
              }
  EXPECT_GT(walks, 250);
}

} // namespace
} // namespace ladder::test
