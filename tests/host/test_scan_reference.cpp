// The CPU references that every scan rung is checked against, checked here by definition, and
// the float bound that the GPU checks use.
#include "scan/reference.hpp"
#include "scan/variants.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace ladder::lab::scan {
namespace {

TEST(ScanCpuReference, ExclusiveAndInclusiveMatchTheDefinition) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> dist(-100, 100);
  for (std::size_t n : {0u, 1u, 2u, 31u, 1000u}) {
    std::vector<std::int32_t> in(n), ex(n), inc(n);
    for (auto& x : in)
      x = dist(rng);
    cpu_exclusive_scan<std::int32_t>(in, ex);
    cpu_inclusive_scan<std::int32_t>(in, inc);
    std::int64_t running = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(ex[i], running) << i;
      running += in[i];
      ASSERT_EQ(inc[i], running) << i;
    }
  }
}

TEST(ScanCpuReference, InPlaceWorks) {
  std::vector<std::int64_t> a = {3, 1, 4, 1, 5};
  cpu_exclusive_scan<std::int64_t>(a, a);
  EXPECT_EQ(a, (std::vector<std::int64_t>{0, 3, 4, 8, 9}));
}

TEST(ScanCpuReference, IntegersWrapAroundLikeTheGpu) {
  std::vector<std::int32_t> in = {std::numeric_limits<std::int32_t>::max(), 1, 1};
  std::vector<std::int32_t> out(3);
  cpu_inclusive_scan<std::int32_t>(in, out);
  EXPECT_EQ(out[1], std::numeric_limits<std::int32_t>::min());
  std::vector<std::uint32_t> u = {0xffffffffu, 2}, uo(2);
  cpu_inclusive_scan<std::uint32_t>(u, uo);
  EXPECT_EQ(uo[1], 1u);
}

TEST(ScanCompareExact, ReportsFirstMismatchAndCount) {
  std::vector<std::int32_t> a = {1, 2, 3, 4}, b = {1, 9, 3, 8};
  EXPECT_EQ(compare_exact<std::int32_t>(a, a), "");
  const std::string msg = compare_exact<std::int32_t>(a, b);
  EXPECT_NE(msg.find("2 of 4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("first at 1"), std::string::npos) << msg;
}

TEST(ScanComparePrefixSums, AcceptsReassociatedSumsAndRejectsErrors) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1, 1);
  const std::size_t n = 100000;
  std::vector<float> in(n), seq(n), blocked(n);
  for (auto& x : in)
    x = dist(rng);
  cpu_exclusive_scan<float>(in, seq);
  // Sequential float accumulation has depth n: far outside a log-depth bound in the worst case,
  // but its actual error is a random walk; the bound with depth n must accept it.
  EXPECT_EQ(compare_prefix_sums<float>(seq, in, false, static_cast<double>(n)), "");
  // Blocked sums (1024 per block, block totals carried): what a tiled GPU scan does.
  float carry = 0;
  for (std::size_t b = 0; b < n; b += 1024) {
    float local = 0;
    for (std::size_t i = b; i < std::min(n, b + 1024); ++i) {
      blocked[i] = carry + local;
      local += in[i];
    }
    carry += local;
  }
  EXPECT_EQ(compare_prefix_sums<float>(blocked, in, false, scan_error_depth(n, 1024) + 1024), "");
  // The bound is tight where the prefix of |x| is small (a missed element near the start shows)
  // and loose far out (0.5 in 25000 is inside depth x eps x 25000): index errors are caught by the
  // integer tests, which run the same kernels bit for bit.
  auto early = blocked;
  early[10] += 0.5f;
  EXPECT_NE(compare_prefix_sums<float>(early, in, false, scan_error_depth(n, 1024) + 1024), "");
  auto late = blocked;
  late[n / 2] += 100.0f;
  EXPECT_NE(compare_prefix_sums<float>(late, in, false, scan_error_depth(n, 1024) + 1024), "");
  auto nan = blocked;
  nan[7] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(compare_prefix_sums<float>(nan, in, false, 1e9), "");
  // Exclusive output 0 must be exactly 0.
  auto first = blocked;
  first[0] = 1e-30f;
  EXPECT_NE(compare_prefix_sums<float>(first, in, false, 1e9), "");
}

TEST(ScanRegistry, CpuRungFirstAndReferencesLast) {
  const auto v = registry();
  ASSERT_GE(v.size(), 8u);
  EXPECT_TRUE(v.front().on_cpu);
  EXPECT_EQ(v.front().info.role, Role::seed);
  bool seen_reference = false;
  for (const auto& r : v) {
    if (r.info.role == Role::reference)
      seen_reference = true;
    else
      EXPECT_FALSE(seen_reference) << r.info.name << " comes after a reference row";
    if (!r.on_cpu) {
      EXPECT_NE(r.launch_i32, nullptr) << r.info.name;
      EXPECT_NE(r.launch_f32, nullptr) << r.info.name;
    }
  }
  // Seed rungs declare their one-block limits.
  for (const auto& r : v)
    if (r.info.name == "hillis_steele" || r.info.name == "blelloch" || r.info.name == "blelloch_padded") {
      EXPECT_EQ(r.unsupported(1024), nullptr) << r.info.name;
      EXPECT_NE(r.unsupported(4096), nullptr) << r.info.name;
    }
}

} // namespace
} // namespace ladder::lab::scan
