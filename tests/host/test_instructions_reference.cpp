// Host tests of the instructions study's arithmetic: the guide's table, clock conversions, ULP
// distances, exact and ordered sums, divergence and latency-hiding predictions, the pointer-chase
// cycle, and the CPU side of every operation the throughput kernels run.
#include "instructions/ops.hpp"
#include "instructions/reference.hpp"
#include "instructions/variants.hpp"

#include "ladder/models.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <set>

namespace ladder::lab::instructions {
namespace {

TEST(InstructionsGuideTable, HopperColumnMatchesTheGuide) {
  EXPECT_EQ(guide_rate("fp32", 9, 0), 128);
  EXPECT_EQ(guide_rate("fp64", 9, 0), 64);
  EXPECT_EQ(guide_rate("fp16", 9, 0), 256);
  EXPECT_EQ(guide_rate("sfu", 9, 0), 16);
  EXPECT_EQ(guide_rate("int_add", 9, 0), 64);
  EXPECT_EQ(guide_rate("int_mul", 9, 0), 64);
  EXPECT_EQ(guide_rate("popc", 9, 0), 16);
  EXPECT_EQ(guide_rate("conversion", 9, 0), 16);
  // Consumer Ampere and Ada keep FP64 at 2 per clock; A100 has 32.
  EXPECT_EQ(guide_rate("fp64", 8, 6), 2);
  EXPECT_EQ(guide_rate("fp64", 8, 0), 32);
  EXPECT_EQ(guide_rate("fp32", 8, 0), 64);
  EXPECT_EQ(guide_rate("fp32", 7, 5), 64);
  EXPECT_FALSE(guide_rate("fp32", 12, 0).has_value()); // no column kept here
  EXPECT_FALSE(guide_rate("", 9, 0).has_value());      // "multiple instructions"
  EXPECT_FALSE(guide_rate("mul24", 9, 0).has_value());
}

TEST(InstructionsGuideTable, EveryRegistryRowNamesAKnownGuideRow) {
  std::set<std::string_view> names;
  for (const auto& r : throughput_registry()) {
    EXPECT_TRUE(names.insert(r.info.name).second) << r.info.name;
    if (!r.guide_row.empty())
      EXPECT_TRUE(guide_rate(r.guide_row, 9, 0).has_value()) << r.info.name;
    EXPECT_NE(r.launch, nullptr);
    EXPECT_NE(r.host, nullptr);
    EXPECT_NE(r.info.kernel, nullptr);
    EXPECT_FALSE(r.sass.empty()) << r.info.name;
    EXPECT_GE(r.unroll, 1);
    EXPECT_GT(r.cost, 0);
  }
  EXPECT_TRUE(names.count("sinf_fast_math")); // the -use_fast_math file's rows are registered
}

TEST(InstructionsClock, ConversionsFromCyclesAndTime) {
  EXPECT_DOUBLE_EQ(clock_hz(1980, 1000), 1.98e9);
  EXPECT_EQ(clock_hz(0, 1000), 0);
  EXPECT_EQ(clock_hz(100, 0), 0);
  // 132 SMs at 1.98 GHz doing 128 per clock for 1 ms.
  const double ops = 128.0 * 132 * 1.98e9 * 1e-3;
  EXPECT_NEAR(per_clock_per_sm(ops, 1e-3, 1.98e9, 132), 128.0, 1e-9);
  EXPECT_EQ(per_clock_per_sm(ops, 0, 1.98e9, 132), 0);
  EXPECT_DOUBLE_EQ(cycles_per_step(4096 * 4, 4096), 4.0);
}

TEST(InstructionsUlp, SpacingAndDistance) {
  EXPECT_EQ(float_ulp(1.0), std::ldexp(1.0, -23));
  EXPECT_EQ(float_ulp(1.5), std::ldexp(1.0, -23));
  EXPECT_EQ(float_ulp(0.75), std::ldexp(1.0, -24));
  EXPECT_EQ(float_ulp(-2.0), std::ldexp(1.0, -22));
  EXPECT_EQ(float_ulp(1e-40), std::ldexp(1.0, -149)); // subnormal
  EXPECT_EQ(float_ulp(0.0), std::ldexp(1.0, -149));
  const float one_up = std::nextafter(1.0f, 2.0f);
  EXPECT_DOUBLE_EQ(ulp_error(one_up, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(ulp_error(1.0f, 1.0 + std::ldexp(1.0, -24)), 0.5);
  EXPECT_TRUE(std::isinf(ulp_error(std::numeric_limits<float>::quiet_NaN(), 1.0)));
  EXPECT_TRUE(std::isinf(ulp_error(std::numeric_limits<float>::infinity(), 1.0)));
  EXPECT_EQ(ulp_error(std::numeric_limits<float>::infinity(), HUGE_VAL), 0.0);
  UlpStats s;
  s.add(1.0, 0.1);
  s.add(3.0, 0.2);
  s.add(2.0, 0.3);
  s.finish();
  EXPECT_EQ(s.max, 3.0);
  EXPECT_EQ(s.worst_argument, 0.2);
  EXPECT_DOUBLE_EQ(s.mean, 2.0);
}

TEST(InstructionsUlp, DocumentedBounds) {
  EXPECT_EQ(library_ulp_bound(MathFunctionId::sin), 2);
  EXPECT_EQ(library_ulp_bound(MathFunctionId::log), 1);
  // __sinf is bounded on [-pi, pi] only.
  EXPECT_TRUE(within_intrinsic_bound(MathFunctionId::sin, 0.5, static_cast<float>(std::sin(0.5))));
  EXPECT_FALSE(
      within_intrinsic_bound(MathFunctionId::sin, 0.5, static_cast<float>(std::sin(0.5) + 1e-5)));
  EXPECT_TRUE(within_intrinsic_bound(MathFunctionId::sin, 100.0, 0.0f));
  // __expf: 2 + floor(|1.173 x|) ULP.
  const double e = std::exp(10.0);
  const float off_by_10 = static_cast<float>(e + 10 * float_ulp(e));
  EXPECT_TRUE(within_intrinsic_bound(MathFunctionId::exp, 10.0, off_by_10));
  EXPECT_FALSE(within_intrinsic_bound(MathFunctionId::exp, 1.0,
                                      static_cast<float>(std::exp(1.0) * (1 + 1e-5))));
}

TEST(InstructionsSummation, TheDecksExampleIsNotAssociative) {
  volatile float x = 1e30f, y = -1e30f, z = 1.0f; // volatile: no compile-time folding
  EXPECT_EQ((x + y) + z, 1.0f);
  EXPECT_EQ(x + (y + z), 0.0f);
}

TEST(InstructionsSummation, ExactAndOrderedSums) {
  const auto v = exact_inputs(1 << 12, 42);
  long double wide = 0;
  for (float f : v) {
    EXPECT_GT(f, 0.0f);
    EXPECT_LT(f, 1.0f);
    wide += f;
  }
  EXPECT_EQ(exact_sum(v), static_cast<double>(wide)); // both exact at this size
  EXPECT_THROW(exact_sum(std::vector<float>{0.1f}), std::invalid_argument);
  const std::vector<float> four = {1.0f, 1e8f, -1e8f, 1.0f};
  EXPECT_EQ(sequential_sum(four), 1.0f);                         // ((1 + 1e8) - 1e8) + 1
  EXPECT_EQ(pairwise_sum(four), (1.0f + 1e8f) + (-1e8f + 1.0f)); // (a + b) + (c + d)
  EXPECT_THROW(pairwise_sum(std::vector<float>(3, 1.0f)), std::invalid_argument);
  EXPECT_EQ(pairwise_sum(std::vector<float>{5.0f}), 5.0f);
  // 2^24 ones: sequential stops at 2^24 (2^24 + 1 rounds back), pairwise is exact.
  const std::vector<float> ones((1 << 24) + 64, 1.0f);
  EXPECT_EQ(sequential_sum(ones), 16777216.0f);
}

TEST(InstructionsDivergence, BranchCountsAndPredictions) {
  auto by = [](Branch b, int g) { return [=](int t) { return takes_path_a(b, g, t); }; };
  for (int g : {1, 2, 4, 8, 16}) {
    const auto c = branch_divergence(256, by(Branch::granularity, g));
    EXPECT_EQ(c.total, 8);
    EXPECT_EQ(c.divergent, 8) << g;
    EXPECT_DOUBLE_EQ(predicted_slowdown(c), 2.0);
  }
  for (int g : {32, 64}) {
    const auto c = branch_divergence(256, by(Branch::granularity, g));
    EXPECT_EQ(c.divergent, 0) << g;
    EXPECT_DOUBLE_EQ(predicted_slowdown(c), 1.0);
  }
  const auto deck = branch_divergence(256, by(Branch::deck_thread, 1));
  EXPECT_EQ(deck.divergent, 1); // warp 0 only: threads 0..2 vs 3..31
  EXPECT_DOUBLE_EQ(predicted_slowdown(deck), 1.125);
  EXPECT_EQ(branch_divergence(256, by(Branch::deck_warp, 1)).divergent, 0);
  EXPECT_EQ(branch_divergence(40, by(Branch::granularity, 32)).total, 2); // a partial warp
  EXPECT_THROW(branch_divergence(0, by(Branch::none, 1)), std::invalid_argument);
  // The lecture's vector add: n = 1000, 256 threads: 1 of 32 warps.
  const auto add = models::boundary_check_divergence(1000, 256);
  EXPECT_EQ(add.total, 32);
  EXPECT_EQ(add.divergent, 1);
}

TEST(InstructionsLatencyHiding, TheDecksArithmetic) {
  // G80: 8 lanes per SM (one warp instruction per 4 clocks), ~24-cycle latency: 6 warps.
  EXPECT_DOUBLE_EQ(warps_to_hide(24, 0.25, 1), 6.0);
  // Hopper-like: 4 sub-partitions each issuing one FMA per clock, 4-cycle latency: 16 warps.
  EXPECT_DOUBLE_EQ(warps_to_hide(4, 4, 1), 16.0);
  EXPECT_DOUBLE_EQ(warps_to_hide(4, 4, 4), 4.0);
  EXPECT_THROW(warps_to_hide(0, 4, 1), std::invalid_argument);
  // 4 TB/s over 132 SMs, 500 ns, 128 B per warp in flight.
  EXPECT_NEAR(warps_for_bandwidth(4e12, 132, 500e-9, 128), 4e12 / 132 * 500e-9 / 128, 1e-9);
  EXPECT_THROW(warps_for_bandwidth(4e12, 0, 500e-9, 128), std::invalid_argument);
}

TEST(InstructionsChase, OneCycleThroughEverySlot) {
  const std::uint32_t lines = 1000, stride = 32;
  const auto chase = chase_cycle(lines, stride, 7);
  ASSERT_EQ(chase.size(), static_cast<std::size_t>(lines) * stride);
  std::set<std::uint32_t> seen;
  std::uint32_t p = 0;
  for (std::uint32_t i = 0; i < lines; ++i) {
    EXPECT_EQ(p % stride, 0u);
    EXPECT_TRUE(seen.insert(p).second) << "revisited " << p << " after " << i << " steps";
    p = chase[p];
  }
  EXPECT_EQ(p, 0u); // back at the start after exactly `lines` steps
  EXPECT_THROW(chase_cycle(0, 1, 1), std::invalid_argument);
}

TEST(InstructionsOps, HostSideOfTheIntegerOperations) {
  EXPECT_EQ(umul24(0x01000003u, 5u), 15u); // bits above 24 ignored
  EXPECT_EQ(umul24(0xFFFFFFu, 0xFFFFFFu), static_cast<std::uint32_t>(0xFFFFFFull * 0xFFFFFFull));
  EXPECT_EQ(funnel_left(0x80000000u, 0x00000001u, 1), 0x00000003u);
  EXPECT_EQ(funnel_left(0u, 0x12345678u, 0), 0x12345678u);
  EXPECT_EQ(funnel_left(0x12345678u, 0x12345678u, 8), std::rotl(0x12345678u, 8));
  EXPECT_EQ(popcount(0xF0F0u), 8u);
  EXPECT_EQ(float_to_int_rn(2.5f), 2); // round half to even
  EXPECT_EQ(float_to_int_rn(3.5f), 4);
  EXPECT_EQ(float_to_int_rn(3e9f), 2147483647);
  // Int32Add pairs follow Fibonacci: (1, 1) -> (2, 3) -> (5, 8).
  std::uint32_t x = 1, y = 1;
  Int32Add::update(x, y, {});
  Int32Add::update(x, y, {});
  EXPECT_EQ(x, 5u);
  EXPECT_EQ(y, 8u);
  // Division by the variable and by the literal agree, and with the explicit shift and mask.
  OpArgs a;
  std::uint32_t v1 = 123456789, w1 = 987654321, v2 = v1, w2 = w1, v3 = v1, w3 = w1;
  UdivVariable::update(v1, w1, a);
  UdivLiteral::update(v2, w2, a);
  UdivShift::update(v3, w3, a);
  EXPECT_EQ(v1, v2);
  EXPECT_EQ(w1, w3);
  std::uint32_t m1 = 123456789, n1 = 55, m2 = m1, n2 = n1, m3 = m1, n3 = n1;
  UmodVariable::update(m1, n1, a);
  UmodLiteral::update(m2, n2, a);
  UmodMask::update(m3, n3, a);
  EXPECT_EQ(m1, m2);
  EXPECT_EQ(n1, n3);
}

TEST(InstructionsOps, HalfRoundingOnTheHost) {
  EXPECT_EQ(half_bits(1.0), 0x3C00);
  EXPECT_EQ(half_bits(0.5), 0x3800);
  EXPECT_EQ(half_bits(-2.0), 0xC000);
  EXPECT_EQ(half_bits(65504.0), 0x7BFF);
  EXPECT_EQ(half_bits(1.0 + std::ldexp(1.0, -11)), 0x3C00);     // tie to even (down)
  EXPECT_EQ(half_bits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02); // tie to even (up)
  EXPECT_EQ(half_bits(2.0 - std::ldexp(1.0, -12)), 0x4000);     // rounds up into the next binade
  for (std::uint16_t bits : {0x3C00, 0x3555, 0x0400, 0x7BFF, 0xB800})
    EXPECT_EQ(half_bits(half_value(bits)), bits);
  // The FP16x2 chain contracts to 0.5 and never leaves the normal range.
  std::uint32_t x, y;
  Fp16x2Fma::seed(3, 1, x, y);
  for (int i = 0; i < 100; ++i)
    Fp16x2Fma::update(x, y, {});
  EXPECT_EQ(x, 0x38003800u);
}

TEST(InstructionsOps, HostChainsAreDeterministic) {
  std::vector<double> a(8), b(8);
  for (const auto& r : throughput_registry()) {
    r.host(12345, 4, r.unroll, OpArgs{}, a.data());
    r.host(12345, 4, r.unroll, OpArgs{}, b.data());
    EXPECT_EQ(a, b) << r.info.name;
    for (double v : a)
      EXPECT_TRUE(std::isfinite(v)) << r.info.name;
  }
}

} // namespace
} // namespace ladder::lab::instructions
