// The matmul traffic model: the course's "4 FLOP/B" for 16 x 16 tiles, exact counts at the edges,
// coarsening's cut of A's traffic, and sizes whose counts do not fit rejected by name.
#include "cli_invoke.hpp"

#include "ladder/models.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ladder::models {
namespace {

TEST(MatmulTraffic, SixteenBySixteenTilesGiveAboutFourFlopsPerByte) {
  const auto levels = matmul_traffic(4096, 4096, 4096, 16, 4);
  ASSERT_EQ(levels.size(), 3u);
  // basic: 2 loads per multiply-add: 2 FLOP / 8 B, less the stores' share.
  EXPECT_EQ(levels[0].loads_a, std::int64_t{1} << 36);
  EXPECT_NEAR(levels[0].intensity, 2.0 * 4096 / (4.0 * (2 * 4096 + 1)), 1e-12);
  // tiled: every element of A and B loaded 4096 / 16 = 256 times; 2 x 4096 / (4 x 513) FLOP/B.
  EXPECT_EQ(levels[1].loads_a, std::int64_t{4096} * 4096 * 256);
  EXPECT_EQ(levels[1].loads_b, std::int64_t{4096} * 4096 * 256);
  EXPECT_NEAR(levels[1].intensity, 2.0 * 4096 / (4.0 * 513), 1e-12);
  // coarse 4: A's loads cut by 4, B's unchanged.
  EXPECT_EQ(levels[2].loads_a, levels[1].loads_a / 4);
  EXPECT_EQ(levels[2].loads_b, levels[1].loads_b);
  EXPECT_NEAR(levels[2].intensity, 2.0 * 4096 / (4.0 * (64 + 256 + 1)), 1e-12);
}

TEST(MatmulTraffic, EdgesAreCountedExactly) {
  // 100 x 100 x 100 with 16 x 16 tiles: 7 block rows and columns; each element of A is loaded once
  // per block column (7), of B once per block row (7).
  const auto levels = matmul_traffic(100, 100, 100, 16, 4);
  EXPECT_EQ(levels[1].loads_a, 100 * 100 * 7);
  EXPECT_EQ(levels[1].loads_b, 100 * 100 * 7);
  EXPECT_EQ(levels[2].loads_a, 100 * 100 * 2); // ceil(100 / 64) = 2 coarse block columns
  EXPECT_EQ(levels[0].stores, 100 * 100);
}

TEST(MatmulTraffic, RejectsBadSizesByName) {
  EXPECT_THROW((void)matmul_traffic(0, 4, 4, 16, 4), std::invalid_argument);
  EXPECT_THROW((void)matmul_traffic(4, 4, 4, 0, 4), std::invalid_argument);
  try {
    (void)matmul_traffic(std::int64_t{1} << 32, std::int64_t{1} << 32, 4, 16, 4);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
  }
}

TEST(MatmulTraffic, CommandPrintsEveryLevelAndRejectsBadOptions) {
  const auto ok = cli::test::invoke({"model", "matmul", "--gpu", "h200"});
  EXPECT_EQ(ok.code, cli::exit_ok) << ok.err;
  for (const char* needle : {"basic", "tiled", "coarse", "3.99", "TFLOP/s"})
    EXPECT_NE(ok.out.find(needle), std::string::npos) << needle << "\n" << ok.out;
  for (const auto& [args, named] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"model", "matmul", "--size", "0"}, "--size"},
           {{"model", "matmul", "--tile", "0"}, "--tile"},
           {{"model", "matmul", "--coarse", "1.5"}, "--coarse"},
           {{"model", "matmul", "--gpu", "nonesuch"}, "--gpu"}}) {
    const auto r = cli::test::invoke(args);
    EXPECT_EQ(r.code, cli::exit_usage) << r.err;
    EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
  }
}

} // namespace
} // namespace ladder::models
