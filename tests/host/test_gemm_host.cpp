// ladder::gemm on the host: every bad argument is rejected with std::invalid_argument naming it
// before anything touches a device (so these run without a GPU), and the plan that picks a tile
// shape and a split over k.
#include "invalid_argument.hpp"

#include "ladder/gemm.hpp"
#include "matmul/gemm_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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
  // Short k: the three-stage pipeline's fill weighs; the two-buffer large tile wins.
  EXPECT_EQ(plan(8192, 8192, 128, h200_sms).tile, Tile::large);
  EXPECT_EQ(big.splits, 1);
  // n = 64 (m = 64): half tiles, no split (k per block stays long).
  const auto tall = plan(65536, 64, 4096, h200_sms), wide = plan(64, 65536, 4096, h200_sms);
  EXPECT_TRUE(tall.tile == Tile::tall || tall.tile == Tile::tall_two);
  EXPECT_TRUE(wide.tile == Tile::wide || wide.tile == Tile::wide_two);
  EXPECT_EQ(tall.splits, 1);
  EXPECT_EQ(wide.splits, 1);
  // Rows not 16-byte aligned: element loads, where tiles of 3 blocks per SM measured fastest.
  EXPECT_EQ(plan(4097, 4095, 4093, h200_sms, false).tile, Tile::tall);
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

} // namespace
} // namespace ladder::test
