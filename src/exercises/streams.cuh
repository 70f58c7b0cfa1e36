// The streaming kernels behind the increment, vector-add and reversal rungs from `vector4` on: one
// load-compute-store walk over 16-byte items, written once and instantiated per exercise (an
// "op": what an item loads, computes and stores, and the scalar heads and tails around the
// aligned body) and per tuning policy (how the walk is shaped). Two engines:
//
// - Registers<Threads, Vectors, Schedule, Hint>: each thread issues `Vectors` 16-byte loads before
//   any of their stores (the compiler cannot hoist a load past a store that may alias it, so the
//   batch is written out), over one of three schedules, with optional cache hints;
// - Bulk<Threads, TileBytes, Stages>: the bulk copy engine (sm_90's cp.async.bulk, TMA without a
//   tensor map) moves whole tiles between global and shared memory, `Stages` tiles in flight per
//   block, and the threads only compute in shared memory.
//
// Each variant of the registry is one policy; the questions they answer are in docs/exercises.md.
// Not here: 32-byte accesses (ld/st.global.v8.f32, .v4.b64) exist from sm_100 on only (PTX
// ISA 8.8); sm_90 has nothing wider than 16 bytes per thread.
#pragma once

#include "exercises/reverse_plan.hpp"

#include "core/resident_grid.hpp"
#include "core/rung.hpp"
#include "ladder/detail/bulk_copy.cuh"
#include "ladder/error.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>

namespace ladder::lab::exercises::streams {

// ------------------------------------------------------------------------------------------------
// Policies
// ------------------------------------------------------------------------------------------------

enum class Schedule {
  grid_stride,    // resident grid; a thread's Vectors items are a whole grid apart
  block_per_tile, // one block per tile of Threads x Vectors items, no loop: the hardware schedules
  chunk_per_block // resident grid; block b owns one contiguous run of tiles (about 1/grid of the
                  // array), so DRAM sees long runs from each block instead of grid-wide interleave
};

enum class Hint {
  none,
  streaming,          // ld/st.global.cs: evict first at every level (__ldcs / __stcs)
  no_allocate,        // loads and stores .L1::no_allocate (ld's .L2::evict_first is sm_100's
                      // 32-byte loads only: the L2 side is the policy below)
  evict_first_policy, // createpolicy.fractional.L2::evict_first on loads and stores
  prefetch_256,       // loads .L1::no_allocate.L2::256B: the L2 fetches 256-byte blocks
  in_order,           // plain ld/st.global.v4 through volatile asm: no cache hint, but the batch's
                      // loads stay ahead of its stores where the compiler can prove them apart
                      // (the in-place increment over one tile: constant offsets from one pointer,
                      // where ptxas otherwise gives 8 or 16 quads a thread 28-32 registers)
};

template <int Threads, int Vectors, Schedule S = Schedule::grid_stride, Hint H = Hint::none>
struct Registers {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps: the reversal shuffles");
  static constexpr bool bulk = false;
  static constexpr int threads = Threads;
  static constexpr int vectors = Vectors;
  static constexpr Schedule schedule = S;
  static constexpr Hint hint = H;
  static constexpr std::size_t shared_bytes(int /*inputs*/) { return 0; }
  static constexpr std::array<Param, max_params> params() {
    return {{{"threads", Threads},
             {"vectors", Vectors},
             {"persistent", S == Schedule::block_per_tile ? 0 : 1},
             {"chunk_per_block", S == Schedule::chunk_per_block ? 1 : 0}}};
  }
};

template <int Threads, int TileBytes, int Stages> struct Bulk {
  static_assert(TileBytes % 16 == 0 && Stages >= 2, "16-byte quads; a stage computing while "
                                                    "the next lands");
  static constexpr bool bulk = true;
  static constexpr int threads = Threads;
  static constexpr int tile_quads = TileBytes / 16;
  // Each input slot holds one quad more than a tile: the reversal's neighbour quad.
  static constexpr int slot_quads = tile_quads + 1;
  static constexpr int stages = Stages;
  static constexpr std::size_t barrier_bytes = 128; // the stages' mbarriers; keeps data aligned
  static constexpr std::size_t shared_bytes(int inputs) {
    return barrier_bytes + std::size_t{16} * Stages * (inputs * slot_quads + tile_quads);
  }
  static constexpr std::array<Param, max_params> params() {
    return {{{"threads", Threads}, {"tile_bytes", TileBytes}, {"stages", Stages}}};
  }
};

// ------------------------------------------------------------------------------------------------
// 16-byte loads and stores with a cache hint
// ------------------------------------------------------------------------------------------------

template <Hint H> __device__ __forceinline__ std::uint64_t make_policy() {
  std::uint64_t policy = 0;
  if constexpr (H == Hint::evict_first_policy)
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// The asm forms are volatile so that they keep the program order the walk writes (a batch of
// loads, then the stores), as the plain accesses do through their possible aliasing.
template <Hint H> __device__ __forceinline__ uint4 load16(const uint4* p, std::uint64_t policy) {
  uint4 v;
  if constexpr (H == Hint::none) {
    v = *p;
  } else if constexpr (H == Hint::streaming) {
    v = __ldcs(p);
  } else if constexpr (H == Hint::no_allocate) {
    asm volatile("ld.global.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p)
                 : "memory");
  } else if constexpr (H == Hint::in_order) {
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p)
                 : "memory");
  } else if constexpr (H == Hint::evict_first_policy) {
    asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(policy)
                 : "memory");
  } else {
    asm volatile("ld.global.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p)
                 : "memory");
  }
  return v;
}

template <Hint H>
__device__ __forceinline__ void store16(uint4* p, const uint4& v, std::uint64_t policy) {
  if constexpr (H == Hint::streaming) {
    __stcs(p, v);
  } else if constexpr (H == Hint::no_allocate) {
    asm volatile("st.global.L1::no_allocate.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x),
                 "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  } else if constexpr (H == Hint::in_order) {
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w)
                 : "memory");
  } else if constexpr (H == Hint::evict_first_policy) {
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(p), "r"(v.x),
                 "r"(v.y), "r"(v.z), "r"(v.w), "l"(policy)
                 : "memory");
  } else {
    *p = v; // none, and prefetch_256 (a load-side hint)
  }
}

// ------------------------------------------------------------------------------------------------
// The bulk store side (the load side is ladder/detail/bulk_copy.cuh)
// ------------------------------------------------------------------------------------------------

// One thread: [src, src + bytes) of shared memory to global dst (both 16-byte aligned, bytes a
// multiple of 16), as one bulk group.
__device__ __forceinline__ void bulk_store(void* dst, const void* src, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
               "r"(detail::bulk::shared_address(src)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}

// The issuing thread: until at most `Pending` of its latest bulk groups still read shared memory.
template <int Pending> __device__ __forceinline__ void bulk_wait_read() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
#endif
}

// The issuing thread: until all its bulk groups have completed (written to global memory).
__device__ __forceinline__ void bulk_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

// ------------------------------------------------------------------------------------------------
// The ops: what one 16-byte item loads, computes and stores, and the scalar elements around
// ------------------------------------------------------------------------------------------------

__device__ __forceinline__ unsigned plus(unsigned x, float y) {
  return __float_as_uint(__uint_as_float(x) + y);
}
__device__ __forceinline__ unsigned sum(unsigned x, unsigned y) {
  return __float_as_uint(__uint_as_float(x) + __uint_as_float(y));
}

// a[i] += 1 in place: quads [0, count) of a + head, scalar head and tail.
struct IncrementOp {
  static constexpr int inputs = 1;
  using Loaded = uint4;
  float* a;
  std::int64_t n, head, count;

  __host__ __device__ std::int64_t scalar_elements() const { return n - 4 * count; }
  __device__ uint4* body() const { return reinterpret_cast<uint4*>(a + head); }
  template <Hint H> __device__ Loaded load(std::int64_t k, std::uint64_t policy) const {
    return load16<H>(body() + k, policy);
  }
  __device__ uint4 finish(const Loaded& v) const {
    return make_uint4(plus(v.x, 1.0f), plus(v.y, 1.0f), plus(v.z, 1.0f), plus(v.w, 1.0f));
  }
  __device__ uint4* out(std::int64_t k) const { return body() + k; }
  __device__ void scalars(std::int64_t t, std::int64_t stride) const {
    for (std::int64_t i = t; i < head; i += stride)
      a[i] += 1.0f;
    for (std::int64_t i = head + 4 * count + t; i < n; i += stride)
      a[i] += 1.0f;
  }
  __device__ void bulk_load(std::int64_t k0, int quads, uint4* slots, int,
                            std::uint64_t* bar) const {
    detail::bulk::load(slots, body() + k0, 16u * quads, bar);
  }
  __device__ uint4 bulk_finish(const uint4* slots, int, int r, int) const {
    return finish(slots[r]);
  }
};

// c = a + b: quads [0, count) of the three arrays from `head` on, `head` taken from c's alignment
// so that every store is 16 bytes. An input that does not share c's offset from 16-byte alignment
// (b = a + n in the study's one 2n buffer is 3 floats off a at n = 268435399) is read as four
// 4-byte loads per quad (`a4` / `b4` false): a warp's 4 loads still cover the same 512 contiguous
// bytes, so DRAM sees the same lines, against the former fallback of every element a scalar.
// `Split` false: both inputs aligned with c (the flags unread), the kernel without the 4-byte
// path and its registers (the tile-per-block add: 32 registers a thread against 48 with it). The
// bulk engine copies 16-byte-aligned ranges only: its op keeps the scalar fallback (count = 0).
template <bool Split> struct AddOpT {
  static constexpr int inputs = 2;
  struct Loaded {
    uint4 a, b;
  };
  const float* a;
  const float* b;
  float* c;
  std::int64_t n, head, count;
  bool a4 = true, b4 = true; // a + head, b + head 16-byte aligned

  __host__ __device__ std::int64_t scalar_elements() const { return n - 4 * count; }
  template <Hint H>
  static __device__ __forceinline__ uint4 load(const float* p, bool aligned, std::int64_t k,
                                               std::uint64_t policy) {
    if (!Split || aligned)
      return load16<H>(reinterpret_cast<const uint4*>(p) + k, policy);
    const float* q = p + 4 * k;
    return make_uint4(__float_as_uint(q[0]), __float_as_uint(q[1]), __float_as_uint(q[2]),
                      __float_as_uint(q[3]));
  }
  template <Hint H> __device__ Loaded load(std::int64_t k, std::uint64_t policy) const {
    return {load<H>(a + head, a4, k, policy), load<H>(b + head, b4, k, policy)};
  }
  __device__ uint4 finish(const Loaded& v) const {
    return make_uint4(sum(v.a.x, v.b.x), sum(v.a.y, v.b.y), sum(v.a.z, v.b.z), sum(v.a.w, v.b.w));
  }
  __device__ uint4* out(std::int64_t k) const { return reinterpret_cast<uint4*>(c + head) + k; }
  __device__ void scalars(std::int64_t t, std::int64_t stride) const {
    for (std::int64_t i = t; i < head; i += stride)
      c[i] = a[i] + b[i];
    for (std::int64_t i = head + 4 * count + t; i < n; i += stride)
      c[i] = a[i] + b[i];
  }
  __device__ void bulk_load(std::int64_t k0, int quads, uint4* slots, int slot_quads,
                            std::uint64_t* bar) const {
    detail::bulk::load(slots, reinterpret_cast<const uint4*>(a + head) + k0, 16u * quads, bar);
    detail::bulk::load(slots + slot_quads, reinterpret_cast<const uint4*>(b + head) + k0,
                       16u * quads, bar);
  }
  __device__ uint4 bulk_finish(const uint4* slots, int slot_quads, int r, int) const {
    return finish({slots[r], slots[slot_quads + r]});
  }
};

using AddOp = AddOpT<false>;

// out[n - 1 - i] = in[i] along a ReversePlan: item k is output quad plan.first + k, built from
// input quad p = plan.input_quad(k) (components Shift .. 3) and p + 1 (components 0 .. Shift - 1),
// reversed. In registers, lane l's p + 1 is lane l - 1's p: one shuffle per component, and lane 0
// loads its own (an L2 hit: the warp before it loaded that quad).
template <int Shift> struct ReverseOp {
  static constexpr int inputs = 1;
  struct Loaded {
    uint4 own, next;
  };
  const std::int32_t* in;
  std::int32_t* out_;
  ReversePlan plan;
  std::int64_t count;

  __host__ __device__ std::int64_t scalar_elements() const { return plan.n - 4 * count; }
  __device__ const uint4* in4() const { return reinterpret_cast<const uint4*>(in + plan.in_head); }
  // Element I of own ++ next, chosen at compile time (an indexed array would go to local memory).
  template <int I>
  static __device__ __forceinline__ unsigned element(const uint4& own, const uint4& next) {
    if constexpr (I >= 4)
      return element<I - 4>(next, next);
    else if constexpr (I == 0)
      return own.x;
    else if constexpr (I == 1)
      return own.y;
    else if constexpr (I == 2)
      return own.z;
    else
      return own.w;
  }
  static __device__ __forceinline__ uint4 select(const uint4& own, const uint4& next) {
    return make_uint4(element<Shift + 3>(own, next), element<Shift + 2>(own, next),
                      element<Shift + 1>(own, next), element<Shift>(own, next));
  }
  template <Hint H> __device__ Loaded load(std::int64_t k, std::uint64_t policy) const {
    const uint4* p = in4() + plan.input_quad(k);
    const uint4 own = load16<H>(p, policy);
    uint4 next = own;
    if (Shift > 0 && threadIdx.x % 32 == 0)
      next = load16<H>(p + 1, policy);
    return {own, next};
  }
  // Every lane of the warp calls this (the walks keep their loops warp-uniform).
  __device__ uint4 finish(const Loaded& v) const {
    if constexpr (Shift == 0) {
      return select(v.own, v.own);
    } else {
      // Component by component: choosing between two uint4 lvalues takes their addresses, and
      // the values go to local memory.
      const bool lane0 = threadIdx.x % 32 == 0;
      const unsigned x = __shfl_up_sync(0xffffffffu, v.own.x, 1);
      const unsigned y = __shfl_up_sync(0xffffffffu, v.own.y, 1);
      const unsigned z = __shfl_up_sync(0xffffffffu, v.own.z, 1);
      const unsigned w = __shfl_up_sync(0xffffffffu, v.own.w, 1);
      return select(v.own, make_uint4(lane0 ? v.next.x : x, lane0 ? v.next.y : y,
                                      lane0 ? v.next.z : z, lane0 ? v.next.w : w));
    }
  }
  __device__ uint4* out(std::int64_t k) const {
    return reinterpret_cast<uint4*>(out_ + plan.out_head) + plan.first + k;
  }
  __device__ void scalars(std::int64_t t, std::int64_t stride) const {
    const std::int64_t n = plan.n;
    const std::int64_t front = count > 0 ? plan.scalar_end_front() : n;
    const std::int64_t back = count > 0 ? plan.scalar_begin_back() : n;
    for (std::int64_t j = t; j < front; j += stride)
      out_[j] = in[n - 1 - j];
    for (std::int64_t j = back + t; j < n; j += stride)
      out_[j] = in[n - 1 - j];
  }
  // Output quads [k0, k0 + quads) read input quads input_quad(k0 + quads - 1) ..
  // input_quad(k0) (+ 1 when Shift > 0): one bulk copy, read back from the end.
  __device__ void bulk_load(std::int64_t k0, int quads, uint4* slots, int,
                            std::uint64_t* bar) const {
    detail::bulk::load(slots, in4() + plan.input_quad(k0 + quads - 1),
                       16u * (quads + (Shift > 0 ? 1 : 0)), bar);
  }
  __device__ uint4 bulk_finish(const uint4* slots, int, int r, int quads) const {
    const int i = quads - 1 - r;
    return select(slots[i], Shift > 0 ? slots[i + 1] : slots[i]);
  }
};

// ------------------------------------------------------------------------------------------------
// The register engine
// ------------------------------------------------------------------------------------------------

// Items base, base + spacing, ...: every load of the batch, then every store. The caller keeps
// the call warp-uniform (the reversal's finish shuffles); items past op.count are masked.
template <Hint H, int Vectors, class Op>
__device__ __forceinline__ void batch(const Op& op, std::int64_t base, std::int64_t spacing,
                                      std::uint64_t policy) {
  typename Op::Loaded v[Vectors];
#pragma unroll
  for (int u = 0; u < Vectors; ++u)
    v[u] = base + u * spacing < op.count ? op.template load<H>(base + u * spacing, policy)
                                         : typename Op::Loaded{};
#pragma unroll
  for (int u = 0; u < Vectors; ++u) {
    const uint4 r = op.finish(v[u]);
    if (base + u * spacing < op.count)
      store16<H>(op.out(base + u * spacing), r, policy);
  }
}

template <class Policy, class Op>
__global__ void __launch_bounds__(Policy::threads) register_kernel(const Op op) {
  constexpr int threads = Policy::threads, vectors = Policy::vectors;
  const std::uint64_t policy = make_policy<Policy::hint>();
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * threads;
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x;
  const int lane = threadIdx.x % 32;
  op.scalars(t, stride);
  if constexpr (Policy::schedule == Schedule::grid_stride) {
    for (std::int64_t warp = t - lane; warp < op.count; warp += vectors * stride)
      batch<Policy::hint, vectors>(op, warp + lane, stride, policy);
  } else {
    constexpr std::int64_t tile = std::int64_t{threads} * vectors;
    const std::int64_t tiles = (op.count + tile - 1) / tile;
    std::int64_t first = blockIdx.x, last = tiles, step = gridDim.x;
    if constexpr (Policy::schedule == Schedule::chunk_per_block) {
      first = tiles * blockIdx.x / gridDim.x;
      last = tiles * (blockIdx.x + 1) / gridDim.x;
      step = 1;
    }
    for (std::int64_t k = first; k < last; k += step)
      batch<Policy::hint, vectors>(op, k * tile + threadIdx.x, threads, policy);
  }
}

// ------------------------------------------------------------------------------------------------
// The bulk engine
// ------------------------------------------------------------------------------------------------

// Each block owns a contiguous run of tiles. Thread 0 keeps `Stages` tiles' loads in flight; for
// each tile, every thread computes its quads from the input slots into the stage's output buffer,
// then thread 0 sends that buffer to global memory with one bulk store and reuses the input
// slots for the tile `Stages` ahead. One barrier per tile: before it, thread 0 waits until the
// store that last read the *next* tile's output buffer has finished reading it.
template <class Policy, class Op>
__global__ void __launch_bounds__(Policy::threads) bulk_kernel(const Op op) {
  namespace bulk = ladder::detail::bulk;
  constexpr int threads = Policy::threads, tq = Policy::tile_quads, sq = Policy::slot_quads;
  constexpr int stages = Policy::stages;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * threads;
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x;
  op.scalars(t, stride);
  if constexpr (!bulk::available) {
    // Built for an architecture without the engine: the register walk, so results stay right.
    for (std::int64_t warp = t - threadIdx.x % 32; warp < op.count; warp += stride)
      batch<Hint::none, 1>(op, warp + threadIdx.x % 32, stride, 0);
  } else {
    extern __shared__ __align__(128) unsigned char shared[];
    auto* bars = reinterpret_cast<std::uint64_t*>(shared);
    auto* slots = reinterpret_cast<uint4*>(shared + Policy::barrier_bytes);
    uint4* outs = slots + stages * Op::inputs * sq;
    const std::int64_t tiles = (op.count + tq - 1) / tq;
    const std::int64_t first = tiles * blockIdx.x / gridDim.x;
    const std::int64_t mine = tiles * (blockIdx.x + 1) / gridDim.x - first;
    const auto quads_of = [&](std::int64_t j) {
      return static_cast<int>(std::min<std::int64_t>(tq, op.count - (first + j) * tq));
    };
    const auto issue = [&](std::int64_t j) {
      const int s = static_cast<int>(j % stages);
      op.bulk_load((first + j) * tq, quads_of(j), slots + s * Op::inputs * sq, sq, &bars[s]);
    };
    if (threadIdx.x == 0) {
      for (int s = 0; s < stages; ++s)
        bulk::barrier_init(&bars[s], Op::inputs);
      for (std::int64_t j = 0; j < stages && j < mine; ++j)
        issue(j);
    }
    __syncthreads();
    for (std::int64_t j = 0; j < mine; ++j) {
      const int s = static_cast<int>(j % stages);
      const int quads = quads_of(j);
      bulk::wait(&bars[s], static_cast<unsigned>((j / stages) & 1));
      const uint4* in = slots + s * Op::inputs * sq;
      uint4* out = outs + s * tq;
      for (int r = threadIdx.x; r < quads; r += threads)
        out[r] = op.bulk_finish(in, sq, r, quads);
      // This thread's reads of the slots and writes of the buffer, before the async proxy's
      // next copy into the slots and its store from the buffer.
      bulk::fence_proxy_async_shared();
      if (threadIdx.x == 0)
        bulk_wait_read<stages - 2>(); // the store of tile j + 1 - stages has read its buffer
      __syncthreads();
      if (threadIdx.x == 0) {
        bulk_store(op.out((first + j) * tq), out, 16u * quads);
        if (j + stages < mine)
          issue(j + stages);
      }
    }
    if (threadIdx.x == 0)
      bulk_wait_all(); // the block's shared memory must outlive the stores that read it
  }
}

// ------------------------------------------------------------------------------------------------
// Launch
// ------------------------------------------------------------------------------------------------

template <class Policy, class Op> const void* kernel_pointer() {
  if constexpr (Policy::bulk)
    return reinterpret_cast<const void*>(bulk_kernel<Policy, Op>);
  else
    return reinterpret_cast<const void*>(register_kernel<Policy, Op>);
}

// The grid: the resident blocks (occupancy x SMs, asked once per device), fewer when there is
// less work; one block per tile for block_per_tile. Enough blocks for the scalar elements too
// (all of them when the vector path does not apply), and never empty.
template <class Policy, class Op> void launch(const Op& op, cudaStream_t stream) {
  static core::PerDevice cache;
  const void* kernel = kernel_pointer<Policy, Op>();
  const std::size_t shared = Policy::shared_bytes(Op::inputs);
  const std::int64_t resident = core::resident_blocks(cache, kernel, Policy::threads, shared);
  const auto blocks_for = [](std::int64_t items, std::int64_t per_block) {
    return (items + per_block - 1) / per_block;
  };
  std::int64_t grid = 0;
  if constexpr (Policy::bulk)
    grid = std::min(resident, blocks_for(op.count, Policy::tile_quads));
  else if constexpr (Policy::schedule == Schedule::block_per_tile)
    grid = std::min<std::int64_t>(blocks_for(op.count, Policy::threads * Policy::vectors), INT_MAX);
  else if constexpr (Policy::schedule == Schedule::chunk_per_block)
    grid = std::min(resident, blocks_for(op.count, Policy::threads * Policy::vectors));
  else
    grid = std::min(resident, blocks_for(op.count, Policy::threads));
  grid = std::max({grid, std::min(resident, blocks_for(op.scalar_elements(), Policy::threads)),
                   std::int64_t{1}});
  if constexpr (Policy::bulk)
    bulk_kernel<Policy, Op><<<static_cast<unsigned>(grid), Policy::threads, shared, stream>>>(op);
  else
    register_kernel<Policy, Op><<<static_cast<unsigned>(grid), Policy::threads, 0, stream>>>(op);
}

// The ops from the exercises' arguments.
inline IncrementOp increment_op(float* a, std::int64_t n) {
  const std::int64_t head = elements_to_alignment(reinterpret_cast<std::uintptr_t>(a), n);
  return {a, n, head, (n - head) / 4};
}

// `split_inputs`: inputs off c's alignment are read 4 bytes at a time (the register engine);
// false (the bulk engine): unless the three share their alignment, every element is a scalar.
// Pointers that are not even 4-byte aligned are all scalars either way.
inline AddOpT<true> add_op(const float* a, const float* b, float* c, std::int64_t n,
                           bool split_inputs) {
  const auto address = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  const auto offset = [&](const void* p) { return (address(p) / 4) % 4; };
  const bool whole_floats = (address(a) | address(b) | address(c)) % 4 == 0;
  const bool shared = offset(a) == offset(b) && offset(a) == offset(c);
  if (!whole_floats || (!shared && !split_inputs))
    return {a, b, c, n, 0, 0}; // every element a scalar
  const std::int64_t head = elements_to_alignment(address(c), n);
  return {a, b, c, n, head, (n - head) / 4, offset(a) == offset(c), offset(b) == offset(c)};
}

// The reversal at the plan's shift (each a kernel of its own: the component selection is
// constant). `any_shift` false: a shift other than 0 falls back to scalars, the `vector4` rung.
template <class Policy>
void launch_reverse(const std::int32_t* in, std::int32_t* out, std::int64_t n, bool any_shift,
                    cudaStream_t stream) {
  const ReversePlan plan =
      plan_reverse(reinterpret_cast<std::uintptr_t>(in), reinterpret_cast<std::uintptr_t>(out), n);
  switch (any_shift ? plan.shift : 0) {
  case 0:
    return launch<Policy>(ReverseOp<0>{in, out, plan, plan.shift == 0 ? plan.count : 0}, stream);
  case 1:
    return launch<Policy>(ReverseOp<1>{in, out, plan, plan.count}, stream);
  case 2:
    return launch<Policy>(ReverseOp<2>{in, out, plan, plan.count}, stream);
  default:
    return launch<Policy>(ReverseOp<3>{in, out, plan, plan.count}, stream);
  }
}

} // namespace ladder::lab::exercises::streams
