// The CPU references that every transpose rung is checked against: checked here by definition.
#include "transpose/reference.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <stdexcept>

namespace ladder::lab::transpose {
namespace {

std::vector<float> random_matrix(std::int64_t rows, std::int64_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> m(static_cast<std::size_t>(rows * cols));
  for (auto& x : m)
    x = dist(rng);
  return m;
}

TEST(CpuTranspose, MatchesDefinitionOnAwkwardShapes) {
  for (Shape s : {Shape{1, 1}, Shape{1, 7}, Shape{7, 1}, Shape{31, 33}, Shape{65, 130}, Shape{200, 3}}) {
    const auto in = random_matrix(s.rows, s.cols, 7);
    std::vector<float> out(in.size());
    cpu_transpose<float>(in, out, s.rows, s.cols);
    for (std::int64_t r = 0; r < s.rows; ++r)
      for (std::int64_t c = 0; c < s.cols; ++c)
        ASSERT_EQ(out[c * s.rows + r], in[r * s.cols + c]) << s.rows << "x" << s.cols;
  }
}

TEST(CpuTranspose, TwiceIsIdentity) {
  const auto in = random_matrix(97, 45, 3);
  std::vector<float> once(in.size()), twice(in.size());
  cpu_transpose<float>(in, once, 97, 45);
  cpu_transpose<float>(once, twice, 45, 97);
  EXPECT_EQ(in, twice);
}

TEST(CpuTranspose, RejectsWrongSpanSizes) {
  std::vector<float> in(6), out(5);
  EXPECT_THROW(cpu_transpose<float>(in, out, 2, 3), std::invalid_argument);
}

TEST(CpuExpected, DiagnosticKernelsCompose) {
  // Moving tiles and transposing inside tiles are the two halves of a transpose.
  const Shape s{64, 96};
  const int tile = 32;
  const auto in = random_matrix(s.rows, s.cols, 11);
  std::vector<float> local(in.size()), moved(in.size()), full(in.size());
  cpu_expected(Result::tile_local_transpose, in, local, s, tile);
  cpu_expected(Result::tiles_moved, local, moved, s, tile);
  cpu_expected(Result::transpose, in, full, s, tile);
  EXPECT_EQ(moved, full);
  EXPECT_NE(local, in); // a tile-local transpose of random data changes it
}

TEST(CompareExact, ReportsFirstMismatchAndCount) {
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = a;
  EXPECT_EQ(compare_exact(a, b, 3), "");
  b[4] = 9;
  b[5] = 8;
  const std::string report = compare_exact(a, b, 3);
  EXPECT_NE(report.find("2 of 6"), std::string::npos) << report;
  EXPECT_NE(report.find("(1, 1)"), std::string::npos) << report;
}

TEST(CompareExact, PoisonNeverMatches) {
  // A NaN left by the poison must count as a mismatch even against another NaN pattern.
  std::vector<float> expected = {1.0f}, got = {std::numeric_limits<float>::quiet_NaN()};
  EXPECT_NE(compare_exact(got, expected, 1), "");
}

} // namespace
} // namespace ladder::lab::transpose

namespace ladder::lab::transpose {
namespace {

// Every element size: the bytes of element (r, c) land whole at (c, r).
TEST(CpuTransposeBytes, MovesWholeElementsOfEverySize) {
  for (const int bytes : element_sizes) {
    const std::int64_t rows = 3, cols = 5;
    const auto total = static_cast<std::size_t>(rows * cols * bytes);
    std::vector<std::byte> in(total), out(total);
    for (std::size_t i = 0; i < total; ++i)
      in[i] = static_cast<std::byte>(i * 7 + 1);
    cpu_transpose_bytes(in, out, rows, cols, bytes);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c)
        for (int b = 0; b < bytes; ++b)
          ASSERT_EQ(out[(c * rows + r) * bytes + b], in[(r * cols + c) * bytes + b])
              << bytes << "-byte elements, (" << r << ", " << c << ") byte " << b;
  }
  std::vector<std::byte> odd(6), out(6);
  EXPECT_THROW(cpu_transpose_bytes(odd, out, 1, 1, 3), std::invalid_argument);
}

TEST(CompareElements, NamesTheFirstDifferingElementInHex) {
  std::vector<std::byte> a(16, std::byte{0x11}), b = a;
  EXPECT_EQ(compare_elements(a, b, 2, 4), "");
  b[13] = std::byte{0xAB}; // the high byte of element 6 (2-byte elements): (1, 2), rows of 4
  EXPECT_EQ(compare_elements(b, a, 2, 4),
            "1 of 8 elements differ; first at (1, 2): got 0xab11, expected 0x1111");
}

} // namespace
} // namespace ladder::lab::transpose
