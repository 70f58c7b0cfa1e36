// GPU tests of the matmul ladder, driven by the registry: every rung on awkward shapes against the
// CPU's double-precision product, C poisoned before every run.
#include "gpu_test.hpp"

#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "matmul/reference.hpp"
#include "matmul/variants.hpp"

#include <gtest/gtest.h>

#include <random>
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

// A stored rows x cols matrix turned: cols x rows.
std::vector<float> turned(const std::vector<float>& x, std::int64_t rows, std::int64_t cols) {
  std::vector<float> out(x.size());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      out[static_cast<std::size_t>(j * rows + i)] = x[static_cast<std::size_t>(i * cols + j)];
  return out;
}

// Every shape in every operand layout the rung takes (A and B stored as its transposes say); under
// the sanitizers only the first layout it takes of each shape.
TEST_P(MatmulRungTest, WithinTheRoundingBoundOnEveryShapeItSupports) {
  const MatmulRung& rung = lab::matmul::registry()[GetParam()];
  lab::Stream stream;
  int tested = 0;
  for (const Shape s : shapes()) {
    int layouts = 0; // of this shape
    for (const Trans ta : {Trans::none, Trans::transpose})
      for (const Trans tb : {Trans::none, Trans::transpose}) {
        const lab::matmul::Problem problem{s, ta, tb};
        if (rung.unsupported(problem) || (small_mode() && layouts > 0))
          continue;
        ++layouts;
        // op(A) (m x k) and op(B) (k x n) at random, then stored as the transposes say.
        std::mt19937_64 rng(lab::fresh_seed());
        std::uniform_real_distribution<float> value(-1.0f, 1.0f);
        std::vector<float> host_a(static_cast<std::size_t>(s.m * s.k)),
            host_b(static_cast<std::size_t>(s.k * s.n)), got(static_cast<std::size_t>(s.m * s.n));
        for (float& v : host_a)
          v = value(rng);
        for (float& v : host_b)
          v = value(rng);
        const std::vector<float> stored_a = ta == Trans::none ? host_a : turned(host_a, s.m, s.k);
        const std::vector<float> b_turned = turned(host_b, s.k, s.n); // n x k
        const std::vector<float>& stored_b = tb == Trans::none ? host_b : b_turned;
        DeviceBuffer<float> a(stored_a.size()), b(stored_b.size()), bt(b_turned.size()),
            c(got.size());
        ASSERT_EQ(cudaMemcpy(a.data(), stored_a.data(), a.bytes(), cudaMemcpyHostToDevice),
                  cudaSuccess);
        ASSERT_EQ(cudaMemcpy(b.data(), stored_b.data(), b.bytes(), cudaMemcpyHostToDevice),
                  cudaSuccess);
        ASSERT_EQ(cudaMemcpy(bt.data(), b_turned.data(), bt.bytes(), cudaMemcpyHostToDevice),
                  cudaSuccess);
        const auto expected = lab::matmul::cpu_matmul(host_a, host_b, s.m, s.n, s.k);
        lab::poison(c.data(), c.bytes(), stream);
        rung.launch({a.data(), b.data(), bt.data(), c.data(), problem}, stream);
        ASSERT_EQ(cudaGetLastError(), cudaSuccess);
        ASSERT_EQ(cudaMemcpyAsync(got.data(), c.data(), c.bytes(), cudaMemcpyDeviceToHost, stream),
                  cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        EXPECT_EQ(lab::matmul::compare_within_bound(got, expected, s.n, s.k, rung.input_rounding),
                  "")
            << rung.info.name << " " << s.m << " x " << s.n << " x " << s.k
            << (ta == Trans::transpose ? ", A^T" : "") << (tb == Trans::transpose ? ", B^T" : "");
        ++tested;
      }
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
