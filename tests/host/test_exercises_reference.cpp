// Host tests of the exercises' CPU references and of the sieve's host-side pieces (the sieving
// primes, the pre-sieve patterns, integer square roots, the capacity bound), against trial
// division and the published prime counts.
#include "exercises/reference.hpp"
#include "exercises/reverse_plan.hpp"
#include "exercises/sieve_host.hpp"

#include "ladder/models.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace ex = ladder::lab::exercises;
namespace dp = ladder::detail::primes;

bool is_prime_by_trial(std::uint64_t x) {
  if (x < 2)
    return false;
  for (std::uint64_t d = 2; d * d <= x; ++d)
    if (x % d == 0)
      return false;
  return true;
}

TEST(ExercisesReference, PlainSieveMatchesTrialDivision) {
  const auto composite = ex::cpu_composite(5000);
  for (std::uint64_t i = 0; i <= 5000; ++i)
    EXPECT_EQ(composite[i] == 0, is_prime_by_trial(i)) << i;
  for (std::uint64_t n : {0, 1, 2, 3, 4})
    EXPECT_EQ(ex::cpu_composite(n).size(), n + 1);
}

TEST(ExercisesReference, PlainSieveCountsMatchPublishedCounts) {
  for (std::uint64_t n = 1; n <= 10000000; n *= 10)
    EXPECT_EQ(ex::cpu_count_primes(n), *ex::known_prime_count(n)) << n;
  for (int k = 0; k <= 24; ++k)
    EXPECT_EQ(ex::cpu_count_primes(1ull << k), *ex::known_prime_count(1ull << k)) << k;
  EXPECT_FALSE(ex::known_prime_count(12345).has_value());
  EXPECT_EQ(*ex::known_prime_count(10000000000ull), 455052511u);
  EXPECT_EQ(*ex::known_prime_count(100000000000ull), 4118054813ull);
  EXPECT_EQ(*ex::known_prime_count(1ull << 32), 203280221u);
}

TEST(ExercisesReference, OddPrimesUpToMatchesThePlainSieve) {
  // Every m up to 300 (the small cases and the first segment's edges), then sizes around the
  // 2^18-byte segments of the host sieve (2 numbers per byte: edges at multiples of 2^19).
  std::vector<std::uint64_t> ms;
  for (std::uint64_t m = 0; m <= 300; ++m)
    ms.push_back(m);
  for (std::uint64_t edge : {1ull << 19, 2ull << 19, 3ull << 19})
    for (std::uint64_t d : {0ull, 1ull, 2ull, 3ull})
      ms.push_back(edge - 2 + d);
  ms.push_back(10000019);
  for (std::uint64_t m : ms) {
    auto expected = ex::cpu_primes(m);
    if (!expected.empty())
      expected.erase(expected.begin()); // 2
    EXPECT_EQ(dp::odd_primes_up_to(m), expected) << m;
  }
  EXPECT_THROW(dp::odd_primes_up_to(1ull << 32), std::invalid_argument);
}

TEST(ExercisesReference, IsqrtIsTheExactFloor) {
  for (std::uint64_t r : {0ull, 1ull, 2ull, 3ull, 1000ull, 65535ull, 65536ull, 4294967295ull,
                          3037000499ull, 2147483647ull}) {
    const std::uint64_t sq = r * r;
    EXPECT_EQ(dp::isqrt(sq), r);
    if (sq > 0)
      EXPECT_EQ(dp::isqrt(sq - 1), r - 1);
    if (r < 4294967295ull)
      EXPECT_EQ(dp::isqrt(sq + 2 * r), r); // (r + 1)^2 - 1
  }
  EXPECT_EQ(dp::isqrt(~0ull), 4294967295ull);
}

TEST(ExercisesReference, PatternTableMarksExactlyTheMultiplesOfItsPrimes) {
  const auto table = dp::build_pattern_table();
  ASSERT_EQ(table.size(), dp::pattern_table_words);
  const std::vector<std::vector<std::uint64_t>> groups = {
      {3, 5, 7, 11, 13}, {17, 19, 23}, {29, 31, 37}};
  for (int k = 0; k < dp::pattern_count; ++k) {
    const std::uint32_t period = dp::pattern_periods[k];
    std::uint64_t product = 1;
    for (auto p : groups[k])
      product *= p;
    EXPECT_EQ(product, period);
    // Every window start the sieve reads: bits [o, o + 32) for o < period.
    for (std::uint32_t o = 0; o < period + 32; ++o) {
      const std::uint64_t number = 2 * (o % period) + 1;
      bool composite = false;
      for (auto p : groups[k])
        composite = composite || number % p == 0;
      const bool bit = (table[dp::pattern_offsets[k] + o / 32] >> (o % 32)) & 1u;
      ASSERT_EQ(bit, composite) << "pattern " << k << " bit " << o;
    }
  }
  std::uint32_t prime_bits = 0;
  for (auto p : dp::pattern_primes)
    prime_bits |= 1u << ((p - 1) / 2);
  EXPECT_EQ(dp::pattern_prime_bits(), prime_bits);
}

TEST(ExercisesReference, CapacityBoundIsAboveEveryKnownCount) {
  for (std::uint64_t n = 1; n <= 100000000000ull; n *= 10)
    EXPECT_GE(dp::prime_count_upper_bound(n), *ex::known_prime_count(n)) << n;
  for (int k = 1; k <= 32; ++k)
    EXPECT_GE(dp::prime_count_upper_bound(1ull << k), *ex::known_prime_count(1ull << k)) << k;
  for (std::uint64_t n = 0; n < 2000; ++n)
    EXPECT_GE(dp::prime_count_upper_bound(n), ex::cpu_count_primes(n)) << n;
  // And not far above: at 2^32 within 2 % (the generate table allocates this much).
  EXPECT_LT(dp::prime_count_upper_bound(1ull << 32), 203280221 * 1.02);
}

TEST(ExercisesReference, FlagsComparisonFindsEveryKindOfError) {
  const auto composite = ex::cpu_composite(100);
  std::vector<std::int32_t> flags(composite.begin(), composite.end());
  EXPECT_EQ(ex::compare_flags(flags, composite), "");
  flags[0] = 0; // 0 and 1 are not checked: the slides' kernel leaves them
  flags[1] = 0;
  EXPECT_EQ(ex::compare_flags(flags, composite), "");
  flags[97] = 1; // a prime crossed off
  EXPECT_NE(ex::compare_flags(flags, composite), "");
  flags[97] = 0;
  flags[49] = 0; // a composite left
  EXPECT_NE(ex::compare_flags(flags, composite), "");
}

TEST(ExercisesReference, ElementwiseReferences) {
  const std::vector<std::int32_t> in = {1, 2, 3, 4, 5};
  std::vector<std::int32_t> out(5);
  ex::cpu_reverse(in, out);
  EXPECT_EQ(out, (std::vector<std::int32_t>{5, 4, 3, 2, 1}));
  EXPECT_NE(ex::compare_ints_exact(in, out), "");
  std::vector<float> a = {1.5f, -2.0f}, b = {0.25f, 2.0f}, c(2);
  ex::cpu_add(a, b, c);
  EXPECT_EQ(c, (std::vector<float>{1.75f, 0.0f}));
  ex::cpu_increment(a, c);
  EXPECT_EQ(c, (std::vector<float>{2.5f, -1.0f}));
}

TEST(ExercisesReference, LectureDivergenceModel) {
  // The lecture: n = 1000, 256 threads: 4 blocks, 32 warps, 1 divergent.
  const auto d = ladder::models::boundary_check_divergence(1000, 256);
  EXPECT_EQ(d.total, 32);
  EXPECT_EQ(d.divergent, 1);
}

TEST(ExercisesReference, PrimesieveAgreesWhereItIsPresent) {
  if (!ex::have_primesieve())
    GTEST_SKIP() << ex::primesieve_absent_reason();
  for (std::uint64_t n : {0ull, 1ull, 2ull, 100ull, 1000003ull, 1ull << 24})
    EXPECT_EQ(ex::primesieve_count(n, 1), ex::cpu_count_primes(n)) << n;
  EXPECT_EQ(ex::primesieve_primes(1000), ex::cpu_primes(1000));
}

// The reversal's 16-byte plan (exercises/reverse_plan.hpp), walked on the host for every small n
// and every 4-byte offset of the two pointers: every output element written exactly once with
// in[n - 1 - j], every 16-byte input quad the kernels read (the item's and, when shift > 0, the
// next one) inside the array, and at most 7 elements at each end left to the scalar loops.
TEST(ExercisesReference, ReversePlanCoversEveryElementWithInBoundsQuads) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t n = 0; n <= 300; ++n)
    sizes.push_back(n);
  for (std::int64_t n : {1000, 4099, 65536, 65537, 1000003})
    sizes.push_back(n);
  for (std::int64_t n : sizes)
    for (std::uintptr_t in_offset = 0; in_offset < 4; ++in_offset)
      for (std::uintptr_t out_offset = 0; out_offset < 4; ++out_offset) {
        const std::uintptr_t in = 0x10000 + 4 * in_offset, out = 0x90000 + 4 * out_offset;
        const ex::ReversePlan plan = ex::plan_reverse(in, out, n);
        SCOPED_TRACE("n " + std::to_string(n) + " in offset " + std::to_string(in_offset) +
                     " out offset " + std::to_string(out_offset));
        std::vector<std::int64_t> got(static_cast<std::size_t>(n), -1);
        std::vector<int> writes(static_cast<std::size_t>(n), 0);
        const auto write = [&](std::int64_t j, std::int64_t value) {
          ASSERT_GE(j, 0);
          ASSERT_LT(j, n);
          got[j] = value;
          ++writes[j];
        };
        for (std::int64_t j = 0; j < plan.scalar_end_front(); ++j)
          write(j, n - 1 - j);
        for (std::int64_t j = plan.scalar_begin_back(); j < n; ++j)
          write(j, n - 1 - j);
        if (plan.count > 0) {
          ASSERT_EQ((out + 4 * plan.out_head) % 16, 0u);
          ASSERT_EQ((in + 4 * plan.in_head) % 16, 0u);
        }
        for (std::int64_t k = 0; k < plan.count; ++k) {
          // Element e of the input quads p, p + 1 (in[i] = i stands for its index).
          const std::int64_t first_element = plan.in_head + 4 * plan.input_quad(k);
          const std::int64_t last_element = first_element + (plan.shift > 0 ? 7 : 3);
          ASSERT_GE(first_element, 0);
          ASSERT_LT(last_element, n);
          for (int m = 0; m < 4; ++m)
            write(plan.out_head + 4 * (plan.first + k) + m, first_element + plan.shift + 3 - m);
        }
        for (std::int64_t j = 0; j < n; ++j) {
          ASSERT_EQ(writes[j], 1) << "output " << j;
          ASSERT_EQ(got[j], n - 1 - j) << "output " << j;
        }
        if (plan.count > 0) {
          EXPECT_LE(plan.scalar_end_front(), 7);
          EXPECT_LE(n - plan.scalar_begin_back(), 7);
        } else {
          EXPECT_LT(n, 24); // only arrays too short for the plan are all scalar
        }
      }
}

} // namespace
