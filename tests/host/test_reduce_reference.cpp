// The CPU references, tolerances and Brent figures of the reduction study, and the library
// call's argument checks (which run before any CUDA call, so they are testable without a GPU).
#include "ladder/reduce.hpp"
#include "reduce/reference.hpp"
#include "reduce/variants.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace ladder::lab::reduce {
namespace {

// The shapes timed beside the library in `--all`'s sweep are flagged in the registry (never picked
// by name), are rungs the study builds past the course, and are few enough for one readable table.
TEST(ReduceRegistry, ShapeSweepIsFlaggedAndSmall) {
  int flagged = 0;
  for (const Rung& rung : registry())
    if (rung.in_shape_sweep) {
      ++flagged;
      EXPECT_TRUE(rung.info.role == Role::beyond || rung.info.role == Role::variant)
          << rung.info.name;
    }
  EXPECT_GE(flagged, 2);
  EXPECT_LE(flagged, 7);
}

TEST(ReduceIdentity, IsTheNeutralElementOfEachOperator) {
  EXPECT_EQ(reduce_identity<std::int32_t>(Op::sum), 0);
  EXPECT_EQ(reduce_identity<std::int32_t>(Op::product), 1);
  EXPECT_EQ(reduce_identity<std::int32_t>(Op::min), std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(reduce_identity<std::int32_t>(Op::max), std::numeric_limits<std::int32_t>::lowest());
  EXPECT_EQ(reduce_identity<std::uint64_t>(Op::bit_and), ~std::uint64_t{0});
  EXPECT_EQ(reduce_identity<std::int64_t>(Op::bit_and), -1);
  EXPECT_EQ(reduce_identity<std::uint32_t>(Op::bit_or), 0u);
  EXPECT_EQ(reduce_identity<float>(Op::min), std::numeric_limits<float>::infinity());
  EXPECT_EQ(reduce_identity<double>(Op::max), -std::numeric_limits<double>::infinity());
  EXPECT_THROW(reduce_identity<float>(Op::bit_and), std::invalid_argument);
  EXPECT_THROW(reduce_identity<double>(Op::bit_or), std::invalid_argument);
}

TEST(CpuReduce, IntegerSumAndProductWrapLikeTheGpu) {
  const std::vector<std::int32_t> big = {std::numeric_limits<std::int32_t>::max(), 1};
  EXPECT_EQ(cpu_reduce<std::int32_t>(big, Op::sum), std::numeric_limits<std::int32_t>::min());
  const std::vector<std::uint32_t> twos(33, 2u);
  EXPECT_EQ(cpu_reduce<std::uint32_t>(twos, Op::product), 0u); // 2^33 mod 2^32
  const std::vector<std::int64_t> mixed = {5, -7, 3, 12, -1};
  EXPECT_EQ(cpu_reduce<std::int64_t>(mixed, Op::sum), 12);
  EXPECT_EQ(cpu_reduce<std::int64_t>(mixed, Op::product), 5 * -7 * 3 * 12 * -1);
  EXPECT_EQ(cpu_reduce<std::int64_t>(mixed, Op::min), -7);
  EXPECT_EQ(cpu_reduce<std::int64_t>(mixed, Op::max), 12);
  const std::vector<std::uint32_t> bits = {0b1110u, 0b0111u, 0b0110u};
  EXPECT_EQ(cpu_reduce<std::uint32_t>(bits, Op::bit_and), 0b0110u);
  EXPECT_EQ(cpu_reduce<std::uint32_t>(bits, Op::bit_or), 0b1111u);
}

TEST(CpuReduce, EmptyInputGivesIdentity) {
  const std::vector<double> none;
  EXPECT_EQ(cpu_reduce<double>(none, Op::sum), 0.0);
  EXPECT_EQ(cpu_reduce<double>(none, Op::product), 1.0);
  EXPECT_EQ(cpu_reduce<double>(none, Op::min), std::numeric_limits<double>::infinity());
}

TEST(CpuReduce, FloatSumIsAccurateWhereFloatAccumulationIsNot) {
  // 2^24 + 1 + 1 + ... : a float accumulator sticks at 2^24, the long double one does not.
  std::vector<float> v(1001, 1.0f);
  v[0] = 16777216.0f;
  EXPECT_EQ(cpu_reduce<float>(v, Op::sum), 16777216.0f + 1000.0f);
  const std::vector<float> with_nan = {3.0f, std::nanf(""), -2.0f};
  EXPECT_EQ(cpu_reduce<float>(with_nan, Op::min), -2.0f); // fmin ignores NaN
  EXPECT_EQ(cpu_reduce<float>(with_nan, Op::max), 3.0f);
}

TEST(SumTolerance, GrowsWithNAndScalesWithMagnitude) {
  EXPECT_LT(sum_tolerance<float>(1000, 500), sum_tolerance<float>(1 << 24, 500));
  EXPECT_NEAR(
      static_cast<double>(sum_tolerance<double>(1000, 2000) / sum_tolerance<double>(1000, 1000)),
      2.0, 1e-9);
  EXPECT_LT(sum_tolerance<double>(1 << 20, 1), sum_tolerance<float>(1 << 20, 1));
  // A worst-case bound: for 2^20 values it is ~1e-5 of sum |x| (about 4.5 for values in [-1, 1),
  // more than one element), so dropped elements are caught by the exact tests instead (integers,
  // and integer-valued floats whose partial sums are all exact).
  EXPECT_LT(static_cast<double>(sum_tolerance<float>(1 << 20, 1 << 19)) / (1 << 19), 1e-5);
  EXPECT_GT(rounding_depth_bound(1 << 20), 20);
  EXPECT_EQ(rounding_depth_bound(1), 0);
}

TEST(Brent, MatchesTheSeedsFormulas) {
  const std::int64_t n = 1 << 22;
  const BrentFigures one = brent(n, 1);
  EXPECT_DOUBLE_EQ(one.steps, static_cast<double>(n - 1)); // p = 1: the sequential time W
  EXPECT_DOUBLE_EQ(one.depth, 22);
  const BrentFigures all = brent(n, static_cast<double>(n));
  EXPECT_NEAR(all.steps, 23.0, 1e-3);          // p = n: ~ t + 1
  EXPECT_NEAR(all.cost_over_work, 23.0, 1e-2); // n log n cost: not cost-optimal
  const BrentFigures optimal = brent(n, static_cast<double>(n) / 22);
  EXPECT_LT(optimal.steps, 2 * 22 + 1);    // ~2 log n
  EXPECT_LT(optimal.cost_over_work, 2.01); // O(N) cost
  EXPECT_THROW(brent(0, 1), std::invalid_argument);
  EXPECT_NE(brent_notes().find("ladder::reduce"), std::string::npos);
}

TEST(ReduceArguments, RejectedBeforeAnyCudaCall) {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{0x1000});
  EXPECT_THROW(ladder::reduce(fake, -1, Op::sum, fake, nullptr), std::invalid_argument);
  EXPECT_THROW(ladder::reduce<float>(nullptr, 3, Op::sum, fake, nullptr), std::invalid_argument);
  EXPECT_THROW(ladder::reduce<float>(fake, 3, Op::sum, nullptr, nullptr), std::invalid_argument);
  EXPECT_THROW(ladder::reduce(fake, 3, Op::bit_and, fake, nullptr), std::invalid_argument);
  EXPECT_THROW(ladder::reduce(fake, 3, Op::bit_or), std::invalid_argument);
  try {
    ladder::reduce<double>(nullptr, 0, Op::bit_and);
    ADD_FAILURE() << "bit_and on double accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("integer types only"), std::string::npos) << e.what();
  }
  // n = 0 with the host-value overload needs no GPU: it is the identity.
  EXPECT_EQ(ladder::reduce<std::int32_t>(nullptr, 0, Op::product), 1);
  EXPECT_EQ(ladder::reduce<float>(nullptr, 0, Op::max), -std::numeric_limits<float>::infinity());
}

} // namespace
} // namespace ladder::lab::reduce
