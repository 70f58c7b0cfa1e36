// Warp-level building blocks shared by every kernel of ladder (the reduction's block reduce, the
// scans' tiles, stream compaction): reductions and scans over the 32 lanes of a warp in registers,
// with the _sync shuffles (they name the participating lanes, so they are correct under Volta's
// independent thread scheduling, unlike the course's lock-step warp code). Internal to ladder
// (installed because compact() is a header template); no API promise.
#pragma once

#include <cuda_runtime.h>

namespace ladder::detail::warp {

inline constexpr unsigned full_mask = 0xffffffffu;

// Tree toward lane 0 (__shfl_down_sync): the total is valid in lane 0 only. The cheapest when one
// lane consumes the result.
template <class T, class Op> __device__ __forceinline__ T reduce_to_lane0(T v, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = op(v, __shfl_down_sync(full_mask, v, offset));
  return v;
}

// Butterfly (__shfl_xor_sync): every lane ends with the sum of all 32.
template <class T> __device__ __forceinline__ T sum_all_lanes(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(full_mask, v, offset);
  return v;
}

// Inclusive scan over the lanes (Kogge-Stone, 5 shuffles).
template <class T> __device__ __forceinline__ T inclusive_scan(T v, int lane) {
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const T other = __shfl_up_sync(full_mask, v, offset);
    if (lane >= offset)
      v += other;
  }
  return v;
}

// Exclusive scan: the sum of the lanes below this one (0 in lane 0); `total` receives the whole
// warp's sum in every lane.
template <class T> __device__ __forceinline__ T exclusive_scan(T v, int lane, T& total) {
  const T inclusive = inclusive_scan(v, lane);
  total = __shfl_sync(full_mask, inclusive, 31);
  const T below = __shfl_up_sync(full_mask, inclusive, 1);
  return lane == 0 ? T(0) : below;
}

} // namespace ladder::detail::warp
