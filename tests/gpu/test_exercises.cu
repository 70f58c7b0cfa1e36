// GPU tests of the exercises' ladders, driven by their registries (a new rung is tested without
// touching this file): every rung's output compared exactly with the CPU reference over awkward
// sizes, outputs poisoned first; the slides' reversal launch shown wrong where n % 256 != 0; the
// vector add's boundary-check divergence counted on the device against the model.
#include "gpu_test.hpp"

#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "exercises/reference.hpp"
#include "exercises/sieve_host.hpp"
#include "exercises/variants.hpp"
#include "ladder/models.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ladder::test {
namespace {

namespace ex = lab::exercises;
namespace dp = ladder::detail::primes;
using lab::DeviceBuffer;

std::vector<std::int64_t> stream_sizes() {
  std::vector<std::int64_t> sizes = {1, 2, 3, 7, 31, 32, 33, 65, 255, 256, 257, 1000, 4099, 65536};
  if (!small_mode()) {
    sizes.push_back((1 << 20) + 3);
    sizes.push_back(1000003);
    // Several tiles per block on an H100/H200's resident grid: the bulk rungs' stages wrap around
    // (a block reuses each stage's buffers), and the chunk-per-block rungs' chunks span many tiles.
    sizes.push_back((1 << 22) + 5);
  }
  return sizes;
}

// Offsets from a 16-byte-aligned allocation: the vector paths' scalar heads and fallbacks.
const std::vector<int> offsets = {0, 1, 3};

template <class T> std::vector<T> to_host(const T* device, std::size_t n) {
  std::vector<T> out(n);
  EXPECT_EQ(cudaMemcpy(out.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return out;
}

class IncrementRungTest : public ::testing::TestWithParam<std::size_t> {};
TEST_P(IncrementRungTest, AddsOneToEveryElement) {
  const auto& rung = ex::increment_registry()[GetParam()];
  lab::Stream stream;
  for (std::int64_t n : stream_sizes())
    for (int off : offsets) {
      if (rung.unsupported(n))
        continue;
      DeviceBuffer<float> buffer(n + 4), copy(n + 4);
      float* a = buffer.data() + off;
      lab::fill_random<float>(a, n, lab::fresh_seed(), -100, 100, stream);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      const auto before = to_host(a, n);
      lab::poison(copy.data(), copy.bytes(), stream);
      rung.launch(a, copy.data(), n, stream);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      std::vector<float> expected(n);
      if (rung.is_copy) {
        EXPECT_EQ(ex::compare_floats_exact(to_host(copy.data(), n), before), "") << n;
      } else {
        ex::cpu_increment(before, expected);
        EXPECT_EQ(ex::compare_floats_exact(to_host(a, n), expected), "") << "n " << n << " offset " << off;
      }
    }
}
INSTANTIATE_TEST_SUITE_P(Exercises, IncrementRungTest,
                         ::testing::Range<std::size_t>(0, ex::increment_registry().size()),
                         [](const auto& info) {
                           return test_name(ex::increment_registry()[info.param].info.name);
                         });

class AddRungTest : public ::testing::TestWithParam<std::size_t> {};
TEST_P(AddRungTest, MatchesTheCpuSum) {
  const auto& rung = ex::add_registry()[GetParam()];
  lab::Stream stream;
  for (std::int64_t n : stream_sizes())
    for (int off : offsets) {
      if (rung.unsupported(n) || (rung.is_copy && off != 0))
        continue;
      DeviceBuffer<float> ab(2 * n + 8), c(n + n / 2 + 8);
      const float* a = ab.data() + off;
      const float* b = ab.data() + n + (rung.is_copy ? 0 : 2 * off % 4); // b's own offset too
      // At offset 3 c sits apart from a (a at 3, c at 1): a read off the output's alignment too.
      float* cp = c.data() + (rung.is_copy ? 0 : off == 3 ? 1 : off);
      lab::fill_random<float>(ab.data(), 2 * n + 8, lab::fresh_seed(), -100, 100, stream);
      lab::poison(c.data(), c.bytes(), stream);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      rung.launch(a, b, cp, n, stream);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      if (rung.is_copy) {
        EXPECT_EQ(ex::compare_floats_exact(to_host(cp, n + n / 2), to_host(a, n + n / 2)), "");
        continue;
      }
      std::vector<float> expected(n);
      ex::cpu_add(to_host(a, n), to_host(b, n), expected);
      EXPECT_EQ(ex::compare_floats_exact(to_host(cp, n), expected), "") << "n " << n << " offset " << off;
    }
}
INSTANTIATE_TEST_SUITE_P(Exercises, AddRungTest,
                         ::testing::Range<std::size_t>(0, ex::add_registry().size()),
                         [](const auto& info) {
                           return test_name(ex::add_registry()[info.param].info.name);
                         });

TEST(ExercisesDivergence, DeviceCountMatchesTheModel) {
  lab::Stream stream;
  for (std::int64_t n : {1000, 1024, 1, 33, 4099, 65537}) {
    DeviceBuffer<float> ab(2 * n), c(n);
    lab::fill_random<float>(ab.data(), 2 * n, 1, -1, 1, stream);
    const auto probe = ex::probe_add_divergence(ab.data(), ab.data() + n, c.data(), n,
                                                ex::slides_add_threads, stream);
    const auto model = ladder::models::boundary_check_divergence(n, ex::slides_add_threads);
    EXPECT_EQ(probe.warps, model.total) << n;
    EXPECT_EQ(probe.divergent, model.divergent) << n;
  }
}

class ReverseRungTest : public ::testing::TestWithParam<std::size_t> {};
TEST_P(ReverseRungTest, ReversesEveryElement) {
  const auto& rung = ex::reverse_registry()[GetParam()];
  lab::Stream stream;
  for (std::int64_t n : stream_sizes())
    for (int off : offsets) {
      if (rung.unsupported(n))
        continue;
      DeviceBuffer<std::int32_t> in(n + 4), out(n + 4);
      const std::int32_t* ip = in.data() + off;
      std::int32_t* op = out.data() + (3 * off) % 4;
      lab::fill_random<std::int32_t>(in.data(), n + 4, lab::fresh_seed(), -1e6, 1e6, stream);
      lab::poison(out.data(), out.bytes(), stream);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      rung.launch(ip, op, n, stream);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      const auto input = to_host(ip, n);
      std::vector<std::int32_t> expected(n);
      if (rung.is_copy)
        expected = input;
      else
        ex::cpu_reverse(input, expected);
      const std::string wrong = ex::compare_ints_exact(to_host(op, n), expected);
      if (rung.drops_tail_of_awkward_n && n % 256 != 0)
        EXPECT_NE(wrong, "") << "the slides' launch drops the tail of n = " << n;
      else
        EXPECT_EQ(wrong, "") << "n " << n << " offset " << off;
    }
}
INSTANTIATE_TEST_SUITE_P(Exercises, ReverseRungTest,
                         ::testing::Range<std::size_t>(0, ex::reverse_registry().size()),
                         [](const auto& info) {
                           return test_name(ex::reverse_registry()[info.param].info.name);
                         });

// --- sieve rungs ---------------------------------------------------------------------------------

ex::SievePlan plan_for(std::uint64_t n, DeviceBuffer<std::uint32_t>& table) {
  ex::SievePlan plan;
  plan.n = n;
  plan.host_primes = dp::odd_primes_up_to(dp::isqrt(n));
  auto words = dp::build_pattern_table();
  plan.prime_word = words.size();
  words.insert(words.end(), plan.host_primes.begin(), plan.host_primes.end());
  table = DeviceBuffer<std::uint32_t>(words.size());
  EXPECT_EQ(cudaMemcpy(table.data(), words.data(), words.size() * 4, cudaMemcpyHostToDevice),
            cudaSuccess);
  plan.table = table.data();
  plan.first_pattern_free = static_cast<std::uint32_t>(
      std::upper_bound(plan.host_primes.begin(), plan.host_primes.end(), 37u) -
      plan.host_primes.begin());
  return plan;
}

std::vector<std::uint64_t> sieve_sizes() {
  // Tiny n (the patterns' own primes, squares of primes), segment edges of the 8192- to
  // 32768-word shapes (2^18 .. 2^21 numbers), squares of primes near them.
  std::vector<std::uint64_t> sizes = {2,   3,   4,    5,    8,     9,     10,     25,     37,
                                      38,  49,  120,  121,  169,   1369,  1370,   1681,   10007,
                                      (1u << 18) - 1, 1u << 18, (1u << 18) + 1, (1u << 19) + 1,
                                      (1u << 20) + 1, 1000000, 1022121 /* 1011^2 */};
  if (!small_mode()) {
    for (std::uint64_t k : {21, 22, 23})
      for (std::int64_t d : {-1, 0, 1})
        sizes.push_back((1ull << k) + d);
    sizes.push_back(10000000);
    sizes.push_back(49999991ull * 1); // a prime
    sizes.push_back(100000007);
  }
  return sizes;
}

class SieveRungTest : public ::testing::TestWithParam<std::size_t> {};
TEST_P(SieveRungTest, MatchesThePlainCpuSieve) {
  const auto& rung = ex::sieve_registry()[GetParam()];
  if (rung.output == ex::SieveOutput::host)
    GTEST_SKIP() << "a CPU row";
  lab::Stream stream;
  int tested = 0;
  for (std::uint64_t n : sieve_sizes()) {
    if (rung.unsupported(n))
      continue;
    if (rung.output == ex::SieveOutput::flags && n > 10000000 && small_mode())
      continue;
    DeviceBuffer<std::uint32_t> table;
    const ex::SievePlan plan = plan_for(n, table);
    DeviceBuffer<unsigned long long> scratch(ex::sieve_scratch_words(n));
    const auto composite = ex::cpu_composite(n);
    const auto pi = static_cast<std::uint64_t>(std::count(composite.begin(), composite.end(), 0));
    ++tested;
    if (rung.output == ex::SieveOutput::flags) {
      DeviceBuffer<std::int32_t> flags(n + 1);
      lab::poison(flags.data(), flags.bytes(), stream);
      rung.launch(plan, flags.data(), 0, scratch.data(), stream);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      EXPECT_EQ(ex::compare_flags(to_host(flags.data(), n + 1), composite), "") << n;
    } else if (rung.output == ex::SieveOutput::count) {
      DeviceBuffer<unsigned long long> count(1);
      lab::poison(count.data(), count.bytes(), stream);
      rung.launch(plan, count.data(), 0, scratch.data(), stream);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      EXPECT_EQ(to_host(count.data(), 1)[0], pi) << n;
    } else {
      const std::uint64_t capacity = pi + 5; // room past the end: nothing may land there
      DeviceBuffer<std::uint32_t> out(capacity);
      lab::poison(out.data(), out.bytes(), stream);
      rung.launch(plan, out.data(), capacity, scratch.data(), stream);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      auto got = to_host(out.data(), capacity);
      for (std::uint64_t i = pi; i < capacity; ++i)
        EXPECT_EQ(got[i], 0xffffffffu) << "n " << n << ": written past pi(n) at " << i;
      got.resize(pi);
      EXPECT_EQ(got, ex::cpu_primes(n)) << n;
    }
  }
  EXPECT_GT(tested, 0);
}
INSTANTIATE_TEST_SUITE_P(Exercises, SieveRungTest,
                         ::testing::Range<std::size_t>(0, ex::sieve_registry().size()),
                         [](const auto& info) {
                           return test_name(ex::sieve_registry()[info.param].info.name);
                         });

} // namespace
} // namespace ladder::test
