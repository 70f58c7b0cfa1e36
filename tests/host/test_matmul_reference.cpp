// The matmul study's CPU reference and its check: exact on small integer-valued products, the
// bound scales with k and sum |a| |b|, and NaN or a wrong element fails.
#include "matmul/reference.hpp"
#include "matmul/variants.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace ladder::lab::matmul {
namespace {

TEST(MatmulReference, MatchesTheDefinitionOnAwkwardShapes) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-3, 3);
  for (const auto [m, n, k] :
       {std::array<std::int64_t, 3>{1, 1, 1}, {7, 5, 3}, {33, 65, 31}, {3, 100, 1}}) {
    std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
    for (auto& x : a)
      x = static_cast<float>(small(rng));
    for (auto& x : b)
      x = static_cast<float>(small(rng));
    const Expected e = cpu_matmul(a, b, m, n, k);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double c = 0, s = 0;
        for (std::int64_t p = 0; p < k; ++p) {
          c += static_cast<double>(a[static_cast<std::size_t>(i * k + p)]) *
               b[static_cast<std::size_t>(p * n + j)];
          s += std::fabs(static_cast<double>(a[static_cast<std::size_t>(i * k + p)]) *
                         b[static_cast<std::size_t>(p * n + j)]);
        }
        EXPECT_EQ(e.c[static_cast<std::size_t>(i * n + j)], c);
        EXPECT_EQ(e.abs_sum[static_cast<std::size_t>(i * n + j)], s);
      }
  }
}

TEST(MatmulReference, BoundAcceptsFloatRoundingAndRejectsWrongOrNan) {
  const std::int64_t m = 4, n = 4, k = 1000;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
  for (auto& x : a)
    x = uniform(rng);
  for (auto& x : b)
    x = uniform(rng);
  const Expected e = cpu_matmul(a, b, m, n, k);
  // A float dot product in the plain order is within the bound.
  std::vector<float> got(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (std::int64_t p = 0; p < k; ++p)
        sum += a[static_cast<std::size_t>(i * k + p)] * b[static_cast<std::size_t>(p * n + j)];
      got[static_cast<std::size_t>(i * n + j)] = sum;
    }
  EXPECT_EQ(compare_within_bound(got, e, n, k, 0), "");
  auto wrong = got;
  wrong[5] += 1.0f; // far past gamma_k x sum |a| |b| (about 6e-5 x 250 here)
  EXPECT_NE(compare_within_bound(wrong, e, n, k, 0), "");
  auto nan = got;
  nan[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(compare_within_bound(nan, e, n, k, 0), "");
  // TF32-sized input rounding widens the bound enough for an error of 2^-12 relative per product.
  auto tf32 = got;
  tf32[3] += static_cast<float>(0x1p-12 * e.abs_sum[3]);
  EXPECT_NE(compare_within_bound(tf32, e, n, k, 0), "");
  EXPECT_EQ(compare_within_bound(tf32, e, n, k, 0x1p-11), "");
}

TEST(MatmulRegistry, RolesAndLaunches) {
  int seeds = 0;
  for (const Rung& r : registry()) {
    EXPECT_NE(r.launch, nullptr) << r.info.name;
    EXPECT_NE(r.unsupported, nullptr) << r.info.name;
    seeds += r.info.role == Role::seed;
    if (r.info.role == Role::seed)
      EXPECT_FALSE(r.info.course_row.empty()) << r.info.name;
  }
  EXPECT_GE(seeds, 4);
}

// The tensor copies copy boxes as stored: A^T with B as stored, rows of whole 16-byte words; the
// reason names what is missing (checked before the driver is asked about tensor maps).
TEST(MatmulRegistry, TensorCopiesTakeOnlyATransposedWithSixteenByteRows) {
  const Rung* rung = nullptr;
  for (const Rung& r : registry())
    if (r.info.name == "tensor_copies")
      rung = &r;
  ASSERT_NE(rung, nullptr);
  for (const Trans ta : {Trans::none, Trans::transpose})
    for (const Trans tb : {Trans::none, Trans::transpose})
      if (ta == Trans::none || tb == Trans::transpose) {
        const char* why = rung->unsupported(Problem{{64, 64, 64}, ta, tb});
        ASSERT_NE(why, nullptr);
        EXPECT_NE(std::string(why).find("A^T and B as stored"), std::string::npos) << why;
      }
  for (const Shape s : {Shape{66, 64, 8}, Shape{64, 30, 8}}) {
    const char* why = rung->unsupported(Problem{s, Trans::transpose, Trans::none});
    ASSERT_NE(why, nullptr);
    EXPECT_NE(std::string(why).find("16-byte words"), std::string::npos) << why;
  }
}

} // namespace
} // namespace ladder::lab::matmul
