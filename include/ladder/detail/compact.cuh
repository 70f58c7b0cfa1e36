// Stream compaction on the single-pass look-back scan: each tile evaluates the predicate, scans
// its 0/1 flags with warp shuffles, finds where its kept elements start with the decoupled
// look-back over 64-bit counts, and writes them there. One read of the input, one write of the
// kept elements. Included by ladder/scan.hpp when compiled by nvcc.
#pragma once

#include "ladder/detail/bulk_copy.cuh"
#include "ladder/detail/lookback.cuh"
#include "ladder/detail/scratch.hpp"
#include "ladder/error.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <utility>

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

// --- the reduce-ahead schedule (the one behind the scan's large inputs, src/scan/reduce_ahead_scan.cuh)
// A grid that fits on the GPU at once (cooperative launch) walks the tiles in rows of G = gridDim.x
// tiles; block b owns tiles k G + b. Each block keeps a ring of Stages tiles in shared memory,
// filled by the bulk copy engine, and counts the kept elements of tile k + Ahead (and publishes
// the count) right after it has written out tile k. A tile's output offset is the one of the
// block's previous tile plus the G counts published in between: they were published Ahead rows
// earlier, so a block almost never waits, and while it writes one tile the copies of its next ones
// are in flight. The predicate runs once per element.
//
// How a tile's kept elements reach memory (WriteOut):
// - scalar: the count pass keeps the predicate bits; the write pass reads the tile again and each
//   lane stores its kept elements one by one where they go. Up to 16 / sizeof(T) partial store
//   instructions per 16-byte access, scattered over a warp's 512 bytes: many more store
//   instructions and L2 write requests than bytes (H200, 2^28 int32: 685.5 us, CUB 599.5 us).
// - staged: the count pass, which has the tile's values in registers, also compacts them in place
//   to the front of their stage (their tile-local offsets from one warp scan of per-access counts
//   packed into one word, and the warps' counts); the write pass copies that run out as aligned
//   16-byte stores (a scalar head up to the first 16-byte boundary of out, a scalar tail), so a
//   warp store instruction writes 512 contiguous bytes: the scheme of CUB's two-phase scatter with
//   vector stores. The write pass no longer re-reads the whole tile nor scans, and a tile takes
//   three barriers instead of five.
// - staged_streaming: the same with evict-first (st.global.cs) stores (the output is not read
//   again here).
enum class WriteOut { scalar, staged, staged_streaming };

template <int Threads, int Accesses, int Stages, int Ahead, WriteOut Out = WriteOut::staged>
struct AheadShape {
  static constexpr int threads = Threads, accesses = Accesses, stages = Stages, ahead = Ahead;
  static constexpr WriteOut write_out = Out;
  static constexpr int warps = Threads / 32;
  static_assert(Threads % 32 == 0 && warps <= 32, "one warp scans the warps' counts");
  static_assert(Ahead >= 1 && Ahead < Stages,
                "the ring holds the tile written and those counted ahead");
  template <class T> static constexpr int width = 16 / static_cast<int>(sizeof(T));
  template <class T> static constexpr int per_warp = 32 * Accesses * width<T>;
  template <class T> static constexpr int items = warps * per_warp<T>;
  template <class T>
  static constexpr std::size_t shared_bytes = std::size_t{Stages} * items<T> * sizeof(T);
};

// 256 threads, 8 16-byte accesses each (32 KB tiles: 8192 4-byte or 4096 8-byte elements), 3
// stages (96 KB of shared memory, two blocks per SM on Hopper), counted 2 rows ahead, staged
// write-out: row compact_staged_32k_s3_r2 of `ladder tune scan` (H200, 2026-11-25, keep x > 0 of
// int32: 470.0 us at 268435399 and 22.88 us at 2^23, against 480.7 and 23.42 us for the 64 KB
// tiles of 512 threads, and cub::DeviceSelect::If's 600.1 and 26.94 us).
using LibraryAheadShape = AheadShape<256, 8, 3, 2, WriteOut::staged>;
// From this many elements compaction takes the reduce-ahead kernel (an input off a 16-byte
// boundary with a head, CompactHead).
inline constexpr std::int64_t reduce_ahead_min = std::int64_t{1} << 22;

// A lane's kept counts of its A accesses, one bit field each, so that one warp scan of a word
// gives all A offsets (a field holds up to a warp's 32 W elements of one access, and the
// difference of the inclusive and the own word never borrows across fields).
template <int A, int W> struct PackedCounts {
  static constexpr int field_bits = 32 * W < 256 ? 8 : 16;
  static constexpr int per_word = 64 / field_bits;
  static constexpr int words = (A + per_word - 1) / per_word;
  using Word = std::conditional_t<(A * field_bits <= 32), unsigned, unsigned long long>;
  static constexpr Word field_mask = (Word{1} << field_bits) - 1;

  // offsets[j]: the kept elements of the warp segment before this lane's access j; returns the
  // warp segment's kept elements, in every lane.
  __device__ __forceinline__ static int scan(const unsigned (&bits)[A], int lane,
                                             int (&offsets)[A]) {
    Word own[words] = {}, inclusive[words], total[words];
#pragma unroll
    for (int j = 0; j < A; ++j)
      own[j / per_word] |= static_cast<Word>(__popc(bits[j])) << (j % per_word * field_bits);
#pragma unroll
    for (int w = 0; w < words; ++w) {
      inclusive[w] = lb::warp_inclusive_scan(own[w], lane);
      total[w] = __shfl_sync(lb::full_mask, inclusive[w], 31);
    }
    int running = 0;
#pragma unroll
    for (int j = 0; j < A; ++j) {
      const int shift = j % per_word * field_bits;
      offsets[j] =
          running +
          static_cast<int>(((inclusive[j / per_word] - own[j / per_word]) >> shift) & field_mask);
      running += static_cast<int>((total[j / per_word] >> shift) & field_mask);
    }
    return running;
  }
};

// Calls f(std::integral_constant<int, shift>{}) for the one shift in [D, W) equal to `shift`
// (C++17: the public headers compile as C++17 too, so no template lambda).
template <int D, int W, class F> __device__ __forceinline__ void with_shift(int shift, F& f) {
  if constexpr (D < W) {
    if (shift == D)
      f(std::integral_constant<int, D>{});
    else
      with_shift<D + 1, W>(shift, f);
  }
}

// Block-wide: writes the `count` elements of the shared run src[0, count) (16-byte aligned) to
// dst[0, count): scalar stores up to the first 16-byte boundary of dst and after the last, aligned
// 16-byte stores in between. Their source starts `head` elements past a 16-byte boundary of src:
// each 16-byte store takes its elements from two aligned 16-byte shared loads.
template <int Threads, int A, bool Streaming, class T>
__device__ __forceinline__ void store_run(const T* src, T* dst, int count) {
  constexpr int W = 16 / static_cast<int>(sizeof(T));
  using Vec = lb::Access<T, W>;
  static_assert(sizeof(Vec) == 16);
  const int misaligned = static_cast<int>(reinterpret_cast<std::uintptr_t>(dst) / sizeof(T) % W);
  const int to_boundary = (W - misaligned) % W;
  const int head = count < to_boundary ? count : to_boundary;
  const int vectors = (count - head) / W;
  const int tail_from = head + vectors * W, tail = count - tail_from;
  if (threadIdx.x < head)
    dst[threadIdx.x] = src[threadIdx.x];
  if (static_cast<int>(threadIdx.x) >= Threads - tail) { // the last warp: often idle in the middle
    const int i = tail_from + static_cast<int>(threadIdx.x) - (Threads - tail);
    dst[i] = src[i];
  }
  const Vec* from = reinterpret_cast<const Vec*>(src);
  Vec* to = reinterpret_cast<Vec*>(dst + head);
  auto middle = [&](auto shift) {
    constexpr int D = decltype(shift)::value; // = head: vector i is elements D + W i ...
#pragma unroll
    for (int r = 0; r < A; ++r) {
      const int i = static_cast<int>(threadIdx.x) + r * Threads;
      if (i < vectors) {
        Vec v;
        if constexpr (D == 0) {
          v = from[i];
        } else {
          const Vec a = from[i], b = from[i + 1]; // b ends at or before element count - 1 + W - D
#pragma unroll
          for (int e = 0; e < W; ++e)
            v.v[e] = e + D < W ? a.v[e + D] : b.v[e + D - W];
        }
        if constexpr (Streaming) {
          uint4 raw;
          std::memcpy(&raw, &v, 16);
          __stcs(reinterpret_cast<uint4*>(to + i), raw);
        } else {
          to[i] = v;
        }
      }
    }
  };
  // head is uniform over the block: one branch, each case with its shifts known at compile time.
  with_shift<0, W>(head, middle);
}

// The elements of a call whose input is not 16-byte aligned, before its first 16-byte boundary
// (at most 3 four-byte or 1 eight-byte): warp 0 of block 0 tests them, a lane each, and writes
// the kept ones to out[0, kept) before anything else; tile 0's published count carries them, so
// every later tile's output offset includes them. The lanes read their elements before any lane
// writes (the ballot orders them), so in == out stays safe.
template <class T> struct CompactHead {
  const T* in = nullptr;
  int count = 0;
};

template <class T, class Shape, class Pred>
__global__ void __launch_bounds__(Shape::threads)
    compact_ahead_kernel(const T* in, T* out, std::int64_t n, Pred pred, std::int64_t* count,
                         void* scratch, std::int64_t tiles, CompactHead<T> head) {
  constexpr int S = Shape::stages, R = Shape::ahead, A = Shape::accesses, Warps = Shape::warps;
  constexpr int W = Shape::template width<T>, PerWarp = Shape::template per_warp<T>;
  constexpr int Items = Shape::template items<T>;
  constexpr bool Staged = Shape::write_out != WriteOut::scalar;
  static_assert(A * W <= 32, "one 32-bit mask of predicate bits per thread and tile");
  using Vec = lb::Access<T, W>;
  extern __shared__ __align__(128) unsigned char compact_stages[];
  __shared__ alignas(8) std::uint64_t s_bar[S];
  // scalar: the predicate bits of the tiles counted ahead, bit j W + k = access j, element k
  __shared__ unsigned s_mask[Staged ? 1 : S][Staged ? 1 : Shape::threads];
  __shared__ int s_warp_counts[S][Warps];
  __shared__ int s_tile_count[S];
  __shared__ std::int64_t s_partial[2][Warps]; // double-buffered: one barrier per window_sum
  __shared__ std::int64_t s_base[Staged ? 1 : Warps];
  __shared__ int s_head_kept; // block 0: the head's kept elements, written ahead of tile 0's
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t grid = gridDim.x, block = blockIdx.x;
  const auto status = lb::PackedCount62::at(static_cast<unsigned char*>(scratch) + lb::counter_bytes);
  auto stage_data = [&](int s) { return reinterpret_cast<T*>(compact_stages) + s * Items; };
  auto tile_of = [&](std::int64_t k) { return k * grid + block; };
  auto is_full = [&](std::int64_t t) { return t * Items + Items <= n; };
  auto segment_of = [&](int s) {
    return reinterpret_cast<const Vec*>(stage_data(s) + warp * PerWarp);
  };
  unsigned parity = 0; // bit s: the phase of s_bar[s] the next copy into stage s completes

  if (threadIdx.x == 0)
    for (int s = 0; s < S; ++s)
      bulk::barrier_init(&s_bar[s], 1);
  if (warp == 0) {
    const bool mine = block == 0 && lane < head.count;
    const T x = mine ? head.in[lane] : T{};
    const bool keep = mine && pred(x);
    const unsigned kept = __ballot_sync(lb::full_mask, keep);
    if (keep)
      out[__popc(kept & ((1u << lane) - 1u))] = x;
    if (lane == 0)
      s_head_kept = __popc(kept);
  }
  __syncthreads();
  const int head_kept = s_head_kept; // 0 outside block 0
  auto fill = [&](std::int64_t t, int s) {
    if (t >= tiles)
      return;
    T* dst = stage_data(s);
    if (bulk::available && is_full(t)) {
      if (threadIdx.x == 0) {
        bulk::fence_proxy_async_shared(); // the stage was last accessed through the generic proxy
        bulk::load(dst, in + t * Items, Items * sizeof(T), &s_bar[s]);
      }
    } else if (is_full(t)) { // built below sm_90: the threads copy the tile themselves
      for (int i = threadIdx.x; i < Items / W; i += Shape::threads)
        reinterpret_cast<Vec*>(dst)[i] = reinterpret_cast<const Vec*>(in + t * Items)[i];
    } else {
      for (int i = threadIdx.x; i < Items; i += Shape::threads) {
        const std::int64_t g = t * Items + i;
        dst[i] = g < n ? in[g] : T{};
      }
    }
  };
  auto wait_filled = [&](std::int64_t t, int s) {
    if (bulk::available && is_full(t)) {
      bulk::wait(&s_bar[s], (parity >> s) & 1u);
      parity ^= 1u << s;
    } else {
      __syncthreads();
    }
  };
  // This lane's predicate bits of the tile in stage s, per access (bit k: element k), and its
  // values. Only the last tile is partial: the others skip the index tests.
  auto evaluate = [&](std::int64_t t, int s, Vec (&v)[A], unsigned (&bits)[A]) {
    const Vec* seg = segment_of(s);
#pragma unroll
    for (int j = 0; j < A; ++j)
      v[j] = seg[j * 32 + lane];
#pragma unroll
    for (int j = 0; j < A; ++j)
      bits[j] = 0;
    if (is_full(t)) {
#pragma unroll
      for (int j = 0; j < A; ++j)
#pragma unroll
        for (int k = 0; k < W; ++k)
          if (pred(v[j].v[k]))
            bits[j] |= 1u << k;
    } else {
      const std::int64_t first = t * Items + static_cast<std::int64_t>(warp) * PerWarp;
#pragma unroll
      for (int j = 0; j < A; ++j)
#pragma unroll
        for (int k = 0; k < W; ++k)
          if (first + static_cast<std::int64_t>(j * 32 + lane) * W + k < n && pred(v[j].v[k]))
            bits[j] |= 1u << k;
    }
  };
  // scalar: evaluates the predicate on the tile in stage s, keeps the bits, publishes the count.
  auto count_and_publish = [&](std::int64_t t, int s) {
    Vec v[A];
    unsigned bits[A];
    evaluate(t, s, v, bits);
    unsigned mask = 0;
#pragma unroll
    for (int j = 0; j < A; ++j)
      mask |= bits[j] << (j * W);
    s_mask[Staged ? 0 : s][Staged ? 0 : threadIdx.x] = mask;
    const int warp_count = lb::warp_sum(__popc(mask));
    if (lane == 0)
      s_warp_counts[s][warp] = warp_count;
    __syncthreads();
    if (warp == 0) {
      const std::int64_t tile_count =
          lb::warp_sum(lane < Warps ? static_cast<std::int64_t>(s_warp_counts[s][lane]) : 0);
      if (lane == 0) // tile 0's count carries the head's, so every later offset includes it
        status.publish(t, lb::flag_aggregate, tile_count + (t == 0 ? head_kept : 0));
    }
  };
  // staged: evaluates the predicate on the tile in stage s, publishes its count, and compacts its
  // kept elements in place to the front of the stage. The barrier orders every read of the stage
  // (all values are in registers then) before the compacting writes.
  auto count_stage_and_publish = [&](std::int64_t t, int s) {
    Vec v[A];
    unsigned bits[A];
    evaluate(t, s, v, bits);
    int at[A];
    const int warp_count = PackedCounts<A, W>::scan(bits, lane, at);
    if (lane == 0)
      s_warp_counts[s][warp] = warp_count;
    __syncthreads();
    const int counted = lane < Warps ? s_warp_counts[s][lane] : 0;
    const int warp_base = lb::warp_sum(lane < warp ? counted : 0);
    if (warp == 0) {
      const int tile_count = lb::warp_sum(counted);
      if (lane == 0) {
        status.publish(t, lb::flag_aggregate, tile_count + (t == 0 ? head_kept : 0));
        s_tile_count[s] = tile_count;
      }
    }
    T* run = stage_data(s) + warp_base;
#pragma unroll
    for (int j = 0; j < A; ++j) {
      int to = at[j];
#pragma unroll
      for (int e = 0; e < W; ++e)
        if (bits[j] & (1u << e))
          run[to++] = v[j].v[e];
    }
    // Orders these generic writes before the bulk copy that refills the stage (issued by thread 0
    // after a barrier), as writers of a buffer that the async proxy uses next must.
    bulk::fence_proxy_async_shared();
  };
  auto count_tile = [&](std::int64_t t, int s) {
    if constexpr (Staged)
      count_stage_and_publish(t, s);
    else
      count_and_publish(t, s);
  };
  // The sum of the published counts of tiles [from, from + number), in every thread. Its barrier
  // also orders the compacting writes of count_stage_and_publish before the write pass's reads.
  int window_parity = 0;
  auto window_sum = [&](std::int64_t from, std::int64_t number) {
    std::int64_t part = 0;
    for (std::int64_t i = threadIdx.x; i < number; i += Shape::threads) {
      unsigned flag = lb::flag_none;
      std::int64_t value = 0;
      status.read(from + i, flag, value);
      while (flag == lb::flag_none) {
        __nanosleep(32);
        status.read(from + i, flag, value);
      }
      part += value;
    }
    part = lb::warp_sum(part);
    // Buffer p was last read by the window_sum two calls ago: a barrier of the one in between
    // separates those reads from these writes.
    std::int64_t* partial = s_partial[window_parity];
    window_parity ^= 1;
    if (lane == 0)
      partial[warp] = part;
    __syncthreads();
    return lb::warp_sum(lane < Warps ? partial[lane] : std::int64_t{0});
  };

  for (int s = 0; s < S; ++s)
    fill(tile_of(s), s);
  for (int s = 0; s < R; ++s)
    if (tile_of(s) < tiles) {
      wait_filled(tile_of(s), s);
      count_tile(tile_of(s), s);
    }

  std::int64_t before_tile = 0; // kept before tile t_{k-1}, then before t_k (the head from tile 1 on)
  for (std::int64_t k = 0; tile_of(k) < tiles; ++k) {
    const std::int64_t t = tile_of(k);
    const int s = static_cast<int>(k % S);
    before_tile = k == 0 ? window_sum(0, block) : before_tile + window_sum(tile_of(k - 1), grid);
    // Where the tile's output starts: after the head's kept elements for tile 0 (later tiles have
    // them in before_tile already, through tile 0's published count).
    const std::int64_t at_tile = before_tile + (t == 0 ? head_kept : 0);
    if constexpr (Staged) {
      const int kept = s_tile_count[s];
      if (threadIdx.x == 0 && t == tiles - 1)
        *count = at_tile + kept;
      store_run<Shape::threads, A, Shape::write_out == WriteOut::staged_streaming>(
          stage_data(s), out + at_tile, kept);
    } else {
      if (warp == 0) {
        std::int64_t tile_count;
        const std::int64_t before = lb::warp_exclusive_scan(
            lane < Warps ? static_cast<std::int64_t>(s_warp_counts[s][lane]) : std::int64_t{0},
            lane, tile_count);
        if (lane < Warps)
          s_base[lane] = at_tile + before;
        if (lane == 0 && t == tiles - 1)
          *count = at_tile + tile_count;
      }
      __syncthreads();
      // Each access's kept elements go right after those of the lanes before it, and the access
      // after it continues from the warp's running total.
      const unsigned mask = s_mask[Staged ? 0 : s][Staged ? 0 : threadIdx.x];
      const Vec* seg = segment_of(s);
      std::int64_t at_access = s_base[warp];
#pragma unroll
      for (int j = 0; j < A; ++j) {
        const unsigned bits = (mask >> (j * W)) & ((1u << W) - 1u);
        int total;
        const int before = lb::warp_exclusive_scan(__popc(bits), lane, total);
        if (bits) {
          const Vec v = seg[j * 32 + lane];
          std::int64_t at = at_access + before;
#pragma unroll
          for (int e = 0; e < W; ++e)
            if (bits & (1u << e))
              out[at++] = v.v[e];
        }
        at_access += total;
      }
    }
    __syncthreads(); // stage s (and s_base) are free
    fill(tile_of(k + S), s);
    const std::int64_t ahead = tile_of(k + R);
    if (ahead < tiles) {
      const int sa = static_cast<int>((k + R) % S);
      wait_filled(ahead, sa);
      count_tile(ahead, sa);
    }
  }
}

// Blocks of compact_ahead_kernel<T, Shape, Pred> that fit on the current device at once (0: no
// cooperative launch, or not enough shared memory), asked once per device.
template <class T, class Shape, class Pred> std::int64_t compact_ahead_resident_blocks() {
  constexpr int max_devices = 64;
  static std::int64_t cached[max_devices] = {};
  static bool known[max_devices] = {};
  int device = 0;
  LADDER_CUDA(cudaGetDevice(&device));
  const auto kernel = compact_ahead_kernel<T, Shape, Pred>;
  constexpr int shared = static_cast<int>(Shape::template shared_bytes<T>);
  // Set on every call: cheap, and the attribute then holds for whichever registration of this
  // template kernel the launch below goes through.
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared) !=
      cudaSuccess) {
    (void)cudaGetLastError(); // the device has less shared memory per block: not an error here
    return 0;
  }
  if (device < max_devices && known[device])
    return cached[device];
  int cooperative = 0, sms = 0, per_sm = 0;
  LADDER_CUDA(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  LADDER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  LADDER_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Shape::threads, shared));
  const std::int64_t blocks = cooperative ? static_cast<std::int64_t>(per_sm) * sms : 0;
  if (device < max_devices) {
    cached[device] = blocks;
    known[device] = true;
  }
  return blocks;
}

// One reduce-ahead call: zeroed scratch (the tile counts), one cooperative launch of
// min(tiles, resident blocks). Returns false, having launched nothing, where that cannot run:
// a capturing stream (a cooperative launch cannot be captured), no cooperative launch, not enough
// shared memory, or a grid the device refuses (e.g. under MPS). Needs 16-byte aligned in; `head`
// (the elements before it, see CompactHead) is kept ahead of in's, at out[0, kept).
template <class T, class Shape, class Pred>
bool launch_ahead(const T* in, T* out, std::int64_t n, Pred pred, std::int64_t* count,
                  cudaStream_t stream, std::int64_t max_blocks = 0, CompactHead<T> head = {}) {
  const std::int64_t tiles = (n + Shape::template items<T> - 1) / Shape::template items<T>;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  LADDER_CUDA(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone)
    return false;
  const std::int64_t resident = compact_ahead_resident_blocks<T, Shape, Pred>();
  if (resident == 0)
    return false;
  const std::int64_t blocks =
      std::min(std::min(tiles, resident), max_blocks > 0 ? max_blocks : resident);
  const std::size_t bytes = lb::scratch_bytes<lb::PackedCount62>(tiles);
  StreamScratch scratch(bytes, stream); // freed on the stream after the kernel, or on a throw
  LADDER_CUDA(cudaMemsetAsync(scratch.get(), 0, bytes, stream));
  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(Shape::threads);
  config.dynamicSmemBytes = Shape::template shared_bytes<T>;
  config.stream = stream;
  config.attrs = &cooperative;
  config.numAttrs = 1;
  void* scratch_pointer = scratch.get();
  const cudaError_t launched = cudaLaunchKernelEx(&config, compact_ahead_kernel<T, Shape, Pred>,
                                                  in, out, n, pred, count, scratch_pointer, tiles,
                                                  head);
  scratch.release();
  if (launched == cudaErrorCooperativeLaunchTooLarge) {
    (void)cudaGetLastError(); // not sticky; the caller's fallback must not see it
    return false;
  }
  LADDER_CUDA(launched);
  return true;
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
  namespace impl = detail::compact_impl;
  // The reduce-ahead kernel reads with bulk copies (16-byte aligned input: the elements before
  // in's first 16-byte boundary are its head) and writes each tile's kept elements through shared
  // memory: scalar up to out's next 16-byte boundary, 16-byte stores after it (any output
  // alignment).
  const auto phase = reinterpret_cast<std::uintptr_t>(in) % 16;
  const int head = static_cast<int>((16 - phase) % 16 / sizeof(T));
  if (n >= impl::reduce_ahead_min && phase % sizeof(T) == 0 &&
      impl::launch_ahead<T, impl::LibraryAheadShape>(in + head, out, n - head, pred, device_count,
                                                     stream, 0, impl::CompactHead<T>{in, head}))
    return;
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
