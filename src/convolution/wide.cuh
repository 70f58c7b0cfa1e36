// 2D, float, one channel: a wide register tile per thread, straight from L1. Each thread computes
// KV float4s of outputs (4 KV pixels of a row) in each of RY rows, and walks the RY + MW - 1 input
// rows they need once each (row reuse, apply_input_row), reading each row's window as
// KV + 2 H4 16-byte loads (H4 = ceil(halo / 4)): the neighbours' float4s of the halo come from L1,
// requested by the same warp's other loads. No shared memory, no barrier, no shuffle.
//
// Why this and not the staged kernel (tiled.cuh) at 7 x 7: from 7 x 7 on the FMAs bound the time,
// and what costs is every instruction around them; the staged kernel spends about a quarter of its
// instructions on staging, shared loads, stores and its loop (docs/convolution.md, "What holds
// 7 x 7 on the H200"). At the library's 4 pixels x 8 rows (WideShape) a thread issues 14 rows x 3
// loads and 8 vector stores around 1568 FMAs (32 outputs x 49 taps). The price is registers: the
// sums and the rows' windows in flight take 80 a thread, three blocks of 256 threads per SM.
//
// Edges without a slow block: rows outside the image (a test per warp: its lanes share their rows)
// are mapped through the border policy row by row; a thread whose window reaches past the left or
// right edge, or whose rows are not 16-byte aligned, gathers its window scalar by scalar through
// the border policy; every other thread of the warp keeps its vector loads. Stores are vectors
// where the row is aligned and the thread's pixels lie inside, else scalar up to the edge. The
// sums run mask rows in order and taps left to right, as every other path: bit for bit the same.
#pragma once

#include "convolution/window.cuh"
#include "ladder/detail/bulk_copy.cuh"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace ladder::conv_detail {

template <int MW, int KV, int RY> struct Wide2d {
  static_assert(MW % 2 == 1 && MW <= 17, "odd masks up to 17 wide");
  static_assert(KV >= 1 && RY >= 1, "float4s a row and rows a thread");
  static constexpr int tx = 32, ty = 8, threads = tx * ty;
  static constexpr int halo = MW / 2;
  static constexpr int h4 = (halo + 3) / 4;       // float4s of halo on each side
  static constexpr int d = 4 * h4 - halo;         // the first tap's offset in the window
  static constexpr int loads = KV + 2 * h4;       // 16-byte loads per row
  static constexpr int rows = RY + MW - 1;        // input rows a thread reads
  static constexpr int tile_w = tx * 4 * KV, tile_h = ty * RY;
};

// Where a thread's input rows come from.
enum class WideRows {
  edge,     // the image through the border policy: vectors where inside and aligned, else gathered
  interior, // the image, every row of the warp's inside and aligned: vectors one pitch apart
  staged,   // the block's stage in shared memory (convolve_wide_bulk_2d)
};

// The window columns of a thread whose first output column is x, through the border policy
// (-1: a zero), for the threads at the image's left and right edges.
template <int MW, int KV, int RY>
__device__ __forceinline__ void wide_columns(const ImageArgs& a, std::int64_t x,
                                             int (&cols)[4 * Wide2d<MW, KV, RY>::loads]) {
  using W = Wide2d<MW, KV, RY>;
#pragma unroll
  for (int s = 0; s < 4 * W::loads; ++s)
    cols[s] = static_cast<int>(border_index(x - 4 * W::h4 + s, a.width, a.border));
}

// Input row r of the window of a thread whose first output row is y and first column x (row
// y - halo + r of the image): staged, `loads` shared loads from row r of the thread's part of the
// stage (`stage`: its first row, first float); interior, `loads` vector loads from `row` (the
// row's start); at the edges the row mapped through the border policy, vector loads where
// `vector` and the row is inside, else the window gathered through `cols`.
template <int MW, int KV, int RY, WideRows Rows, int StageStride = 0>
__device__ __forceinline__ void wide_load_window(const ImageArgs& a, const unsigned char* row,
                                                 int r, std::int64_t x, std::int64_t y,
                                                 bool vector, const int* cols, const float* stage,
                                                 float4 (&win)[Wide2d<MW, KV, RY>::loads]) {
  using W = Wide2d<MW, KV, RY>;
  if constexpr (Rows == WideRows::staged) {
    const auto* p = reinterpret_cast<const float4*>(stage + r * StageStride);
#pragma unroll
    for (int j = 0; j < W::loads; ++j)
      win[j] = p[j];
    return;
  }
  constexpr bool interior = Rows == WideRows::interior;
  std::int64_t ym = 0;
  if constexpr (!interior) {
    ym = border_index(y - W::halo + r, a.height, a.border);
    row = a.in + (ym < 0 ? 0 : ym) * a.in_pitch;
  }
  if (interior || (vector && ym >= 0)) {
    const auto* p = reinterpret_cast<const float4*>(row) + x / 4 - W::h4;
#pragma unroll
    for (int j = 0; j < W::loads; ++j)
      win[j] = __ldg(p + j);
  } else {
    const auto* in_row = reinterpret_cast<const float*>(row);
    float* e = reinterpret_cast<float*>(win);
#pragma unroll
    for (int s = 0; s < 4 * W::loads; ++s)
      e[s] = ym < 0 || cols[s] < 0 ? 0.0f : in_row[cols[s]];
  }
}

// The RY output rows from y of a thread's 4 KV pixels at column x. Interior: the warp's rows and
// every lane's window lie inside the image and are aligned, and its outputs too; the row pointer
// steps by the pitch, each row is `loads` vector loads, the stores are vectors, nothing is
// tested. Staged: the same with the rows read from shared memory (`stage`, StageStride floats a
// row). Otherwise each row is mapped through the border policy, lanes whose window is inside and
// aligned (`vector`) load vectors and the others gather their window through `cols`, and the
// stores stop at the image's edges.
//
// RowLoop false: the RY + MW - 1 input rows unrolled, each read once and applied to every output
// row it feeds. RowLoop true: a loop over the mask's rows j, each step reading the RY input rows
// j .. j + RY - 1 (again: L1 holds them) and applying mask row j to every output row: MW times
// the loads, and a loop body of RY x 4 KV x MW fused multiply-adds instead of the whole tile
// unrolled (at 8 x 8 and 7 x 7 the unrolled tile is some 53 KB of SASS, past what the SM's
// instruction caches hold). Both sum mask rows in order and taps left to right.
template <int MW, int KV, int RY, WideRows Rows, bool RowLoop, int StageStride = 0>
__device__ __forceinline__ void wide_tile(const ImageArgs& a, const MaskParam& mask,
                                          std::int64_t x, std::int64_t y, bool vector,
                                          const int* cols, const float* stage = nullptr) {
  using W = Wide2d<MW, KV, RY>;
  constexpr int K = 4 * KV;
  constexpr bool Interior = Rows != WideRows::edge; // for the row pointer and the stores
  float acc[RY][K];
#pragma unroll
  for (int o = 0; o < RY; ++o)
#pragma unroll
    for (int k = 0; k < K; ++k)
      acc[o][k] = 0.0f;
  const unsigned char* top =
      a.in + (Rows == WideRows::interior ? (y - W::halo) * a.in_pitch : 0);
  if constexpr (RowLoop) {
#pragma unroll 1
    for (int j = 0; j < MW; ++j) {
      float m[MW]; // mask row j
#pragma unroll
      for (int i = 0; i < MW; ++i)
        m[i] = mask.w[j * MW + i];
      const unsigned char* row = top + j * a.in_pitch;
#pragma unroll
      for (int o = 0; o < RY; ++o, row += a.in_pitch) {
        float4 win[W::loads];
        wide_load_window<MW, KV, RY, Rows, StageStride>(a, row, j + o, x, y, vector, cols, stage,
                                                        win);
        const float* w = reinterpret_cast<const float*>(win) + W::d;
#pragma unroll
        for (int i = 0; i < MW; ++i)
#pragma unroll
          for (int k = 0; k < K; ++k)
            acc[o][k] = __fmaf_rn(m[i], w[k + i], acc[o][k]);
      }
    }
  } else {
    const unsigned char* row = top;
#pragma unroll
    for (int r = 0; r < W::rows; ++r, row += a.in_pitch) {
      float4 win[W::loads];
      wide_load_window<MW, KV, RY, Rows, StageStride>(a, row, r, x, y, vector, cols, stage, win);
      apply_input_row<MW>(acc, mask, reinterpret_cast<const float*>(win) + W::d, r);
    }
  }
  unsigned char* out_row = a.out + y * a.out_pitch;
  const bool out_vector =
      Interior || (rows_aligned_to<float4>(a.out, a.out_pitch) && x + K <= a.width);
#pragma unroll
  for (int o = 0; o < RY; ++o, out_row += a.out_pitch) {
    if (!Interior && y + o >= a.height)
      break;
    auto* out = reinterpret_cast<float*>(out_row) + x;
    if (out_vector) {
#pragma unroll
      for (int v = 0; v < KV; ++v)
        reinterpret_cast<float4*>(out)[v] = pack4(acc[o] + 4 * v);
    } else {
#pragma unroll
      for (int k = 0; k < K; ++k)
        if (x + k < a.width)
          out[k] = acc[o][k];
    }
  }
}

// Asks L2 for the 128-byte lines of the RY input rows from y that a warp of an interior tile
// owns (its first output rows: the rows above come from the warp or block above it; x0 is the
// tile's first column), all at once
// and one line a lane, before the warp's first load. The unrolled tile's registers hold about two
// input rows in flight a warp, some 24 KB an SM at three blocks, below what DRAM's latency at the
// copy's rate asks of each SM; the prefetches put the warp's whole share in flight for a few
// instructions, and its loads then wait on L2 rather than DRAM. (ptxas issues the prefetch
// after the first rows' loads, before the first FMA: at the kernel's start either way.)
template <int MW, int KV, int RY>
__device__ __forceinline__ void wide_prefetch_rows(const ImageArgs& a, std::int64_t x0,
                                                   std::int64_t y) {
  using W = Wide2d<MW, KV, RY>;
  constexpr int lines_a_row = 4 * KV; // the warp's tx x 4 KV floats: 512 KV bytes
  const unsigned char* first = a.in + y * a.in_pitch + x0 * 4;
  constexpr int lines = lines_a_row * RY;
#pragma unroll
  for (int i = 0; i < (lines + W::tx - 1) / W::tx; ++i) {
    const int l = static_cast<int>(threadIdx.x) + i * W::tx;
    if (lines % W::tx == 0 || l < lines)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(first + (l / lines_a_row) * a.in_pitch +
                                                      (l % lines_a_row) * 128));
  }
}

// A block's warps on the tile whose first output is (x0, y0), each on its own rows: interior
// warps (rows and windows inside the image and aligned) by the interior path, after asking L2 for
// their rows where PrefetchL2, the others by the edge path.
template <int MW, int KV, int RY, bool RowLoop, bool PrefetchL2>
__device__ __forceinline__ void wide_warps(const ImageArgs& a, const MaskParam& mask,
                                           std::int64_t x0, std::int64_t y0) {
  using W = Wide2d<MW, KV, RY>;
  constexpr int K = 4 * KV;
  const std::int64_t x = x0 + threadIdx.x * K;
  const std::int64_t y = y0 + threadIdx.y * RY;
  if (y >= a.height)
    return; // the whole warp: its lanes share y
  const bool vector = rows_aligned_to<float4>(a.in, a.in_pitch) && x - 4 * W::h4 >= 0 &&
                      x + K + 4 * W::h4 <= a.width;
  const bool interior = __all_sync(0xffffffffu, vector) &&
                        rows_aligned_to<float4>(a.out, a.out_pitch) && y - W::halo >= 0 &&
                        y - W::halo + W::rows <= a.height;
  if (interior) {
    if constexpr (PrefetchL2)
      wide_prefetch_rows<MW, KV, RY>(a, x0, y);
    return wide_tile<MW, KV, RY, WideRows::interior, RowLoop>(a, mask, x, y, true, nullptr);
  }
  if (x >= a.width)
    return; // no output: the lanes share nothing
  int cols[4 * W::loads];
  wide_columns<MW, KV, RY>(a, x, cols);
  wide_tile<MW, KV, RY, WideRows::edge, RowLoop>(a, mask, x, y, vector, cols);
}

template <int MW, int KV, int RY, int MinBlocks, bool RowLoop, bool PrefetchL2>
__global__ void __launch_bounds__(256, MinBlocks)
    convolve_wide_2d(ImageArgs a, const __grid_constant__ MaskParam mask) {
  using W = Wide2d<MW, KV, RY>;
  wide_warps<MW, KV, RY, RowLoop, PrefetchL2>(a, mask,
                                              static_cast<std::int64_t>(blockIdx.x) * W::tile_w,
                                              static_cast<std::int64_t>(blockIdx.y) * W::tile_h);
}

// The wide tile staged by the bulk copy engine. What holds convolve_wide_2d at 7 x 7 is its
// loads' wait (Nsight Compute, H200: a quarter of the cycles with no warp ready, most of a warp's
// stall on L1TEX) and L2's load (83% of its peak): each warp reads its 8 rows' 14 input rows
// from L2 (L1 catches the halo columns but not the 6 rows the warp below reads too), and the
// registers hold two rows of them in flight. Here one warp hands the block's whole stage to the
// copy engine at once, one bulk copy a row (the tile's columns and h4 float4s either side: 544
// bytes at 4 pixels a thread), so the bytes in flight no longer depend on registers and L2 sends
// each row once per block; each thread then reads its windows from shared memory (LDS.128, a
// warp's 16-byte words consecutive: no bank conflict) with the same sums as the other paths, bit
// for bit. The rows land in groups of RY, one mbarrier a group, so a warp starts once its own two
// groups are in. Blocks whose stage reaches outside the image, or images whose rows are not
// 16-byte aligned, run convolve_wide_2d's warps (with the L2 prefetch). Each warp waits on its
// own groups' barriers (mbarrier.try_wait with a suspend-time hint: the warp sleeps rather than
// polls); warp 0 waiting for the whole stage and the block's barrier releasing the others was
// slower (profile driver, H100, 2026-11-27: 213.3 against 207.1 us at 7 x 7).
template <int MW, int KV, int RY> struct WideStage {
  using W = Wide2d<MW, KV, RY>;
  static constexpr int rows = W::tile_h + MW - 1;
  static constexpr int stride = 4 * (W::tx * KV + 2 * W::h4); // floats a staged row
  static constexpr unsigned row_bytes = 4u * stride;
  static constexpr int groups = (rows + RY - 1) / RY; // of RY rows, one mbarrier each
  static constexpr int barrier_floats = (2 * groups + 3) / 4 * 4; // keeps the rows 16-byte aligned
  static constexpr int floats = barrier_floats + rows * stride;
  static_assert(groups <= 32 && row_bytes % 16 == 0);
  static_assert(4 * floats <= 48 * 1024, "a static stage: at most 48 KB");
  static constexpr unsigned group_bytes(int g) {
    return static_cast<unsigned>(rows - g * RY < RY ? rows - g * RY : RY) * row_bytes;
  }
};

template <int MW, int KV, int RY, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    convolve_wide_bulk_2d(ImageArgs a, const __grid_constant__ MaskParam mask) {
  using W = Wide2d<MW, KV, RY>;
  using S = WideStage<MW, KV, RY>;
  __shared__ __align__(16) float shared[S::floats];
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * W::tile_w;
  const std::int64_t y0 = static_cast<std::int64_t>(blockIdx.y) * W::tile_h;
  const bool staged = detail::bulk::available && rows_aligned_to<float4>(a.in, a.in_pitch) &&
                      rows_aligned_to<float4>(a.out, a.out_pitch) && x0 - 4 * W::h4 >= 0 &&
                      x0 + W::tile_w + 4 * W::h4 <= a.width && y0 - W::halo >= 0 &&
                      y0 - W::halo + S::rows <= a.height;
  if (!staged)
    return wide_warps<MW, KV, RY, false, true>(a, mask, x0, y0); // the block's: no barrier below
  auto* bars = reinterpret_cast<std::uint64_t*>(shared);
  float* stage = shared + S::barrier_floats;
  const int thread = static_cast<int>(threadIdx.x + threadIdx.y * W::tx);
  if (thread < S::groups)
    detail::bulk::barrier_init(bars + thread, 1);
  __syncthreads();
  const int ty = static_cast<int>(threadIdx.y);
  if (threadIdx.x == 0) {
    // Lane 0 of warp ty copies groups ty, ty + 8, ...: the warps issue their copies side by side.
    // (ptxas makes each copy's operands uniform in a loop over the active lanes, some two dozen
    // instructions a copy with its address; warp 0 issuing all 70 ran 211.4 us at 7 x 7 against
    // 207.1 this way, profile driver, H100, 2026-11-27.)
    const unsigned char* first =
        a.in + (y0 - W::halo) * a.in_pitch + (x0 - 4 * W::h4) * std::int64_t{sizeof(float)};
    for (int g = ty; g < S::groups; g += W::ty) {
      detail::bulk::expect_bytes(bars + g, S::group_bytes(g));
      const int end = (g + 1) * RY < S::rows ? (g + 1) * RY : S::rows;
      for (int r = g * RY; r < end; ++r)
        detail::bulk::copy_counted(stage + r * S::stride, first + r * a.in_pitch, S::row_bytes,
                                   bars + g);
    }
  }
  // The warp's input rows ty RY .. ty RY + RY + MW - 2 lie in these groups.
  const int last = (ty * RY + RY + MW - 2) / RY;
  for (int g = ty; g <= last && g < S::groups; ++g)
    detail::bulk::wait_suspended(bars + g, 0);
  const std::int64_t x = x0 + threadIdx.x * 4 * KV, y = y0 + ty * RY;
  wide_tile<MW, KV, RY, WideRows::staged, false, S::stride>(
      a, mask, x, y, true, nullptr, stage + ty * RY * S::stride + threadIdx.x * 4 * KV);
}

// The library's shape per mask width (api.cu takes this kernel for float images of one channel
// from wide_narrowest to wide_widest, rows 16-byte aligned): KV float4s a row, RY rows a thread,
// registers for MinBlocks blocks per SM, the row loop or the unrolled tile. `ladder tune
// convolution -s 8192x8192`, H200, 2026-11-27, against the copy's 129.7 us
// (bench/results/convolution-wide-tune-h200-2026-11-27.md, where wide_window was the 8 x 8 tile
// and wide_window_4px today's wide_window): 4 pixels x 8 rows unrolled (80 registers, 3 blocks
// per SM) 168.1 us at 7 x 7, where the library's staged kernel took 179.7; 8 x 8 (128 registers,
// 2 blocks) 237.4, 8 x 4 (3 blocks) 178.8, 8 x 6 198.4, 12 x 4 220.0. Again on another H200
// (-r2.md): 4 x 8 168.3 against the staged 180.1; the row loop slower at every shape (8 x 8
// 336.3, 4 x 8 313.3, 4 x 16 357.6), so it is not the instruction cache that holds the unrolled
// 8 x 8 tile back: each step's loads wait with nothing unrolled to hide them. At 9 x 9 the staged
// kernel kept the lead (235.3 and 235.6 us against 256.4 and 256.2 for 4 x 8), and at 3 x 3 and
// 5 x 5 the lanes (132.3 and 141.2 us against 138.2 and 144.7). Each warp first asking L2 for its
// own rows (wide_prefetch_rows): 162.4 us at 7 x 7 against 167.1 without, in the same run
// (`ladder tune convolution -s 8192x8192:7`, H200, bench/results/
// convolution-wide-l2-tune-h200-2026-11-27.md; 4 blocks per SM, 64 registers, 162.0 us without
// the prefetch and 168.2 with it). Two more H200 runs (-shapes-, -hints-tune-h200-2026-11-27.md):
// this shape 162.7 and 162.7 us against 167.5 without the prefetch; 4 x 6 at 4 blocks 173.4, 4 x 4
// at 5 blocks 186.8 (178.9 with the prefetch); L1 hints on the interior's loads (evict_last)
// 163.4 and on its stores (no_allocate) 167.6, built at commit cf64b6d and not kept. On an H100
// (bench/results/convolution-wide-h100-2026-11-27.md): 199.1 us against the staged kernel's 196.1
// and the copy's 183.8, level within that run's noise.
inline constexpr int wide_narrowest = 7, wide_widest = 7;
template <int MW> struct WideShape {
  static constexpr int kv = 1, ry = 8, min_blocks = 3;
  static constexpr bool row_loop = false, prefetch_l2 = true;
};

// Blocks along y of convolve_wide_2d for an image of this height.
template <int MW, int KV, int RY> std::int64_t wide_2d_blocks_y(std::int64_t height) {
  using W = Wide2d<MW, KV, RY>;
  return (height + W::tile_h - 1) / W::tile_h;
}

// Whether convolve_wide_2d can take an image of this height (its grid's rows of blocks).
template <int MW, int KV, int RY> bool wide_2d_fits(std::int64_t height) {
  return wide_2d_blocks_y<MW, KV, RY>(height) <= 65535;
}

// The grid of convolve_wide_2d and convolve_wide_bulk_2d (a block per tile) for an image of
// this size (width, height > 0); `kernel` names the kernel in the errors.
template <int MW, int KV, int RY> dim3 wide_2d_grid(const ImageArgs& a, const char* kernel) {
  using W = Wide2d<MW, KV, RY>;
  if (!wide_2d_fits<MW, KV, RY>(a.height))
    throw std::invalid_argument(std::string(kernel) + ": more than 65535 rows of blocks");
  if (a.width > std::numeric_limits<int>::max() / 2) // the edge threads' columns are ints
    throw std::invalid_argument(std::string(kernel) + ": rows wider than 2^30 pixels");
  const std::int64_t tiles_x = (a.width + W::tile_w - 1) / W::tile_w;
  return dim3(static_cast<unsigned>(tiles_x),
              static_cast<unsigned>(wide_2d_blocks_y<MW, KV, RY>(a.height)));
}

// Launches convolve_wide_2d for a square mask of width MW (width, height > 0; wide_2d_fits).
template <int MW, int KV, int RY, int MinBlocks, bool RowLoop = false, bool PrefetchL2 = false>
void launch_wide_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  using W = Wide2d<MW, KV, RY>;
  convolve_wide_2d<MW, KV, RY, MinBlocks, RowLoop, PrefetchL2>
      <<<wide_2d_grid<MW, KV, RY>(a, "wide_2d"), dim3(W::tx, W::ty), 0, stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}

// Launches convolve_wide_bulk_2d for a square mask of width MW (width, height > 0; wide_2d_fits).
template <int MW, int KV, int RY, int MinBlocks>
void launch_wide_bulk_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  using W = Wide2d<MW, KV, RY>;
  convolve_wide_bulk_2d<MW, KV, RY, MinBlocks>
      <<<wide_2d_grid<MW, KV, RY>(a, "wide_bulk_2d"), dim3(W::tx, W::ty), 0, stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}

} // namespace ladder::conv_detail
