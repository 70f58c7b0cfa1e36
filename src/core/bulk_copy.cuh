// The bulk copy engine (sm_90's cp.async.bulk, the non-tensor form of TMA) and the mbarrier that
// tells a block when a copy has landed in shared memory, for the lab's staged scan kernels and the
// ring reduction: the names they use for the one implementation the installed headers carry
// (ladder/detail/bulk_copy.cuh). Below sm_90 the functions compile to nothing; callers keep a
// fallback.
#pragma once

#include "ladder/detail/bulk_copy.cuh"

namespace ladder::core {

using detail::bulk::barrier_init;
using detail::bulk::fence_proxy_async_shared;
using detail::bulk::shared_address;

__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes,
                                          std::uint64_t* bar) {
  detail::bulk::load(dst, src, bytes, bar);
}

__device__ __forceinline__ void barrier_wait(std::uint64_t* bar, unsigned parity) {
  detail::bulk::wait(bar, parity);
}

} // namespace ladder::core
