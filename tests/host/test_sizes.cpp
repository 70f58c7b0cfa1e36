// The one size parser and labeller: every study's --size goes through it.
#include "core/sizes.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ladder::lab {
namespace {

TEST(Sizes, CountsInEveryAcceptedSpelling) {
  EXPECT_EQ(parse_count("1000003", "--size"), 1000003);
  EXPECT_EQ(parse_count("2^22", "--size"), std::int64_t{1} << 22);
  EXPECT_EQ(parse_count("4Mi", "--size"), std::int64_t{4} << 20);
  EXPECT_EQ(parse_count("16Ki", "--size"), 16384);
  EXPECT_EQ(parse_count("1Gi", "--size"), std::int64_t{1} << 30);
}

TEST(Sizes, RejectsMalformedCountsNamingTheOption) {
  for (const char* bad : {"0", "-5", "abc", "5x", "", "2^", "2^-1", "2^63", "3^4",
                          "99999999999999999999", "1.5", "4Ti", "+7", "7 "}) {
    try {
      (void)parse_count(bad, "--size");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--size"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((void)parse_count("2^41", "--size"),
               std::invalid_argument); // above the default limit
}

TEST(Sizes, Extents) {
  const Extent2d e = parse_extent("16384x8192", "--size");
  EXPECT_EQ(e.rows, 16384);
  EXPECT_EQ(e.cols, 8192);
  for (const char* bad : {"0x5", "5x", "x5", "abc", "5x0", "64", "1000000x1000000", "4x4x4"})
    EXPECT_THROW((void)parse_extent(bad, "--size"), std::invalid_argument) << bad;
}

TEST(Sizes, MatrixProductExtents) {
  const Extent3d cube = parse_extent3("4096", "--size");
  EXPECT_EQ(cube.m, 4096);
  EXPECT_EQ(cube.n, 4096);
  EXPECT_EQ(cube.k, 4096);
  const Extent3d e = parse_extent3("4097x4095x4093", "--size");
  EXPECT_EQ(e.m, 4097);
  EXPECT_EQ(e.n, 4095);
  EXPECT_EQ(e.k, 4093);
  EXPECT_EQ(extent3_label(cube), "4096^3");
  EXPECT_EQ(extent3_label(e), "4097 x 4095 x 4093");
  for (const char* bad : {"0", "4x4", "4x4x0", "4xx4", "abc", "1000000x1000000x1", "-4"})
    EXPECT_THROW((void)parse_extent3(bad, "--size"), std::invalid_argument) << bad;
}

TEST(Sizes, LabelsArePowersOrDigits) {
  EXPECT_EQ(count_label(std::int64_t{1} << 22), "2^22");
  EXPECT_EQ(count_label(1024), "2^10");
  EXPECT_EQ(count_label(512), "512");
  EXPECT_EQ(count_label(1000003), "1000003");
  EXPECT_EQ(extent_label({2048, 4096}), "2048 x 4096");
}

} // namespace
} // namespace ladder::lab
