// The FP32 GEMM kernel behind the matmul ladder's rungs past the course and behind ladder::gemm:
// C = alpha op(A) op(B) + beta C, row-major, any shape, leading dimension and alignment, all four
// transpose combinations, optional split over k.
//
// One template, so that each rung of the story is one switch of it (a Policy field or a template
// flag) and the library runs exactly the kernel the lab measured:
//   - a block computes a bm x bn tile of C with warps_m x warps_n warps; each thread holds a
//     tm x tn micro-tile of C in registers and, per step along k, reads tm values of op(A) and tn
//     of op(B) from shared memory as 16-byte loads (LDS.128): tm x tn FMAs per (tm + tn) / 4 loads;
//   - both operands sit in shared memory k-major ([bk][bm] and [bk][bn]), so a thread's
//     fragment is contiguous whatever the operand's layout in global memory: an operand stored
//     k-contiguous (A untransposed, B transposed) is turned while it is stored (padded by 4
//     words, so the turned stores hit distinct banks), the other is stored as loaded;
//   - `quadrants`: a thread's micro-tile is split into 4 x 4 pieces spaced a warp's width apart,
//     so the lanes of a warp read consecutive 16-byte words (conflict-free LDS.128, and one
//     address per distinct lane group: broadcast), where a contiguous micro-tile makes lanes
//     read 32 bytes apart (two wavefronts per load);
//   - `stages` 2: the next k-step is loaded from global memory into registers while this one
//     is computed, then stored into the other shared buffer: one barrier per k-step and the
//     load latency hidden behind bk x tm x tn FMAs; the fragments are double-buffered in
//     registers too (the loads of step kk + 1 issue before the FMAs of step kk);
//   - tiles are walked in groups of `group_m` tile rows (consecutive blocks share B's column
//     panel and a few of A's row panels while they are in L2);
//   - gridDim.y > 1 splits k, for shapes with too few tiles to fill the GPU: each split adds
//     alpha x its partial product into C with atomicAdd (C was scaled by beta first). On
//     request (SplitSum::cluster, Hopper) the splits of a tile form a thread-block cluster
//     instead: the others leave their partial tiles in their shared memory and split 0 adds
//     them through distributed shared memory, then stores C as an unsplit product does (no
//     pass over C before, no atomics). Measured slower (`ladder tune matmul`, H200,
//     2026-11-26: 1000^3 in 99.3 us against 73.7 us by atomics, 4097 x 4095 x 4093 in 3.461
//     against 3.226 ms), so the library keeps the atomics.
// Tiles that lie wholly inside the matrices take unguarded loads (16-byte when `Vec`: both
// pointers 16-byte aligned and both leading dimensions multiples of 4). Edge tiles (crossing m or
// n) take the same loads with the part outside masked, the mask worked out once per tile: which
// of a thread's lines or elements lie inside does not change along k. (They took guarded loads
// at every k-step before, each element's index and bounds computed anew: the edge tiles ran
// slower than the rest, and a product whose edge tiles share the GPU's one wave with the others,
// 1000^3 in 128 tiles, ran at their pace.) The last partial k-step takes guarded element loads
// that read 0 outside, so any shape works.
#pragma once

#include "core/async_copy.cuh"
#include "core/resident_grid.hpp"
#include "ladder/error.hpp"

#include "ladder/detail/bulk_copy.cuh"

#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace ladder::gemm_detail {

template <int BM, int BN, int BK, int WarpsM, int WarpsN, int TM, int TN, int Stages,
          bool Quadrants, int MinBlocks, bool Steady = false, bool EdgeMasks = true,
          bool ARows = false, int FragmentRow = 0, bool Serpentine = false,
          bool TensorCopies = false>
struct Policy {
  static constexpr int bm = BM, bn = BN, bk = BK, warps_m = WarpsM, warps_n = WarpsN, tm = TM,
                       tn = TN, stages = Stages, min_blocks = MinBlocks;
  static constexpr bool quadrants = Quadrants, steady = Steady;
  // Edge tiles of the steady and asynchronous loops take masked loads (set once per tile); off,
  // they take guarded loads at every k-step (the loops as they were first measured).
  static constexpr bool edge_masks = EdgeMasks;
  // A stored k-contiguous (untransposed) keeps its rows in shared memory, 16-byte chunks of k
  // swizzled across them, and is read 4 k at a time (AsyncRowCopier), instead of being turned
  // k-major by 4-byte copies. Asynchronous loops only; no effect when A is stored m-contiguous.
  static constexpr bool a_rows = ARows;
  // How the asynchronous loop's k-step is written: step kk + 1's fragments are read after the
  // FMAs of row `fragment_row` of step kk's micro-tile (0: before them all), and `serpentine`
  // walks every other row's FMAs backwards (a row's first FMA reads the B value the row before
  // ended on). The sums and their order are the same bit for bit; what changes is what ptxas is
  // handed to schedule and assign registers for, and at 254 registers a thread that moves the
  // k-loop's speed by a few percent from one compiled instance to the next (docs/matmul.md,
  // "Where the last 3% at 4096^3 goes").
  static constexpr int fragment_row = FragmentRow;
  static constexpr bool serpentine = Serpentine;
  // The asynchronous loop's stages filled by the bulk tensor copy engine (sm_90's TMA) instead of
  // cp.async: one thread copies each operand's box of a step and arms the stage's mbarrier. Both
  // operands stored m- and n-contiguous (A^T, B as stored) with 16-byte rows: the engine copies a
  // box as stored and cannot turn a tile (gemm_kernel_tensor, the lab's rung `tensor_copies`).
  static constexpr bool tensor_copies = TensorCopies;
  static constexpr int threads = 32 * warps_m * warps_n;
  static constexpr int wm = bm / warps_m, wn = bn / warps_n; // a warp's tile of C
  static constexpr int lanes_m = wm / tm, lanes_n = wn / tn; // a warp's lanes over that tile
  static_assert(lanes_m * lanes_n == 32, "a warp's lanes must tile its tile of C exactly");
  static_assert(tm % 4 == 0 && tn % 4 == 0, "micro-tiles are read as 16-byte words");
  // 1: one shared buffer; 2: two, the next step prefetched through registers; 3 or more: that
  // many buffers filled by asynchronous copies (cp.async), stages - 1 steps ahead.
  static_assert(stages >= 1 && stages <= 6, "1 to 6 shared buffers");
  static constexpr bool async = stages >= 3;
  static_assert(!steady || stages == 2, "steady picks the two-buffer loop (async ones are steady)");
  static_assert(!(steady || async) || bk % 2 == 0,
                "the steady loops need an even number of k per step (fragment buffers alternate)");
  static_assert(!a_rows || (async && quadrants && bk % 8 == 0 && bk / 4 >= lanes_m),
                "A's rows: asynchronous copies, quadrant micro-tiles, an even number of 4-k "
                "quads per step, and a chunk position per lane row (conflict-free reads)");
  static_assert((fragment_row == 0 && !serpentine) || (async && !a_rows),
                "fragment_row and serpentine: the asynchronous loop, A turned or m-contiguous");
  static_assert(fragment_row >= 0 && fragment_row < tm, "fragment_row: a row of the micro-tile");
  static_assert(!tensor_copies || (async && !a_rows),
                "tensor copies fill the asynchronous loop's stages, as stored");
};

// The same policy with edge tiles on guarded loads: what a product without edge tiles runs
// (launch() below), so that its kernel is the single k-loop with no masked copy beside it.
template <class P> struct WithoutEdgeMasks;
template <int BM, int BN, int BK, int WarpsM, int WarpsN, int TM, int TN, int Stages,
          bool Quadrants, int MinBlocks, bool Steady, bool EdgeMasks, bool ARows, int FragmentRow,
          bool Serpentine, bool TensorCopies>
struct WithoutEdgeMasks<Policy<BM, BN, BK, WarpsM, WarpsN, TM, TN, Stages, Quadrants, MinBlocks,
                               Steady, EdgeMasks, ARows, FragmentRow, Serpentine, TensorCopies>> {
  using type = Policy<BM, BN, BK, WarpsM, WarpsN, TM, TN, Stages, Quadrants, MinBlocks, Steady,
                      false, ARows, FragmentRow, Serpentine, TensorCopies>;
};

// What the kernel needs besides its Policy; filled by the host side (api.cu, the lab's rungs).
struct Params {
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1, beta = 0;
  const float* a = nullptr;
  std::int64_t lda = 0;
  const float* b = nullptr;
  std::int64_t ldb = 0;
  float* c = nullptr;
  std::int64_t ldc = 0;
  std::int64_t tiles_m = 0, tiles_n = 0;
  int group_m = 1;             // tile rows walked together (1: row by row)
  std::int64_t k_per_split = 0; // a multiple of bk; gridDim.y splits cover k
  bool c_vector = false;        // C 16-byte aligned and ldc % 4 == 0: 16-byte stores
  bool cluster_splits = false;  // the gridDim.y splits of a tile are one cluster (sm_90)
};
// Past 128 bytes nvcc reads a by-value kernel parameter through its address instead of loading
// its fields up front, and the k-loop's code changes with it: two more fields (136 bytes) ran
// 4096^3 on the huge tile 2-3.7% slower (docs/matmul.md, "Stream-K for the last wave").
static_assert(sizeof(Params) <= 128, "the GEMM kernel's parameters must stay within 128 bytes");

// Edge tiles' masks: how many of a thread's `passes` lines, `apart` lines from one to the next,
// lie inside the operand when `left` lines of it remain from the thread's first line.
__device__ __forceinline__ int passes_inside(std::int64_t left, int passes, int apart) {
  return left <= 0                               ? 0
         : left >= std::int64_t{passes} * apart ? passes
                                                 : static_cast<int>((left + apart - 1) / apart);
}

// One operand's bx x bk tile: global memory -> registers -> shared memory ([bk][stride]).
// KContig: the operand's k index is the contiguous one in global memory (element (x, kk) at
// p[x * ld + kk]); else element (x, kk) is at p[kk * ld + x].
template <int BX, int BK, int Threads, bool KContig, bool Vec> struct TileLoader {
  static constexpr int pad = KContig ? 4 : 0; // turned stores: 4 words shift each k row's banks
  static constexpr int stride = BX + pad;
  static constexpr int contig = KContig ? BK : BX; // the tile's contiguous extent in global
  static constexpr int width = Vec ? 4 : 1;
  static constexpr int per_thread = BX * BK / (width * Threads);
  static_assert(per_thread * width * Threads == BX * BK, "the tile must split evenly over threads");
  static_assert(contig % width == 0, "16-byte loads must not straddle the tile's rows");
  static constexpr int smem_floats = BK * stride;

  float regs[per_thread][width];
  // Where this thread's first vector of the current k-step starts, for tiles inside the
  // matrices: set once, then advanced by one k-step per load, so the fast path costs no index
  // arithmetic. Vector j lies `j x pass` elements further (a whole number of lines on).
  static constexpr int per_line = contig / width;
  static_assert(Threads % per_line == 0, "a pass of the threads must cover whole lines");
  const float* next;
  std::int64_t step = 0; // elements between consecutive k-steps
  std::int64_t pass = 0; // elements between a thread's consecutive vectors
  // Edge tiles (see load_masked): how much of this thread's loads lies inside the operand across
  // x, the same at every k-step. k-contiguous: vectors j < inside_vectors are on lines inside;
  // as stored: the first inside_elements elements of every vector are inside.
  int inside_vectors = per_thread;
  int inside_elements = width;

  // Vector j of this thread: consecutive threads take consecutive words along the contiguous
  // extent (coalesced), `line` is the other index.
  __device__ __forceinline__ static void coords(int tid, int j, int& line, int& pos) {
    const int v = tid + j * Threads;
    line = v / per_line;
    pos = (v % per_line) * width;
  }

  // Masked (edge tiles, for load_masked): the masks are set from x_end, the operand's extent
  // across x (m for A, n for B), and a thread whose loads all lie outside starts on the tile's
  // first line or element instead, so that every address it forms is inside the operand.
  template <bool Masked = false>
  __device__ __forceinline__ void start(const float* p, std::int64_t ld, std::int64_t x0,
                                        std::int64_t k0, std::int64_t x_end, int tid) {
    int line, pos;
    coords(tid, 0, line, pos);
    step = KContig ? BK : BK * ld;
    pass = Threads / per_line * ld;
    if constexpr (!Masked) {
      const std::int64_t outer = (KContig ? x0 : k0) + line, inner = (KContig ? k0 : x0) + pos;
      next = p + outer * ld + inner;
      return;
    }
    const std::int64_t x = x0 + (KContig ? line : pos), left = x_end - x;
    if constexpr (KContig) {
      constexpr int lines_apart = Threads / per_line; // between a thread's consecutive vectors
      inside_vectors = passes_inside(left, per_thread, lines_apart);
    } else {
      inside_elements = left <= 0 ? 0 : left < width ? static_cast<int>(left) : width;
    }
    const std::int64_t x_start = left > 0 ? x : x0;
    next = KContig ? p + x_start * ld + k0 + pos : p + (k0 + line) * ld + x_start;
  }

  // Vector j of this thread's registers, from one 16-byte load.
  __device__ __forceinline__ void put(int j, const float4& v) {
    regs[j][0] = v.x;
    regs[j][1] = v.y;
    regs[j][2] = v.z;
    regs[j][3] = v.w;
  }

  // Loads the next k-step (the one after the previous load) of a tile that lies wholly inside
  // the matrix: no element needs a check.
  __device__ __forceinline__ void load_full() {
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const float* q = next + j * pass;
      if constexpr (Vec)
        put(j, __ldg(reinterpret_cast<const float4*>(q)));
      else
        regs[j][0] = __ldg(q);
    }
    next += step;
  }

  // The next k-step of an edge tile (one that crosses x_end) whose k-step lies inside k: the
  // checks across x were made once by start(), so the step costs a compare per vector, not the
  // index arithmetic of load_guarded; 0 outside.
  __device__ __forceinline__ void load_masked() {
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const float* q = next + j * pass;
      if constexpr (KContig) {
        if constexpr (Vec)
          put(j, j < inside_vectors ? __ldg(reinterpret_cast<const float4*>(q))
                                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f));
        else
          regs[j][0] = j < inside_vectors ? __ldg(q) : 0.0f;
      } else if (Vec && inside_elements == width) {
        put(j, __ldg(reinterpret_cast<const float4*>(q)));
      } else {
#pragma unroll
        for (int e = 0; e < width; ++e)
          regs[j][e] = e < inside_elements ? __ldg(q + e) : 0.0f;
      }
    }
    next += step;
  }

  // load_full on tiles inside the matrices, load_masked on edge tiles.
  template <bool Masked> __device__ __forceinline__ void load_inside_k() {
    if constexpr (Masked)
      load_masked();
    else
      load_full();
  }

  // Loads the k-step at k0 (the one after the previous load), reading 0 outside
  // [0, x_end) x [0, k_end).
  __device__ __forceinline__ void load_guarded(const float* __restrict__ p, std::int64_t ld,
                                               std::int64_t x0, std::int64_t k0,
                                               std::int64_t x_end, std::int64_t k_end, int tid) {
    const std::int64_t outer_end = KContig ? x_end : k_end, inner_end = KContig ? k_end : x_end;
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      int line, pos;
      coords(tid, j, line, pos);
      const std::int64_t outer = (KContig ? x0 : k0) + line, inner = (KContig ? k0 : x0) + pos;
#pragma unroll
      for (int e = 0; e < width; ++e)
        regs[j][e] =
            outer < outer_end && inner + e < inner_end ? __ldg(p + outer * ld + inner + e) : 0.0f;
    }
    next += step;
  }

  // Either of the two, chosen per k-step: `full` when the tile lies inside the matrix.
  __device__ __forceinline__ void load(const float* __restrict__ p, std::int64_t ld,
                                       std::int64_t x0, std::int64_t k0, std::int64_t x_end,
                                       std::int64_t k_end, bool full, int tid) {
    if (full)
      load_full();
    else
      load_guarded(p, ld, x0, k0, x_end, k_end, tid);
  }

  __device__ __forceinline__ void store(float* s, int tid) const {
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      int line, pos;
      coords(tid, j, line, pos);
      if constexpr (KContig) {
#pragma unroll
        for (int e = 0; e < width; ++e)
          s[(pos + e) * stride + line] = regs[j][e];
      } else if constexpr (Vec) {
        *reinterpret_cast<float4*>(s + line * stride + pos) =
            make_float4(regs[j][0], regs[j][1], regs[j][2], regs[j][3]);
      } else {
        s[line * stride + pos] = regs[j][0];
      }
    }
  }
};

// Asynchronous copies (cp.async, sm_80 and later): global memory straight into shared memory,
// no registers on the way, completion tracked in commit groups. `src_bytes` < the copy's size
// fills the rest with zeros (0: nothing is read), which is how edge tiles are guarded.
__device__ __forceinline__ void copy_async_4(unsigned dst, const float* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void copy_async_4(unsigned dst, const float* src, unsigned src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes));
}
__device__ __forceinline__ void copy_async_16(unsigned dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void copy_async_16(unsigned dst, const float* src, unsigned src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes));
}
using core::commit_copies;
using core::wait_copies;

// One operand's bx x bk tile copied asynchronously into the same shared layout as TileLoader's
// ([bk][stride], k-major). A k-contiguous operand is turned element by element (4-byte copies):
// consecutive threads take 8 consecutive k of one line (all bk of it when bk < 8), so a warp's
// copy reads whole 32-byte sectors (4 lines of 8 floats), and its writes (8 k-rows, 4
// consecutive lines each) fall in distinct banks thanks to the 4-word pad. Wider k-steps take
// their 8-k groups in turn. (With a lane per k of a 16-deep step, a warp wrote 16 k-rows whose
// banks repeat every 8, two wavefronts per copy: Nsight Compute counted 16% more shared-memory
// wavefronts than with A^T and twice the short-scoreboard stalls, 1000^3 on the 8-warp tile,
// H100, 2026-11-26. Giving each thread a whole line instead, one pointer with immediate offsets,
// made every copy instruction touch 32 sectors: 0.67x cuBLAS at 4096^3 against 0.91x for the
// register path, H200.) The other operand is copied as stored, 16 bytes at a time when `Vec`.
template <int BX, int BK, int Threads, bool KContig, bool Vec> struct AsyncTileCopier {
  using Layout = TileLoader<BX, BK, Threads, KContig, Vec>;
  static constexpr int stride = Layout::stride;
  // k-contiguous: lanes take k_width consecutive k of a line; `lines_per_pass` lines per pass of
  // the threads over one k group, `x_passes` such passes over the tile's lines, `k_groups` groups
  // of k_width k per step. Copy j of a thread: k group j % k_groups, line pass j / k_groups.
  static constexpr int k_width = BK < 8 ? BK : 8;
  static constexpr int k_groups = BK / k_width;
  static constexpr int lines_per_pass = Threads / k_width;
  static constexpr int x_passes = BX / lines_per_pass;
  static_assert(!KContig || (BK % k_width == 0 && Threads % k_width == 0 &&
                             BX % lines_per_pass == 0),
                "the turned tile must split into whole lines per pass of the threads");
  // As stored: Layout's vectors (j x Threads + tid along the contiguous extent).
  static constexpr int per_thread = KContig ? x_passes * k_groups : Layout::per_thread;

  const float* src; // this thread's first element (turned) or vector of the next full step
  unsigned dst;     // byte offset of the same in a shared stage
  std::int64_t step = 0; // elements between consecutive k-steps
  std::int64_t pass = 0; // elements between this thread's consecutive copies
  // Edge tiles (see copy_masked): how much of this thread's copies lies inside the operand
  // across x, the same at every k-step. Turned: copies of line passes < inside_passes are on
  // lines inside; as stored: the first inside_bytes bytes of every copy are inside.
  int inside_passes = x_passes;
  unsigned inside_bytes = 4u * Layout::width;

  // Masked (edge tiles, for copy_masked): the masks are set from x_end, the operand's extent
  // across x (m for A, n for B), and a thread whose copies all lie outside starts on the tile's
  // first line or element instead, so that every address it forms is inside the operand.
  template <bool Masked>
  __device__ __forceinline__ void start(const float* p, std::int64_t ld, std::int64_t x0,
                                        std::int64_t k0, std::int64_t x_end, int tid) {
    if constexpr (KContig) {
      const int k = tid % k_width, x = tid / k_width;
      const std::int64_t left = Masked ? x_end - (x0 + x) : 1;
      inside_passes = passes_inside(left, x_passes, lines_per_pass);
      src = p + (left > 0 ? x0 + x : x0) * ld + k0 + k;
      dst = 4u * static_cast<unsigned>(k * stride + x);
      step = BK;
      pass = lines_per_pass * ld;
    } else {
      int line, pos;
      Layout::coords(tid, 0, line, pos);
      const std::int64_t left = Masked ? x_end - (x0 + pos) : Layout::width;
      inside_bytes = left <= 0 ? 0u
                               : 4u * static_cast<unsigned>(left < Layout::width ? left
                                                                                 : Layout::width);
      src = p + (k0 + line) * ld + (left > 0 ? x0 + pos : x0);
      dst = 4u * static_cast<unsigned>(line * stride + pos);
      step = BK * ld;
      pass = Threads / Layout::per_line * ld;
    }
  }

  // The shared byte offset of copy j relative to copy 0, and its element offset in global
  // memory (in units of `pass` and of single elements): compile-time constants but for pass.
  static constexpr unsigned dst_step = 4u * (Threads / Layout::per_line * stride); // as stored
  static __device__ __forceinline__ constexpr unsigned dst_of(int j) {
    if constexpr (KContig)
      return 4u * static_cast<unsigned>((j % k_groups) * k_width * stride +
                                        (j / k_groups) * lines_per_pass);
    else
      return j * dst_step;
  }
  static __device__ __forceinline__ constexpr int pass_of(int j) {
    return KContig ? j / k_groups : j;
  }
  static __device__ __forceinline__ constexpr int k_of(int j) {
    return KContig ? (j % k_groups) * k_width : 0;
  }

  // Copies the next k-step of a tile that lies inside the matrix into the stage at byte
  // address `stage` of the shared window.
  __device__ __forceinline__ void copy_full(unsigned stage) {
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      if constexpr (!KContig && Vec)
        copy_async_16(stage + dst + dst_of(j), src + pass_of(j) * pass);
      else
        copy_async_4(stage + dst + dst_of(j), src + pass_of(j) * pass + k_of(j));
    }
    src += step;
  }

  // The next k-step of an edge tile (one that crosses x_end) whose k-step lies inside k: the
  // checks across x were made once by start(), so a copy costs a compare at most, not the
  // index arithmetic of copy_guarded. Outside: zeros, read from nowhere (size 0 at an address
  // inside the operand).
  __device__ __forceinline__ void copy_masked(unsigned stage) {
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      if constexpr (KContig) {
        const bool inside = pass_of(j) < inside_passes;
        copy_async_4(stage + dst + dst_of(j), inside ? src + pass_of(j) * pass + k_of(j) : src,
                     inside ? 4u : 0u);
      } else if constexpr (Vec) {
        copy_async_16(stage + dst + dst_of(j), src + j * pass, inside_bytes);
      } else {
        copy_async_4(stage + dst + dst_of(j), src + j * pass, inside_bytes);
      }
    }
    src += step;
  }

  // copy_full on tiles inside the matrices, copy_masked on edge tiles.
  template <bool Masked> __device__ __forceinline__ void copy_inside_k(unsigned stage) {
    if constexpr (Masked)
      copy_masked(stage);
    else
      copy_full(stage);
  }

  // The same for the k-step at k0 of any tile: elements outside [0, x_end) x [0, k_end) are
  // zeros (and read nothing).
  __device__ __forceinline__ void copy_guarded(unsigned stage, const float* p, std::int64_t ld,
                                               std::int64_t x0, std::int64_t k0,
                                               std::int64_t x_end, std::int64_t k_end, int tid) {
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      if constexpr (KContig) {
        const std::int64_t x = x0 + tid / k_width + pass_of(j) * lines_per_pass;
        const std::int64_t k = k0 + tid % k_width + k_of(j);
        const bool inside = x < x_end && k < k_end;
        copy_async_4(stage + dst + dst_of(j), inside ? p + x * ld + k : p, inside ? 4u : 0u);
      } else {
        int line, pos;
        Layout::coords(tid, j, line, pos);
        const std::int64_t k = k0 + line, x = x0 + pos;
        const std::int64_t left = k < k_end ? x_end - x : 0;
        const unsigned bytes =
            left <= 0 ? 0u : 4u * static_cast<unsigned>(left < Layout::width ? left : Layout::width);
        const float* q = bytes != 0 ? p + k * ld + x : p;
        if constexpr (Vec)
          copy_async_16(stage + dst + dst_of(j), q, bytes);
        else
          copy_async_4(stage + dst + dst_of(j), q, bytes);
      }
    }
    src += step;
  }
};

// A k-contiguous operand's bx x bk tile copied asynchronously as stored: line x of the tile is
// bk floats in shared memory, its 16-byte chunks (4 k each) copied whole and placed at chunk
// position c ^ ((x / 4) % chunks_per_line), so that the lines a warp reads together (4 apart in
// quadrant micro-tiles) sit in distinct banks. Nothing is turned: one 16-byte copy per 4
// elements where the turned layout takes four 4-byte ones (AsyncTileCopier), and the fragments
// are read 4 k at a time (one LDS.128 per line per 4 k: the same count per k as k-major).
template <int BX, int BK, int Threads, bool Vec> struct AsyncRowCopier {
  static constexpr int chunks_per_line = BK / 4;
  static constexpr int lines_per_pass = Threads / chunks_per_line;
  static constexpr int per_thread = BX * chunks_per_line / Threads;
  static constexpr int smem_floats = BX * BK;
  static_assert(BK % 4 == 0 && (chunks_per_line & (chunks_per_line - 1)) == 0,
                "a line is a power-of-two number of 16-byte chunks");
  static_assert(Threads % chunks_per_line == 0 && BX % lines_per_pass == 0,
                "the tile must split into whole lines per pass of the threads");
  static_assert(lines_per_pass % (4 * chunks_per_line) == 0,
                "a thread's chunk position must be the same on every pass");

  // The float offset of chunk `chunk` of line `line` within the tile's shared stage.
  static __device__ __forceinline__ int offset(int line, int chunk) {
    return line * BK + 4 * (chunk ^ ((line / 4) % chunks_per_line));
  }

  const float* src; // this thread's first chunk of the next full step
  unsigned dst;     // byte offset of the same in a shared stage
  std::int64_t pass = 0; // elements between this thread's consecutive chunks
  int inside_copies = per_thread; // edge tiles: chunks j < inside_copies are on lines inside

  template <bool Masked>
  __device__ __forceinline__ void start(const float* p, std::int64_t ld, std::int64_t x0,
                                        std::int64_t k0, std::int64_t x_end, int tid) {
    const int chunk = tid % chunks_per_line, line = tid / chunks_per_line;
    const std::int64_t left = Masked ? x_end - (x0 + line) : 1;
    inside_copies = passes_inside(left, per_thread, lines_per_pass);
    src = p + (left > 0 ? x0 + line : x0) * ld + k0 + 4 * chunk;
    dst = 4u * static_cast<unsigned>(offset(line, chunk));
    pass = lines_per_pass * ld;
  }

  static constexpr unsigned dst_step = 4u * lines_per_pass * BK;

  // One 16-byte chunk (or its first `valid` elements, the rest zeros) from q into shared byte
  // address d; element by element where rows are not 16-byte aligned.
  static __device__ __forceinline__ void copy_chunk(unsigned d, const float* q, int valid) {
    if constexpr (Vec) {
      copy_async_16(d, q, 4u * static_cast<unsigned>(valid));
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e)
        copy_async_4(d + 4u * e, e < valid ? q + e : q, e < valid ? 4u : 0u);
    }
  }

  __device__ __forceinline__ void copy_full(unsigned stage) {
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      if constexpr (Vec) {
        copy_async_16(stage + dst + j * dst_step, src + j * pass);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          copy_async_4(stage + dst + j * dst_step + 4u * e, src + j * pass + e);
      }
    }
    src += BK;
  }

  __device__ __forceinline__ void copy_masked(unsigned stage) {
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const bool inside = j < inside_copies;
      copy_chunk(stage + dst + j * dst_step, inside ? src + j * pass : src, inside ? 4 : 0);
    }
    src += BK;
  }

  template <bool Masked> __device__ __forceinline__ void copy_inside_k(unsigned stage) {
    if constexpr (Masked)
      copy_masked(stage);
    else
      copy_full(stage);
  }

  __device__ __forceinline__ void copy_guarded(unsigned stage, const float* p, std::int64_t ld,
                                               std::int64_t x0, std::int64_t k0,
                                               std::int64_t x_end, std::int64_t k_end, int tid) {
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const std::int64_t x = x0 + tid / chunks_per_line + j * lines_per_pass;
      const std::int64_t k = k0 + 4 * (tid % chunks_per_line);
      const std::int64_t left = x < x_end ? k_end - k : 0;
      const int valid = left <= 0 ? 0 : left >= 4 ? 4 : static_cast<int>(left);
      copy_chunk(stage + dst + j * dst_step, valid > 0 ? p + x * ld + k : p, valid);
    }
    src += BK;
  }
};

template <class P, bool AKContig, bool BKContig, bool Vec> struct Shared {
  using ALoader = TileLoader<P::bm, P::bk, P::threads, AKContig, Vec>;
  using BLoader = TileLoader<P::bn, P::bk, P::threads, BKContig, Vec>;
  // A's rows as stored (Policy::a_rows) where A is k-contiguous, else k-major.
  static constexpr bool a_rows = P::a_rows && AKContig;
  static constexpr int a_floats =
      a_rows ? AsyncRowCopier<P::bm, P::bk, P::threads, Vec>::smem_floats : ALoader::smem_floats;
  static constexpr int stage_floats = a_floats + BLoader::smem_floats;
  // With tensor copies, one mbarrier a stage after the stages.
  static constexpr std::size_t barriers_offset = sizeof(float) * stage_floats * P::stages;
  static constexpr std::size_t bytes =
      barriers_offset + (P::tensor_copies ? sizeof(std::uint64_t) * P::stages : 0);
};

// The offset of a thread's 4-wide piece `g` of its micro-tile within its warp's tile.
template <bool Quadrants, int Lanes, int T>
__device__ __forceinline__ int piece_offset(int lane_index, int g) {
  return Quadrants ? g * Lanes * 4 + lane_index * 4 : lane_index * T + g * 4;
}

// A split-k cluster's reduction: blocks 1 .. of the cluster (the splits of one tile, in
// gridDim.y order) write their partial tiles into their own shared memory, block 0 adds them in
// rank order through distributed shared memory. Each thread's values sit as float4s a block's
// width of float4s apart, so that the block's accesses are consecutive 16-byte words. Needs
// P::bm x P::bn floats of shared memory (cluster_shared_bytes).
template <class P> __device__ __forceinline__ void add_cluster_partials(float (&acc)[P::tm][P::tn],
                                                                       float* smem, int tid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  auto* mine = reinterpret_cast<float4*>(smem);
  constexpr int per_row = P::tn / 4;
  __syncthreads(); // the main loop's last reads of its stages are done
  if (rank != 0) {
#pragma unroll
    for (int i = 0; i < P::tm; ++i)
#pragma unroll
      for (int h = 0; h < per_row; ++h)
        mine[(i * per_row + h) * P::threads + tid] =
            make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
  }
  cluster.sync(); // release the partial tiles; acquire them in block 0
  if (rank == 0) {
    for (unsigned r = 1; r < cluster.num_blocks(); ++r) {
      const float4* theirs = cluster.map_shared_rank(mine, r);
#pragma unroll
      for (int i = 0; i < P::tm; ++i)
#pragma unroll
        for (int h = 0; h < per_row; ++h) {
          const float4 v = theirs[(i * per_row + h) * P::threads + tid];
          acc[i][4 * h] += v.x;
          acc[i][4 * h + 1] += v.y;
          acc[i][4 * h + 2] += v.z;
          acc[i][4 * h + 3] += v.w;
        }
    }
  }
  cluster.sync(); // the others' shared memory stays until block 0 has read it
#endif
}

// Stores alpha v[0..3] (+ beta times what is there, unless beta is 0: then C is not read) to the
// `left` (if fewer than 4) floats from p on: atomic adds when k is split outside a cluster, one
// 16-byte store where all 4 lie inside and C allows it. (The untransposed epilogue below writes
// the same way inline: routed through this helper, every kernel compiled to other SASS, and the
// measured speeds are the inline code's.)
__device__ __forceinline__ void store_four(float* p, const float* v, std::int64_t left,
                                           bool split, bool c_vector, float alpha, float beta) {
  if (split) {
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (j < left)
        atomicAdd(p + j, alpha * v[j]);
  } else if (c_vector && left >= 4) {
    auto* q = reinterpret_cast<float4*>(p);
    float4 out = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
    if (beta != 0.0f) {
      const float4 old = *q;
      out.x += beta * old.x;
      out.y += beta * old.y;
      out.z += beta * old.z;
      out.w += beta * old.w;
    }
    *q = out;
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (j < left)
        p[j] = alpha * v[j] + (beta != 0.0f ? beta * p[j] : 0.0f);
  }
}

// CTransposed: the product X = op(A) op(B) (m x n) is C^T, stored into C (n x m, row-major,
// ldc) transposed: X(r, s) at c + s * ldc + r. A product whose own layout runs slower can be
// computed as its transpose, C^T = op(B)^T op(A)^T, in the layout that runs faster (the lab's
// rung gemm_swapped).
//
// The kernels' body (gemm_kernel, gemm_kernel_tensor below); a_map and b_map: the operands'
// tensor maps where P::tensor_copies, else null.
template <class P, bool AKContig, bool BKContig, bool Vec, bool CTransposed>
__device__ __forceinline__ void gemm_tile(const Params prm, const CUtensorMap* a_map,
                                          const CUtensorMap* b_map) {
  using S = Shared<P, AKContig, BKContig, Vec>;
  using ALoader = typename S::ALoader;
  using BLoader = typename S::BLoader;
  extern __shared__ float4 shared_words[];
  float* const smem = reinterpret_cast<float*>(shared_words);

  // The tile of C: blocks walk groups of group_m tile rows, column by column within a group.
  const std::int64_t id = blockIdx.x;
  const std::int64_t group_tiles = static_cast<std::int64_t>(prm.group_m) * prm.tiles_n;
  const std::int64_t first_m = id / group_tiles * prm.group_m;
  const std::int64_t rows_in_group =
      prm.tiles_m - first_m < prm.group_m ? prm.tiles_m - first_m : prm.group_m;
  const std::int64_t in_group = id % group_tiles;
  const std::int64_t m0 = (first_m + in_group % rows_in_group) * P::bm;
  const std::int64_t n0 = in_group / rows_in_group * P::bn;
  const std::int64_t k_begin = static_cast<std::int64_t>(blockIdx.y) * prm.k_per_split;
  const std::int64_t k_end = k_begin + prm.k_per_split < prm.k ? k_begin + prm.k_per_split : prm.k;

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / P::warps_n, warp_n = warp % P::warps_n;
  const int lane_m = lane / P::lanes_n, lane_n = lane % P::lanes_n;
  const bool m_inside = m0 + P::bm <= prm.m, n_inside = n0 + P::bn <= prm.n;
  const bool tile_inside = m_inside && n_inside;

  ALoader a_loader;
  BLoader b_loader;
  a_loader.start(prm.a, prm.lda, m0, k_begin, prm.m, tid);
  b_loader.start(prm.b, prm.ldb, n0, k_begin, prm.n, tid);
  const auto load = [&](std::int64_t k0) {
    const bool k_inside = k0 + P::bk <= k_end;
    a_loader.load(prm.a, prm.lda, m0, k0, prm.m, k_end, m_inside && k_inside, tid);
    b_loader.load(prm.b, prm.ldb, n0, k0, prm.n, k_end, n_inside && k_inside, tid);
  };
  const auto store = [&](int stage) {
    float* s = smem + stage * S::stage_floats;
    a_loader.store(s, tid);
    b_loader.store(s + ALoader::smem_floats, tid);
  };

  float acc[P::tm][P::tn] = {};
  float frag_a[2][P::tm], frag_b[2][P::tn];
  // A's rows as stored (S::a_rows): line i of the micro-tile, 4 k, for two quads of k.
  float quad_a[2][P::tm][4];
  const int a_base = warp_m * P::wm, b_base = warp_n * P::wn;
  // Reads step kk's fragments of the shared stage at float offset `stage_offset` into register
  // buffer `buffer` (with A's rows: B's, and A's quad kk / 4 when kk starts one, into quad
  // buffer (kk / 4) % 2).
  const auto load_fragments = [&](int stage_offset, int buffer, int kk) {
    const float* sa = smem + stage_offset;
    const float* sb = sa + S::a_floats;
    if constexpr (S::a_rows) {
      if (kk % 4 == 0) {
        using Rows = AsyncRowCopier<P::bm, P::bk, P::threads, Vec>;
#pragma unroll
        for (int g = 0; g < P::tm / 4; ++g) {
          const int line = a_base + piece_offset<P::quadrants, P::lanes_m, P::tm>(lane_m, g);
          const float* chunk = sa + Rows::offset(line, kk / 4); // lines line .. line + 3: one
#pragma unroll                                               // swizzle (line is a multiple of 4)
          for (int i = 0; i < 4; ++i) {
            const float4 v = *reinterpret_cast<const float4*>(chunk + i * P::bk);
            float* q = quad_a[(kk / 4) % 2][4 * g + i];
            q[0] = v.x;
            q[1] = v.y;
            q[2] = v.z;
            q[3] = v.w;
          }
        }
      }
    } else {
#pragma unroll
      for (int g = 0; g < P::tm / 4; ++g) {
        const float4 v = *reinterpret_cast<const float4*>(
            sa + kk * ALoader::stride + a_base +
            piece_offset<P::quadrants, P::lanes_m, P::tm>(lane_m, g));
        frag_a[buffer][4 * g] = v.x;
        frag_a[buffer][4 * g + 1] = v.y;
        frag_a[buffer][4 * g + 2] = v.z;
        frag_a[buffer][4 * g + 3] = v.w;
      }
    }
#pragma unroll
    for (int g = 0; g < P::tn / 4; ++g) {
      const float4 v = *reinterpret_cast<const float4*>(
          sb + kk * BLoader::stride + b_base +
          piece_offset<P::quadrants, P::lanes_n, P::tn>(lane_n, g));
      frag_b[buffer][4 * g] = v.x;
      frag_b[buffer][4 * g + 1] = v.y;
      frag_b[buffer][4 * g + 2] = v.z;
      frag_b[buffer][4 * g + 3] = v.w;
    }
  };
  // Step kk's FMAs (its fragments in buffer kk % 2, A's quad in quad buffer (kk / 4) % 2).
  // Rows [first, last) of them.
  const auto fma_rows = [&](int kk, int first, int last) {
#pragma unroll
    for (int i = first; i < last; ++i)
#pragma unroll
      for (int c = 0; c < P::tn; ++c) {
        const int j = P::serpentine && i % 2 == 1 ? P::tn - 1 - c : c;
        const float a = S::a_rows ? quad_a[(kk / 4) % 2][i][kk % 4] : frag_a[kk % 2][i];
        acc[i][j] = fmaf(a, frag_b[kk % 2][j], acc[i][j]);
      }
  };
  const auto fmas = [&](int kk) { fma_rows(kk, 0, P::tm); };

  if constexpr (P::async) {
    // The asynchronous pipeline: `stages` shared buffers, the copies of step t + stages - 1
    // issued at the start of step t (into the buffer step t - 1 read), so stages - 1 steps of
    // copies are in flight behind the FMAs and no register holds a tile on its way. The loop
    // is the steady one: no branch for the full steps of inside tiles, one barrier per step,
    // crossed before the last k's FMAs with the next step's first fragments requested behind
    // it. (The layout of CUTLASS's multistage main loop, and cuBLAS's FP32 kernels on Hopper:
    // 256 x 128 x 8 tiles in 3 stages.)
    using ACopier = std::conditional_t<S::a_rows, AsyncRowCopier<P::bm, P::bk, P::threads, Vec>,
                                       AsyncTileCopier<P::bm, P::bk, P::threads, AKContig, Vec>>;
    using BCopier = AsyncTileCopier<P::bn, P::bk, P::threads, BKContig, Vec>;
    constexpr int stage_bytes = 4 * S::stage_floats, ring_bytes = stage_bytes * P::stages;
    const unsigned window = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    const std::int64_t steps = k_end > k_begin ? (k_end - k_begin + P::bk - 1) / P::bk : 0;
    // Steps wholly inside k that take unguarded (inside tiles) or masked (edge tiles) copies.
    // (With tensor copies none: every step takes the same box copies, zeros arriving for what
    // lies outside the operands.)
    const std::int64_t full_steps =
        !P::tensor_copies && (tile_inside || P::edge_masks) ? (k_end - k_begin) / P::bk : 0;
    // Tensor copies: stage s's mbarrier, and the parity of its phase the next wait is for (bit s).
    [[maybe_unused]] std::uint64_t* const stage_full =
        reinterpret_cast<std::uint64_t*>(smem + S::barriers_offset / sizeof(float));
    [[maybe_unused]] unsigned stage_parity = 0;
    if constexpr (P::tensor_copies) {
      if (tid == 0)
        for (int s = 0; s < P::stages; ++s)
          detail::bulk::barrier_init(stage_full + s, 1);
      __syncthreads(); // the barriers are set before anyone waits on them
    }
    // One tile's pipeline, compiled twice: for tiles inside the matrices (no check at all, and
    // no register spent on a mask) and for edge tiles (the copies' sizes set once per tile).
    // (A single loop choosing per step, with the masks live beside it, cost the inside tiles
    // more: 4096^3 on the huge tile 2.806 ms against 2.688 before masks, `ladder run matmul`,
    // H200, 2026-11-26, two hosts. Compiled twice it still costs them a little, so products
    // without edge tiles run the policy without masks: see launch().)
    const auto pipeline = [&](auto masked_tag) {
      constexpr bool masked = decltype(masked_tag)::value;
      ACopier a_copy;
      BCopier b_copy;
      if constexpr (!P::tensor_copies) {
        a_copy.template start<masked>(prm.a, prm.lda, m0, k_begin, prm.m, tid);
        b_copy.template start<masked>(prm.b, prm.ldb, n0, k_begin, prm.n, tid);
      }
      int write = 0, read = 0; // byte offsets of the stages being filled and read
      const auto next_stage = [](int& offset) {
        offset += stage_bytes;
        if (offset == ring_bytes)
          offset = 0;
      };
      // Until the stage at byte offset `offset` has landed: this thread's own copies (cp.async),
      // or the stage's mbarrier (tensor copies, any thread's).
      const auto wait_stage = [&](int offset) {
        if constexpr (P::tensor_copies) {
          const int s = offset / stage_bytes;
          detail::bulk::wait(stage_full + s, (stage_parity >> s) & 1u);
          stage_parity ^= 1u << s;
        } else {
          wait_copies<P::stages - 2>();
        }
      };
      // Step u's copies (any step: inside k, guarded or none past the end), then one commit
      // group, empty or not, so that the group count always matches the step count.
      const auto issue = [&](std::int64_t u) {
        if constexpr (P::tensor_copies) {
          if (tid == 0 && u < steps) {
            const int s = write / stage_bytes;
            const int k0 = static_cast<int>(k_begin + u * P::bk);
            float* const stage = smem + write / 4;
            // The block's barrier ordered everyone's reads of this stage before; this orders
            // them before the copy engine's writes.
            detail::bulk::fence_proxy_async_shared();
            detail::bulk::expect_bytes(stage_full + s, stage_bytes);
            detail::bulk::tensor_copy_2d(stage, a_map, static_cast<int>(m0), k0, stage_full + s);
            detail::bulk::tensor_copy_2d(stage + S::a_floats, b_map, static_cast<int>(n0), k0,
                                         stage_full + s);
          }
          next_stage(write);
          return;
        }
        if (u < full_steps) {
          a_copy.template copy_inside_k<masked>(window + write);
          b_copy.template copy_inside_k<masked>(window + write + 4 * S::a_floats);
        } else if (u < steps) {
          const std::int64_t k0 = k_begin + u * P::bk;
          a_copy.copy_guarded(window + write, prm.a, prm.lda, m0, k0, prm.m, k_end, tid);
          b_copy.copy_guarded(window + write + 4 * S::a_floats, prm.b, prm.ldb, n0, k0,
                              prm.n, k_end, tid);
        }
        commit_copies();
        next_stage(write);
      };
      // One k-step on the stage at `read`; `more`: a step follows it.
      const auto step = [&](auto more_tag) {
        constexpr bool more = decltype(more_tag)::value;
#pragma unroll
        for (int kk = 0; kk < P::bk; ++kk) {
          if (kk + 1 < P::bk) {
            if constexpr (P::fragment_row > 0) {
              fma_rows(kk, 0, P::fragment_row);
              load_fragments(read / 4, (kk + 1) % 2, kk + 1);
              fma_rows(kk, P::fragment_row, P::tm);
              continue;
            }
            load_fragments(read / 4, (kk + 1) % 2, kk + 1);
          }
          if constexpr (more) {
            // Not earlier: every read of this stage must precede the barrier, since the copies
            // issued right after the next step's begins refill it.
            if (kk == P::bk - 1) {
              int next = read;
              next_stage(next);
              wait_stage(next); // the next step's stage has landed (cp.async: this thread's part)
              __syncthreads(); // and everyone's; this step's last fragment reads are issued
            }
            if (kk + 1 == P::bk) {
              next_stage(read);
              load_fragments(read / 4, 0, 0);
            }
          }
          fmas(kk);
        }
      };
      if (steps > 0) {
#pragma unroll
        for (int u = 0; u < P::stages - 1; ++u)
          issue(u);
        wait_stage(read);
        __syncthreads();
        load_fragments(read / 4, 0, 0);
        std::int64_t t = 0;
        // The steps inside k: their loop has no branch but its own.
        for (; t + P::stages - 1 < full_steps; ++t) {
          a_copy.template copy_inside_k<masked>(window + write);
          b_copy.template copy_inside_k<masked>(window + write + 4 * S::a_floats);
          commit_copies();
          next_stage(write);
          step(std::true_type{});
        }
        for (; t + 1 < steps; ++t) { // the partial last step, the pipeline's drain
          issue(t + P::stages - 1);
          step(std::true_type{});
        }
        step(std::false_type{});
        wait_copies<0>(); // nothing left in flight when the block ends
      }
    };
    if (tile_inside || !P::edge_masks)
      pipeline(std::false_type{});
    else if constexpr (P::edge_masks)
      pipeline(std::true_type{});
  } else if constexpr (P::steady) {
    // The steady loop. Profiling the loop below (Nsight Compute, 4096^3 on an H200) put about a
    // tenth of the stall samples at its head: the per-step choice between full and guarded
    // loads (branches, instruction fetch after them) and the shared buffer's address rebuilt
    // each step, plus the first fragments' latency after every barrier. Here the choice is
    // made once per tile: a tile inside the matrices runs its full k-steps through a loop with
    // no branch but its own, and only the partial last step (and edge tiles) take guarded
    // loads. Buffers are swapped offsets. And the next step's tile is stored, the barrier
    // crossed and its first fragments requested before the FMAs of this step's last k, which
    // hide their latency (the order CUTLASS's pipelined SIMT main loop uses).
    const std::int64_t steps = k_end > k_begin ? (k_end - k_begin + P::bk - 1) / P::bk : 0;
    // Steps wholly inside k that take unguarded (inside tiles) or masked (edge tiles) copies.
    const std::int64_t full_steps =
        tile_inside || P::edge_masks ? (k_end - k_begin) / P::bk : 0;
    // One tile's k-loop, compiled twice as the asynchronous pipeline is: for tiles inside the
    // matrices and for edge tiles (masks set once per tile).
    const auto k_loop = [&](auto masked_tag) {
      constexpr bool masked = decltype(masked_tag)::value;
      if constexpr (masked) { // the loaders again, now with their masks
        a_loader.template start<true>(prm.a, prm.lda, m0, k_begin, prm.m, tid);
        b_loader.template start<true>(prm.b, prm.ldb, n0, k_begin, prm.n, tid);
      }
      int cur = 0, nxt = S::stage_floats;
      // One k-step on buffer `cur`; `more`: the next step's tile is in the loaders' registers.
      const auto step = [&](auto more_tag) {
        constexpr bool more = decltype(more_tag)::value;
#pragma unroll
        for (int kk = 0; kk < P::bk; ++kk) {
          if (kk + 1 < P::bk) {
            load_fragments(cur, (kk + 1) % 2, kk + 1);
          } else if constexpr (more) {
            a_loader.store(smem + nxt, tid);
            b_loader.store(smem + nxt + ALoader::smem_floats, tid);
            __syncthreads();
            load_fragments(nxt, 0, 0);
          }
          fmas(kk);
        }
        const int t = cur;
        cur = nxt;
        nxt = t;
      };
      if (steps > 0) {
        if (full_steps > 0) {
          a_loader.template load_inside_k<masked>();
          b_loader.template load_inside_k<masked>();
        } else {
          load(k_begin);
        }
        store(0);
        __syncthreads();
        load_fragments(cur, 0, 0);
        std::int64_t t = 0;
        for (; t + 1 < full_steps; ++t) { // the next step lies inside k: no branch but the loop's
          a_loader.template load_inside_k<masked>();
          b_loader.template load_inside_k<masked>();
          step(std::true_type{});
        }
        for (; t + 1 < steps; ++t) { // the partial last step
          a_loader.load_guarded(prm.a, prm.lda, m0, k_begin + (t + 1) * P::bk, prm.m, k_end,
                                tid);
          b_loader.load_guarded(prm.b, prm.ldb, n0, k_begin + (t + 1) * P::bk, prm.n, k_end,
                                tid);
          step(std::true_type{});
        }
        step(std::false_type{}); // the last step: nothing follows it
      }
    };
    if (tile_inside || !P::edge_masks)
      k_loop(std::false_type{});
    else if constexpr (P::edge_masks)
      k_loop(std::true_type{});
  } else {
    const auto compute = [&](int stage) {
      const int offset = stage * S::stage_floats;
      load_fragments(offset, 0, 0);
#pragma unroll
      for (int kk = 0; kk < P::bk; ++kk) {
        if (kk + 1 < P::bk)
          load_fragments(offset, (kk + 1) % 2, kk + 1);
        fmas(kk);
      }
    };

    if constexpr (P::stages == 1) {
      for (std::int64_t k0 = k_begin; k0 < k_end; k0 += P::bk) {
        load(k0);
        store(0);
        __syncthreads();
        compute(0);
        __syncthreads();
      }
    } else {
      // Step t computes buffer t % 2 while step t + 1's tile travels into registers; storing it
      // into the other buffer after the FMAs needs only the one barrier that ends each step.
      if (k_begin < k_end) {
        load(k_begin);
        store(0);
        __syncthreads();
      }
      int stage = 0;
      for (std::int64_t k0 = k_begin; k0 < k_end; k0 += P::bk) {
        const bool more = k0 + P::bk < k_end;
        if (more)
          load(k0 + P::bk);
        compute(stage);
        if (more)
          store(stage ^ 1);
        __syncthreads();
        stage ^= 1;
      }
    }
  }

  // Epilogue: alpha x acc (+ beta x C unless beta is 0: then C is never read), 16-byte stores
  // where the tile is inside C and C allows them; atomic adds when k is split outside a cluster.
  bool split = gridDim.y > 1;
  if (prm.cluster_splits) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    add_cluster_partials<P>(acc, smem, tid);
    if (blockIdx.y != 0)
      return;
    split = false;
#else
    __trap(); // the host launches clusters on compute capability 9.0 and later only
#endif
  }
  if constexpr (CTransposed) {
    // Column s of X is row s of C: a piece's 4 rows of X are 4 consecutive floats of it.
#pragma unroll
    for (int h = 0; h < P::tn / 4; ++h)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const std::int64_t col =
            n0 + b_base + piece_offset<P::quadrants, P::lanes_n, P::tn>(lane_n, h) + j;
        if (col >= prm.n)
          continue;
        float* c_row = prm.c + col * prm.ldc;
#pragma unroll
        for (int g = 0; g < P::tm / 4; ++g) {
          const std::int64_t row =
              m0 + a_base + piece_offset<P::quadrants, P::lanes_m, P::tm>(lane_m, g);
          const float v[4] = {acc[4 * g][4 * h + j], acc[4 * g + 1][4 * h + j],
                              acc[4 * g + 2][4 * h + j], acc[4 * g + 3][4 * h + j]};
          store_four(c_row + row, v, prm.m - row, split, prm.c_vector, prm.alpha, prm.beta);
        }
      }
  } else {
#pragma unroll
    for (int g = 0; g < P::tm / 4; ++g)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const std::int64_t row =
            m0 + a_base + piece_offset<P::quadrants, P::lanes_m, P::tm>(lane_m, g) + i;
        if (row >= prm.m)
          continue;
        float* c_row = prm.c + row * prm.ldc;
#pragma unroll
        for (int h = 0; h < P::tn / 4; ++h) {
          const std::int64_t col =
              n0 + b_base + piece_offset<P::quadrants, P::lanes_n, P::tn>(lane_n, h);
          const float* v = &acc[4 * g + i][4 * h];
          if (split) {
#pragma unroll
            for (int j = 0; j < 4; ++j)
              if (col + j < prm.n)
                atomicAdd(c_row + col + j, prm.alpha * v[j]);
          } else if (prm.c_vector && col + 4 <= prm.n) {
            auto* q = reinterpret_cast<float4*>(c_row + col);
            float4 out = make_float4(prm.alpha * v[0], prm.alpha * v[1], prm.alpha * v[2],
                                     prm.alpha * v[3]);
            if (prm.beta != 0.0f) {
              const float4 old = *q;
              out.x += prm.beta * old.x;
              out.y += prm.beta * old.y;
              out.z += prm.beta * old.z;
              out.w += prm.beta * old.w;
            }
            *q = out;
          } else {
#pragma unroll
            for (int j = 0; j < 4; ++j)
              if (col + j < prm.n)
                c_row[col + j] =
                    prm.alpha * v[j] + (prm.beta != 0.0f ? prm.beta * c_row[col + j] : 0.0f);
          }
        }
      }
  }
}

template <class P, bool AKContig, bool BKContig, bool Vec, bool CTransposed = false>
__global__ void __launch_bounds__(P::threads, P::min_blocks) gemm_kernel(const Params prm) {
  static_assert(!P::tensor_copies, "tensor copies: gemm_kernel_tensor");
  gemm_tile<P, AKContig, BKContig, Vec, CTransposed>(prm, nullptr, nullptr);
}

// The same with the stages filled by tensor copies: A stored m-contiguous (k x m), B stored
// n-contiguous (k x n), 16-byte rows; the maps' boxes are P::bm x P::bk and P::bn x P::bk.
template <class P>
__global__ void __launch_bounds__(P::threads, P::min_blocks)
    gemm_kernel_tensor(const __grid_constant__ Params prm, const __grid_constant__ CUtensorMap a_map,
                       const __grid_constant__ CUtensorMap b_map) {
  static_assert(P::tensor_copies, "gemm_kernel_tensor takes a policy with tensor copies");
  gemm_tile<P, false, false, true, false>(prm, &a_map, &b_map);
}

// C = beta C over an m x n matrix of leading dimension ldc (beta 0: zeros, C not read): k == 0,
// alpha == 0, and the first half of a split-k product. A template so that every translation unit
// that launches it has its own instance (the library and the lab are separate binaries' parts).
template <class T>
__global__ void scale_kernel(T* c, std::int64_t m, std::int64_t n, std::int64_t ldc, T beta) {
  const std::int64_t count = m * n;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    T* p = c + i / n * ldc + i % n;
    *p = beta == T(0) ? T(0) : beta * *p;
  }
}

inline void scale(float* c, std::int64_t m, std::int64_t n, std::int64_t ldc, float beta,
                  cudaStream_t stream) {
  const std::int64_t blocks = (m * n + 255) / 256;
  scale_kernel<float><<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
      c, m, n, ldc, beta);
  LADDER_CUDA(cudaGetLastError());
}

// How the splits of a tile add up (see the kernel's header): `atomic` adds into C scaled
// first; `cluster` in a thread-block cluster where the device has clusters and the splits fit one
// (8 blocks), atomic adds otherwise.
enum class SplitSum { atomic, cluster };
inline constexpr std::int64_t max_cluster_splits = 8; // the portable cluster size

// How a product is cut into launches: the tile order and the split over k.
struct Schedule {
  int group_m = 8;
  std::int64_t splits = 1; // k split over this many blocks per tile
  SplitSum split_sum = SplitSum::atomic;
};

// Shared memory of a block whose split adds up in a cluster: the partial tile (bm x bn floats)
// may need more than the stages.
template <class S, class P> constexpr std::size_t cluster_shared_bytes() {
  return std::max(S::bytes, sizeof(float) * static_cast<std::size_t>(P::bm) * P::bn);
}

// Thread-block clusters: compute capability 9.0 and later, asked once per device.
inline bool device_has_clusters() {
  static core::PerDevice cache;
  const int device = core::current_device();
  return cache.get(device, [&] {
    int major = 0;
    LADDER_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return major >= 9 ? 1 : 0;
  }) != 0;
}

// The grid's share of Params for policy P (tiles, their walk, k per split, C's store width);
// returns the number of splits (gridDim.y), none empty.
template <class P> std::int64_t fill_launch_params(Params& prm, Schedule schedule) {
  prm.tiles_m = (prm.m + P::bm - 1) / P::bm;
  prm.tiles_n = (prm.n + P::bn - 1) / P::bn;
  prm.group_m = schedule.group_m;
  std::int64_t splits = schedule.splits < 1 ? 1 : schedule.splits;
  const std::int64_t steps = (prm.k + P::bk - 1) / P::bk;
  if (splits > steps)
    splits = steps;
  prm.k_per_split = (steps + splits - 1) / splits * P::bk;
  prm.c_vector = reinterpret_cast<std::uintptr_t>(prm.c) % 16 == 0 && prm.ldc % 4 == 0;
  return (prm.k + prm.k_per_split - 1) / prm.k_per_split;
}

// Launches one product with policy P. prm needs m, n, k, alpha, beta, the operands and their
// leading dimensions; the rest is filled here. Layout flags: see TileLoader (A untransposed and
// B transposed are k-contiguous).
// A product whose m and n are whole tiles runs the policy without edge masks: compiled beside
// the masked loop, the inside tiles' loop ran slower (`ladder tune matmul -s 8192x8192x128`,
// H100, 2026-11-26: the huge tile 582.9 us against 546.3 us without masks, the 64 x 128 tile
// 422.2 against 413.6; a shape without edge tiles), while on shapes with edge tiles the masks
// win (1000^3: 60.0 against 75.47 us, 4097 x 4095 x 4093: 3.150 against 3.312 ms, same run).
template <class P, bool AKContig, bool BKContig, bool Vec, bool CTransposed = false>
void launch(Params prm, Schedule schedule, cudaStream_t stream) {
  if constexpr (P::edge_masks) {
    if (prm.m % P::bm == 0 && prm.n % P::bn == 0)
      return launch<typename WithoutEdgeMasks<P>::type, AKContig, BKContig, Vec, CTransposed>(
          prm, schedule, stream);
  }
  using S = Shared<P, AKContig, BKContig, Vec>;
  std::int64_t splits = fill_launch_params<P>(prm, schedule);
  prm.cluster_splits = splits > 1 && splits <= max_cluster_splits &&
                       schedule.split_sum == SplitSum::cluster && device_has_clusters();
  if (splits > 1 && !prm.cluster_splits) {
    if (CTransposed)
      scale(prm.c, prm.n, prm.m, prm.ldc, prm.beta, stream);
    else
      scale(prm.c, prm.m, prm.n, prm.ldc, prm.beta, stream);
  }
  constexpr std::size_t cluster_bytes = cluster_shared_bytes<S, P>();
  const std::size_t bytes = prm.cluster_splits ? cluster_bytes : S::bytes;
  const auto kernel = gemm_kernel<P, AKContig, BKContig, Vec, CTransposed>;
  if constexpr (cluster_bytes > 48 * 1024) {
    static core::PerDevice opted; // once per device: the opt-in holds for the process
    opted.get(core::current_device(), [&] {
      LADDER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(cluster_bytes)));
      return 1;
    });
  }
  const dim3 grid(static_cast<unsigned>(prm.tiles_m * prm.tiles_n), static_cast<unsigned>(splits));
  if (prm.cluster_splits) {
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 1;
    cluster.val.clusterDim.y = static_cast<unsigned>(splits);
    cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = dim3(P::threads);
    config.dynamicSmemBytes = bytes;
    config.stream = stream;
    config.attrs = &cluster;
    config.numAttrs = 1;
    LADDER_CUDA(cudaLaunchKernelEx(&config, kernel, prm));
    return;
  }
  kernel<<<grid, P::threads, bytes, stream>>>(prm);
  LADDER_CUDA(cudaGetLastError());
}

// C = op(A) op(B) computed as its transpose, C^T = op(B)^T op(A)^T, stored transposed into C:
// policy P on the flipped layout (op(B)^T is k-contiguous where op(B) is, op(A)^T where op(A)
// is). prm describes C = op(A) op(B) as launch() takes it. An untransposed product runs this way
// on the instance for A as stored and B k-contiguous, whose k-loop measured faster than the
// untransposed one's (docs/matmul.md, "The untransposed product computed as its transpose"):
// ladder::gemm's huge tile with 16-byte loads, and the lab's rung gemm_swapped.
template <class P, bool AKContig, bool BKContig, bool Vec>
void launch_swapped(const Params& prm, Schedule schedule, cudaStream_t stream) {
  Params x = prm;
  x.m = prm.n;
  x.n = prm.m;
  x.a = prm.b;
  x.lda = prm.ldb;
  x.b = prm.a;
  x.ldb = prm.lda;
  launch<P, BKContig, AKContig, Vec, true>(x, schedule, stream);
}

// The same with the layout chosen at run time: the 8 instances of one policy, or of two:
// PTurned where A is stored k-contiguous (turned k-major as it is copied), PAsStored where A is
// stored m-contiguous (copied as stored). The library's huge tile takes the second for its own
// FMA order there (gemm_policies.cuh, HugeAsync3SerpentineFragments8).
template <class PTurned, class PAsStored = PTurned>
void launch_any_layout(const Params& prm, bool a_k_contiguous, bool b_k_contiguous,
                       bool vector_loads, Schedule schedule, cudaStream_t stream) {
  const auto with = [&](auto policy, auto a_k, auto b_k) {
    using P = typename decltype(policy)::type;
    if (vector_loads)
      launch<P, decltype(a_k)::value, decltype(b_k)::value, true>(prm, schedule, stream);
    else
      launch<P, decltype(a_k)::value, decltype(b_k)::value, false>(prm, schedule, stream);
  };
  using yes = std::true_type;
  using no = std::false_type;
  constexpr std::type_identity<PTurned> turned{};
  constexpr std::type_identity<PAsStored> as_stored{};
  if (a_k_contiguous)
    b_k_contiguous ? with(turned, yes{}, yes{}) : with(turned, yes{}, no{});
  else
    b_k_contiguous ? with(as_stored, no{}, yes{}) : with(as_stored, no{}, no{});
}

} // namespace ladder::gemm_detail
