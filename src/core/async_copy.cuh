// Commit groups of asynchronous copies (cp.async, sm_80 and later): the one definition of
// "commit what this thread has issued" and "wait until at most N groups are in flight" for every
// kernel that pipelines its stages with cp.async (the gemm main loop, the convolution's column
// walk). Below sm_80 they compile to nothing: there the copies are plain loads and stores.
#pragma once

namespace ladder::core {

__device__ __forceinline__ void commit_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most N of this thread's most recent commit groups are still in flight.
template <int N> __device__ __forceinline__ void wait_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

} // namespace ladder::core
