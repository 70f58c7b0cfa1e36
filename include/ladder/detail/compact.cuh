// Stream compaction on the single-pass look-back scan: each tile evaluates the predicate, scans
// its 0/1 flags with warp shuffles, finds where its kept elements start with the decoupled
// look-back over 64-bit counts, and writes them there. One read of the input, one write of the
// kept elements. Included by ladder/scan.hpp when compiled by nvcc.
#pragma once

#include "ladder/detail/lookback.cuh"
#include "ladder/detail/scratch.hpp"
#include "ladder/error.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

namespace ladder {

namespace detail::compact_impl {

namespace lb = ladder::detail::lookback;

inline constexpr int threads = 256;

template <class T, int Width> struct CompactShape {
  static constexpr int width = Width;
  static constexpr int accesses = 4 * (16 / sizeof(T)) / Width; // 16 (4 B) or 8 (8 B) elements
  static constexpr int warps = threads / 32;
  static constexpr int per_warp = 32 * Width * accesses;
  static constexpr int items = warps * per_warp;
};

template <class T, int Width, bool SingleTile, class Pred>
__global__ void __launch_bounds__(threads)
    compact_kernel(const T* in, T* out, std::int64_t n, Pred pred, std::int64_t* count,
                   void* scratch, std::int64_t tiles) {
  using Shape = CompactShape<T, Width>;
  constexpr int W = Width, A = Shape::accesses;
  __shared__ std::int64_t s_tile;
  __shared__ std::int64_t s_warp[Shape::warps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  std::int64_t tile = 0;
  if constexpr (!SingleTile) {
    if (threadIdx.x == 0)
      s_tile =
          static_cast<std::int64_t>(atomicAdd(static_cast<unsigned long long*>(scratch), 1ull));
    __syncthreads();
    tile = s_tile;
  }
  const std::int64_t segment =
      tile * Shape::items + static_cast<std::int64_t>(warp) * Shape::per_warp;
  const bool full = tile * Shape::items + Shape::items <= n;

  T x[A][W];
  if (full)
    lb::load_segment<false>(in, segment, lane, x);
  else
    lb::load_segment_guarded(in, segment, n, lane, x);
  unsigned keep = 0; // bit j * W + k: element kept (A * W <= 32)
  int before[A];
  int carry = 0;
#pragma unroll
  for (int j = 0; j < A; ++j) {
    int kept = 0;
#pragma unroll
    for (int k = 0; k < W; ++k) {
      const std::int64_t i = segment + static_cast<std::int64_t>(j * 32 + lane) * W + k;
      if ((full || i < n) && pred(x[j][k])) {
        keep |= 1u << (j * W + k);
        ++kept;
      }
    }
    const int inclusive = lb::warp_inclusive_scan(kept, lane);
    before[j] = carry + inclusive - kept;
    carry += __shfl_sync(lb::full_mask, inclusive, 31);
  }
  if (lane == 0)
    s_warp[warp] = carry;
  __syncthreads();
  if (warp == 0) {
    const std::int64_t mine = lane < Shape::warps ? s_warp[lane] : 0;
    const std::int64_t inclusive = lb::warp_inclusive_scan(mine, lane);
    const std::int64_t aggregate = __shfl_sync(lb::full_mask, inclusive, Shape::warps - 1);
    std::int64_t tile_prefix = 0;
    if constexpr (!SingleTile) {
      const auto status =
          lb::PackedCount62::at(static_cast<unsigned char*>(scratch) + lb::counter_bytes);
      tile_prefix = lb::tile_exclusive_prefix(status, tile, aggregate, lane);
    }
    if (lane < Shape::warps)
      s_warp[lane] = tile_prefix + inclusive - mine;
    if (lane == 0 && tile == tiles - 1)
      *count = tile_prefix + aggregate;
  }
  __syncthreads();
  const std::int64_t base = s_warp[warp];
#pragma unroll
  for (int j = 0; j < A; ++j) {
    std::int64_t at = base + before[j];
#pragma unroll
    for (int k = 0; k < W; ++k)
      if (keep & (1u << (j * W + k)))
        out[at++] = x[j][k];
  }
}

template <class T, int Width, class Pred>
void launch(const T* in, T* out, std::int64_t n, Pred pred, std::int64_t* count,
            cudaStream_t stream) {
  using Shape = CompactShape<T, Width>;
  const std::int64_t tiles = (n + Shape::items - 1) / Shape::items;
  if (tiles == 1) {
    compact_kernel<T, Width, true, Pred>
        <<<1, threads, 0, stream>>>(in, out, n, pred, count, nullptr, 1);
    LADDER_CUDA(cudaGetLastError());
    return;
  }
  const std::size_t bytes = lb::scratch_bytes<lb::PackedCount62>(tiles);
  StreamScratch scratch(bytes, stream); // freed on the stream after the kernel, or on a throw
  LADDER_CUDA(cudaMemsetAsync(scratch.get(), 0, bytes, stream));
  compact_kernel<T, Width, false, Pred><<<static_cast<unsigned>(tiles), threads, 0, stream>>>(
      in, out, n, pred, count, scratch.get(), tiles);
  LADDER_CUDA(cudaGetLastError());
  scratch.release();
}

} // namespace detail::compact_impl

// Keeps the elements x of in[0, n) with pred(x) true, in order, in out[0, kept), and writes kept
// to *device_count (device memory). Asynchronous. `pred` is copied to the device: a functor with a
// __device__ operator()(const T&) const, or an __device__ lambda (nvcc --extended-lambda).
template <class T, class Pred>
void compact_async(const T* in, T* out, std::int64_t n, Pred pred, std::int64_t* device_count,
                   cudaStream_t stream = nullptr) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "ladder::compact: elements of 4 or 8 bytes");
  detail::check_scan_arguments("ladder::compact", in, out, n, sizeof(T));
  if (device_count == nullptr)
    throw std::invalid_argument("ladder::compact: device_count is null");
  if (n == 0) {
    LADDER_CUDA(cudaMemsetAsync(device_count, 0, sizeof(std::int64_t), stream));
    return;
  }
  constexpr int vector = 16 / sizeof(T);
  const auto both = reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out);
  if (both % 16 == 0)
    detail::compact_impl::launch<T, vector>(in, out, n, pred, device_count, stream);
  else
    detail::compact_impl::launch<T, 1>(in, out, n, pred, device_count, stream);
}

// The same, returning the count: waits for the stream (the count has to reach the host), so it
// cannot be captured into a graph: with n > 0 on a capturing stream it throws
// std::invalid_argument before anything is enqueued.
template <class T, class Pred>
std::int64_t compact(const T* in, T* out, std::int64_t n, Pred pred,
                     cudaStream_t stream = nullptr) {
  detail::check_scan_arguments("ladder::compact", in, out, n, sizeof(T));
  if (n == 0)
    return 0;
  detail::check_not_capturing("ladder::compact", stream);
  detail::StreamScratch device_count(sizeof(std::int64_t), stream);
  std::int64_t kept = 0;
  compact_async(in, out, n, pred, device_count.as<std::int64_t>(), stream);
  LADDER_CUDA(
      cudaMemcpyAsync(&kept, device_count.get(), sizeof kept, cudaMemcpyDeviceToHost, stream));
  device_count.release();
  LADDER_CUDA(cudaStreamSynchronize(stream));
  return kept;
}

} // namespace ladder
