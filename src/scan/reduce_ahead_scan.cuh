// The reduce-ahead scan: a single-pass scan without a look-back chain.
//
// Why: every look-back rung (and CUB) sits at ~74% of the copy on an H200 at 2^28. In a
// look-back, a tile cannot be written before all its predecessors have at least reduced their
// elements, and that wait comes right after the tile's own loads: a block that waits holds its
// slot on the SM with no loads in flight, and the slowest tile's loads hold up every tile behind
// it (docs/scan.md).
//
// How: a grid that fits on the GPU at once (a cooperative launch guarantees it) walks the tiles
// in rows of G = gridDim.x tiles; block b owns tiles t_k = k G + b. Each block keeps a ring of
// Stages tiles in shared memory, filled by the bulk copy engine, and *reduces tile t_{k+Ahead}
// right after it scans tile t_k*: the aggregates a tile needs are published Ahead rows before
// they are needed, so a block almost never waits, and while it scans, its next tiles' copies are
// in flight. The exclusive prefix of t_k is the one of t_{k-1} (the block's own, kept in a
// register) plus the G aggregates from t_{k-1} to t_k - 1: a window of G published values, read
// from L2 (8 bytes per aggregate: ~1 KB-4 KB per 32 KB tile). Reads n and writes n, like the
// look-back.
//
// Deadlock freedom: a block waits only for aggregates of tiles in its own row or the row before,
// which their blocks publish before they wait for anything in that row; with every block resident
// (the cooperative launch fails rather than run a grid that does not fit), every wait ends.
#pragma once

#include "core/resident_grid.hpp"

#include "scan/lookback_scan.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <type_traits>

namespace ladder::scan_detail {

// Stages: tiles in shared memory per block. Ahead: how many rows before its scan a tile is
// reduced (its aggregate published); the other Stages - 1 - Ahead tiles of the ring are copies
// in flight while a tile is scanned. Ahead = 1 leaves no slack (a block's window needs the
// aggregates its neighbours publish at the end of the same row), Ahead = 2 one row of slack. Tag:
// distinguishes otherwise equal shapes (see LibraryAheadShape). VectorTail: the last, partial
// tile (n not a multiple of the tile; every misaligned call's body) is read with 16-byte loads,
// all of a thread's issued before any lands in shared memory, instead of one element per
// iteration of a loop whose loads wait on each other's stores: a fixed cost at the kernel's end,
// on its critical path (under test: misaligned calls measured about 10 us slower than aligned
// ones from 2^23 on, H200, 2026-11-25).
template <int Threads, int Accesses, int Stages, int Ahead = Stages - 1, bool Streaming = false,
          int Tag = 0, bool VectorTail = false>
struct AheadShape {
  static constexpr int threads = Threads;
  static constexpr int accesses = Accesses; // 16-byte accesses per thread and tile
  static constexpr int stages = Stages;
  static constexpr int ahead = Ahead;
  static constexpr bool streaming = Streaming;
  static constexpr bool vector_tail = VectorTail;
  static constexpr int warps = Threads / 32;
  static_assert(Ahead >= 1 && Ahead < Stages,
                "the ring holds the tile being scanned and those reduced ahead");
  template <class T> static constexpr int width = 16 / static_cast<int>(sizeof(T));
  template <class T> static constexpr int items = (Threads * Accesses) * width<T>;
  template <class T>
  static constexpr std::size_t shared_bytes = std::size_t{Stages} * items<T> * sizeof(T);
};

// The TileShape view of one stage, for the staged helpers (width for T, no look-back options).
template <class T, class Ahead>
using AheadTile =
    TileShape<Ahead::threads, Ahead::template width<T>, Ahead::accesses, Ahead::streaming>;

// OutShift: `out` sits that many elements past a 16-byte boundary (staged_scan_store).
template <class T, class Ahead, bool Inclusive, int OutShift = 0>
__global__ void __launch_bounds__(Ahead::threads)
    reduce_ahead_scan_kernel(const T* in, T* out, std::int64_t n, void* scratch,
                             std::int64_t tiles, ScanHead<T> head) {
  using Tile = AheadTile<T, Ahead>;
  constexpr int S = Ahead::stages, R = Ahead::ahead, Items = Tile::items, Warps = Tile::warps,
                W = Tile::width;
  extern __shared__ __align__(128) unsigned char staged_bytes[];
  __shared__ alignas(8) std::uint64_t s_bar[S];
  __shared__ T s_warp_totals[S][Warps]; // per stage: its tile's warp totals (from the reduce)
  __shared__ T s_partial[Warps];
  __shared__ T s_prefix[Warps];
  __shared__ T s_first; // block 0: the sum of a misaligned call's head (what precedes tile 0)
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t grid = gridDim.x, block = blockIdx.x;
  const auto status =
      lb::scan_status_at<T>(static_cast<unsigned char*>(scratch) + lb::counter_bytes, tiles);
  constexpr bool bulk = staged_has_bulk_copy;
  auto stage_data = [&](int s) { return reinterpret_cast<T*>(staged_bytes) + s * Items; };
  auto tile_of = [&](std::int64_t k) { return k * grid + block; };
  auto is_full = [&](std::int64_t t) { return t * Items + Items <= n; };
  // Bit s: the phase of s_bar[s] that the next bulk copy into stage s completes.
  unsigned parity = 0;

  if (threadIdx.x == 0) {
    if constexpr (bulk)
      for (int s = 0; s < S; ++s)
        barrier_init(&s_bar[s], 1);
  }
  __syncthreads();
  // Starts filling stage s with tile t: one bulk copy (thread 0) for a full tile; element loads
  // by every thread for the last, partial tile (or without the bulk copy engine).
  auto fill = [&](std::int64_t t, int s) {
    if (t >= tiles)
      return;
    T* dst = stage_data(s);
    if (bulk && is_full(t)) {
      if (threadIdx.x == 0) {
        // The stage was last read through the generic proxy (ordered by the caller's barrier);
        // the copy writes it through the async proxy.
        core::fence_proxy_async_shared();
        bulk_load(dst, in + t * Items, Items * sizeof(T), &s_bar[s]);
      }
    } else if (is_full(t)) {
      const auto* src = reinterpret_cast<const Access<T, W>*>(in + t * Items);
      for (int i = threadIdx.x; i < Items / W; i += Tile::threads)
        reinterpret_cast<Access<T, W>*>(dst)[i] = src[i];
    } else if constexpr (Ahead::vector_tail) {
      // The partial tile: whole 16-byte accesses below n, the elements of the one that n cuts,
      // zeros past it. `in` and the tile's start are 16-byte aligned (the kernel's contract).
      const std::int64_t first = t * Items, valid = n - first;
      const auto* src = reinterpret_cast<const Access<T, W>*>(in + first);
      constexpr int per_thread = Items / W / Tile::threads;
      Access<T, W> v[per_thread];
#pragma unroll
      for (int j = 0; j < per_thread; ++j) {
        const int a = static_cast<int>(threadIdx.x) + j * Tile::threads;
        if (std::int64_t{a + 1} * W <= valid) {
          v[j] = src[a];
        } else {
#pragma unroll
          for (int e = 0; e < W; ++e)
            v[j].v[e] = std::int64_t{a} * W + e < valid ? in[first + std::int64_t{a} * W + e] : T(0);
        }
      }
#pragma unroll
      for (int j = 0; j < per_thread; ++j)
        reinterpret_cast<Access<T, W>*>(dst)[static_cast<int>(threadIdx.x) + j * Tile::threads] =
            v[j];
    } else {
      for (int i = threadIdx.x; i < Items; i += Tile::threads) {
        const std::int64_t g = t * Items + i;
        dst[i] = g < n ? in[g] : T(0);
      }
    }
  };
  auto wait_filled = [&](std::int64_t t, int s) {
    if (bulk && is_full(t)) {
      barrier_wait(&s_bar[s], (parity >> s) & 1u);
      parity ^= 1u << s;
    } else {
      __syncthreads();
    }
  };
  auto segment_of = [&](int s) {
    return reinterpret_cast<const Access<T, W>*>(stage_data(s) + warp * Tile::per_warp);
  };
  // Reduces the tile in stage s, keeps its warp totals, publishes its aggregate.
  auto reduce_and_publish = [&](std::int64_t t, int s) {
    const T warp_total = lb::warp_sum(staged_thread_sum<Tile>(segment_of(s), lane));
    if (lane == 0)
      s_warp_totals[s][warp] = warp_total;
    __syncthreads();
    if (warp == 0) {
      const T aggregate = lb::warp_sum(lane < Warps ? s_warp_totals[s][lane] : T(0));
      if (lane == 0) // tile 0's published aggregate carries the head, so every later tile sees it
        status.publish(t, lb::flag_aggregate, t == 0 ? s_first + aggregate : aggregate);
    }
  };
  // The sum of the published aggregates of tiles [first, first + count), in every thread.
  auto window_sum = [&](std::int64_t first, std::int64_t count) {
    T part = T(0);
    for (std::int64_t i = threadIdx.x; i < count; i += Tile::threads) {
      unsigned flag = lb::flag_none;
      T value = T(0);
      status.read(first + i, flag, value);
      while (flag == lb::flag_none) {
        __nanosleep(32);
        status.read(first + i, flag, value);
      }
      part += value;
    }
    part = lb::warp_sum(part);
    __syncthreads(); // s_partial is free (the previous window's readers are done)
    if (lane == 0)
      s_partial[warp] = part;
    __syncthreads();
    return lb::warp_sum(lane < Warps ? s_partial[lane] : T(0));
  };

  // Prologue: start every stage's copy, reduce the first R tiles. Block 0's warp 0 scans the
  // head while its copies are in flight; s_first is read after the barriers that follow.
  for (int s = 0; s < S; ++s)
    fill(tile_of(s), s);
  if (warp == 0) {
    const T first = block == 0 ? head.template warp_scan<Inclusive>(
                                     head.load_lane(true, lane), lane)
                               : T(0);
    if (lane == 0)
      s_first = first;
  }
  for (int s = 0; s < R; ++s)
    if (tile_of(s) < tiles) {
      wait_filled(tile_of(s), s);
      reduce_and_publish(tile_of(s), s);
    }

  T exclusive = T(0); // of tile t_{k-1}, then of t_k
  for (std::int64_t k = 0; tile_of(k) < tiles; ++k) {
    const std::int64_t t = tile_of(k);
    const int s = static_cast<int>(k % S);
    exclusive = k == 0 ? window_sum(0, block) : exclusive + window_sum(tile_of(k - 1), grid);
    if (warp == 0) {
      T tile_total;
      const T before =
          lb::warp_exclusive_scan(lane < Warps ? s_warp_totals[s][lane] : T(0), lane, tile_total);
      if (lane < Warps) // `exclusive` sums published aggregates: tile 0 adds the head itself
        s_prefix[lane] = exclusive + (t == 0 ? s_first : T(0)) + before;
    }
    __syncthreads();
    staged_scan_store<Tile, Inclusive, OutShift>(segment_of(s), s_prefix[warp], out,
                                       t * Items + static_cast<std::int64_t>(warp) * Tile::per_warp,
                                       is_full(t), n, lane);
    __syncthreads(); // stage s and s_prefix are free
    fill(tile_of(k + S), s);
    const std::int64_t ahead = tile_of(k + R);
    if (ahead < tiles) {
      const int sa = static_cast<int>((k + R) % S);
      wait_filled(ahead, sa);
      reduce_and_publish(ahead, sa);
    }
  }
}

// Calls that could not take the reduce-ahead kernel and why (the last reason: a cudaError_t, or
// -1 for "no cooperative launch on this device"), so that the tests can tell that the library's
// fast path is the one that runs.
inline std::atomic<long> reduce_ahead_fallbacks{0};
inline std::atomic<int> reduce_ahead_fallback_reason{0};

inline bool reduce_ahead_fall_back(int reason) {
  reduce_ahead_fallback_reason.store(reason, std::memory_order_relaxed);
  reduce_ahead_fallbacks.fetch_add(1, std::memory_order_relaxed);
  return false;
}

// Blocks of the reduce-ahead kernel that fit on the device at once, 0 where the device has no
// cooperative launch (asked once per device and instantiation; the attributes do not change).
template <class T, class Ahead, bool Inclusive, int OutShift = 0>
std::int64_t reduce_ahead_resident_blocks() {
  static core::PerDevice resident;
  return core::cooperative_blocks(
      resident,
      reinterpret_cast<const void*>(reduce_ahead_scan_kernel<T, Ahead, Inclusive, OutShift>),
      Ahead::threads, Ahead::template shared_bytes<T>);
}

// One call: a single tile takes the one-launch single-tile kernel; else zeroed scratch (the
// status words), one cooperative launch of min(tiles, resident blocks), the scratch freed.
// Needs 16-byte aligned in and out (the bulk copies and the 16-byte stores). Returns false,
// having launched nothing, where the grid cannot be launched cooperatively: no support on the
// device, fewer resident blocks than the occupancy API promised (e.g. under MPS), or a stream
// being captured into a graph (a cooperative launch cannot be captured). The caller falls back.
// max_blocks > 0 caps the grid (the tests use it to run many rows on small inputs).
template <class T, class Ahead, bool Inclusive, int OutShift = 0>
bool launch_reduce_ahead_scan(const T* in, T* out, std::int64_t n, cudaStream_t stream,
                              std::int64_t max_blocks = 0, ScanHead<T> head = {}) {
  if (n <= 0 && head.count == 0)
    return true;
  using Tile = AheadTile<T, Ahead>;
  const std::int64_t tiles = std::max<std::int64_t>(1, (n + Tile::items - 1) / Tile::items);
  if (tiles == 1) { // one launch; an unaligned `out` takes element accesses
    using OneTile = std::conditional_t<OutShift == 0, Tile,
                                       TileShape<Tile::threads, 1, Tile::accesses * Tile::width>>;
    lookback_scan_kernel<T, OneTile, Inclusive, true>
        <<<1, Tile::threads, 0, stream>>>(in, out, n, nullptr, 1, head);
    LADDER_CUDA(cudaGetLastError());
    return true;
  }
  // Capture first: a call under capture then makes no first-use attribute calls
  // (cudaFuncSetAttribute, the occupancy query) for a kernel it will not launch.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  LADDER_CUDA(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone)
    return reduce_ahead_fall_back(cudaErrorStreamCaptureUnsupported);
  const std::int64_t resident = reduce_ahead_resident_blocks<T, Ahead, Inclusive, OutShift>();
  if (resident == 0)
    return reduce_ahead_fall_back(-1);
  const std::int64_t blocks = std::min({tiles, resident, max_blocks > 0 ? max_blocks : resident});
  using Status = lb::ScanStatus<T>;
  const std::size_t bytes = lb::scratch_bytes<Status>(tiles);
  detail::StreamScratch owned(bytes, stream); // freed on the stream after the kernel, or on a throw
  void* scratch = owned.get();
  LADDER_CUDA(cudaMemsetAsync(scratch, 0, bytes, stream));
  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(Ahead::threads);
  config.dynamicSmemBytes = Ahead::template shared_bytes<T>;
  config.stream = stream;
  config.attrs = &cooperative;
  config.numAttrs = 1;
  const cudaError_t launched = cudaLaunchKernelEx(
      &config, reduce_ahead_scan_kernel<T, Ahead, Inclusive, OutShift>, in, out, n, scratch, tiles,
      head);
  owned.release();
  if (launched == cudaErrorCooperativeLaunchTooLarge) {
    (void)cudaGetLastError(); // not sticky; the caller's fallback must not see it
    return reduce_ahead_fall_back(launched);
  }
  LADDER_CUDA(launched);
  return true;
}

// The library's shape (ladder::exclusive_scan / inclusive_scan, 16-byte aligned pointers, n at
// least library_reduce_ahead_min): the shape of rung reduce_ahead_64k_s3_r2_vector_tail, 512
// threads, 64 KB tiles (16384 4-byte or 8192 8-byte elements), 3 per block (192 KB of shared
// memory: one block per SM on Hopper; a GPU with less shared memory per block gets the look-back
// kernel), reduced 2 rows ahead, the last partial tile read with 16-byte loads (a misaligned
// call's body always ends in one). Its own type (LibraryTag) so that its kernels are instantiated in the library
// alone: a kernel instantiated in two translation units is registered twice with the runtime, and
// the shared-memory opt-in made through one registration was not seen by the cooperative launch
// through the other (H200: cudaErrorCooperativeLaunchTooLarge when the lab's rung ran first).
inline constexpr int library_tag = 1;
using LibraryAheadShape = AheadShape<512, 8, 3, 2, false, library_tag, true>;
// Below this many elements the library takes the look-back kernel: one launch up to one tile
// and less fixed cost (H200, int32, bench/results/ladder-h200-2026-11-21-r5.md: 2^20 0.0098 ms
// look-back, 0.0101 ms reduce-ahead; 2^24 0.0540 ms, 0.0455 ms).
inline constexpr std::int64_t library_reduce_ahead_min = std::int64_t{1} << 22;
// Up to this many elements an aligned library call is one launch of the single-tile kernel
// (16384 4-byte or 8192 8-byte elements); misaligned calls, up to LibraryScalarShape's tile.
template <class T>
inline constexpr std::int64_t library_single_launch_max = AheadTile<T, LibraryAheadShape>::items;

template <class T, class Ahead, bool Inclusive>
constexpr const void* reduce_ahead_kernel_address() {
  return reinterpret_cast<const void*>(&reduce_ahead_scan_kernel<T, Ahead, Inclusive>);
}

} // namespace ladder::scan_detail
