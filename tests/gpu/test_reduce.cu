// GPU tests of the reduction ladder (registry-driven: a new rung is tested without touching this
// file) and of ladder::reduce over every type, operator, awkward size and a misaligned pointer.
//
// Exactness: integer results must be bit-exact (sum and product wrap modulo 2^bits, so any order
// gives the same value). The rungs' float checks use integer-valued floats in [-8, 8]: with
// n <= ~10^6 every partial sum stays below 2^24 in magnitude, so each one is exact in float and
// every summation order must give exactly the CPU's value. The library's float and double sums on
// real-valued data are held to the bound for any summation tree of depth d,
// |err| <= d u / (1 - d u) x sum |x_i| (Higham), with d from rounding_depth_bound(n): it grows
// with n because each element passes through more roundings as n grows (a fixed tolerance would
// either fail large n or let a dropped element through at small n).
#include "gpu_test.hpp"

#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "ladder/reduce.hpp"
#include "reduce/api_config.hpp"
#include "reduce/reference.hpp"
#include "reduce/variants.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

namespace ladder::test {
namespace {

using lab::DeviceBuffer;
using ReduceRung = lab::reduce::Rung;

std::vector<std::int64_t> test_sizes() {
  std::vector<std::int64_t> sizes = {1, 2, 127, 128, 129, 1000, 4099};
  if (!small_mode()) {
    sizes.push_back((std::int64_t{1} << 20) + 3);
    sizes.push_back(1000003); // prime
  }
  return sizes;
}

// The rungs' sizes plus both sides of every size at which ladder::reduce changes its launch (one
// block, 256-thread blocks, 1024-thread blocks: src/reduce/api_config.hpp), so each path and each
// switch is hit.
template <class T> std::vector<std::int64_t> library_sizes() {
  std::vector<std::int64_t> sizes = test_sizes();
  constexpr auto element = static_cast<std::int64_t>(sizeof(T));
  std::vector<std::int64_t> switches = {
      reduce_detail::library_one_block_bytes<reduce_detail::library_small_config> / element,
      reduce_detail::library_one_block_bytes<reduce_detail::library_large_config> / element};
  if (!small_mode())
    switches.push_back(reduce_detail::library_large_min);
  for (const std::int64_t n : switches)
    sizes.insert(sizes.end(), {n - 1, n, n + 1});
  return sizes;
}

std::mt19937_64 seeded_rng(const char* what) {
  const std::uint64_t seed = lab::fresh_seed();
  ::testing::Test::RecordProperty(what, std::to_string(seed));
  return std::mt19937_64(seed);
}

// Copies `host` to a device buffer at element offset `offset` (1 = misaligned for 16-byte loads).
template <class T> struct Placed {
  DeviceBuffer<T> buffer;
  const T* data = nullptr;
  Placed(const std::vector<T>& host, std::int64_t offset, cudaStream_t stream)
      : buffer(host.size() + static_cast<std::size_t>(offset) + 1) {
    data = buffer.data() + offset;
    lab::poison(buffer.data(), buffer.bytes(), stream); // elements outside [0, n) are NaN / -1
    if (!host.empty())
      EXPECT_EQ(cudaMemcpyAsync(buffer.data() + offset, host.data(), host.size() * sizeof(T),
                                cudaMemcpyHostToDevice, stream),
                cudaSuccess);
  }
};

// --- every rung, int32 and float ---------------------------------------------------------------

class ReduceRungTest : public ::testing::TestWithParam<std::size_t> {};

template <class T>
void check_variant(const ReduceRung& v, lab::reduce::ReduceLaunch<T> launch, std::mt19937_64& rng,
                   cudaStream_t stream) {
  int tested = 0;
  for (const std::int64_t n : test_sizes()) {
    if (v.unsupported(n))
      continue;
    std::vector<T> host(static_cast<std::size_t>(n));
    std::uniform_int_distribution<int> dist(std::is_same_v<T, int> ? -1000 : -8,
                                            std::is_same_v<T, int> ? 1000 : 8);
    for (auto& x : host)
      x = static_cast<T>(dist(rng));
    const T expected = lab::reduce::cpu_reduce<T>(host, Op::sum);
    const std::size_t scratch_bytes = v.scratch_bytes(n);
    DeviceBuffer<std::uint8_t> scratch(scratch_bytes);
    if (scratch_bytes > 0)
      ASSERT_EQ(cudaMemsetAsync(scratch.data(), 0, scratch_bytes, stream), cudaSuccess);
    DeviceBuffer<T> out(1);
    for (const std::int64_t offset : {0, 1}) {
      Placed<T> in(host, offset, stream);
      // Twice: the single-pass rungs must leave their counter at zero for the next launch.
      for (int repeat = 0; repeat < 2; ++repeat) {
        lab::poison(out.data(), sizeof(T), stream);
        launch(in.data, n, out.data(), scratch.data(), scratch_bytes, stream);
        ASSERT_EQ(cudaGetLastError(), cudaSuccess);
        T got{};
        ASSERT_EQ(cudaMemcpyAsync(&got, out.data(), sizeof(T), cudaMemcpyDeviceToHost, stream), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        EXPECT_EQ(got, expected) << v.info.name << " n=" << n << " offset=" << offset << " repeat=" << repeat;
      }
    }
    ++tested;
  }
  EXPECT_GT(tested, 0) << v.info.name << " supports none of the test sizes";
}

TEST_P(ReduceRungTest, SumsExactlyOnEverySizeItSupports) {
  const ReduceRung& v = lab::reduce::registry()[GetParam()];
  lab::Stream stream;
  auto rng = seeded_rng("seed");
  check_variant<int>(v, v.launch_int, rng, stream);
  check_variant<float>(v, v.launch_float, rng, stream);
}

INSTANTIATE_TEST_SUITE_P(Registry, ReduceRungTest,
                         ::testing::Range<std::size_t>(0, lab::reduce::registry().size()),
                         [](const auto& info) { return test_name(lab::reduce::registry()[info.param].info.name); });

// --- the library call ----------------------------------------------------------------------------

constexpr Op all_ops[] = {Op::sum, Op::product, Op::min, Op::max, Op::bit_and, Op::bit_or};

template <class T> bool op_applies(Op op) {
  return std::is_integral_v<T> || (op != Op::bit_and && op != Op::bit_or);
}

// Data that keeps each operator informative: odd integers for products (never collapse to 0),
// mostly-one bits for bit_and, sparse bits for bit_or, values near 1 for floating products.
template <class T> std::vector<T> make_data(std::int64_t n, Op op, std::mt19937_64& rng) {
  std::vector<T> v(static_cast<std::size_t>(n));
  if constexpr (std::is_integral_v<T>) {
    for (auto& x : v) {
      std::uint64_t bits = rng();
      if (op == Op::product)
        bits |= 1;
      else if (op == Op::bit_and)
        bits = ~(rng() & rng() & rng() & rng() & rng() & rng());
      else if (op == Op::bit_or)
        bits = rng() & rng() & rng() & rng() & rng() & rng();
      x = static_cast<T>(bits);
    }
  } else {
    std::uniform_real_distribution<T> sum_dist(-1, 1), product_dist(T(0.999), T(1.001)), wide(-1000, 1000);
    for (auto& x : v)
      x = op == Op::sum ? sum_dist(rng) : op == Op::product ? product_dist(rng) : wide(rng);
  }
  return v;
}

template <class T>
void expect_close(T got, const std::vector<T>& host, Op op, const std::string& where) {
  const T want = lab::reduce::cpu_reduce<T>(host, op);
  if constexpr (std::is_integral_v<T>) {
    EXPECT_EQ(got, want) << where;
  } else {
    const auto n = static_cast<std::int64_t>(host.size());
    if (op == Op::sum) {
      const long double bound = lab::reduce::sum_tolerance<T>(n, lab::reduce::cpu_sum_abs<T>(host));
      EXPECT_LE(std::fabs(static_cast<long double>(got) - want), bound) << where << " got " << got << " want " << want;
    } else if (op == Op::product) {
      const long double bound = lab::reduce::product_relative_tolerance<T>(n) * std::fabs(static_cast<long double>(want));
      EXPECT_LE(std::fabs(static_cast<long double>(got) - want), bound) << where << " got " << got << " want " << want;
    } else {
      EXPECT_EQ(got, want) << where; // min / max pick an input: no rounding
    }
  }
}

template <class T> class ReduceLibraryTest : public ::testing::Test {};
using ElementTypes = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(ReduceLibraryTest, ElementTypes);

TYPED_TEST(ReduceLibraryTest, EveryOperatorSizeAndAlignment) {
  using T = TypeParam;
  lab::Stream stream;
  auto rng = seeded_rng("seed");
  DeviceBuffer<T> out(1);
  for (const Op op : all_ops) {
    if (!op_applies<T>(op))
      continue;
    for (const std::int64_t n : library_sizes<T>()) {
      const auto host = make_data<T>(n, op, rng);
      for (const std::int64_t offset : {0, 1}) {
        Placed<T> in(host, offset, stream);
        lab::poison(out.data(), sizeof(T), stream);
        ladder::reduce(in.data, n, op, out.data(), stream);
        T got{};
        ASSERT_EQ(cudaMemcpyAsync(&got, out.data(), sizeof(T), cudaMemcpyDeviceToHost, stream), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        const std::string where = "op " + std::to_string(static_cast<int>(op)) + " n=" + std::to_string(n) +
                                  " offset=" + std::to_string(offset);
        expect_close<T>(got, host, op, where + " (device result)");
        if (n == 1000 || n == 129)
          expect_close<T>(ladder::reduce(in.data, n, op, static_cast<cudaStream_t>(stream)), host, op,
                          where + " (host value)");
      }
    }
  }
}

TYPED_TEST(ReduceLibraryTest, ZeroElementsGiveTheIdentity) {
  using T = TypeParam;
  lab::Stream stream;
  DeviceBuffer<T> out(1);
  for (const Op op : all_ops) {
    if (!op_applies<T>(op))
      continue;
    const T identity = ladder::reduce_identity<T>(op);
    EXPECT_EQ(ladder::reduce<T>(nullptr, 0, op, static_cast<cudaStream_t>(stream)), identity);
    lab::poison(out.data(), sizeof(T), stream);
    ladder::reduce<T>(nullptr, 0, op, out.data(), stream);
    T got{};
    ASSERT_EQ(cudaMemcpyAsync(&got, out.data(), sizeof(T), cudaMemcpyDeviceToHost, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(std::memcmp(&got, &identity, sizeof(T)), 0) << "op " << static_cast<int>(op);
  }
}

TEST(ReduceLibrary, BadArgumentsThrowAndLaunchNothing) {
  lab::Stream stream;
  DeviceBuffer<float> in(16), out(1);
  DeviceBuffer<int> iout(1);
  lab::poison(out.data(), sizeof(float), stream);
  auto expect_message = [](auto&& call, const char* word) {
    try {
      call();
      ADD_FAILURE() << "no exception; expected one naming '" << word << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
  };
  expect_message([&] { ladder::reduce(in.data(), -1, Op::sum, out.data(), stream); }, "n must be >= 0");
  expect_message([&] { ladder::reduce<float>(nullptr, 5, Op::sum, out.data(), stream); }, "in is null");
  expect_message([&] { ladder::reduce<float>(in.data(), 5, Op::sum, nullptr, stream); }, "out_device");
  expect_message([&] { ladder::reduce(in.data(), 5, Op::bit_and, out.data(), stream); }, "integer types only");
  expect_message([&] { ladder::reduce(in.data(), 5, Op::bit_or, static_cast<cudaStream_t>(stream)); }, "integer types only");
  expect_message([&] { ladder::reduce(in.data(), 5, static_cast<Op>(42), out.data(), stream); }, "not a ladder::Op");
  std::uint32_t bits = 0;
  ASSERT_EQ(cudaMemcpyAsync(&bits, out.data(), 4, cudaMemcpyDeviceToHost, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(bits, 0xFFFFFFFFu) << "a rejected call wrote its output";
}

TEST(ReduceLibrary, FloatSumIsRepeatable) {
  lab::Stream stream;
  const std::int64_t n = small_mode() ? 4099 : (std::int64_t{1} << 20) + 3;
  DeviceBuffer<float> in(static_cast<std::size_t>(n));
  lab::fill_random<float>(in.data(), n, lab::fresh_seed(), -1, 1, stream);
  const float a = ladder::reduce(in.data(), n, Op::sum, static_cast<cudaStream_t>(stream));
  const float b = ladder::reduce(in.data(), n, Op::sum, static_cast<cudaStream_t>(stream));
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << a << " vs " << b;
}

// Every type and operator in turn on one stream: each multi-block call zeroes its own scratch,
// which the pool hands back to the next call on the stream (4-byte types fill one 8-byte word per
// slot, 8-byte types two), so a call that did not would read the previous call's stale flags.
template <class T> void check_one_call(Op op, std::int64_t n, std::mt19937_64& rng, cudaStream_t stream) {
  const auto host = make_data<T>(n, op, rng);
  Placed<T> in(host, 0, stream);
  DeviceBuffer<T> out(1);
  lab::poison(out.data(), sizeof(T), stream);
  ladder::reduce(in.data, n, op, out.data(), stream);
  T got{};
  ASSERT_EQ(cudaMemcpyAsync(&got, out.data(), sizeof(T), cudaMemcpyDeviceToHost, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  expect_close<T>(got, host, op, std::string("n=") + std::to_string(n) + " op " + std::to_string(static_cast<int>(op)));
}

TEST(ReduceLibrary, TypesOfBothWidthsTakeTurnsOnOneStream) {
  lab::Stream stream;
  auto rng = seeded_rng("seed");
  const std::int64_t n = small_mode() ? 40000 : (std::int64_t{1} << 20) + 3; // many blocks
  for (int round = 0; round < 3; ++round) {
    check_one_call<std::int32_t>(Op::sum, n, rng, stream);
    check_one_call<double>(Op::max, n + round, rng, stream);
    check_one_call<float>(Op::sum, n, rng, stream);
    check_one_call<std::uint64_t>(Op::bit_or, n - round, rng, stream);
    check_one_call<std::int64_t>(Op::sum, n / 3, rng, stream);
    check_one_call<std::uint32_t>(Op::min, n / 7, rng, stream);
  }
}

// Several host threads, each with its own stream, plus two threads sharing one stream: scratch
// (allocated per call) must never be shared by two kernels in flight.
TEST(ReduceLibrary, ConcurrentStreamsAndThreads) {
  const int threads = 6, iterations = small_mode() ? 3 : 25;
  const std::int64_t n = small_mode() ? 5000 : (std::int64_t{1} << 20) + 11;
  lab::Stream shared_stream;
  std::vector<std::string> failures(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        lab::Stream own;
        cudaStream_t stream = t < 2 ? shared_stream.get() : own.get();
        std::vector<std::int64_t> host(static_cast<std::size_t>(n));
        std::mt19937_64 rng(1234 + t);
        for (auto& x : host)
          x = static_cast<std::int64_t>(rng() % 100000) - 50000;
        const std::int64_t want = lab::reduce::cpu_reduce<std::int64_t>(host, Op::sum);
        DeviceBuffer<std::int64_t> in(host.size()), out(1);
        LADDER_CUDA(cudaMemcpyAsync(in.data(), host.data(), in.bytes(), cudaMemcpyHostToDevice, stream));
        for (int i = 0; i < iterations; ++i) {
          ladder::reduce(in.data(), n, Op::sum, out.data(), stream);
          std::int64_t got = ladder::reduce(in.data(), n, Op::sum, stream);
          std::int64_t got_async = 0;
          LADDER_CUDA(cudaMemcpyAsync(&got_async, out.data(), 8, cudaMemcpyDeviceToHost, stream));
          LADDER_CUDA(cudaStreamSynchronize(stream));
          if (got != want || got_async != want) {
            failures[t] = "thread " + std::to_string(t) + " iteration " + std::to_string(i) + ": got " +
                          std::to_string(got) + " / " + std::to_string(got_async) + ", want " + std::to_string(want);
            return;
          }
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  }
  for (auto& th : pool)
    th.join();
  for (const auto& f : failures)
    EXPECT_EQ(f, "");
}

// More than 2^31 elements: every element counted once, and values past index 2^31 are seen.
TEST(ReduceLibrary, MoreThan2To31Elements) {
  if (small_mode())
    GTEST_SKIP() << "large test skipped under --small";
  const std::int64_t n = (std::int64_t{1} << 31) + 5;
  std::size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  if (free_bytes < static_cast<std::size_t>(n) * 4 + (std::size_t{1} << 30))
    GTEST_SKIP() << "needs " << n * 4 / 1e9 << " GB of device memory";
  lab::Stream stream;
  DeviceBuffer<std::uint32_t> in(static_cast<std::size_t>(n));
  ASSERT_EQ(cudaMemsetAsync(in.data(), 0x01, in.bytes(), stream), cudaSuccess);
  const std::uint32_t sum = ladder::reduce(in.data(), n, Op::sum, static_cast<cudaStream_t>(stream));
  EXPECT_EQ(sum, static_cast<std::uint32_t>(static_cast<std::uint64_t>(n) * 0x01010101u));
  const std::uint32_t big = 0xFFFFFFF0u, small = 0;
  ASSERT_EQ(cudaMemcpyAsync(in.data() + n - 2, &big, 4, cudaMemcpyHostToDevice, stream), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(in.data() + (std::int64_t{1} << 31) + 1, &small, 4, cudaMemcpyHostToDevice, stream), cudaSuccess);
  EXPECT_EQ(ladder::reduce(in.data(), n, Op::max, static_cast<cudaStream_t>(stream)), big);
  EXPECT_EQ(ladder::reduce(in.data(), n, Op::min, static_cast<cudaStream_t>(stream)), small);
  EXPECT_EQ(ladder::reduce(in.data() + 1, n - 1, Op::max, static_cast<cudaStream_t>(stream)), big);
}

} // namespace
} // namespace ladder::test
