// The building blocks of the rungs beyond the seeds and of ladder::reduce: the operators, the
// 16-byte loads, the shuffle-based block reduction, the finishes that make a launch single-pass
// (last block done, flagged, polled, one cluster), the tiled kernel and the bulk-copy ring kernel.
// Shared by src/reduce/variants.cu and src/reduce/api.cu.
#pragma once

#include "core/bulk_copy.cuh"
#include "ladder/detail/warp.cuh"
#include "ladder/reduce.hpp"

#include <cooperative_groups.h>
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
// Each warp folds its 32 values toward lane 0 (ladder/detail/warp.cuh: registers only, no shared
// memory, no barrier), warp leaders park one value each in shared memory, and warp 0 folds those.
// The result is valid in thread 0.

template <class T, class Op> __device__ __forceinline__ T warp_reduce(T v, Op op) {
  return detail::warp::reduce_to_lane0(v, op);
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
  T* partials;           // at least gridDim.x slots of 16 bytes, zero before a launch (flagged)
};

// A grid of one block: its total is the result (every multi-block finish starts here).
template <class T> __device__ __forceinline__ bool one_block_result(T block_total, T* out) {
  if (gridDim.x != 1)
    return false;
  if (threadIdx.x == 0)
    *out = block_total;
  return true;
}

// --- the single-pass finish ------------------------------------------------------------------
// Every block has its total in thread 0. Block b writes partials[b], then bumps `counter`; the
// block that sees the count reach G is the last one, reads every partial, writes *out and resets
// the counter to 0 for the next launch on the same stream. G = 1 writes *out directly.
template <int Threads, class T, class Op>
__device__ __forceinline__ void finish_single_pass(T block_total, T* out, ScratchView<T> scratch, Op op) {
  if (one_block_result(block_total, out))
    return;
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

// --- the flagged finishes ------------------------------------------------------------------------
// Block b publishes its total as sizeof(T) / 4 64-bit words {flag 1, 32 bits of the total}, each
// one single-copy-atomic store: a reader that sees a word's flag sees its 32 bits, so no ordering
// against other stores (no fence) is needed. The one reader polls each word until its flag is set,
// then stores 0 (the slot is empty for the next launch on the stream; nobody else touches it
// within this launch). Partials are folded in block order whoever reads them, so a
// float result does not depend on which block finishes.
template <class T> constexpr int flagged_words() {
  static_assert(sizeof(T) % 4 == 0, "whole 32-bit words");
  return static_cast<int>(sizeof(T) / 4);
}
inline constexpr unsigned long long partial_ready = 1ull << 32;
using SlotWord = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;
using Counter = cuda::atomic_ref<unsigned int, cuda::thread_scope_device>;

template <class T> __device__ __forceinline__ void publish_partial(ScratchView<T> scratch, unsigned block, T value) {
  constexpr int Words = flagged_words<T>();
  auto* slots = reinterpret_cast<unsigned long long*>(scratch.partials) + block * Words;
  std::uint32_t bits[Words];
  std::memcpy(bits, &value, sizeof(T));
#pragma unroll
  for (int w = 0; w < Words; ++w)
    SlotWord(slots[w]).store(partial_ready | bits[w], cuda::memory_order_relaxed);
}

template <class T> __device__ __forceinline__ T take_partial(ScratchView<T> scratch, unsigned block) {
  constexpr int Words = flagged_words<T>();
  auto* slots = reinterpret_cast<unsigned long long*>(scratch.partials) + block * Words;
  std::uint32_t bits[Words];
#pragma unroll
  for (int w = 0; w < Words; ++w) {
    unsigned long long word;
    do // a load, not an atomic exchange, while waiting: a plain L2 read, and no write per try
      word = SlotWord(slots[w]).load(cuda::memory_order_relaxed);
    while ((word & partial_ready) == 0);
    SlotWord(slots[w]).store(0ull, cuda::memory_order_relaxed); // only the reader touches it now
    bits[w] = static_cast<std::uint32_t>(word);
  }
  T value;
  std::memcpy(&value, bits, sizeof(T));
  return value;
}

// Every block's partial, in block order, folded by the whole block; valid in thread 0.
template <int Threads, class T, class Op>
__device__ __forceinline__ T take_all_partials(ScratchView<T> scratch, Op op) {
  T total = Op::identity();
  for (unsigned int b = threadIdx.x; b < gridDim.x; b += Threads)
    total = op(total, take_partial(scratch, b));
  return block_reduce<Threads>(total, op);
}

// finish_single_pass without the fence: every block publishes, then bumps the counter (relaxed:
// it only elects the last block); the last one takes all partials. Every block stored its words
// before it bumped, so they all land. After a block's last load: the counter's round trip, then
// the slot reads, where the fenced finish waits for its store's acknowledgement first.
template <int Threads, class T, class Op>
__device__ __forceinline__ void finish_flagged(T block_total, T* out, ScratchView<T> scratch, Op op) {
  if (one_block_result(block_total, out))
    return;
  __shared__ bool last_block;
  if (threadIdx.x == 0) {
    publish_partial(scratch, blockIdx.x, block_total);
    last_block = Counter(*scratch.counter).fetch_add(1u, cuda::memory_order_relaxed) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block)
    return;
  const T total = take_all_partials<Threads>(scratch, op);
  if (threadIdx.x == 0) {
    *out = total;
    Counter(*scratch.counter).store(0u, cuda::memory_order_relaxed); // for the next launch
  }
}

// The polled finish: no round trip after the last load but the slot reads. Each block takes a
// ticket when it starts (start_ticket: the atomic is in flight while the block loads); the block
// with the last ticket knows every other block is already running, so it may wait for their
// partials without depending on blocks that have no SM yet, and it does: publish, then take all.
// The others publish and leave.
template <class T> __device__ __forceinline__ unsigned start_ticket(ScratchView<T> scratch) {
  if (gridDim.x == 1 || threadIdx.x != 0)
    return 0;
  return Counter(*scratch.counter).fetch_add(1u, cuda::memory_order_relaxed);
}

template <int Threads, class T, class Op>
__device__ __forceinline__ void finish_polled(T block_total, unsigned ticket, T* out, ScratchView<T> scratch, Op op) {
  if (one_block_result(block_total, out))
    return;
  __shared__ bool finisher;
  if (threadIdx.x == 0) {
    publish_partial(scratch, blockIdx.x, block_total);
    finisher = ticket == gridDim.x - 1;
  }
  __syncthreads(); // also makes thread 0's own slot visible to the block's other threads
  if (!finisher)
    return;
  const T total = take_all_partials<Threads>(scratch, op);
  if (threadIdx.x == 0) {
    *out = total;
    Counter(*scratch.counter).store(0u, cuda::memory_order_relaxed); // every ticket is taken
  }
}

// --- the cluster finish --------------------------------------------------------------------------
// For a grid that is one thread-block cluster (sm_90; at most max_cluster_blocks blocks, all
// resident at once on one GPC). Block r stores its total straight into block 0's shared memory
// (distributed shared memory), the cluster barrier (arrive.release / wait.acquire, in hardware)
// makes the stores visible, and block 0's first warp folds them. No scratch, no counter, no
// global round trip between the blocks: the chain after the last load is one shared-memory store
// across the SM-to-SM network and one barrier. Blocks other than 0 may exit after the barrier:
// nobody reads their shared memory.
inline constexpr int max_cluster_blocks = 16; // H100/H200 with the non-portable size allowed

template <int Threads, class T, class Op>
__device__ __forceinline__ void finish_cluster(T block_total, T* out, Op op) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  __shared__ T cluster_totals[max_cluster_blocks];
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0)
    *cluster.map_shared_rank(&cluster_totals[cluster.block_rank()], 0) = block_total;
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x < 32) {
    const unsigned blocks = cluster.num_blocks();
    T v = threadIdx.x < blocks ? cluster_totals[threadIdx.x] : Op::identity();
    v = warp_reduce(v, op);
    if (threadIdx.x == 0)
      *out = v;
  }
#else
  // Never launched below sm_90 (the host checks the compute capability first).
  if (gridDim.x != 1)
    __trap();
  if (threadIdx.x == 0)
    *out = block_total;
#endif
}

// --- the tiled kernel ----------------------------------------------------------------------------
//
// Layout of `in`: a scalar head up to the first 16-byte boundary, a body of 16-byte vectors, and a
// scalar tail (< 16 / sizeof(T) elements). An `in` not aligned to sizeof(T) is read as scalars.
//
// Work split (the Split template argument; each thread issues Unroll independent 16-byte loads
// before it uses any of them):
//   grid_stride: thread t of T reads vectors t + k T; all blocks sweep one moving window of the
//                input together. The library's split: fastest on the H200 (2^28 int32, single_pass
//                0.2425 ms, bench/results/ladder-h200-2026-11-21-r5.md).
//   even_share:  block b owns vectors [b * nvec / G, (b + 1) * nvec / G) and walks it in tiles of
//                Threads * Unroll vectors (CUB's split): 0.2483 ms on the same run.
//   tile_stride: block b reads whole tiles b + k G, each contiguous: 0.2451 ms.
// Whatever the split, the round after the last full one is guarded, not a loop: its (up to Unroll)
// loads are all in flight at once, where a loop of single loads would wait one memory latency
// (about a microsecond) per vector. The scalar head and tail (at most one element of each per
// thread) are loaded before the body and folded after it, so no thread's first vector load waits
// on them.
//
// The finish (the Finish template argument): see the enum.

// How the 16-byte body is split among blocks.
enum class Split {
  even_share,  // block b streams one contiguous range (described above)
  grid_stride, // thread t reads vectors t, t + T, t + 2T, ... (T = all threads of the grid)
  tile_stride, // block b reads whole tiles b, b + G, b + 2G, ... (each tile contiguous)
};

// How the block totals become one value.
enum class Finish {
  partials,   // block b writes partials[b]; a second launch (of the same kernel) folds them
  last_block, // one launch: finish_single_pass (a counter; the last block folds the partials)
  flagged,    // one launch: finish_flagged (the same without the fence; partials carry a flag)
  polled,     // one launch: finish_polled (the last block to start waits for the flagged partials)
  cluster,    // one launch of one cluster: finish_cluster (block 0's shared memory, no scratch)
};

// Where the 16-byte body of `in` starts, how many vectors it holds, where the scalar tail starts.
// An `in` not aligned to sizeof(T) has no body: head = tail_start = n.
struct BodyLayout {
  std::int64_t head, nvec, tail_start;
  bool element_aligned;
};
template <class T> __device__ __forceinline__ BodyLayout body_layout(const T* in, std::int64_t n) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  const auto address = reinterpret_cast<std::uintptr_t>(in);
  if (address % sizeof(T) != 0)
    return {n, 0, n, false};
  const auto to_boundary = static_cast<std::int64_t>(((16 - address % 16) % 16) / sizeof(T));
  const std::int64_t head = to_boundary < n ? to_boundary : n;
  const std::int64_t nvec = (n - head) / V;
  return {head, nvec, head + nvec * V, true};
}

// One round of up to Unroll vectors first, first + stride, ...: every load issued before any is
// used. Guarded: only those below `limit` (the last, partial round).
template <int Unroll, LoadPolicy Load, bool Guarded, class T, class Op>
__device__ __forceinline__ T fold_round(const int4* body, std::int64_t first, std::int64_t stride,
                                        std::int64_t limit, T acc, Op op) {
  int4 buffer[Unroll];
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
    if (!Guarded || first + u * stride < limit)
      buffer[u] = load16<Load>(body + first + u * stride);
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
    if (!Guarded || first + u * stride < limit)
      acc = op(acc, reduce_vector<T>(buffer[u], op));
  return acc;
}

// Full occupancy (2048 threads per SM) is part of the design: for 4-byte elements and up to 4
// loads in flight the registers are capped so that every shape keeps it (32 per thread). Left
// alone, ptxas gave the polled finish 46 registers, one 1024-thread block per SM instead of two,
// and 2^28 int32 ran 1.5 us slower (H200). Left uncapped, where 32 registers would spill: 8-byte
// elements (8-40 bytes), 8 loads in flight (16 vectors of 16 bytes cannot fit), the even-share
// split (40 registers: its range bounds), and the one-cluster grid (at most 16 blocks: occupancy
// is not its limit).
template <class T, int Threads, int Unroll, Split Layout, Finish End>
inline constexpr int tiled_min_blocks = sizeof(T) == 4 && Unroll <= 4 && Layout != Split::even_share &&
                                                End != Finish::cluster && Threads < 2048
                                            ? 2048 / Threads
                                            : 1;

template <class T, class Op, int Threads, int Unroll, LoadPolicy Load, Split Layout, Finish End>
__global__ __launch_bounds__(Threads, tiled_min_blocks<T, Threads, Unroll, Layout, End>) void tiled_reduce_kernel(const T* in, std::int64_t n, T* out,
                                                               ScratchView<T> scratch) {
  constexpr std::int64_t Tile = static_cast<std::int64_t>(Threads) * Unroll;
  const Op op;
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * Threads + threadIdx.x;
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * Threads;
  // The polled finish's ticket: issued first, used last, so its round trip hides behind the loads.
  [[maybe_unused]] unsigned ticket = 0;
  if constexpr (End == Finish::polled)
    ticket = start_ticket(scratch);
  const BodyLayout layout = body_layout(in, n);
  const std::int64_t nvec = layout.nvec;
  const int4* body = reinterpret_cast<const int4*>(in + layout.head);

  T acc = Op::identity();
  T head_value = Op::identity(), tail_value = Op::identity();
  if (!layout.element_aligned) {
    for (std::int64_t i = thread; i < n; i += threads) // no body: every element a scalar load
      acc = op(acc, in[i]);
  } else {
    if (thread < layout.head) // head and tail are < V <= threads elements: one load each at most
      head_value = in[thread];
    if (layout.tail_start + thread < n)
      tail_value = in[layout.tail_start + thread];
  }

  if constexpr (Layout == Split::even_share) {
    const std::int64_t begin = nvec * blockIdx.x / gridDim.x;
    const std::int64_t end = nvec * (blockIdx.x + 1) / gridDim.x;
    std::int64_t v = begin;
    for (; v + Tile <= end; v += Tile)
      acc = fold_round<Unroll, Load, false>(body, v + threadIdx.x, Threads, end, acc, op);
    acc = fold_round<Unroll, Load, true>(body, v + threadIdx.x, Threads, end, acc, op);
  } else if constexpr (Layout == Split::tile_stride) {
    const std::int64_t full_tiles = nvec / Tile;
    for (std::int64_t t = blockIdx.x; t < full_tiles; t += gridDim.x)
      acc = fold_round<Unroll, Load, false>(body, t * Tile + threadIdx.x, Threads, nvec, acc, op);
    acc = fold_round<Unroll, Load, true>(body, full_tiles * Tile + thread, threads, nvec, acc, op);
  } else {
    std::int64_t v = thread;
    for (; v + (Unroll - 1) * threads < nvec; v += Unroll * threads)
      acc = fold_round<Unroll, Load, false>(body, v, threads, nvec, acc, op);
    acc = fold_round<Unroll, Load, true>(body, v, threads, nvec, acc, op);
  }
  acc = op(op(head_value, acc), tail_value);

  const T block_total = block_reduce<Threads>(acc, op);
  if constexpr (End == Finish::partials) {
    if (threadIdx.x == 0)
      scratch.partials[blockIdx.x] = block_total;
  } else if constexpr (End == Finish::last_block) {
    finish_single_pass<Threads>(block_total, out, scratch, op);
  } else if constexpr (End == Finish::flagged) {
    finish_flagged<Threads>(block_total, out, scratch, op);
  } else if constexpr (End == Finish::polled) {
    finish_polled<Threads>(block_total, ticket, out, scratch, op);
  } else {
    finish_cluster<Threads>(block_total, out, op);
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
  constexpr std::int64_t ChunkVectors = ChunkBytes / 16;
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ alignas(8) std::uint64_t landed[Stages];
  const Op op;
  [[maybe_unused]] const auto [head, nvec, tail_start, element_aligned] = body_layout(in, n);
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

// As few blocks as keep the same number of rounds, so the last round of tiles is (nearly) full
// instead of a few threads loading while the rest have finished (the memory system then drains
// at full occupancy instead of one latency at a trickle).
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

// --- one-cluster launches (sm_90) ---------------------------------------------------------------

// The launch configuration of `blocks` blocks as one cluster, for cudaLaunchKernelEx and the
// occupancy calls. `config` points at the struct's own attribute: neither copied nor moved.
struct OneClusterLaunch {
  cudaLaunchAttribute attribute{};
  cudaLaunchConfig_t config{};
  OneClusterLaunch(unsigned blocks, unsigned threads, cudaStream_t stream) {
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = blocks;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  OneClusterLaunch(const OneClusterLaunch&) = delete;
  OneClusterLaunch& operator=(const OneClusterLaunch&) = delete;
};

// The largest grid of `kernel` (with `threads` per block) that runs as one cluster on this device:
// at most max_cluster_blocks (16 needs the non-portable opt-in, granted on H100 and H200); 0 below
// sm_90 or where no cluster fits.
template <class Kernel> int cluster_capacity(Kernel kernel, int threads) {
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess || major < 9) {
    cudaGetLastError();
    return 0;
  }
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
    cudaGetLastError(); // portable sizes (up to 8) still work
  for (int size = max_cluster_blocks; size >= 2; --size) {
    const OneClusterLaunch launch(static_cast<unsigned>(size), static_cast<unsigned>(threads), nullptr);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.config) == cudaSuccess && clusters >= 1)
      return size;
    cudaGetLastError();
  }
  return 0;
}

// `blocks` blocks as one cluster (blocks <= cluster_capacity of the kernel).
template <class T, class Op, int Threads, int Unroll, LoadPolicy Load, Split Layout>
cudaError_t launch_one_cluster(const T* in, std::int64_t n, T* out, unsigned blocks, cudaStream_t stream) {
  const OneClusterLaunch launch(blocks, Threads, stream);
  return cudaLaunchKernelEx(&launch.config, tiled_reduce_kernel<T, Op, Threads, Unroll, Load, Layout, Finish::cluster>,
                            in, n, out, ScratchView<T>{});
}

} // namespace ladder::reduce_detail
