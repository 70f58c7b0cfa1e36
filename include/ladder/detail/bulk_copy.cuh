// The bulk copy engine (sm_90's cp.async.bulk, and its tensor form) and its mbarrier, for the
// kernels that installed headers compile in the caller's code (stream compaction,
// ladder/detail/compact.cuh) and the library's and lab's own. Internal; no API promise. Below sm_90 the functions compile to nothing and `available` is false: callers
// keep a fallback.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace ladder::detail::bulk {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
inline constexpr bool available = false;
#else
inline constexpr bool available = true;
#endif

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One thread: a barrier that completes a phase after `count` arrivals and the bytes they expect.
__device__ __forceinline__ void barrier_init(std::uint64_t* bar, unsigned count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count)
               : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// One thread: arrive on `bar`, announcing `bytes` that copies (copy_counted below) will bring in
// this phase.
__device__ __forceinline__ void expect_bytes(std::uint64_t* bar, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}"
               ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
#endif
}

// Any thread: copy [src, src + bytes) to dst (both 16-byte aligned, bytes a multiple of 16 and
// at most 2^20 - 1), the bytes counted against the current phase of `bar` as they land.
__device__ __forceinline__ void copy_counted(void* dst, const void* src, unsigned bytes,
                                             std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
               "[%3];" ::"r"(shared_address(dst)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
#endif
}

// One thread: arrive on `bar` with no bytes to wait for (a phase whose stage was not copied).
__device__ __forceinline__ void arrive(std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.shared::cta.b64 state, [%0];\n}" ::"r"(
                   shared_address(bar))
               : "memory");
#endif
}

// Any thread: copy the box of the 2D tensor map at `map` (a CUtensorMap in parameter, constant or
// global memory) whose first element is at column x, row y into dst (128-byte aligned), the box's
// bytes counted against the current phase of `bar`. Elements outside the tensor arrive as zeros.
__device__ __forceinline__ void tensor_copy_2d(void* dst, const void* map, int x, int y,
                                               std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
               "[%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(dst)),
               "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y),
               "r"(shared_address(bar))
               : "memory");
#endif
}

// One thread: arrive on `bar` expecting `bytes`, then copy [src, src + bytes) to dst (both 16-byte
// aligned, bytes a multiple of 16) in chunks the engine takes.
__device__ __forceinline__ void load(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
  expect_bytes(bar, bytes);
  constexpr unsigned chunk = 8192;
  for (unsigned off = 0; off < bytes; off += chunk)
    copy_counted(static_cast<unsigned char*>(dst) + off, static_cast<const unsigned char*>(src) + off,
                 bytes - off < chunk ? bytes - off : chunk, bar);
}

// Every waiting thread: until the phase of `bar` with this parity has completed.
__device__ __forceinline__ void wait(std::uint64_t* bar, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n .reg .pred done;\n wait:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], "
               "%1;\n @!done bra wait;\n}" ::"r"(shared_address(bar)),
               "r"(parity)
               : "memory");
#endif
}

// Every waiting thread: as wait, but each try suspends the thread until the phase completes (or
// about 10 ms pass) instead of returning at once: a warp that waits long sleeps rather than
// spends issue slots on polls.
__device__ __forceinline__ void wait_suspended(std::uint64_t* bar, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n .reg .pred done;\n wait:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], "
               "%1, %2;\n @!done bra wait;\n}" ::"r"(shared_address(bar)),
               "r"(parity), "r"(10000000u)
               : "memory");
#endif
}

// Orders this thread's earlier generic-proxy accesses to shared memory (reads of a stage) before a
// following bulk copy into it (async proxy).
__device__ __forceinline__ void fence_proxy_async_shared() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

} // namespace ladder::detail::bulk
