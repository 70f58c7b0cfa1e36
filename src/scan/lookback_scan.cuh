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
// twice (about 4n element moves), this moves n in and n out: the minimum. H200, 2^28 int32: 2650
// GB/s with 16 per thread (62% of the copy), 3079 with 32 per thread and the speculative first
// load (72%); CUB 3141 (74%). See docs/scan.md for what limits it and what to try next.
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
// Speculative: start loading tile blockIdx.x before the tile counter answers (see the kernel).
template <int Threads, int Width, int Accesses, bool Streaming = false, bool Speculative = false>
struct TileShape {
  static constexpr bool streaming = Streaming;
  static constexpr bool speculative = Speculative;
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

  T x[A][W];
  // All loads of a tile first, so that A accesses per thread are in flight at once.
  auto load_full = [&](std::int64_t segment) {
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
  };
  auto segment_of = [&](std::int64_t t) {
    return t * Shape::items + static_cast<std::int64_t>(warp) * Shape::per_warp;
  };
  auto is_full = [&](std::int64_t t) { return t * Shape::items + Shape::items <= n; };

  std::int64_t tile = 0;
  bool loaded = false;
  if constexpr (!SingleTile) {
    if (threadIdx.x == 0)
      s_tile = static_cast<std::int64_t>(
          atomicAdd(static_cast<unsigned long long*>(scratch), 1ull));
    // Speculative: blocks mostly start in blockIdx order, so the counter mostly hands block b
    // tile b. Load tile b while the atomic is in flight; keep it only if the guess was right
    // (the tile itself always comes from the counter, so the look-back stays deadlock-free).
    if constexpr (Shape::speculative) {
      if (is_full(blockIdx.x)) {
        load_full(segment_of(blockIdx.x));
        loaded = true;
      }
    }
    __syncthreads();
    tile = s_tile;
    if (tile != static_cast<std::int64_t>(blockIdx.x))
      loaded = false;
  }
  const std::int64_t segment = segment_of(tile);
  const bool full = is_full(tile);
  if (full) {
    if (!loaded)
      load_full(segment);
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

// Persistent and pipelined: a grid that fits on the GPU at once; each block takes tiles from the
// counter in a loop and, before it walks back for tile t, claims tile t' and issues t's loads,
// so the look-back's latency overlaps the next tile's loads instead of leaving the block idle.
// Deadlock-free for the same reason as above: the smallest unfinished tile is always a block's
// current tile (a claimed "next" tile is larger than its block's current one), and its
// predecessors are all finished.
template <class T, class Shape, bool Inclusive>
__global__ void __launch_bounds__(Shape::threads)
    lookback_scan_pipelined_kernel(const T* in, T* out, std::int64_t n, void* scratch, std::int64_t tiles) {
  constexpr int W = Shape::width, A = Shape::accesses;
  __shared__ std::int64_t s_tile[2];
  __shared__ T s_warp[Shape::warps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  auto* counter = static_cast<unsigned long long*>(scratch);
  const auto status = lb::scan_status_at<T>(static_cast<unsigned char*>(scratch) + lb::counter_bytes, tiles);
  auto segment_of = [&](std::int64_t t) {
    return t * Shape::items + static_cast<std::int64_t>(warp) * Shape::per_warp;
  };
  auto load = [&](std::int64_t t, T (&v)[A][W]) {
    const std::int64_t segment = segment_of(t);
    if (t * Shape::items + Shape::items <= n) {
#pragma unroll
      for (int j = 0; j < A; ++j) {
        const auto a = reinterpret_cast<const Access<T, W>*>(in + segment)[j * 32 + lane];
#pragma unroll
        for (int k = 0; k < W; ++k)
          v[j][k] = a.v[k];
      }
    } else {
#pragma unroll
      for (int j = 0; j < A; ++j)
#pragma unroll
        for (int k = 0; k < W; ++k) {
          const std::int64_t i = segment + static_cast<std::int64_t>(j * 32 + lane) * W + k;
          v[j][k] = i < n ? in[i] : T(0);
        }
    }
  };

  if (threadIdx.x == 0)
    s_tile[0] = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
  __syncthreads();
  std::int64_t tile = s_tile[0];
  int slot = 0;
  T x[A][W];
  if (tile < tiles)
    load(tile, x);
  while (tile < tiles) {
    if (threadIdx.x == 0) // the next tile, claimed now; read by all after the barrier below
      s_tile[slot ^ 1] = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
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
    __syncwarp(); // every lane of this warp has read last tile's s_warp[warp]
    if (lane == 0)
      s_warp[warp] = carry;
    __syncthreads();
    const std::int64_t next = s_tile[slot ^ 1];
    T y[A][W];
    if (next < tiles) // in flight during the look-back
      load(next, y);
    if (warp == 0) {
      const T mine = lane < Shape::warps ? s_warp[lane] : T(0);
      const T inclusive = lb::warp_inclusive_scan(mine, lane);
      T exclusive = __shfl_up_sync(lb::full_mask, inclusive, 1);
      if (lane == 0)
        exclusive = T(0);
      const T aggregate = __shfl_sync(lb::full_mask, inclusive, Shape::warps - 1);
      const T tile_prefix = lb::tile_exclusive_prefix(status, tile, aggregate, lane);
      if (lane < Shape::warps)
        s_warp[lane] = tile_prefix + exclusive;
    }
    __syncthreads();
    const T warp_prefix = s_warp[warp];
    const std::int64_t segment = segment_of(tile);
    const bool full = tile * Shape::items + Shape::items <= n;
#pragma unroll
    for (int j = 0; j < A; ++j) {
      T running = warp_prefix + before[j];
      Access<T, W> o;
#pragma unroll
      for (int k = 0; k < W; ++k) {
        if constexpr (Inclusive) {
          running += x[j][k];
          o.v[k] = running;
        } else {
          o.v[k] = running;
          running += x[j][k];
        }
      }
      if (full) {
        reinterpret_cast<Access<T, W>*>(out + segment)[j * 32 + lane] = o;
      } else {
#pragma unroll
        for (int k = 0; k < W; ++k) {
          const std::int64_t i = segment + static_cast<std::int64_t>(j * 32 + lane) * W + k;
          if (i < n)
            out[i] = o.v[k];
        }
      }
    }
#pragma unroll
    for (int j = 0; j < A; ++j)
#pragma unroll
      for (int k = 0; k < W; ++k)
        x[j][k] = y[j][k];
    tile = next;
    slot ^= 1;
  }
}

template <class T, class Shape, bool Inclusive>
constexpr const void* pipelined_kernel_address() {
  return reinterpret_cast<const void*>(&lookback_scan_pipelined_kernel<T, Shape, Inclusive>);
}

template <class T, class Shape, bool Inclusive>
void launch_lookback_scan_pipelined(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0)
    return;
  const std::int64_t tiles = (n + Shape::items - 1) / Shape::items;
  if (tiles == 1) {
    lookback_scan_kernel<T, Shape, Inclusive, true><<<1, Shape::threads, 0, stream>>>(in, out, n, nullptr, 1);
    LADDER_CUDA(cudaGetLastError());
    return;
  }
  int device = 0, sms = 0, per_sm = 0;
  LADDER_CUDA(cudaGetDevice(&device));
  LADDER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  LADDER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, lookback_scan_pipelined_kernel<T, Shape, Inclusive>, Shape::threads, 0));
  const std::int64_t blocks = std::min<std::int64_t>(tiles, static_cast<std::int64_t>(sms) * std::max(per_sm, 1));
  using Status = lb::ScanStatus<T>;
  const std::size_t bytes = lb::scratch_bytes<Status>(tiles);
  void* scratch = detail::scratch_alloc(bytes, stream);
  LADDER_CUDA(cudaMemsetAsync(scratch, 0, bytes, stream));
  lookback_scan_pipelined_kernel<T, Shape, Inclusive>
      <<<static_cast<unsigned>(blocks), Shape::threads, 0, stream>>>(in, out, n, scratch, tiles);
  const cudaError_t launched = cudaGetLastError();
  detail::scratch_free(scratch, stream);
  LADDER_CUDA(launched);
}

// The library's choice per type: 256 threads, 16-byte accesses, 16 (4-byte) or 8 (8-byte)
// elements per thread, speculative first load (lookback_v16_spec in the ladder). See
// docs/scan.md for the tile-shape rows measured against it.
template <class T> using LibraryShape = TileShape<256, 16 / sizeof(T), 4, false, true>;
// The same tile with 1-element accesses, for pointers that are not both 16-byte aligned.
template <class T> using LibraryScalarShape = TileShape<256, 1, 4 * (16 / sizeof(T)), false, true>;

} // namespace ladder::scan_detail
