// The accuracy kernels, included by variants.cu and by fast_math.cu: `library` is sinf, expf,
// ... as written; in fast_math.cu the same source is compiled with -use_fast_math. Internal
// linkage keeps the two compilations apart (see throughput.cuh).
#pragma once

#include "core/harness.hpp"
#include "instructions/variants.hpp"

namespace ladder::lab::instructions {
namespace {

template <MathFunction F, bool Intrinsic> __device__ __forceinline__ float evaluate(float x) {
  if constexpr (F == MathFunction::sin)
    return Intrinsic ? __sinf(x) : sinf(x);
  else if constexpr (F == MathFunction::cos)
    return Intrinsic ? __cosf(x) : cosf(x);
  else if constexpr (F == MathFunction::tan)
    return Intrinsic ? __tanf(x) : tanf(x);
  else if constexpr (F == MathFunction::exp)
    return Intrinsic ? __expf(x) : expf(x);
  else if constexpr (F == MathFunction::log)
    return Intrinsic ? __logf(x) : logf(x);
  else if constexpr (F == MathFunction::pow)
    return Intrinsic ? __powf(x, 1.5f) : powf(x, 1.5f);
  else
    return Intrinsic ? __fdividef(1.7f, x) : 1.7f / x;
}

template <MathFunction F, bool Intrinsic>
__global__ void accuracy_kernel(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = evaluate<F, Intrinsic>(x[i]);
}

template <bool Intrinsic>
void launch_accuracy_as(MathFunction f, const float* x, float* y, int n, cudaStream_t stream) {
  const int threads = 256, blocks = (n + threads - 1) / threads;
  if (n <= 0)
    return;
  switch (f) {
  case MathFunction::sin:
    accuracy_kernel<MathFunction::sin, Intrinsic><<<blocks, threads, 0, stream>>>(x, y, n);
    break;
  case MathFunction::cos:
    accuracy_kernel<MathFunction::cos, Intrinsic><<<blocks, threads, 0, stream>>>(x, y, n);
    break;
  case MathFunction::tan:
    accuracy_kernel<MathFunction::tan, Intrinsic><<<blocks, threads, 0, stream>>>(x, y, n);
    break;
  case MathFunction::exp:
    accuracy_kernel<MathFunction::exp, Intrinsic><<<blocks, threads, 0, stream>>>(x, y, n);
    break;
  case MathFunction::log:
    accuracy_kernel<MathFunction::log, Intrinsic><<<blocks, threads, 0, stream>>>(x, y, n);
    break;
  case MathFunction::pow:
    accuracy_kernel<MathFunction::pow, Intrinsic><<<blocks, threads, 0, stream>>>(x, y, n);
    break;
  case MathFunction::div:
    accuracy_kernel<MathFunction::div, Intrinsic><<<blocks, threads, 0, stream>>>(x, y, n);
    break;
  }
  check_launch("instructions::accuracy_kernel");
}

} // namespace
} // namespace ladder::lab::instructions
