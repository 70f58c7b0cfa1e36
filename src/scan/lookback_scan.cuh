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
// twice (about 4n element moves), this moves n in and n out: the minimum. H200, 2^28 int32
// (bench/results/ladder-h200-2026-11-21-r5.md): 2664 GB/s with 16 per thread (63% of the copy),
// 3089 with 32 per thread and the speculative first load (73%), 3190 with the tile staged in shared
// memory (75%); CUB 3144 (74%). What limits it, and the reduce-ahead scan that gets past it
// (src/scan/reduce_ahead_scan.cuh): docs/scan.md.
#pragma once

#include "core/resident_grid.hpp"

#include "core/bulk_copy.cuh"
#include "ladder/detail/lookback.cuh"
#include "ladder/detail/scratch.hpp"
#include "ladder/error.hpp"
#include "ladder/scan.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ladder::scan_detail {

namespace lb = ladder::detail::lookback;

using lb::Access;
using lb::load_segment;
using lb::load_segment_guarded;

// The elements of a misaligned call ahead of its body (fewer than 128 bytes: up to `out`'s next
// 128-byte boundary when in and out sit at the same offset within 16 bytes, else up to `in`'s
// next 16-byte boundary): the aligned kernels scan from there on, and warp 0 of the block that
// owns tile 0 scans these, a lane per element, writes them, and starts tile 0 from their sum.
// Only that warp reads in[0, count), and it reads them before it writes out[0, count), so
// in == out stays safe.
template <class T> struct ScanHead {
  static constexpr int max_count = 128 / static_cast<int>(sizeof(T)) - 1;
  static_assert(max_count < 32, "a lane per element of the head");
  const T* in = nullptr;
  T* out = nullptr;
  int count = 0;
  // This lane's element of the head where `owner` (warp 0 of the block that has tile 0), else
  // 0. The kernels call it as soon as they know their tile, beside the tile's own loads, so the
  // head's memory round trip is not added to tile 0's path to publishing its prefix, which every
  // later tile waits for.
  __device__ T load_lane(bool owner, int lane) const {
    return owner && lane < count ? in[lane] : T(0);
  }
  // The whole warp, each lane with its element from load_lane: writes the scanned head and
  // returns its sum in every lane (0 without a head).
  template <bool Inclusive> __device__ T warp_scan(T x, int lane) const {
    T total;
    const T before = lb::warp_exclusive_scan(x, lane, total);
    if (lane < count)
      out[lane] = Inclusive ? before + x : before;
    return total;
  }
  // The same where `tile` is 0, else 0 (no memory touched).
  template <bool Inclusive> __device__ T warp_scan_for(std::int64_t tile, int lane, T x) const {
    if (tile != 0 || count == 0)
      return T(0);
    return warp_scan<Inclusive>(x, lane);
  }
};

// The scanned access: element k gets `running` plus the elements before it (exclusive) or up to
// and including it (inclusive).
template <bool Inclusive, class T, int W>
__device__ __forceinline__ Access<T, W> scan_access(const T (&x)[W], T running) {
  Access<T, W> y;
#pragma unroll
  for (int k = 0; k < W; ++k) {
    if constexpr (Inclusive) {
      running += x[k];
      y.v[k] = running;
    } else {
      y.v[k] = running;
      running += x[k];
    }
  }
  return y;
}

// Exclusive prefix of each of this lane's accesses inside its warp's segment (the order is
// access j, then lane: one warp scan per access, the total carried to the next); returns the
// segment's total.
template <class T, int W, int A>
__device__ __forceinline__ T access_prefixes(const T (&x)[A][W], T (&before)[A], int lane) {
  T carry = T(0);
#pragma unroll
  for (int j = 0; j < A; ++j) {
    T sum = x[j][0];
#pragma unroll
    for (int k = 1; k < W; ++k)
      sum += x[j][k];
    T total;
    before[j] = carry + lb::warp_exclusive_scan(sum, lane, total);
    carry += total;
  }
  return carry;
}

// The early-aggregate kernels' warp 0, once every warp has parked its total in s_warp[warp]:
// publishes the tile's aggregate, looks back, and writes each warp's exclusive prefix (the tile's
// prefix plus the warps before it) to prefixes[warp].
template <class Shape, bool Inclusive, class T>
__device__ __forceinline__ void early_warp_prefixes(const T* s_warp, T* prefixes, void* scratch,
                                                    std::int64_t tiles, std::int64_t tile,
                                                    int lane, const ScanHead<T>& head,
                                                    T head_value) {
  T aggregate;
  const T exclusive =
      lb::warp_exclusive_scan(lane < Shape::warps ? s_warp[lane] : T(0), lane, aggregate);
  const T first = head.template warp_scan_for<Inclusive>(tile, lane, head_value);
  const auto status =
      lb::scan_status_at<T>(static_cast<unsigned char*>(scratch) + lb::counter_bytes, tiles);
  if (lane == 0)
    status.publish(tile, tile == 0 ? lb::flag_prefix : lb::flag_aggregate, first + aggregate);
  const T tile_prefix =
      tile == 0 ? first : lb::walk_back<Shape::backoff>(status, tile, aggregate, lane);
  if (lane < Shape::warps)
    prefixes[lane] = tile_prefix + exclusive;
}

// Stores the elements of access y (starting at element `first`) that lie below n, one by one.
template <class T, int W>
__device__ __forceinline__ void store_elements_below(T* out, std::int64_t first,
                                                     const Access<T, W>& y, std::int64_t n) {
#pragma unroll
  for (int k = 0; k < W; ++k)
    if (first + k < n)
      out[first + k] = y.v[k];
}

// Stores access j of this lane in the warp segment starting at element `segment`: one 16-byte
// store (evict-first when Streaming) in a full tile; in the partial tile the same store where the
// access ends at or below n, the elements below n for the access that n cuts. `out + segment` is
// aligned to the access.
template <bool Streaming, class T, int W>
__device__ __forceinline__ void store_access(T* out, std::int64_t segment, int j, int lane,
                                             const Access<T, W>& y, bool full, std::int64_t n) {
  if (full) {
    if constexpr (Streaming && sizeof(y) == 16) {
      uint4 raw;
      std::memcpy(&raw, &y, 16);
      __stcs(reinterpret_cast<uint4*>(out + segment) + j * 32 + lane, raw);
    } else {
      reinterpret_cast<Access<T, W>*>(out + segment)[j * 32 + lane] = y;
    }
  } else {
    const std::int64_t first = segment + static_cast<std::int64_t>(j * 32 + lane) * W;
    if (first + W <= n)
      reinterpret_cast<Access<T, W>*>(out + segment)[j * 32 + lane] = y;
    else
      store_elements_below(out, first, y, n);
  }
}

// Streaming: 16-byte accesses with the evict-first hint (ld/st.global.cs): each byte is touched
// once, so it need not displace anything in L1 or L2.
// Speculative: start loading tile blockIdx.x before the tile counter answers (see the kernel).
// Kernel: which kernel launch_lookback_scan runs for tiles > 1 (a single tile always takes
// lookback_scan_kernel's one-launch path): kernel_registers (the tile in registers, aggregate after
// the per-access scans), kernel_early (the tile in registers, aggregate published before the
// per-access scans, which the other warps do during the look-back), kernel_staged (the tile in
// shared memory, filled by the bulk copy engine; needs 16-byte aligned pointers and sm_90).
// Backoff: __nanosleep in the look-back spin (kernel_early and kernel_staged only).
inline constexpr int kernel_registers = 0, kernel_early = 1, kernel_staged = 2;

template <int Threads, int Width, int Accesses, bool Streaming = false, bool Speculative = false,
          int Kernel = kernel_registers, bool Backoff = false>
struct TileShape {
  static constexpr bool streaming = Streaming;
  static constexpr bool speculative = Speculative;
  static constexpr int kernel = Kernel;
  static constexpr bool backoff = Backoff;
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
    lookback_scan_kernel(const T* in, T* out, std::int64_t n, void* scratch, std::int64_t tiles,
                         ScanHead<T> head) {
  constexpr int W = Shape::width, A = Shape::accesses;
  __shared__ std::int64_t s_tile;
  __shared__ T s_warp[Shape::warps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  T x[A][W];
  // All loads of a tile first, so that A accesses per thread are in flight at once.
  auto load_full = [&](std::int64_t segment) {
    load_segment<Shape::streaming>(in, segment, lane, x);
  };
  auto segment_of = [&](std::int64_t t) {
    return t * Shape::items + static_cast<std::int64_t>(warp) * Shape::per_warp;
  };
  auto is_full = [&](std::int64_t t) { return t * Shape::items + Shape::items <= n; };

  std::int64_t tile = 0;
  bool loaded = false;
  if constexpr (!SingleTile) {
    if (threadIdx.x == 0)
      s_tile =
          static_cast<std::int64_t>(atomicAdd(static_cast<unsigned long long*>(scratch), 1ull));
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
    load_segment_guarded(in, segment, n, lane, x);
  }
  const T head_value = head.load_lane(tile == 0 && warp == 0, lane);

  // Exclusive prefix of each access inside the warp's segment.
  T before[A];
  const T carry = access_prefixes(x, before, lane);
  if (lane == 0)
    s_warp[warp] = carry;
  __syncthreads();

  // Warp 0: the warps' exclusive prefixes, the tile's aggregate, and the look-back.
  if (warp == 0) {
    T aggregate;
    const T exclusive =
        lb::warp_exclusive_scan(lane < Shape::warps ? s_warp[lane] : T(0), lane, aggregate);
    T tile_prefix = head.template warp_scan_for<Inclusive>(tile, lane, head_value);
    if constexpr (!SingleTile) {
      const auto status =
          lb::scan_status_at<T>(static_cast<unsigned char*>(scratch) + lb::counter_bytes, tiles);
      tile_prefix = lb::tile_exclusive_prefix(status, tile, aggregate, lane, tile_prefix);
    }
    if (lane < Shape::warps)
      s_warp[lane] = tile_prefix + exclusive;
  }
  __syncthreads();
  const T warp_prefix = s_warp[warp];

#pragma unroll
  for (int j = 0; j < A; ++j)
    store_access<Shape::streaming>(out, segment, j, lane,
                                   scan_access<Inclusive>(x[j], warp_prefix + before[j]), full, n);
}

// The early-aggregate kernel: the same tile in registers, but the block first reduces its tile
// (one sum per thread, a warp butterfly, the 8 warp totals) and warp 0 publishes the aggregate at
// once; the per-access warp scans (8 x 7 shuffles for 32 per thread) are done by warps 1..7 while
// warp 0 walks back, and by warp 0 after its walk. The aggregate therefore leaves the block a few
// hundred cycles after the last load lands, which is what every later tile waits for.
template <class T, class Shape, bool Inclusive>
__global__ void __launch_bounds__(Shape::threads)
    lookback_scan_early_kernel(const T* in, T* out, std::int64_t n, void* scratch,
                               std::int64_t tiles, ScanHead<T> head) {
  constexpr int W = Shape::width, A = Shape::accesses;
  __shared__ std::int64_t s_tile;
  __shared__ T s_warp[Shape::warps];
  __shared__ T s_prefix[Shape::warps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  T x[A][W];
  // All loads of a tile first, so that A accesses per thread are in flight at once.
  auto load_full = [&](std::int64_t segment) {
    load_segment<Shape::streaming>(in, segment, lane, x);
  };
  auto segment_of = [&](std::int64_t t) {
    return t * Shape::items + static_cast<std::int64_t>(warp) * Shape::per_warp;
  };
  auto is_full = [&](std::int64_t t) { return t * Shape::items + Shape::items <= n; };

  if (threadIdx.x == 0)
    s_tile = static_cast<std::int64_t>(atomicAdd(static_cast<unsigned long long*>(scratch), 1ull));
  bool loaded = false;
  if constexpr (Shape::speculative) {
    if (is_full(blockIdx.x)) {
      load_full(segment_of(blockIdx.x));
      loaded = true;
    }
  }
  __syncthreads();
  const std::int64_t tile = s_tile;
  if (tile != static_cast<std::int64_t>(blockIdx.x))
    loaded = false;
  const std::int64_t segment = segment_of(tile);
  const bool full = is_full(tile);
  if (full) {
    if (!loaded)
      load_full(segment);
  } else {
    load_segment_guarded(in, segment, n, lane, x);
  }
  const T head_value = head.load_lane(tile == 0 && warp == 0, lane);

  // Reduce first: the tile's aggregate is all that later tiles wait for.
  T own = T(0);
#pragma unroll
  for (int j = 0; j < A; ++j)
#pragma unroll
    for (int k = 0; k < W; ++k)
      own += x[j][k];
  const T warp_total = lb::warp_sum(own);
  if (lane == 0)
    s_warp[warp] = warp_total;
  __syncthreads();

  if (warp == 0)
    early_warp_prefixes<Shape, Inclusive>(s_warp, s_prefix, scratch, tiles, tile, lane, head,
                                          head_value);
  // Warps 1.. scan their accesses while warp 0 walks back; warp 0 after its walk.
  T before[A];
  access_prefixes(x, before, lane);
  __syncthreads();
  const T warp_prefix = s_prefix[warp];

#pragma unroll
  for (int j = 0; j < A; ++j)
    store_access<Shape::streaming>(out, segment, j, lane,
                                   scan_access<Inclusive>(x[j], warp_prefix + before[j]), full, n);
}

// --- the staged kernel: the tile in shared memory, filled by the bulk copy engine ---------------
using core::barrier_init;
using core::barrier_wait;
using core::bulk_load;

// Thread 0 asks the counter for a tile and (speculatively, for tile blockIdx) starts one bulk
// copy of the whole tile into shared memory; the threads then hold only one 16-byte access at a
// time in registers: one pass over shared memory to reduce, the look-back, a second pass to scan
// and store. Few registers (40 for int32) and one barrier word per block, so the SM holds as many
// tiles in flight as its shared memory allows (6 x 32 KB), not as its registers allow (4 x 32 KB
// for lookback_v16_x32). The tile lives in dynamic shared memory (items x sizeof(T) bytes).
// Built for an architecture without the bulk copy engine (below sm_90), the threads copy the tile
// into shared memory themselves (16-byte loads, no speculation).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
inline constexpr bool staged_has_bulk_copy = false;
#else
inline constexpr bool staged_has_bulk_copy = true;
#endif

// One thread's sum of its accesses of a staged warp segment (shared memory).
template <class Shape, class T, int W>
__device__ __forceinline__ T staged_thread_sum(const Access<T, W>* seg, int lane) {
  T own = T(0);
#pragma unroll
  for (int j = 0; j < Shape::accesses; ++j) {
    const Access<T, W> a = seg[j * 32 + lane];
#pragma unroll
    for (int k = 0; k < W; ++k)
      own += a.v[k];
  }
  return own;
}

// Scans a staged warp segment (shared memory) access by access across the warp, starting from
// the warp's exclusive prefix, and stores it at `segment` of `out`.
// OutShift > 0: `out` sits OutShift elements past a 16-byte boundary (the input, staged by the
// bulk copy engine, is aligned; the output is not). Each lane then stores the aligned vector that
// ends with its first W - OutShift outputs, the OutShift before them taken from the previous lane
// (lane 31 of the previous access for lane 0): still one 16-byte store per access, plus single
// elements at the two ends of the warp's segment.
template <class Shape, bool Inclusive, int OutShift = 0, class T, int W>
__device__ __forceinline__ void staged_scan_store(const Access<T, W>* seg, T warp_prefix, T* out,
                                                  std::int64_t segment, bool full, std::int64_t n,
                                                  int lane) {
  static_assert(OutShift >= 0 && OutShift < W, "a shift within one 16-byte vector");
  [[maybe_unused]] T carry[OutShift > 0 ? OutShift : 1] = {}; // lane 31's last outputs of access j - 1
#pragma unroll 2
  for (int j = 0; j < Shape::accesses; ++j) {
    const Access<T, W> a = seg[j * 32 + lane];
    T sum = a.v[0];
#pragma unroll
    for (int k = 1; k < W; ++k)
      sum += a.v[k];
    T total;
    const T running = warp_prefix + lb::warp_exclusive_scan(sum, lane, total);
    warp_prefix += total;
    const Access<T, W> y = scan_access<Inclusive>(a.v, running);
    if constexpr (OutShift == 0) {
      store_access<Shape::streaming>(out, segment, j, lane, y, full, n);
    } else if (!full) { // the last, partial tile (the same for the whole block); `out` unaligned
      store_elements_below(out, segment + static_cast<std::int64_t>(j * 32 + lane) * W, y, n);
    } else {
      Access<T, W> v;
#pragma unroll
      for (int k = 0; k < OutShift; ++k) {
        const T from_previous = __shfl_up_sync(lb::full_mask, y.v[W - OutShift + k], 1);
        v.v[k] = lane == 0 ? carry[k] : from_previous;
        carry[k] = __shfl_sync(lb::full_mask, y.v[W - OutShift + k], 31);
      }
#pragma unroll
      for (int k = OutShift; k < W; ++k)
        v.v[k] = y.v[k - OutShift];
      const std::int64_t first = segment + static_cast<std::int64_t>(j * 32 + lane) * W;
      if (j == 0 && lane == 0) { // the segment's head: its vector starts in the previous segment
#pragma unroll
        for (int k = 0; k < W - OutShift; ++k)
          out[first + k] = y.v[k];
      } else {
        *reinterpret_cast<Access<T, W>*>(out + first - OutShift) = v;
      }
      if (j == Shape::accesses - 1 && lane == 31) // the segment's tail
#pragma unroll
        for (int k = W - OutShift; k < W; ++k)
          out[first + k] = y.v[k];
    }
  }
}

template <class T, class Shape> constexpr std::size_t staged_shared_bytes() {
  return static_cast<std::size_t>(Shape::items) * sizeof(T);
}

template <class T, class Shape, bool Inclusive>
__global__ void __launch_bounds__(Shape::threads)
    lookback_scan_staged_kernel(const T* in, T* out, std::int64_t n, void* scratch,
                                std::int64_t tiles, ScanHead<T> head) {
  constexpr int W = Shape::width;
  extern __shared__ __align__(128) unsigned char staged_bytes[];
  T* s_data = reinterpret_cast<T*>(staged_bytes);
  __shared__ alignas(8) std::uint64_t s_bar;
  __shared__ std::int64_t s_tile;
  __shared__ T s_warp[Shape::warps];
  __shared__ T s_prefix[Shape::warps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  auto is_full = [&](std::int64_t t) { return t * Shape::items + Shape::items <= n; };
  constexpr unsigned tile_bytes = Shape::items * sizeof(T);
  constexpr bool bulk = staged_has_bulk_copy;
  constexpr bool speculative = Shape::speculative && bulk;
  const bool guessed = speculative && is_full(blockIdx.x);

  if (threadIdx.x == 0) {
    if constexpr (bulk)
      barrier_init(&s_bar, 1);
    s_tile = static_cast<std::int64_t>(atomicAdd(static_cast<unsigned long long*>(scratch), 1ull));
    if (guessed)
      bulk_load(s_data, in + static_cast<std::int64_t>(blockIdx.x) * Shape::items, tile_bytes,
                &s_bar);
  }
  __syncthreads();
  const std::int64_t tile = s_tile;
  const T head_value = head.load_lane(tile == 0 && warp == 0, lane);
  const bool full = is_full(tile);
  const bool spec_ok = guessed && tile == static_cast<std::int64_t>(blockIdx.x);
  if (!spec_ok) {
    if (guessed) { // a wrong guess: let its copy land before the tile is overwritten
      barrier_wait(&s_bar, 0);
      // Every thread must be past its phase-0 wait before phase 1 can start: a thread that came
      // to wait for parity 0 only after phase 1 had completed would find phase 2 (parity 0 again)
      // open and wait for ever.
      __syncthreads();
    }
    if (full && bulk) {
      if (threadIdx.x == 0)
        bulk_load(s_data, in + tile * Shape::items, tile_bytes, &s_bar);
    } else if (full) {
      const auto* src = reinterpret_cast<const Access<T, W>*>(in + tile * Shape::items);
      auto* dst = reinterpret_cast<Access<T, W>*>(s_data);
      for (int i = threadIdx.x; i < Shape::items / W; i += Shape::threads)
        dst[i] = src[i];
    } else {
      for (int i = threadIdx.x; i < Shape::items; i += Shape::threads) {
        const std::int64_t g = tile * Shape::items + i;
        s_data[i] = g < n ? in[g] : T(0);
      }
    }
  }
  if (full && bulk) // this tile's copy is phase 1 of the barrier after a wrong guess, else phase 0
    barrier_wait(&s_bar, (!spec_ok && guessed) ? 1u : 0u);
  else
    __syncthreads();

  const Access<T, W>* seg = reinterpret_cast<const Access<T, W>*>(s_data + warp * Shape::per_warp);
  const T warp_total = lb::warp_sum(staged_thread_sum<Shape>(seg, lane));
  if (lane == 0)
    s_warp[warp] = warp_total;
  __syncthreads();
  if (warp == 0)
    early_warp_prefixes<Shape, Inclusive>(s_warp, s_prefix, scratch, tiles, tile, lane, head,
                                          head_value);
  __syncthreads();
  const std::int64_t segment =
      tile * Shape::items + static_cast<std::int64_t>(warp) * Shape::per_warp;
  staged_scan_store<Shape, Inclusive>(seg, s_prefix[warp], out, segment, full, n, lane);
}

template <class T, class Shape, bool Inclusive> constexpr const void* lookback_kernel_address() {
  if constexpr (Shape::kernel == kernel_early)
    return reinterpret_cast<const void*>(&lookback_scan_early_kernel<T, Shape, Inclusive>);
  else if constexpr (Shape::kernel == kernel_staged)
    return reinterpret_cast<const void*>(&lookback_scan_staged_kernel<T, Shape, Inclusive>);
  else
    return reinterpret_cast<const void*>(&lookback_scan_kernel<T, Shape, Inclusive, false>);
}

// One call: a single launch when n fits one tile; else scratch (counter + status) from the pool,
// zeroed, the kernel over ceil(n / tile) blocks, and the scratch freed, all on `stream`.
// `head`: elements scanned ahead of `in` (a misaligned call's realignment), see ScanHead; n may
// then be 0 (the head alone).
template <class T, class Shape, bool Inclusive>
void launch_lookback_scan(const T* in, T* out, std::int64_t n, cudaStream_t stream,
                          ScanHead<T> head = {}) {
  if (n <= 0 && head.count == 0)
    return;
  const std::int64_t tiles = std::max<std::int64_t>(1, (n + Shape::items - 1) / Shape::items);
  if (tiles == 1) {
    lookback_scan_kernel<T, Shape, Inclusive, true>
        <<<1, Shape::threads, 0, stream>>>(in, out, n, nullptr, 1, head);
    LADDER_CUDA(cudaGetLastError());
    return;
  }
  using Status = lb::ScanStatus<T>;
  const std::size_t bytes = lb::scratch_bytes<Status>(tiles);
  detail::StreamScratch owned(bytes, stream); // freed on the stream after the kernel, or on a throw
  void* scratch = owned.get();
  LADDER_CUDA(cudaMemsetAsync(scratch, 0, bytes, stream));
  if constexpr (Shape::kernel == kernel_early)
    lookback_scan_early_kernel<T, Shape, Inclusive>
        <<<static_cast<unsigned>(tiles), Shape::threads, 0, stream>>>(in, out, n, scratch, tiles,
                                                                      head);
  else if constexpr (Shape::kernel == kernel_staged) {
    constexpr std::size_t shared = staged_shared_bytes<T, Shape>();
    if constexpr (shared > 48 * 1024) { // above the default limit: opt in (once per instantiation)
      static const cudaError_t opted = cudaFuncSetAttribute(
          lookback_scan_staged_kernel<T, Shape, Inclusive>,
          cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared));
      LADDER_CUDA(opted);
    }
    lookback_scan_staged_kernel<T, Shape, Inclusive>
        <<<static_cast<unsigned>(tiles), Shape::threads, shared, stream>>>(in, out, n, scratch,
                                                                           tiles, head);
  } else
    lookback_scan_kernel<T, Shape, Inclusive, false>
        <<<static_cast<unsigned>(tiles), Shape::threads, 0, stream>>>(in, out, n, scratch, tiles,
                                                                      head);
  LADDER_CUDA(cudaGetLastError());
  owned.release();
}

// Persistent and pipelined: a grid that fits on the GPU at once; each block takes tiles from the
// counter in a loop and, before it walks back for tile t, claims tile t' and issues t's loads,
// so the look-back's latency overlaps the next tile's loads instead of leaving the block idle.
// Deadlock-free for the same reason as above: the smallest unfinished tile is always a block's
// current tile (a claimed "next" tile is larger than its block's current one), and its
// predecessors are all finished.
template <class T, class Shape, bool Inclusive>
__global__ void __launch_bounds__(Shape::threads)
    lookback_scan_pipelined_kernel(const T* in, T* out, std::int64_t n, void* scratch,
                                   std::int64_t tiles) {
  constexpr int W = Shape::width, A = Shape::accesses;
  __shared__ std::int64_t s_tile[2];
  __shared__ T s_warp[Shape::warps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  auto* counter = static_cast<unsigned long long*>(scratch);
  const auto status =
      lb::scan_status_at<T>(static_cast<unsigned char*>(scratch) + lb::counter_bytes, tiles);
  auto segment_of = [&](std::int64_t t) {
    return t * Shape::items + static_cast<std::int64_t>(warp) * Shape::per_warp;
  };
  auto load = [&](std::int64_t t, T(&v)[A][W]) {
    if (t * Shape::items + Shape::items <= n)
      load_segment<false>(in, segment_of(t), lane, v);
    else
      load_segment_guarded(in, segment_of(t), n, lane, v);
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
    const T carry = access_prefixes(x, before, lane);
    __syncwarp(); // every lane of this warp has read last tile's s_warp[warp]
    if (lane == 0)
      s_warp[warp] = carry;
    __syncthreads();
    const std::int64_t next = s_tile[slot ^ 1];
    T y[A][W];
    if (next < tiles) // in flight during the look-back
      load(next, y);
    if (warp == 0) {
      T aggregate;
      const T exclusive =
          lb::warp_exclusive_scan(lane < Shape::warps ? s_warp[lane] : T(0), lane, aggregate);
      const T tile_prefix = lb::tile_exclusive_prefix(status, tile, aggregate, lane);
      if (lane < Shape::warps)
        s_warp[lane] = tile_prefix + exclusive;
    }
    __syncthreads();
    const T warp_prefix = s_warp[warp];
    const std::int64_t segment = segment_of(tile);
    const bool full = tile * Shape::items + Shape::items <= n;
#pragma unroll
    for (int j = 0; j < A; ++j)
      store_access<false>(out, segment, j, lane,
                          scan_access<Inclusive>(x[j], warp_prefix + before[j]), full, n);
#pragma unroll
    for (int j = 0; j < A; ++j)
#pragma unroll
      for (int k = 0; k < W; ++k)
        x[j][k] = y[j][k];
    tile = next;
    slot ^= 1;
  }
}

template <class T, class Shape, bool Inclusive> constexpr const void* pipelined_kernel_address() {
  return reinterpret_cast<const void*>(&lookback_scan_pipelined_kernel<T, Shape, Inclusive>);
}

template <class T, class Shape, bool Inclusive>
void launch_lookback_scan_pipelined(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0)
    return;
  const std::int64_t tiles = (n + Shape::items - 1) / Shape::items;
  if (tiles == 1) {
    lookback_scan_kernel<T, Shape, Inclusive, true>
        <<<1, Shape::threads, 0, stream>>>(in, out, n, nullptr, 1, ScanHead<T>{});
    LADDER_CUDA(cudaGetLastError());
    return;
  }
  static core::PerDevice resident;
  const std::int64_t blocks = std::min<std::int64_t>(
      tiles, core::resident_blocks(
                 resident,
                 reinterpret_cast<const void*>(lookback_scan_pipelined_kernel<T, Shape, Inclusive>),
                 Shape::threads));
  using Status = lb::ScanStatus<T>;
  const std::size_t bytes = lb::scratch_bytes<Status>(tiles);
  detail::StreamScratch owned(bytes, stream); // freed on the stream after the kernel, or on a throw
  void* scratch = owned.get();
  LADDER_CUDA(cudaMemsetAsync(scratch, 0, bytes, stream));
  lookback_scan_pipelined_kernel<T, Shape, Inclusive>
      <<<static_cast<unsigned>(blocks), Shape::threads, 0, stream>>>(in, out, n, scratch, tiles);
  LADDER_CUDA(cudaGetLastError());
  owned.release();
}

// The library's look-back shape per type (below 2^22 elements, misaligned pointers, and wherever
// the reduce-ahead kernel cannot be launched cooperatively): 256 threads, 16-byte accesses, 32
// (4-byte) or 16 (8-byte) elements per thread, speculative first load, aggregate published before
// the per-access scans (lookback_v16_x32_early in the ladder).
template <class T>
using LibraryShape = TileShape<256, 16 / sizeof(T), 8, false, true, kernel_early>;
// The same tile with 1-element accesses, for pointers that are not both 16-byte aligned.
template <class T>
using LibraryScalarShape = TileShape<256, 1, 8 * (16 / sizeof(T)), false, true, kernel_early>;

} // namespace ladder::scan_detail
