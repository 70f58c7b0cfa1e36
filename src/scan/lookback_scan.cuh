// The single-pass scan (rung 6 and the library call): decoupled look-back across tiles, warp
// shuffles inside a tile, several elements per thread in registers, 16-byte loads and stores.
//
// A tile is Threads x Accesses x Width elements. Warp w owns one contiguous segment of it; its
// j-th load instruction reads 32 consecutive "accesses" of Width elements (Width x 4 bytes each
// for int32: 16 bytes when Width = 4), so every load and store instruction of a warp covers
// 32 x 16 = 512 contiguous bytes. The order inside a segment is therefore (access j, lane): the
// thread-local sums of access j are scanned across the warp with shuffles, carrying the total
// from access j to j + 1. Only the warps' totals go through shared memory.
//
// Compared with the three-phase scan (rung 5), which reads the input twice and writes the output
// twice (about 4n element moves), this moves n in and n out: the minimum.
#pragma once

#include "ladder/detail/lookback.cuh"
#include "ladder/error.hpp"
#include "ladder/scan.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace ladder::scan_detail {

namespace lb = ladder::detail::lookback;

template <class T, int Width> struct alignas(sizeof(T) * Width) Access {
  T v[Width];
};

// Streaming: 16-byte accesses with the evict-first hint (ld/st.global.cs): each byte is touched
// once, so it need not displace anything in L1 or L2.
template <int Threads, int Width, int Accesses, bool Streaming = false> struct TileShape {
  static constexpr bool streaming = Streaming;
  static constexpr int threads = Threads;
  static constexpr int width = Width;       // elements per access (16 bytes / sizeof(T) or 1)
  static constexpr int accesses = Accesses; // accesses per thread
  static constexpr int warps = Threads / 32;
  static constexpr int per_warp = 32 * Width * Accesses;
  static constexpr int items = warps * per_warp;
};

// SingleTile: the whole input is one tile; no counter, no status, no look-back (one launch).
template <class T, class Shape, bool Inclusive, bool SingleTile>
__global__ void __launch_bounds__(Shape::threads)
    lookback_scan_kernel(const T* in, T* out, std::int64_t n, void* scratch, std::int64_t tiles) {
  constexpr int W = Shape::width, A = Shape::accesses;
  __shared__ std::int64_t s_tile;
  __shared__ T s_warp[Shape::warps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  std::int64_t tile = 0;
  if constexpr (!SingleTile) {
    if (threadIdx.x == 0)
      s_tile = static_cast<std::int64_t>(
          atomicAdd(static_cast<unsigned long long*>(scratch), 1ull));
    __syncthreads();
    tile = s_tile;
  }
  const std::int64_t segment = tile * Shape::items + static_cast<std::int64_t>(warp) * Shape::per_warp;
  const bool full = tile * Shape::items + Shape::items <= n;

  // All loads first, so that A x 16 bytes per thread are in flight at once.
  T x[A][W];
  if (full) {
#pragma unroll
    for (int j = 0; j < A; ++j) {
      Access<T, W> a;
      if constexpr (Shape::streaming && sizeof(a) == 16) {
        const uint4 raw = __ldcs(reinterpret_cast<const uint4*>(in + segment) + j * 32 + lane);
        std::memcpy(&a, &raw, 16);
      } else {
        a = reinterpret_cast<const Access<T, W>*>(in + segment)[j * 32 + lane];
      }
#pragma unroll
      for (int k = 0; k < W; ++k)
        x[j][k] = a.v[k];
    }
  } else {
#pragma unroll
    for (int j = 0; j < A; ++j)
#pragma unroll
      for (int k = 0; k < W; ++k) {
        const std::int64_t i = segment + static_cast<std::int64_t>(j * 32 + lane) * W + k;
        x[j][k] = i < n ? in[i] : T(0);
      }
  }

  // Exclusive prefix of each access inside the warp's segment.
  T before[A];
  T carry = T(0);
#pragma unroll
  for (int j = 0; j < A; ++j) {
    T sum = x[j][0];
#pragma unroll
    for (int k = 1; k < W; ++k)
      sum += x[j][k];
    const T inclusive = lb::warp_inclusive_scan(sum, lane);
    T exclusive = __shfl_up_sync(lb::full_mask, inclusive, 1);
    if (lane == 0)
      exclusive = T(0);
    before[j] = carry + exclusive;
    carry += __shfl_sync(lb::full_mask, inclusive, 31);
  }
  if (lane == 0)
    s_warp[warp] = carry;
  __syncthreads();

  // Warp 0: the warps' exclusive prefixes, the tile's aggregate, and the look-back.
  if (warp == 0) {
    const T mine = lane < Shape::warps ? s_warp[lane] : T(0);
    const T inclusive = lb::warp_inclusive_scan(mine, lane);
    T exclusive = __shfl_up_sync(lb::full_mask, inclusive, 1);
    if (lane == 0)
      exclusive = T(0);
    T tile_prefix = T(0);
    if constexpr (!SingleTile) {
      const T aggregate = __shfl_sync(lb::full_mask, inclusive, Shape::warps - 1);
      const auto status = lb::scan_status_at<T>(static_cast<unsigned char*>(scratch) + lb::counter_bytes, tiles);
      tile_prefix = lb::tile_exclusive_prefix(status, tile, aggregate, lane);
    }
    if (lane < Shape::warps)
      s_warp[lane] = tile_prefix + exclusive;
  }
  __syncthreads();
  const T warp_prefix = s_warp[warp];

#pragma unroll
  for (int j = 0; j < A; ++j) {
    T running = warp_prefix + before[j];
    Access<T, W> y;
#pragma unroll
    for (int k = 0; k < W; ++k) {
      if constexpr (Inclusive) {
        running += x[j][k];
        y.v[k] = running;
      } else {
        y.v[k] = running;
        running += x[j][k];
      }
    }
    if (full) {
      if constexpr (Shape::streaming && sizeof(y) == 16) {
        uint4 raw;
        std::memcpy(&raw, &y, 16);
        __stcs(reinterpret_cast<uint4*>(out + segment) + j * 32 + lane, raw);
      } else {
        reinterpret_cast<Access<T, W>*>(out + segment)[j * 32 + lane] = y;
      }
    } else {
#pragma unroll
      for (int k = 0; k < W; ++k) {
        const std::int64_t i = segment + static_cast<std::int64_t>(j * 32 + lane) * W + k;
        if (i < n)
          out[i] = y.v[k];
      }
    }
  }
}

template <class T, class Shape, bool Inclusive>
constexpr const void* lookback_kernel_address() {
  return reinterpret_cast<const void*>(&lookback_scan_kernel<T, Shape, Inclusive, false>);
}

// One call: a single launch when n fits one tile; else scratch (counter + status) from the pool,
// zeroed, the kernel over ceil(n / tile) blocks, and the scratch freed, all on `stream`.
template <class T, class Shape, bool Inclusive>
void launch_lookback_scan(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0)
    return;
  const std::int64_t tiles = (n + Shape::items - 1) / Shape::items;
  if (tiles == 1) {
    lookback_scan_kernel<T, Shape, Inclusive, true><<<1, Shape::threads, 0, stream>>>(in, out, n, nullptr, 1);
    LADDER_CUDA(cudaGetLastError());
    return;
  }
  using Status = lb::ScanStatus<T>;
  const std::size_t bytes = lb::scratch_bytes<Status>(tiles);
  void* scratch = detail::scratch_alloc(bytes, stream);
  LADDER_CUDA(cudaMemsetAsync(scratch, 0, bytes, stream));
  lookback_scan_kernel<T, Shape, Inclusive, false>
      <<<static_cast<unsigned>(tiles), Shape::threads, 0, stream>>>(in, out, n, scratch, tiles);
  const cudaError_t launched = cudaGetLastError();
  detail::scratch_free(scratch, stream);
  LADDER_CUDA(launched);
}

// The library's choice per type: 16-byte accesses, 16 (4-byte) or 8 (8-byte) elements per thread.
// Chosen from the tile-shape rows of `ladder run scan` (see docs/scan.md for the measured table).
template <class T> using LibraryShape = TileShape<256, 16 / sizeof(T), 4>;
// The same tile with 1-element accesses, for pointers that are not both 16-byte aligned.
template <class T> using LibraryScalarShape = TileShape<256, 1, 4 * (16 / sizeof(T))>;

} // namespace ladder::scan_detail
