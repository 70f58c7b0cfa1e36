// GPU tests of the transpose ladder, driven by the registry: a new rung is tested without
// touching this file. Outputs are poisoned before every run and compared bit for bit.
#include "gpu_test.hpp"

#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "ladder/transpose.hpp"
#include "transpose/reference.hpp"
#include "transpose/variants.hpp"

#include <gtest/gtest.h>

#include <complex>
#include <cstddef>
#include <span>
#include <cstring>
#include <random>
#include <vector>

namespace ladder::test {
namespace {

using lab::DeviceBuffer;
using lab::transpose::Shape;
using TransposeRung = lab::transpose::Rung;

std::vector<Shape> variant_shapes() {
  std::vector<Shape> shapes = {{32, 32}, {64, 96}, {96, 64}, {256, 256}, {1, 7},   {7, 1},
                               {31, 33}, {33, 65}, {67, 45}, {1000, 37}, {4, 1024}, {1024, 4}};
  if (!small_mode()) {
    shapes.push_back({2048, 2048});
    shapes.push_back({4097, 4095});
    shapes.push_back({1, 100003});
  }
  return shapes;
}

class TransposeRungTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(TransposeRungTest, MatchesCpuReferenceOnEveryShapeItSupports) {
  const TransposeRung& v = lab::transpose::registry()[GetParam()];
  lab::Stream stream;
  int tested = 0;
  for (const Shape s : variant_shapes()) {
    if (v.unsupported(s))
      continue;
    const auto n = static_cast<std::size_t>(s.rows * s.cols);
    DeviceBuffer<float> in(n), out(n);
    lab::fill_random<float>(in.data(), static_cast<std::int64_t>(n), lab::fresh_seed(), -1, 1, stream);
    std::vector<float> host_in(n), got(n), expected(n);
    ASSERT_EQ(cudaMemcpyAsync(host_in.data(), in.data(), in.bytes(), cudaMemcpyDeviceToHost, stream), cudaSuccess);
    lab::transpose::cpu_expected(v.result, host_in, expected, s, lab::transpose::seed_tile);
    // nreps > 1 must leave the same output (the loop-in-kernel timing mode).
    for (int nreps : {1, 3}) {
      if (nreps > 1 && !v.loops_in_kernel)
        continue;
      lab::poison(out.data(), out.bytes(), stream);
      v.launch(in.data(), out.data(), s, nreps, stream);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      ASSERT_EQ(cudaMemcpyAsync(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      const bool rowwise_same = v.result == lab::transpose::Result::copy ||
                                v.result == lab::transpose::Result::tile_local_transpose;
      EXPECT_EQ(lab::transpose::compare_exact(got, expected, rowwise_same ? s.cols : s.rows), "")
          << v.info.name << " on " << s.rows << "x" << s.cols << " nreps " << nreps;
    }
    ++tested;
  }
  // Every rung must handle at least the seeds' kind of shape (square, multiple of 32).
  EXPECT_GT(tested, 0) << v.info.name << " supports none of the test shapes";
}

INSTANTIATE_TEST_SUITE_P(
    Registry, TransposeRungTest, ::testing::Range<std::size_t>(0, lab::transpose::registry().size()),
    [](const auto& info) { return test_name(lab::transpose::registry()[info.param].info.name); });

// --- every element size: the element registry (library, tuning shapes, references) ------------

std::vector<Shape> element_shapes() {
  // Multiples of 16 (every aligned rung of every element size takes them), tiles partly outside
  // the matrix, and odd shapes for the rows that take any shape.
  // 528 x 784: several tiles of the 256- and 512-row tiles each way, a partial tile group.
  std::vector<Shape> shapes = {{16, 16},   {208, 144}, {144, 208}, {48, 1040},
                               {528, 784}, {33, 65},   {1, 9}};
  if (!small_mode()) {
    shapes.push_back({1024, 2048});
    shapes.push_back({2064, 1008});
    shapes.push_back({1001, 999});
  }
  return shapes;
}

class TransposeElementTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(TransposeElementTest, MatchesCpuReferenceForEveryElementSize) {
  const auto& rung = lab::transpose::element_registry()[GetParam()];
  lab::Stream stream;
  int tested = 0;
  for (const int bytes : lab::transpose::element_sizes)
    for (const Shape s : element_shapes()) {
      if (rung.unsupported(s, bytes))
        continue;
      const auto total = static_cast<std::size_t>(s.rows * s.cols) * bytes;
      // At least 16 spare bytes past the end: nothing may be written there. Words below 2^30:
      // finite floats and doubles, whose bits cublas?geam keeps (it makes every NaN canonical).
      DeviceBuffer<std::uint32_t> in((total + 3) / 4 + 4), out((total + 3) / 4 + 4);
      lab::fill_random<std::uint32_t>(in.data(), static_cast<std::int64_t>(in.size()),
                                      lab::fresh_seed(), 1, 1073741823.0, stream);
      std::vector<std::byte> host_in(total), got(total + 16), expected(total);
      ASSERT_EQ(cudaMemcpyAsync(host_in.data(), in.data(), total, cudaMemcpyDeviceToHost, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      const bool copy = rung.result == lab::transpose::Result::copy;
      if (copy)
        expected = host_in;
      else
        lab::transpose::cpu_transpose_bytes(host_in, expected, s.rows, s.cols, bytes);
      lab::poison(out.data(), out.bytes(), stream);
      rung.launch(in.data(), out.data(), s, bytes, stream);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      ASSERT_EQ(cudaMemcpyAsync(got.data(), out.data(), total + 16, cudaMemcpyDeviceToHost, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      EXPECT_EQ(lab::transpose::compare_elements(std::span(got).first(total), expected, bytes,
                                                 copy ? s.cols : s.rows),
                "")
          << rung.info.name << ", " << bytes << "-byte elements, " << s.rows << "x" << s.cols;
      for (std::size_t b = total; b < total + 16; ++b)
        ASSERT_EQ(got[b], std::byte{0xFF}) << rung.info.name << " wrote past the end, " << bytes
                                           << "-byte elements, " << s.rows << "x" << s.cols;
      ++tested;
    }
  EXPECT_GT(tested, 0) << rung.info.name << " supports none of the test shapes";
}

INSTANTIATE_TEST_SUITE_P(
    Elements, TransposeElementTest,
    ::testing::Range<std::size_t>(0, lab::transpose::element_registry().size()),
    [](const auto& info) {
      return test_name(lab::transpose::element_registry()[info.param].info.name);
    });

// --- the library call over types, awkward shapes and alignments -------------------------------

struct Pair4 { // 8 bytes, aligned to 4, like std::complex<float>
  float re, im;
  bool operator==(const Pair4&) const = default;
};
struct alignas(16) Quad16 {
  double a, b;
  bool operator==(const Quad16&) const = default;
};

template <class T> T random_value(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, Pair4>)
    return {static_cast<float>(rng() % 1000) + 0.5f, static_cast<float>(rng() % 1000) - 0.25f};
  else if constexpr (std::is_same_v<T, Quad16>)
    return {static_cast<double>(rng() % 100000), -static_cast<double>(rng() % 777)};
  else
    return static_cast<T>(rng() % 100000 + 1);
}

std::vector<Shape> library_shapes() {
  std::vector<Shape> shapes = {{1, 1},   {1, 7},    {7, 1},     {31, 33},  {33, 65},
                               {1000, 37}, {37, 1000}, {256, 256}, {3, 100}, {100, 3},
                               {208, 144}, {48, 1040}};
  if (!small_mode()) {
    shapes.push_back({4097, 4095});
    shapes.push_back({2048, 2048});
  }
  return shapes;
}

template <class T> class LibraryTranspose : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double, std::int32_t, std::int64_t, std::uint8_t,
                                      std::int16_t, Pair4, Quad16>;
TYPED_TEST_SUITE(LibraryTranspose, ElementTypes);

TYPED_TEST(LibraryTranspose, AnyShapeAndOffset) {
  using T = TypeParam;
  std::mt19937_64 rng(lab::fresh_seed());
  lab::Stream stream;
  for (const Shape s : library_shapes()) {
    // offset 0: aligned (16-byte path where it applies); offset 1: one element in, so 16-byte
    // vectors never line up and the scalar path must carry it.
    for (std::int64_t offset : {0, 1}) {
      const auto n = static_cast<std::size_t>(s.rows * s.cols);
      std::vector<T> host_in(n), got(n), expected(n);
      for (auto& x : host_in)
        x = random_value<T>(rng);
      for (std::int64_t r = 0; r < s.rows; ++r)
        for (std::int64_t c = 0; c < s.cols; ++c)
          expected[c * s.rows + r] = host_in[r * s.cols + c];
      DeviceBuffer<T> in(n + 1), out(n + 1);
      // Every copy on the same stream: a plain cudaMemcpy from pageable memory may return before
      // its DMA lands, and our non-blocking stream would not wait for it.
      ASSERT_EQ(cudaMemcpyAsync(in.data() + offset, host_in.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream),
                cudaSuccess);
      lab::poison(out.data(), out.bytes(), stream);
      ladder::transpose(in.data() + offset, out.data() + offset, s.rows, s.cols, stream.get());
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      ASSERT_EQ(cudaMemcpyAsync(got.data(), out.data() + offset, n * sizeof(T), cudaMemcpyDeviceToHost, stream),
                cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < n; ++i)
        wrong += !(got[i] == expected[i]);
      EXPECT_EQ(wrong, 0u) << s.rows << "x" << s.cols << " offset " << offset;
    }
  }
}

TEST(LibraryTransposeArgs, ZeroSizesAreNoOps) {
  DeviceBuffer<float> buf(4);
  lab::Stream stream;
  EXPECT_NO_THROW(ladder::transpose<float>(nullptr, nullptr, 0, 5, stream.get()));
  EXPECT_NO_THROW(ladder::transpose<float>(nullptr, nullptr, 5, 0, stream.get()));
  EXPECT_NO_THROW(ladder::transpose<float>(buf.data(), buf.data(), 0, 0, stream.get()));
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
}

TEST(LibraryTransposeArgs, BadArgumentsThrowBeforeLaunch) {
  DeviceBuffer<float> a(64), b(64);
  const auto throws_naming = [](auto&& call, const char* word) {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()).find(word) != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(throws_naming([&] { ladder::transpose(a.data(), b.data(), -1, 4); }, "rows"));
  EXPECT_TRUE(throws_naming([&] { ladder::transpose(a.data(), b.data(), 4, -3); }, "cols"));
  EXPECT_TRUE(throws_naming([&] { ladder::transpose<float>(nullptr, b.data(), 4, 4); }, "in"));
  EXPECT_TRUE(throws_naming([&] { ladder::transpose<float>(a.data(), nullptr, 4, 4); }, "out"));
  EXPECT_TRUE(throws_naming([&] { ladder::transpose(a.data(), a.data() + 8, 4, 4); }, "overlap"));
  EXPECT_TRUE(throws_naming([&] { ladder::transpose(a.data(), a.data(), 8, 8); }, "overlap"));
  EXPECT_TRUE(throws_naming([&] { ladder::transpose(a.data(), b.data(), std::int64_t{1} << 40, std::int64_t{1} << 40); },
                            "overflow"));
  // Nothing was launched, so nothing failed on the device.
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(LibraryTransposeArgs, RunsOnTheGivenStreamAsynchronously) {
  // Two transposes on two streams, then a transpose back: both must land intact.
  const Shape s{300, 500};
  const auto n = static_cast<std::size_t>(s.rows * s.cols);
  DeviceBuffer<int> in(n), mid(n), back(n);
  lab::Stream stream;
  lab::fill_random<std::int32_t>(in.data(), n, lab::fresh_seed(), -1000, 1000, stream);
  lab::poison(back.data(), back.bytes(), stream);
  ladder::transpose(in.data(), mid.data(), s.rows, s.cols, stream.get());
  ladder::transpose(mid.data(), back.data(), s.cols, s.rows, stream.get());
  std::vector<int> a(n), b(n);
  ASSERT_EQ(cudaMemcpyAsync(a.data(), in.data(), in.bytes(), cudaMemcpyDeviceToHost, stream), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(b.data(), back.data(), back.bytes(), cudaMemcpyDeviceToHost, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(a, b);
}

} // namespace
} // namespace ladder::test

namespace ladder::test {
namespace {

__host__ __device__ std::uint32_t index_pattern(std::int64_t i) {
  auto x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::uint32_t>(x >> 32) | 1u;
}

__global__ void fill_index_pattern(std::uint32_t* data, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    data[i] = index_pattern(i);
}

// More than 2^31 elements (8.6 GB per matrix, odd column count so the any-alignment path runs):
// every element of 64 output rows, spread over the whole matrix and including the last, is
// checked against the index it must come from. Catches 32-bit index arithmetic anywhere.
TEST(LibraryTransposeLarge, MoreThan2To31Elements) {
  if (small_mode())
    GTEST_SKIP() << "large test: not under --small";
  const std::int64_t rows = 65536, cols = 32769; // 2^31 + 65536 elements
  const std::int64_t n = rows * cols;
  std::size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  if (free_bytes < 2 * static_cast<std::size_t>(n) * 4 + (1ull << 30))
    GTEST_SKIP() << "needs " << 2 * n * 4 / 1e9 << " GB of device memory";
  DeviceBuffer<std::uint32_t> in(n), out(n);
  lab::Stream stream;
  fill_index_pattern<<<4096, 256, 0, stream>>>(in.data(), n);
  lab::poison(out.data(), out.bytes(), stream);
  ladder::transpose(in.data(), out.data(), rows, cols, stream.get());
  std::vector<std::uint32_t> row(rows);
  std::mt19937_64 rng(lab::fresh_seed());
  for (int k = 0; k < 64; ++k) {
    const std::int64_t c = k == 0 ? cols - 1 : k == 1 ? 0 : static_cast<std::int64_t>(rng() % cols);
    ASSERT_EQ(cudaMemcpyAsync(row.data(), out.data() + c * rows, rows * 4, cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    std::int64_t wrong = 0;
    for (std::int64_t r = 0; r < rows; ++r)
      wrong += row[r] != index_pattern(r * cols + c);
    ASSERT_EQ(wrong, 0) << "output row " << c;
  }
}

} // namespace
} // namespace ladder::test
