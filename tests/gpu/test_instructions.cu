// GPU tests of the instructions study's kernels, registry-driven for the throughput rows: every
// stored value against the CPU (bit-exact for integer, FP32/FP64/FP16 arithmetic and correctly
// rounded operations; the special functions within a stated absolute tolerance: the GPU's and
// the CPU's sin/exp/log differ by a few ULP per step).
#include "gpu_test.hpp"

#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "instructions/reference.hpp"
#include "instructions/variants.hpp"
#include "ladder/models.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

namespace ladder::test {
namespace {

namespace in = lab::instructions;
using lab::DeviceBuffer;

// Waits for the whole device first: the kernels run on non-blocking streams, which a plain
// cudaMemcpy on the legacy default stream does not wait for.
template <class T> std::vector<T> to_host(const DeviceBuffer<T>& d, std::size_t n) {
  std::vector<T> h(n);
  LADDER_CUDA(cudaDeviceSynchronize());
  LADDER_CUDA(cudaMemcpy(h.data(), d.data(), n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

class InstructionsThroughputTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(InstructionsThroughputTest, EveryChainMatchesTheCpu) {
  const in::ThroughputRung& r = in::throughput_registry()[GetParam()];
  lab::Stream stream;
  const int blocks = small_mode() ? 1 : 3, threads = 256, n = blocks * threads;
  DeviceBuffer<double> out(static_cast<std::size_t>(n) * 2 * r.pairs);
  DeviceBuffer<in::ClockSample> clock(1);
  // Several trips for the exact rows; one for the special functions, whose few-ULP differences
  // from the CPU can move a later step's argument by a whole rounding step (sinf(x + 1e6)).
  for (int trips : {1, 3}) {
    if (trips > 1 && r.tolerance > 0)
      break;
    lab::poison(out.data(), out.size() * sizeof(double), stream);
    in::ThroughputLaunch l{out.data(),       blocks,       threads,
                           trips * r.unroll, in::OpArgs{}, clock.data()};
    r.launch(l, stream);
    LADDER_CUDA(cudaStreamSynchronize(stream));
    const auto got = to_host(out, out.size());
    std::vector<double> want(2 * r.pairs);
    for (int t = 0; t < n; ++t) {
      r.host(static_cast<std::uint32_t>(t), r.pairs, l.iterations, in::OpArgs{}, want.data());
      for (int k = 0; k < 2 * r.pairs; ++k) {
        const double g = got[static_cast<std::size_t>(t) * 2 * r.pairs + k];
        if (r.tolerance == 0)
          ASSERT_EQ(g, want[k]) << r.info.name << " thread " << t << " value " << k;
        else
          ASSERT_NEAR(g, want[k], r.tolerance * std::max(1.0, std::fabs(want[k]) * trips))
              << r.info.name << " thread " << t << " value " << k;
      }
    }
    const auto sample = to_host(clock, 1)[0];
    EXPECT_GT(sample.end_cycles, sample.start_cycles) << r.info.name;
    EXPECT_GE(sample.end_ns, sample.start_ns) << r.info.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, InstructionsThroughputTest,
                         ::testing::Range<std::size_t>(0, in::throughput_registry().size()),
                         [](const auto& info) {
                           return test_name(in::throughput_registry()[info.param].info.name);
                         });

TEST(InstructionsFmaChains, EveryChainCountMatchesTheCpu) {
  lab::Stream stream;
  const int blocks = 2, threads = 64, n = blocks * threads;
  for (int c : in::fma_chain_counts) {
    DeviceBuffer<float> out(static_cast<std::size_t>(n) * c);
    DeviceBuffer<in::ClockSample> clock(1);
    lab::poison(out.data(), out.size() * 4, stream);
    const int iterations = 32; // a multiple of every chain count's unroll
    in::launch_fma_chains(c, out.data(), blocks, threads, iterations, 0.9999f, 0.5f, clock.data(),
                          stream);
    LADDER_CUDA(cudaStreamSynchronize(stream));
    const auto got = to_host(out, out.size());
    for (int t = 0; t < n; ++t)
      for (int k = 0; k < c; ++k) {
        float v = in::fma_chain_seed(static_cast<std::uint32_t>(t), k);
        for (int i = 0; i < iterations; ++i)
          v = std::fmaf(v, 0.9999f, 0.5f);
        ASSERT_EQ(got[static_cast<std::size_t>(t) * c + k], v) << c << " chains, thread " << t;
      }
  }
  EXPECT_THROW(in::launch_fma_chains(3, nullptr, 1, 32, 32, 1, 1, nullptr, stream),
               std::invalid_argument);
}

TEST(InstructionsLatency, ChainsEndWhereTheCpuSays) {
  lab::Stream stream;
  DeviceBuffer<long long> cycles(1);
  DeviceBuffer<std::uint32_t> sink(1);
  const in::OpArgs args;
  const int steps = 256;
  for (auto kind : {in::LatencyKind::fp32_add, in::LatencyKind::fp32_fma}) {
    in::launch_latency(
        {.kind = kind, .steps = steps, .args = args, .cycles = cycles.data(), .sink = sink.data()},
        stream);
    float v = args.fb;
    for (int i = 0; i < steps; ++i)
      v = kind == in::LatencyKind::fp32_add ? v + args.fa : std::fmaf(v, args.fa, args.fb);
    const auto got = to_host(sink, 1)[0];
    float gv;
    std::memcpy(&gv, &got, 4);
    EXPECT_EQ(gv, v);
    EXPECT_GT(to_host(cycles, 1)[0], steps); // at least a cycle per dependent step
  }
  for (auto kind : {in::LatencyKind::shared_load, in::LatencyKind::global_load}) {
    const std::uint32_t stride = kind == in::LatencyKind::shared_load ? 1 : 32;
    const std::uint32_t lines = 1000;
    const auto chase = in::chase_cycle(lines, stride, 11);
    DeviceBuffer<std::uint32_t> d(chase.size());
    LADDER_CUDA(cudaMemcpy(d.data(), chase.data(), chase.size() * 4, cudaMemcpyHostToDevice));
    in::launch_latency({.kind = kind,
                        .chase = d.data(),
                        .chase_length = kind == in::LatencyKind::shared_load ? lines : 0,
                        .warm_steps = 7,
                        .steps = steps,
                        .args = args,
                        .cycles = cycles.data(),
                        .sink = sink.data()},
                       stream);
    std::uint32_t p = 0;
    for (int i = 0; i < 7 + steps; ++i)
      p = chase[p];
    EXPECT_EQ(to_host(sink, 1)[0], p);
  }
  EXPECT_THROW(in::launch_latency({.steps = 33}, stream), std::invalid_argument);
}

TEST(InstructionsAccuracy, LibraryWithinTheGuideAndFastMathIsTheIntrinsic) {
  lab::Stream stream;
  const int n = small_mode() ? 1024 : 65536;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = static_cast<float>(-std::numbers::pi + 2 * std::numbers::pi * (i + 0.5) / n);
  DeviceBuffer<float> dx(n), y(n), yi(n), yf(n);
  LADDER_CUDA(cudaMemcpy(dx.data(), x.data(), n * 4, cudaMemcpyHostToDevice));
  in::launch_accuracy(in::MathFunction::sin, in::Flavor::library, dx.data(), y.data(), n, stream);
  in::launch_accuracy(in::MathFunction::sin, in::Flavor::intrinsic, dx.data(), yi.data(), n,
                      stream);
  in::launch_accuracy(in::MathFunction::sin, in::Flavor::library_fast_math, dx.data(), yf.data(), n,
                      stream);
  LADDER_CUDA(cudaStreamSynchronize(stream));
  const auto lib = to_host(y, n), intr = to_host(yi, n), fast = to_host(yf, n);
  int fast_differs_from_library = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_LE(in::ulp_error(lib[i], std::sin(static_cast<double>(x[i]))), 2.0) << x[i];
    EXPECT_TRUE(in::within_intrinsic_bound(in::MathFunctionId::sin, x[i], intr[i])) << x[i];
    // -use_fast_math maps sinf to __sinf: the two must agree bit for bit.
    EXPECT_EQ(fast[i], intr[i]) << x[i];
    fast_differs_from_library += fast[i] != lib[i];
  }
  EXPECT_GT(fast_differs_from_library, 0); // the fast-math file really was built with the flag
}

TEST(InstructionsSummation, GpuOrdersMatchTheCpuOrders) {
  lab::Stream stream;
  const std::int64_t n = small_mode() ? 1024 : (1 << 20);
  const auto v = in::exact_inputs(n, 5);
  DeviceBuffer<float> d(n), scratch(in::pairwise_scratch(n)), out(1), pair(2), three(3);
  LADDER_CUDA(cudaMemcpy(d.data(), v.data(), n * 4, cudaMemcpyHostToDevice));
  in::launch_sequential_sum(d.data(), n, out.data(), stream);
  EXPECT_EQ(to_host(out, 1)[0], in::sequential_sum(v));
  in::launch_pairwise_sum(d.data(), n, scratch.data(), out.data(), stream);
  EXPECT_EQ(to_host(out, 1)[0], in::pairwise_sum(v));
  const float xyz[3] = {1e30f, -1e30f, 1.0f};
  LADDER_CUDA(cudaMemcpy(three.data(), xyz, sizeof xyz, cudaMemcpyHostToDevice));
  in::launch_associativity(three.data(), pair.data(), stream);
  const auto p = to_host(pair, 2);
  EXPECT_EQ(p[0], 1.0f);
  EXPECT_EQ(p[1], 0.0f);
  EXPECT_THROW(in::launch_pairwise_sum(d.data(), 3, scratch.data(), out.data(), stream),
               std::invalid_argument);
}

TEST(InstructionsDivergence, EveryBranchMatchesTheCpuAndWarpsAreCounted) {
  lab::Stream stream;
  const int blocks = 2, threads = 256, steps = 64;
  DeviceBuffer<float> out(blocks * threads);
  struct C {
    in::Branch b;
    int g;
  };
  for (C c : {C{in::Branch::none, 1}, C{in::Branch::granularity, 1}, C{in::Branch::granularity, 8},
              C{in::Branch::granularity, 64}, C{in::Branch::deck_thread, 1},
              C{in::Branch::deck_warp, 1}}) {
    lab::poison(out.data(), out.size() * 4, stream);
    in::launch_divergence(c.b, c.g, out.data(), blocks, threads, steps, 0.9999f, 0.5f, stream);
    LADDER_CUDA(cudaStreamSynchronize(stream));
    const auto got = to_host(out, out.size());
    for (int t = 0; t < blocks * threads; ++t) {
      const int tib = t % threads;
      float v = 1.0f + static_cast<float>(tib % 64) * (1.0f / 128.0f);
      for (int i = 0; i < steps; ++i)
        v = in::takes_path_a(c.b, c.g, tib) ? std::fmaf(v, 0.9999f, 0.5f) : v + 0.5f;
      ASSERT_EQ(got[t], v) << "granularity " << c.g << " thread " << t;
    }
  }
  DeviceBuffer<unsigned long long> counts(2);
  for (std::int64_t n : {1, 31, 32, 33, 1000, 1024, 100003}) {
    for (int block : {32, 96, 256}) {
      LADDER_CUDA(cudaMemset(counts.data(), 0, 16));
      in::launch_count_divergent_warps(n, block, counts.data(), stream);
      const auto h = to_host(counts, 2);
      const auto model = models::boundary_check_divergence(n, block);
      EXPECT_EQ(h[0], static_cast<unsigned long long>(model.total)) << n << " / " << block;
      EXPECT_EQ(h[1], static_cast<unsigned long long>(model.divergent)) << n << " / " << block;
    }
  }
}

TEST(InstructionsLaunch, EveryCopyCopies) {
  lab::Stream stream;
  const std::int64_t n = small_mode() ? 5000 : 1000003;
  DeviceBuffer<float> a(n), b(n);
  DeviceBuffer<unsigned> sink(1);
  lab::fill_random<float>(a.data(), n, 3, -1, 1, stream);
  const auto src = to_host(a, n);
  auto expect_copy = [&](const char* what) {
    LADDER_CUDA(cudaStreamSynchronize(stream));
    const auto got = to_host(b, n);
    ASSERT_EQ(std::memcmp(got.data(), src.data(), n * 4), 0) << what;
  };
  for (int threads : {32, 96, 256, 1024}) {
    lab::poison(b.data(), n * 4, stream);
    in::launch_copy(a.data(), b.data(), n, threads, 1024, stream);
    expect_copy("copy");
  }
  int previous = 0;
  for (int extra : in::extra_register_counts) {
    lab::poison(b.data(), n * 4, stream);
    in::launch_copy_registers(extra, a.data(), b.data(), n, 256, sink.data(), stream);
    expect_copy("copy_registers");
    cudaFuncAttributes attr{};
    LADDER_CUDA(cudaFuncGetAttributes(&attr, in::copy_registers_kernel(extra)));
    EXPECT_GE(attr.numRegs, extra) << extra; // the pinned values really occupy registers
    EXPECT_GE(attr.numRegs, previous);
    previous = attr.numRegs;
  }
  for (int blocks : {1, 7, 132, 1000}) {
    lab::poison(b.data(), n * 4, stream);
    in::launch_copy_grid_stride(a.data(), b.data(), n, blocks, 256, stream);
    expect_copy("grid stride");
  }
}

} // namespace
} // namespace ladder::test
