// The bulk copy engine (sm_90's cp.async.bulk, the non-tensor form of TMA) and the mbarrier that
// tells a block when a copy has landed in shared memory: shared by the staged scan kernels and
// the ring reduction. Below sm_90 the functions compile to nothing; callers keep a fallback.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace ladder::core {

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void barrier_init(std::uint64_t* bar, unsigned count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
// One thread: expect `bytes`, then copy [src, src + bytes) to dst in chunks of `chunk` bytes.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}" ::"r"(
                   shared_address(bar)),
               "r"(bytes)
               : "memory");
  constexpr unsigned chunk = 8192;
  for (unsigned off = 0; off < bytes; off += chunk)
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     shared_address(static_cast<unsigned char*>(dst) + off)),
                 "l"(static_cast<const unsigned char*>(src) + off), "r"(bytes - off < chunk ? bytes - off : chunk),
                 "r"(shared_address(bar))
                 : "memory");
#endif
}
__device__ __forceinline__ void barrier_wait(std::uint64_t* bar, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n .reg .pred done;\n wait:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n @!done bra wait;\n}" ::"r"(
                   shared_address(bar)),
               "r"(parity)
               : "memory");
#endif
}

// Orders this thread's earlier generic-proxy accesses to shared memory (reads of a stage) before
// a following bulk copy into it (async proxy).
__device__ __forceinline__ void fence_proxy_async_shared() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

} // namespace ladder::core
