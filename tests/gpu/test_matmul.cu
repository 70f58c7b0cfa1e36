// GPU tests of the matmul ladder, driven by the registry: every rung on awkward shapes against the
// CPU's double-precision product, C poisoned before every run.
#include "gpu_test.hpp"

#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "matmul/reference.hpp"
#include "matmul/variants.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ladder::test {
namespace {

using lab::DeviceBuffer;
using MatmulRung = lab::matmul::Rung;
using lab::matmul::Shape;

std::vector<Shape> shapes() {
  // 256 x 256: whole tiles of every tile shape (the kernels without edge masks), k = 44 with a
  // partial last step of 4.
  std::vector<Shape> out = {{1, 1, 1},       {7, 5, 3},    {16, 16, 16}, {33, 65, 31},
                            {100, 100, 100}, {1, 257, 64}, {257, 1, 64}, {64, 48, 1},
                            {256, 256, 44}};
  if (!small_mode())
    out.push_back({513, 255, 129});
  return out;
}

class MatmulRungTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(MatmulRungTest, WithinTheRoundingBoundOnEveryShapeItSupports) {
  const MatmulRung& rung = lab::matmul::registry()[GetParam()];
  lab::Stream stream;
  int tested = 0;
  for (const Shape s : shapes()) {
    if (rung.unsupported(lab::matmul::Problem{s}))
      continue;
    const auto a_count = static_cast<std::size_t>(s.m * s.k),
               b_count = static_cast<std::size_t>(s.k * s.n),
               c_count = static_cast<std::size_t>(s.m * s.n);
    DeviceBuffer<float> a(a_count), b(b_count), bt(b_count), c(c_count);
    lab::fill_random<float>(a.data(), static_cast<std::int64_t>(a_count), lab::fresh_seed(), -1, 1,
                            stream);
    lab::fill_random<float>(b.data(), static_cast<std::int64_t>(b_count), lab::fresh_seed(), -1, 1,
                            stream);
    std::vector<float> host_a(a_count), host_b(b_count), host_bt(b_count), got(c_count);
    ASSERT_EQ(cudaMemcpyAsync(host_a.data(), a.data(), a.bytes(), cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(host_b.data(), b.data(), b.bytes(), cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    for (std::int64_t i = 0; i < s.k; ++i)
      for (std::int64_t j = 0; j < s.n; ++j)
        host_bt[static_cast<std::size_t>(j * s.k + i)] =
            host_b[static_cast<std::size_t>(i * s.n + j)];
    ASSERT_EQ(cudaMemcpy(bt.data(), host_bt.data(), bt.bytes(), cudaMemcpyHostToDevice),
              cudaSuccess);
    const auto expected = lab::matmul::cpu_matmul(host_a, host_b, s.m, s.n, s.k);
    lab::poison(c.data(), c.bytes(), stream);
    rung.launch({a.data(), b.data(), bt.data(), c.data(), lab::matmul::Problem{s}}, stream);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(got.data(), c.data(), c.bytes(), cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(lab::matmul::compare_within_bound(got, expected, s.n, s.k, rung.input_rounding), "")
        << rung.info.name << " " << s.m << " x " << s.n << " x " << s.k;
    ++tested;
  }
  EXPECT_GT(tested, 0) << rung.info.name << " supports none of the test shapes";
}

INSTANTIATE_TEST_SUITE_P(Registry, MatmulRungTest,
                         ::testing::Range<std::size_t>(0, lab::matmul::registry().size()),
                         [](const auto& info) {
                           return test_name(lab::matmul::registry()[info.param].info.name);
                         });

} // namespace
} // namespace ladder::test
