// The building blocks of the rungs beyond the seeds and of ladder::reduce: the operators, the
// 16-byte loads, the shuffle-based block reduction and the tiled kernel with its optional
// single-pass (last block done) finish. Shared by src/reduce/variants.cu and src/reduce/api.cu.
#pragma once

#include "core/bulk_copy.cuh"
#include "ladder/reduce.hpp"

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace ladder::reduce_detail {

// --- operators -----------------------------------------------------------------------------------
// Integer sum and product are done in the unsigned type: wrap-around is then defined behaviour
// and the result is the exact value modulo 2^bits whatever the order.

template <class T> using Unsigned = std::make_unsigned_t<T>;

template <class T> struct Sum {
  static constexpr T identity() { return T(0); }
  __host__ __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b));
    else
      return a + b;
  }
};

template <class T> struct Product {
  static constexpr T identity() { return T(1); }
  __host__ __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<Unsigned<T>>(a) * static_cast<Unsigned<T>>(b));
    else
      return a * b;
  }
};

// Floating min / max use fmin / fmax: a NaN operand is ignored, so the result does not depend on
// where a NaN sits in the reduction tree.
template <class T> struct Min {
  static constexpr T identity() {
    if constexpr (std::is_floating_point_v<T>)
      return std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::max();
  }
  __host__ __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      return fmin(a, b);
    else
      return b < a ? b : a;
  }
};

template <class T> struct Max {
  static constexpr T identity() {
    if constexpr (std::is_floating_point_v<T>)
      return -std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::lowest();
  }
  __host__ __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      return fmax(a, b);
    else
      return a < b ? b : a;
  }
};

template <class T> struct BitAnd {
  static_assert(std::is_integral_v<T>, "bit_and is defined for integer types only");
  static constexpr T identity() { return static_cast<T>(~Unsigned<T>(0)); }
  __host__ __device__ __forceinline__ T operator()(T a, T b) const { return a & b; }
};

template <class T> struct BitOr {
  static_assert(std::is_integral_v<T>, "bit_or is defined for integer types only");
  static constexpr T identity() { return T(0); }
  __host__ __device__ __forceinline__ T operator()(T a, T b) const { return a | b; }
};

// --- loads ---------------------------------------------------------------------------------------

enum class LoadPolicy {
  ldg,         // ld.global.nc: the read-only path (what __ldg emits)
  l2_prefetch, // ld.global.nc.L1::no_allocate.L2::256B: skip L1, ask L2 to fetch 256-byte blocks
};

template <LoadPolicy P> __device__ __forceinline__ int4 load16(const int4* p) {
  if constexpr (P == LoadPolicy::ldg) {
    return __ldg(p);
  } else {
    int4 r;
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
    return r;
  }
}

// The 16 bytes as 16 / sizeof(T) elements, combined in a fixed order.
template <class T, class Op> __device__ __forceinline__ T reduce_vector(int4 raw, Op op) {
  constexpr int V = 16 / sizeof(T);
  T parts[V];
  std::memcpy(parts, &raw, 16);
  if constexpr (V == 4)
    return op(op(parts[0], parts[1]), op(parts[2], parts[3]));
  else
    return op(parts[0], parts[1]);
}

// --- block reduction with warp shuffles ----------------------------------------------------------
// Each warp folds its 32 values with __shfl_down_sync (registers only, no shared memory, no
// barrier: the _sync variants name the participating lanes, so this is correct under Volta's
// independent thread scheduling), warp leaders park one value each in shared memory, and warp 0
// folds those. The result is valid in thread 0.

template <class T, class Op> __device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

template <int Threads, class T, class Op> __device__ __forceinline__ T block_reduce(T v, Op op) {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, at most 32 of them");
  constexpr int Warps = Threads / 32;
  __shared__ T warp_totals[Warps];
  v = warp_reduce(v, op);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < Warps ? warp_totals[lane] : Op::identity();
    v = warp_reduce(v, op);
  }
  return v;
}

template <class T> struct ScratchView {
  unsigned int* counter; // zero before a launch; left zero after it
  T* partials;           // at least gridDim.x elements
};

// --- the single-pass finish ------------------------------------------------------------------
// Every block has its total in thread 0. Block b writes partials[b], then bumps `counter`; the
// block that sees the count reach G is the last one, reads every partial, writes *out and resets
// the counter to 0 for the next launch on the same stream. G = 1 writes *out directly.
template <int Threads, class T, class Op>
__device__ __forceinline__ void finish_single_pass(T block_total, T* out, ScratchView<T> scratch, Op op) {
  if (gridDim.x == 1) {
    if (threadIdx.x == 0)
      *out = block_total;
    return;
  }
  __shared__ bool last_block;
  if (threadIdx.x == 0) {
    scratch.partials[blockIdx.x] = block_total;
    // Release publishes this block's partial; acquire (in the last block) makes every other
    // block's partial visible. __syncthreads then orders the other threads of the last block.
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> done(*scratch.counter);
    last_block = done.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block)
    return;
  T total = Op::identity();
  for (unsigned int b = threadIdx.x; b < gridDim.x; b += Threads)
    total = op(total, __ldcg(scratch.partials + b)); // from L2, never a stale L1 line
  total = block_reduce<Threads>(total, op);
  if (threadIdx.x == 0) {
    *out = total;
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> done(*scratch.counter);
    done.store(0u, cuda::memory_order_relaxed); // ready for the next launch on this stream
  }
}

// --- the tiled kernel ----------------------------------------------------------------------------
//
// Layout of `in`: a scalar head up to the first 16-byte boundary, a body of 16-byte vectors, and a
// scalar tail (< 16 / sizeof(T) elements). An `in` not aligned to sizeof(T) is read as scalars.
//
// Work split (the Split template argument; each thread issues Unroll independent 16-byte loads
// before it uses any of them):
//   grid_stride: thread t of T reads vectors t + k T; all blocks sweep one moving window of the
//                input together. The library's split: fastest on the H200 (2^28 int32 0.2419 ms).
//   even_share:  block b owns vectors [b * nvec / G, (b + 1) * nvec / G) and walks it in tiles of
//                Threads * Unroll vectors (CUB's split): 0.2564 ms on the same run.
//   tile_stride: block b reads whole tiles b + k G, each contiguous: 0.2430 ms.
//
// SinglePass = false: block b writes its total to partials[b] (a second launch finishes).
// SinglePass = true: block b writes partials[b], then bumps `counter`; the block that sees the
// count reach G is the last one, reads every partial, writes *out and resets the counter to 0 for
// the next launch on the same stream. G = 1 writes *out directly.

// How the 16-byte body is split among blocks.
enum class Split {
  even_share,  // block b streams one contiguous range (described above)
  grid_stride, // thread t reads vectors t, t + T, t + 2T, ... (T = all threads of the grid)
  tile_stride, // block b reads whole tiles b, b + G, b + 2G, ... (each tile contiguous)
};

template <class T, class Op, int Threads, int Unroll, LoadPolicy Load, Split Layout,
          bool SinglePass>
__global__ __launch_bounds__(Threads) void tiled_reduce_kernel(const T* in, std::int64_t n, T* out,
                                                               ScratchView<T> scratch) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  constexpr std::int64_t Tile = static_cast<std::int64_t>(Threads) * Unroll;
  const Op op;
  const auto address = reinterpret_cast<std::uintptr_t>(in);
  std::int64_t head = n; // elements before the first 16-byte boundary (all of them if misaligned)
  if (address % sizeof(T) == 0) {
    const auto to_boundary = static_cast<std::int64_t>(((16 - address % 16) % 16) / sizeof(T));
    head = to_boundary < n ? to_boundary : n;
  }
  const std::int64_t nvec = (n - head) / V;
  const std::int64_t tail_start = head + nvec * V;
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * Threads + threadIdx.x;
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * Threads;

  T acc = Op::identity();
  for (std::int64_t i = thread; i < head; i += threads)
    acc = op(acc, in[i]);
  for (std::int64_t i = tail_start + thread; i < n; i += threads)
    acc = op(acc, in[i]);

  const int4* body = reinterpret_cast<const int4*>(in + head);
  if constexpr (Layout == Split::even_share) {
    const std::int64_t begin = nvec * blockIdx.x / gridDim.x;
    const std::int64_t end = nvec * (blockIdx.x + 1) / gridDim.x;
    std::int64_t v = begin;
    for (; v + Tile <= end; v += Tile) {
      int4 buffer[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        buffer[u] = load16<Load>(body + v + u * Threads + threadIdx.x);
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        acc = op(acc, reduce_vector<T>(buffer[u], op));
    }
    for (std::int64_t i = v + threadIdx.x; i < end; i += Threads)
      acc = op(acc, reduce_vector<T>(load16<Load>(body + i), op));
  } else if constexpr (Layout == Split::tile_stride) {
    const std::int64_t full_tiles = nvec / Tile;
    for (std::int64_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
      const int4* tile = body + t * Tile + threadIdx.x;
      int4 buffer[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        buffer[u] = load16<Load>(tile + u * Threads);
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        acc = op(acc, reduce_vector<T>(buffer[u], op));
    }
    for (std::int64_t i = full_tiles * Tile + thread; i < nvec; i += threads)
      acc = op(acc, reduce_vector<T>(load16<Load>(body + i), op));
  } else {
    std::int64_t v = thread;
    for (; v + (Unroll - 1) * threads < nvec; v += Unroll * threads) {
      int4 buffer[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        buffer[u] = load16<Load>(body + v + u * threads);
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        acc = op(acc, reduce_vector<T>(buffer[u], op));
    }
    for (; v < nvec; v += threads)
      acc = op(acc, reduce_vector<T>(load16<Load>(body + v), op));
  }

  const T block_total = block_reduce<Threads>(acc, op);
  if constexpr (!SinglePass) {
    if (threadIdx.x == 0)
      scratch.partials[blockIdx.x] = block_total;
  } else {
    finish_single_pass<Threads>(block_total, out, scratch, op);
  }
}

// --- the ring kernel: the bulk copy engine streams the input through shared memory ------------
//
// A persistent block keeps a ring of Stages chunks of ChunkBytes in shared memory; thread 0 asks
// the bulk copy engine for chunk b + k G (one instruction per 8 KB, no registers held), the
// threads fold each landed chunk from shared memory and hand its stage back. Stages - 1 chunks
// per block are always in flight, whatever the threads are doing, with no unrolled loads and no
// registers to hold them. The scalar head and tail, the vectors after the last whole chunk, and a
// misaligned `in` go through the grid-stride loop of the tiled kernel. Then the single-pass finish.
template <int ChunkBytes, int Stages> constexpr std::size_t ring_shared_bytes() {
  return static_cast<std::size_t>(ChunkBytes) * Stages;
}

template <class T, class Op, int Threads, int ChunkBytes, int Stages>
__global__ __launch_bounds__(Threads) void ring_reduce_kernel(const T* in, std::int64_t n, T* out,
                                                              ScratchView<T> scratch) {
  static_assert(ChunkBytes % (16 * Threads) == 0, "whole vectors per thread per chunk");
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  constexpr std::int64_t ChunkVectors = ChunkBytes / 16;
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ alignas(8) std::uint64_t landed[Stages];
  const Op op;
  const auto address = reinterpret_cast<std::uintptr_t>(in);
  std::int64_t head = n;
  if (address % sizeof(T) == 0) {
    const auto to_boundary = static_cast<std::int64_t>(((16 - address % 16) % 16) / sizeof(T));
    head = to_boundary < n ? to_boundary : n;
  }
  const std::int64_t nvec = (n - head) / V;
  const std::int64_t tail_start = head + nvec * V;
  const std::int64_t chunks = nvec / ChunkVectors;
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * Threads + threadIdx.x;
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * Threads;
  const int4* body = reinterpret_cast<const int4*>(in + head);
  auto stage = [&](int s) { return reinterpret_cast<const int4*>(ring + static_cast<std::size_t>(s) * ChunkBytes); };
  auto chunk_of = [&](std::int64_t k) { return static_cast<std::int64_t>(blockIdx.x) + k * gridDim.x; };
  auto request = [&](std::int64_t c, int s) {
    core::bulk_load(ring + static_cast<std::size_t>(s) * ChunkBytes, body + c * ChunkVectors, ChunkBytes, &landed[s]);
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s)
      core::barrier_init(&landed[s], 1);
    for (int s = 0; s < Stages && chunk_of(s) < chunks; ++s)
      request(chunk_of(s), s);
  }
  __syncthreads();

  T acc = Op::identity();
  for (std::int64_t k = 0; chunk_of(k) < chunks; ++k) {
    const int s = static_cast<int>(k % Stages);
    core::barrier_wait(&landed[s], static_cast<unsigned>((k / Stages) & 1));
    const int4* data = stage(s);
#pragma unroll
    for (int i = 0; i < ChunkVectors / Threads; ++i)
      acc = op(acc, reduce_vector<T>(data[i * Threads + threadIdx.x], op));
    __syncthreads(); // every thread is done with stage s
    if (threadIdx.x == 0 && chunk_of(k + Stages) < chunks) {
      core::fence_proxy_async_shared();
      request(chunk_of(k + Stages), s);
    }
  }
  for (std::int64_t i = chunks * ChunkVectors + thread; i < nvec; i += threads)
    acc = op(acc, reduce_vector<T>(__ldg(body + i), op));
  for (std::int64_t i = thread; i < head; i += threads)
    acc = op(acc, in[i]);
  for (std::int64_t i = tail_start + thread; i < n; i += threads)
    acc = op(acc, in[i]);
  finish_single_pass<Threads>(block_reduce<Threads>(acc, op), out, scratch, op);
}

// Blocks for n elements: enough tiles for every block, at most `max_blocks`.
template <class T>
inline std::int64_t tiled_grid(std::int64_t n, int threads, int unroll, std::int64_t max_blocks) {
  constexpr std::int64_t V = 16 / sizeof(T);
  const std::int64_t tile_elements = static_cast<std::int64_t>(threads) * unroll * V;
  std::int64_t blocks = (n + tile_elements - 1) / tile_elements;
  if (blocks < 1)
    blocks = 1;
  return blocks < max_blocks ? blocks : max_blocks;
}

// For the tile-stride split: as few blocks as keep the same number of rounds, so the last round
// of tiles is (nearly) full instead of a few blocks working while the rest wait.
template <class T>
inline std::int64_t balanced_grid(std::int64_t n, int threads, int unroll, std::int64_t max_blocks) {
  const std::int64_t blocks = tiled_grid<T>(n, threads, unroll, max_blocks);
  constexpr std::int64_t V = 16 / sizeof(T);
  const std::int64_t tiles = n / (static_cast<std::int64_t>(threads) * unroll * V);
  if (tiles <= blocks)
    return blocks;
  const std::int64_t rounds = (tiles + blocks - 1) / blocks;
  return (tiles + rounds - 1) / rounds;
}

} // namespace ladder::reduce_detail
