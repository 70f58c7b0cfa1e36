// The throughput kernel, included by variants.cu and by fast_math.cu (compiled with
// -use_fast_math). Everything here has internal linkage, so each file gets its own kernels: the
// same template compiled under two sets of flags must not meet at link time.
#pragma once

#include "core/harness.hpp"
#include "instructions/variants.hpp"

namespace ladder::lab::instructions {
namespace {

__device__ __forceinline__ void read_clock(long long& cycles, unsigned long long& ns) {
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns)::"memory");
  cycles = clock64();
}

// `iterations` updates of `Pairs` pairs per thread, Unroll updates per loop trip. Every value is
// stored, so no chain can be dropped; the loop's counter and branch are 3 instructions per
// Unroll x Pairs x ops_per_update operations.
template <class Op, int Pairs, int Unroll>
__global__ void __launch_bounds__(256)
    throughput_kernel(double* out, int iterations, OpArgs args, ClockSample* clock) {
  using T = typename Op::T;
  const auto t = static_cast<std::uint32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  T x[Pairs], y[Pairs];
#pragma unroll
  for (int k = 0; k < Pairs; ++k)
    seed_pair<Op>(t, static_cast<std::uint32_t>(k), x[k], y[k]);
  long long c0 = 0;
  unsigned long long n0 = 0;
  if (t == 0)
    read_clock(c0, n0);
  for (int i = 0; i < iterations; i += Unroll) {
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
#pragma unroll
      for (int k = 0; k < Pairs; ++k)
        Op::update(x[k], y[k], args);
  }
#pragma unroll
  for (int k = 0; k < Pairs; ++k) {
    out[static_cast<std::size_t>(t) * 2 * Pairs + 2 * k] = static_cast<double>(x[k]);
    out[static_cast<std::size_t>(t) * 2 * Pairs + 2 * k + 1] = static_cast<double>(y[k]);
  }
  if (t == 0) {
    long long c1;
    unsigned long long n1;
    read_clock(c1, n1);
    *clock = {c0, c1, n0, n1};
  }
}

template <class Op, int Pairs, int Unroll>
void launch_throughput(const ThroughputLaunch& l, cudaStream_t stream) {
  throughput_kernel<Op, Pairs, Unroll>
      <<<l.blocks, l.threads, 0, stream>>>(l.out, l.iterations, l.args, l.clock);
  check_launch("instructions::throughput_kernel");
}

struct RungText {
  std::string_view name, idea, course_row = {};
  Role role = Role::seed;
};

// A registry entry for Op: 4 pairs per thread (8 independent chains for the floating-point rows,
// 4 dependent pairs for the integer ones), 256 threads per block.
template <class Op, int Unroll>
ThroughputRung throughput_rung(RungText text, std::string_view guide_row, std::string_view sass,
                               double cost) {
  constexpr int pairs = 4;
  ThroughputRung r;
  r.info = {.name = text.name,
            .idea = text.idea,
            .role = text.role,
            .course_row = text.course_row,
            .kernel = reinterpret_cast<const void*>(&throughput_kernel<Op, pairs, Unroll>),
            .block_threads = 256};
  r.guide_row = guide_row;
  r.sass = sass;
  r.ops_per_update = Op::ops_per_update;
  r.pairs = pairs;
  r.unroll = Unroll;
  r.cost = cost;
  r.tolerance = tolerance_of<Op>();
  r.launch = &launch_throughput<Op, pairs, Unroll>;
  r.host = &host_chains<Op>;
  return r;
}

} // namespace
} // namespace ladder::lab::instructions
