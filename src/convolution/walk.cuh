// The walked tile: float images of one channel, square masks 3 .. 9, rows 16-byte aligned. Each
// warp owns S output rows of 128 columns (4 pixels a thread, as the wide tile, wide.cuh) and walks
// their S + MW - 1 input rows in a loop with rolling sums (strip.cuh's strip_apply_row: MW open
// output rows, slot j from slot j - 1, each finished row stored at once), so a thread holds
// MW x 4 sums and one row's window (three 16-byte loads from L1), 64 registers, 32 warps an SM. The
// warp's lines of the rows in flight are asked of L1 two rows ahead by a prefetch that holds no
// register.
//
// Pairs: the odd warps of a block walk upwards, so two neighbours read the rows they share at about
// the same time and L1 serves the second. The direction and the taps' orientation (the mask both
// ways up, WalkTaps) are warp-uniform values read through a shuffle from lane 0, so ptxas keeps the
// taps in uniform registers (every FMA `FFMA R, R, UR, R`) and both directions run one code path.
// An upward warp adds the mask's rows bottom first, so its sums agree with the reference within
// float rounding, not bit for bit. Without Pairs every warp walks down: bit for bit the reference.
//
// Edges, with one code path: every warp walks as an interior warp. The warps tile the outputs
// whose windows lie inside the image, columns 4 .. R - 1 (R the last multiple of 4 with R + 4 <=
// width) and rows halo .. height - halo - 1; the first and last column and row of warps are moved
// inwards until their windows fit (moved up or down, they store only their own rows). The frame
// left around them (4 columns on the left, 4 to 7 on the right, halo rows at the top and bottom)
// is computed by the grid's first rows of blocks, walked down columns of 4 pixels, a thread a run
// (frame.hpp), through the border policy, its sums in the reference's order. So the kernel needs
// images at least 136 pixels wide (and narrower than 2^31: the frame holds its columns in 32 bits)
// and S + MW - 1 rows high.
// Measured on an H200 (2026-11-29, float 8192^2 7 x 7, bench/results/
// convolution-walk-edges-h200-2026-11-29.md): with edge warps of their own, their first and last
// rows unrolled as the interior's (some 6,000 SASS instructions), every warp waited 0.71 cycles an
// issued instruction on instruction fetch, against 0.12 with the edge warps run through a copy of
// the interior's code, and the kernel took 171 us against 148; with the edge warps' rows in one
// rolled loop (a small path, but some 550 instructions a row with its gathers) it took 183-199 us:
// a block's warps keep their registers until its slowest warp ends, so a slow edge warp holds its
// block. The edge warps are 3.5% of the warps.
#pragma once

#include "convolution/frame.hpp"
#include "convolution/strip.cuh"
#include "convolution/walk_tail.hpp"
#include "convolution/wide.cuh"
#include "core/resident_grid.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace ladder::conv_detail {

// KV: float4s of outputs a thread (4 KV pixels), a warp 128 KV columns. The library's is 1: at 2
// (96 registers, half the warps, a kernel of 9,416 instructions) the walk issued 7.5% fewer
// instructions and took 1.26-1.28x the copy against 1.14-1.16x, its warps waiting on instruction
// fetch (H200, 2026-11-29, bench/results/convolution-walk-wide-h200-2026-11-29.md).
template <int MW, int S, int WarpsX, int WarpsY, int KV = 1> struct Walk2d {
  static_assert(MW % 2 == 1 && MW >= 3 && MW <= 9, "one float4 of halo a side: masks 3 .. 9");
  static_assert(S >= MW - 1, "a warp's first and last MW - 1 rows apart");
  using Window = Wide2d<MW, KV, S>;               // a thread's window: KV + 2 float4s a row
  static constexpr int threads = 32 * WarpsX * WarpsY;
  static constexpr int halo = MW / 2, rows = S + MW - 1;
  static constexpr int warp_w = 128 * KV, tile_w = warp_w * WarpsX, tile_h = S * WarpsY;
  // Rows asked for ahead of the walk by default (the library's shape sets its own, WalkShape):
  // asked of L1, 3 measured the same, 1 and 4 slower; the window loaded during the row before and
  // every row asked of L2 at the start, slower (H200, 2026-11-29, bench/results/
  // convolution-walk-relax-, -loads- and -early-loads-h200-2026-11-29.md).
  static constexpr int ahead = 2;
  // Output rows a thread of the frame walks down a side column (frame.hpp): 8 measured the same,
  // 32 slower (H200, 2026-11-29, bench/results/convolution-walk-frame-walks-h200-2026-11-29.md).
  static constexpr int frame_side_rows = 16;
};

// The mask both ways up: the taps, then the rows upside down. A parameter of its own (392 bytes
// at 7 x 7), not MaskParam (3.8 KB): a launch uploads its parameters, and the large one cost some
// 6 us a launch timed alone.
template <int MW> struct WalkTaps {
  float w[2 * MW * MW];
};

template <int MW> WalkTaps<MW> walk_taps(const MaskParam& mask) {
  WalkTaps<MW> both{};
  for (int j = 0; j < MW; ++j)
    for (int i = 0; i < MW; ++i) {
      both.w[j * MW + i] = mask.w[j * MW + i];
      both.w[MW * MW + j * MW + i] = mask.w[(MW - 1 - j) * MW + i];
    }
  return both;
}

// One orientation of WalkTaps, at a warp-uniform offset (0 or MW^2): what strip_apply_row reads
// as .w[j MW + i].
template <int MW> struct OrientedTaps {
  struct Row {
    const WalkTaps<MW>& m;
    int offset;
    __device__ __forceinline__ float operator[](int i) const { return m.w[offset + i]; }
  } w;
};

// Asks L1 (Level 1) or L2 (Level 2; 3: marked evict-last) for the line holding p; no register
// waits on it.
template <int Level> __device__ __forceinline__ void prefetch_line(const void* p) {
  if constexpr (Level == 1)
    asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
  else if constexpr (Level == 2)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
  else
    asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(p));
}

// Asks for a warp's row ahead: Level 1 to 3 as prefetch_line, a lane a line (p: the lane's line);
// 4: the warp's Bytes from p asked of L2 in bulk by lane 0 (cp.async.bulk.prefetch).
template <int Level, int Bytes> __device__ __forceinline__ void ask_ahead(const void* p, int lane) {
  if constexpr (Level == 4) {
    if (lane == 0)
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "n"(Bytes) : "memory");
  } else {
    prefetch_line<Level>(p);
  }
}

// A walk of s output rows' s + MW - 1 input rows (s >= MW - 1) through step(r, lo, hi, edge): the
// first and last MW - 1 rows unrolled, each with its open slots lo .. hi known at compile time
// (edge: a std::true_type), the rows between in a loop kept rolled, so that ptxas cannot hoist
// every row's loads to the start.
template <int MW, class Step> __device__ __forceinline__ void walk_phases(int s, Step&& step) {
#pragma unroll
  for (int r = 0; r < MW - 1; ++r)
    step(r, 0, r, std::true_type{});
#pragma unroll 1
  for (int r = MW - 1; r < s; ++r)
    step(r, 0, MW - 1, std::false_type{});
#pragma unroll
  for (int e = 0; e < MW - 1; ++e)
    step(s + e, e + 1, MW - 1, std::true_type{});
}

// walk_interior's after_row when nothing is to be done after a row.
struct NoRowHook {
  __device__ __forceinline__ void operator()(int) const {}
};

// A warp's walk: s output rows (s >= MW - 1) from y of a thread's 4 KV pixels at column x, every
// row and window inside the image and aligned; input rows downwards or (up) upwards. 16-byte loads
// and stores one pitch apart, nothing tested where the warp owns every row it computes (Owned);
// otherwise (a warp moved up or down to fit the image) only output rows y + o for
// own_lo <= o < own_hi are stored. (AheadLevel: how the rows Ahead rows ahead are asked for,
// ask_ahead's Level; others than 1 only in the strips tool's measurements. after_row(r): called
// after each walked row, the strips tool's long walks keep their warps together through it.)
// The output pointer holds the thread's column: computed from the row's start every row, the
// store cost 4 more instructions a row. Fewer instructions a row measured slower (H200,
// 2026-11-29, bench/results/convolution-walk-code-h200-2026-11-29.md): a copy of the walk a
// direction, its taps at an offset known at compile time (no ULDC: 214 a row against 221), 172-176
// us against 150-151, its warps waiting on instruction fetch; 32-bit offsets from fixed bases
// (217 a row), 160-162 us, with spills outside the loop.
template <int MW, bool Owned = true, int AheadLevel = 1, class RowHook = NoRowHook, int KV = 1,
          int Ahead = Walk2d<MW, MW - 1, 1, 2, KV>::ahead>
__device__ __forceinline__ void walk_interior(const ImageArgs& a, const OrientedTaps<MW>& taps,
                                              std::int64_t x, std::int64_t y, int s, bool up,
                                              int own_lo = 0, int own_hi = 0, RowHook after_row = {}) {
  using Wk = Walk2d<MW, MW - 1, 1, 2, KV>; // the window, halo and rows ahead: the same for any s
  using W = typename Wk::Window;
  const int rows = s + MW - 1;
  const std::int64_t step = up ? -a.in_pitch : a.in_pitch;
  const std::int64_t out_step = up ? -a.out_pitch : a.out_pitch;
  // The first walked row's window, and the thread's pixels in the output row the first finished
  // slot goes to (down: the tile's first row; up: its last).
  const unsigned char* window =
      a.in + (y - Wk::halo + (up ? rows - 1 : 0)) * a.in_pitch + (x - 4 * W::h4) * 4;
  unsigned char* out_px = a.out + (y + (up ? s - 1 : 0)) * a.out_pitch + x * 4;
  // Walked row r finishes output row y + r - (MW - 1) downwards, y + rows - 1 - r upwards: those
  // owned are r_first .. r_last.
  const int r_first = up ? rows - own_hi : MW - 1 + own_lo, r_last = up ? rows - 1 - own_lo : MW - 2 + own_hi;
  // Lane l asks L1 for line l % 4 KV of the warp's 4 KV lines of a row ahead (lanes asking for
  // one line make one request). The float4s beside them are not asked for: those inside the block
  // are its other warp's lines, and the two at its edges come when loaded. Asked for as well, they
  // cost L1 17% more requests of L2 and the walk 0.5-3 us (H200, 2026-11-29, bench/results/
  // convolution-walk-relax-h200-2026-11-29.md).
  const int lane = static_cast<int>(threadIdx.x % 32), line = lane % (4 * KV);
  const unsigned char* ahead = window + (4 * W::h4 - 4 * KV * lane) * 4 + line * 128;
#pragma unroll
  for (int r = 0; r < Ahead; ++r)
    ask_ahead<AheadLevel, 512 * KV>(ahead + r * step, lane);
  ahead += Ahead * step;
  static_assert(Ahead <= MW - 1, "the rows between ask for rows of the walk only");
  float acc[MW][4 * KV];
  const auto walk_step = [&](int r, int lo, int hi, auto edge) {
    if (!decltype(edge)::value || r + Ahead < rows) { // (rows between: r < s, so always)
      ask_ahead<AheadLevel, 512 * KV>(ahead, lane);
      ahead += step;
    }
    float4 win[W::loads];
    const auto* p = reinterpret_cast<const float4*>(window);
#pragma unroll
    for (int j = 0; j < W::loads; ++j)
      win[j] = __ldg(p + j);
    window += step;
    strip_apply_row<MW, 4 * KV, decltype(edge)::value>(acc, reinterpret_cast<const float*>(win), taps, lo, hi);
    after_row(r);
    if (decltype(edge)::value && lo == 0 && r < MW - 1)
      return; // (lo > 0 past the loop: every row there finishes one)
    if (Owned || (r >= r_first && r <= r_last)) {
#pragma unroll
      for (int v = 0; v < KV; ++v)
        reinterpret_cast<float4*>(out_px)[v] = pack4(acc[MW - 1] + 4 * v);
    }
    out_px += out_step;
  };
  walk_phases<MW>(s, walk_step);
}

// How convolve_walk_2d's grid (blocks_x x blocks_y blocks) splits the image: its first
// frame_rows rows of blocks compute the frame (frame.hpp: frame.count threads, each walking the
// halo rows at the top or the bottom of a column of 4 pixels, or a run of the side columns: the
// 4 left columns and those from frame.right); the rows below tile the image with warps, warps_x
// across (128 KV columns each) and WarpsY a block down, S rows a warp, and from tile row tail_row
// on (the last blocks the GPU starts) TailS rows a warp. A block finds its work without a
// division: with the frame's blocks spread one every few tiles of a 1D grid, its two divisions
// took 44 of the some 3,745 instructions a warp issues; measured in `ladder run`, 148.2 us against
// 148.9 with them (H200, 2026-11-29, convolution-walk-grid-h200-2026-11-29.md against
// -walk-store-: one run each, within their spread). (Spread out or all first, the frame's blocks
// measured the same: 156.5-156.7 against 156.8-157.2 us, a thread a pixel then; all last, slower:
// 152.1-152.5 against 150.4-151.8, convolution-walk-tail-h200-2026-11-29.md, and 156.8-158.1
// against 148.3-149.5 with the tail, convolution-walk-frame-walks-h200-2026-11-29.md.)
struct WalkGrid {
  FrameWalks frame;
  unsigned frame_rows = 0, tail_row = 0, blocks_x = 0, blocks_y = 0;
  int warps_x = 0;
};

// One block's part of convolve_walk_2d's grid: block column bx of tile row tile_row (rows of blocks
// below the frame's), warp w of the block at column w % WarpsX, row w / WarpsX; Pairs: odd rows of
// warps walk upwards. (A function of its own so that a grid of resident blocks can walk several
// tiles each: the strips tool's stacked walks.)
template <int MW, int S, int WarpsX, int WarpsY, bool Pairs, int KV, int TailS, int AheadLevel, int Ahead>
__device__ __forceinline__ void walk_tile(const ImageArgs& a, const WalkTaps<MW>& mask, const WalkGrid& g,
                                          unsigned bx, unsigned tile_row) {
  static_assert(!Pairs || WarpsY % 2 == 0, "warps in pairs, one above the other");
  static_assert(TailS >= MW - 1 && TailS <= S, "a tail warp's first and last MW - 1 rows apart");
  using Wk = Walk2d<MW, S, WarpsX, WarpsY, KV>;
  const int warp = static_cast<int>(threadIdx.y), lane = static_cast<int>(threadIdx.x);
  // The warp's rows: S from its tile row's start, or in the tail TailS. (A tail makes the row
  // count a run-time value, which costs the loop 5 instructions a row, 224 against 219 at 7 x 7,
  // measured level; without one, TailS == S, it stays a constant.)
  const int wx = static_cast<int>(bx) * WarpsX + warp % WarpsX;
  const auto walk = [&](int s, std::int64_t y_own) {
    if (wx >= g.warps_x || y_own >= a.height - Wk::halo)
      return; // the whole warp: its rows are the frame's
    // The warp owns the outputs of its 128 KV columns and s rows that lie off the frame; it
    // computes from (x0, y0), moved from (x_own, y_own) until its windows lie inside the image (the
    // first and last column and row of warps). Moved sideways, it also stores the columns it shares
    // with its neighbour: the same values bit for bit (the same rows walked the same way, the same
    // sums), so the warp keeps the interior's code; the copy with a test before each store reloads
    // every tap every row (265 instructions a row against 223). Moved up or down, it shares rows
    // with a warp that may walk the other way, and stores only its own.
    const std::int64_t x_own = Wk::warp_w * static_cast<std::int64_t>(wx);
    const std::int64_t x_last = g.frame.right - Wk::warp_w, y_last = a.height - Wk::halo - s;
    const std::int64_t x0 = x_own < 4 ? 4 : x_own > x_last ? x_last : x_own;
    const std::int64_t y0 = y_own < Wk::halo ? Wk::halo : y_own > y_last ? y_last : y_own;
    const std::int64_t x = x0 + 4 * KV * lane;
    // Warp-uniform (through lane 0, so that ptxas knows): odd warps walk upwards. (Without pairs
    // too: with the taps at an offset ptxas knows to be 0 it held them in registers across the
    // walk, spilled, and moved them to uniform registers every row.)
    const int up = __shfl_sync(0xffffffffu, Pairs ? (warp / WarpsX) % 2 : 0, 0);
    const OrientedTaps<MW> taps{{mask, up * MW * MW}};
    if (y0 == y_own)
      return walk_interior<MW, true, AheadLevel, NoRowHook, KV, Ahead>(a, taps, x, y0, s, up != 0);
    const std::int64_t own_lo = y_own - y0, own_hi = own_lo + s;
    walk_interior<MW, false, AheadLevel, NoRowHook, KV, Ahead>(a, taps, x, y0, s, up != 0, static_cast<int>(own_lo < 0 ? 0 : own_lo),
                                               static_cast<int>(own_hi > s ? s : own_hi));
  };
  const std::int64_t row_in_block = warp / WarpsX;
  const bool tail = TailS != S && tile_row >= g.tail_row;
  walk(tail ? TailS : S, tail ? std::int64_t{g.tail_row} * WarpsY * S + ((tile_row - g.tail_row) * std::int64_t{WarpsY} + row_in_block) * TailS
                              : (tile_row * std::int64_t{WarpsY} + row_in_block) * S);
}

// Frame block f of convolve_walk_2d's grid (its first g.frame_rows rows of blocks, f counted
// across them): its threads' parts of the frame.
template <int MW, int Threads>
__device__ __forceinline__ void walk_frame_block(const ImageArgs& a, const WalkTaps<MW>& mask, const WalkGrid& g,
                                                 std::int64_t f) {
  const std::int64_t q = f * Threads + threadIdx.y * 32 + threadIdx.x;
  if (q < g.frame.count)
    frame_part<MW>(a, mask, g.frame, q);
}

// The kernel: a block a tile (walk_tile), the first g.frame_rows rows of blocks the frame.
// AheadLevel, Ahead: walk_interior's (by default rows asked of L1 2 ahead; the library's shape asks
// as WalkShape says).
template <int MW, int S, int WarpsX, int WarpsY, int MinBlocks, bool Pairs, int KV = 1, int TailS = S,
          int AheadLevel = 1, int Ahead = Walk2d<MW, S, WarpsX, WarpsY, KV>::ahead>
__global__ void __launch_bounds__(Walk2d<MW, S, WarpsX, WarpsY, KV>::threads, MinBlocks)
    convolve_walk_2d(ImageArgs a, const __grid_constant__ WalkTaps<MW> mask, WalkGrid g) {
  if (blockIdx.y < g.frame_rows)
    return walk_frame_block<MW, Walk2d<MW, S, WarpsX, WarpsY, KV>::threads>(
        a, mask, g, static_cast<std::int64_t>(blockIdx.y) * gridDim.x + blockIdx.x);
  walk_tile<MW, S, WarpsX, WarpsY, Pairs, KV, TailS, AheadLevel, Ahead>(a, mask, g, blockIdx.x, blockIdx.y - g.frame_rows);
}

// The library's shape: 2 warps side by side, 4 pairs one below the other, 16 rows a warp,
// registers for 4 blocks per SM (64 a thread). On an H200 at float 8192^2 7 x 7 (2026-11-29,
// bench/results/convolution-walk-edges-h200-2026-11-29.md, runs 6 and 8): 155.5-158.8 us, against
// a warp across and 16 or 8 rows 156.6-159.2 and 161.5-163.9, and every warp walking down
// 165.0-178.9 (its taps reloaded into uniform registers every row). Taller walks (20 to 32 rows)
// and blocks of 4 to 32 warps measured no faster (convolution-walk-heights-h200-2026-11-29.md,
// convolution-walk-big-h200-2026-11-29.md). The grid's last blocks walk tail_rows (walk_tail_rows).
// The rows ahead: asked of L2 marked evict-last, 3 rows ahead (ask_ahead level 3). At 7 x 7 on an
// H200 (2026-11-30, bench/results/convolution-walk-ahead-masks-h200-2026-11-30.md) 144.5-146.2 us
// against 147.2-148.8 asked of L1 2 ahead (the shape's earlier way), 144.8-147.1 at 4 ahead and
// 149-153 at 5 and 6; in another call, where L1 2 ahead took 148.2-148.4, asked of L2 unmarked
// 147.9-148.3 and in bulk by one lane a warp (cp.async.bulk.prefetch) 161-166
// (convolution-walk-ahead-h200-2026-11-30.md).
template <int MW> struct WalkShape {
  static constexpr int rows = 16, warps_x = 2, warps_y = 4, min_blocks = 4;
  static constexpr int tail_rows = MW - 1; // the shortest walk
  static constexpr bool pairs = true;
  static constexpr int ask_level = 3, ahead = MW - 1 < 3 ? MW - 1 : 3;
};

// How many of a grid's last rows of tile blocks walk the kernel's TailS rows a warp instead of S.
struct WalkTail {
  std::int64_t block_rows = 0;
};

// The counts behind convolve_walk_2d's grid (WalkGrid) for an image walk_2d_fits takes, in 64
// bits: the frame's threads, warps across, blocks across, rows of blocks of the frame, of the tiles
// of S rows a warp and of the tail's tiles (TailS rows a warp).
struct WalkCounts {
  FrameWalks frame;
  std::int64_t warps_x = 0, blocks_x = 0, frame_rows = 0, main_rows = 0, tail_rows = 0;
};

// The rows of blocks of `threads` threads, blocks_x across, that the frame's threads fill.
inline std::int64_t frame_block_rows(const FrameWalks& frame, int threads, std::int64_t blocks_x) {
  const std::int64_t blocks = (frame.count + threads - 1) / threads;
  return (blocks + blocks_x - 1) / blocks_x;
}

// The rows tile_rows of blocks walking s rows a warp cover.
template <int WarpsY> constexpr std::int64_t walk_rows_of(std::int64_t tile_rows, int s) {
  return tile_rows * s * WarpsY;
}

template <int MW, int S, int WarpsX, int WarpsY, int KV = 1, int TailS = S>
WalkCounts walk_2d_counts(const ImageArgs& a, const WalkTail& tail = {}) {
  using Wk = Walk2d<MW, S, WarpsX, WarpsY, KV>;
  WalkCounts c;
  c.frame = frame_walks(a.width, a.height, Wk::halo, Wk::frame_side_rows);
  c.warps_x = (c.frame.right + Wk::warp_w - 1) / Wk::warp_w;
  c.blocks_x = (c.warps_x + WarpsX - 1) / WarpsX;
  c.frame_rows = frame_block_rows(c.frame, Wk::threads, c.blocks_x);
  // Output rows 0 .. height - halo - 1 have a warp (those above halo moved down to it): the tail
  // takes the last tail.block_rows rows of blocks' worth, the tiles of S rows the rest, and the
  // tail then what they leave.
  const std::int64_t rows = a.height - Wk::halo;
  const bool has_tail = TailS != S && tail.block_rows > 0;
  const int tail_s = has_tail ? TailS : S;
  const std::int64_t tail_cover = has_tail ? walk_rows_of<WarpsY>(tail.block_rows, TailS) : 0;
  const std::int64_t main_cover = rows > tail_cover ? rows - tail_cover : 0;
  c.main_rows = (main_cover + S * WarpsY - 1) / (S * WarpsY);
  const std::int64_t left = rows - walk_rows_of<WarpsY>(c.main_rows, S);
  c.tail_rows = left > 0 ? (left + tail_s * WarpsY - 1) / (tail_s * WarpsY) : 0;
  return c;
}

// Whether convolve_walk_2d can take this image: rows of in and out 16-byte aligned, at least a
// warp's columns + 8 pixels wide (136 with 4 pixels a thread) and narrower than 2^31 (the frame's
// columns), S + MW - 1 rows high (so that a warp's window fits), and a grid that CUDA takes (fewer
// than 2^31 blocks across, 2^16 down).
template <int MW, int S, int WarpsX, int WarpsY, int KV = 1, int TailS = S>
bool walk_2d_fits(const ImageArgs& a, const WalkTail& tail = {}) {
  using Wk = Walk2d<MW, S, WarpsX, WarpsY, KV>;
  if (!rows_aligned_to<float4>(a.in, a.in_pitch) || !rows_aligned_to<float4>(a.out, a.out_pitch) ||
      a.width < Wk::warp_w + 8 || a.width > std::numeric_limits<int>::max() || a.height < Wk::rows)
    return false;
  const WalkCounts c = walk_2d_counts<MW, S, WarpsX, WarpsY, KV, TailS>(a, tail);
  return c.warps_x <= std::numeric_limits<int>::max() && c.frame_rows + c.main_rows + c.tail_rows <= 65535;
}

// The grid of an image walk_2d_fits takes.
template <int MW, int S, int WarpsX, int WarpsY, int KV = 1, int TailS = S>
WalkGrid walk_2d_grid(const ImageArgs& a, const WalkTail& tail = {}) {
  const WalkCounts c = walk_2d_counts<MW, S, WarpsX, WarpsY, KV, TailS>(a, tail);
  const std::int64_t tile_rows = c.main_rows + c.tail_rows;
  WalkGrid g;
  g.frame = c.frame;
  g.warps_x = static_cast<int>(c.warps_x);
  g.frame_rows = static_cast<unsigned>(c.frame_rows);
  g.tail_row = static_cast<unsigned>(c.main_rows);
  g.blocks_x = static_cast<unsigned>(c.blocks_x);
  g.blocks_y = static_cast<unsigned>(c.frame_rows + tile_rows);
  return g;
}

// Launches convolve_walk_2d for a square mask of width MW where walk_2d_fits takes the image, and
// says whether it did; `mask` one way up (the launch adds the other).
template <int MW, int S, int WarpsX, int WarpsY, int MinBlocks, bool Pairs, int KV = 1, int TailS = S,
          int AheadLevel = 1, int Ahead = Walk2d<MW, S, WarpsX, WarpsY, KV>::ahead>
bool try_launch_walk_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream, const WalkTail& tail = {}) {
  if (!walk_2d_fits<MW, S, WarpsX, WarpsY, KV, TailS>(a, tail))
    return false;
  const WalkGrid g = walk_2d_grid<MW, S, WarpsX, WarpsY, KV, TailS>(a, tail);
  convolve_walk_2d<MW, S, WarpsX, WarpsY, MinBlocks, Pairs, KV, TailS, AheadLevel, Ahead>
      <<<dim3(g.blocks_x, g.blocks_y), dim3(32, WarpsX * WarpsY), 0, stream>>>(a, walk_taps<MW>(mask), g);
  LADDER_CUDA(cudaGetLastError());
  return true;
}

// The same for an image it must take (the strips tool's measurements).
template <int MW, int S, int WarpsX, int WarpsY, int MinBlocks, bool Pairs, int KV = 1, int TailS = S,
          int AheadLevel = 1, int Ahead = Walk2d<MW, S, WarpsX, WarpsY, KV>::ahead>
void launch_walk_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream, const WalkTail& tail = {}) {
  if (!try_launch_walk_2d<MW, S, WarpsX, WarpsY, MinBlocks, Pairs, KV, TailS, AheadLevel, Ahead>(a, mask, stream, tail))
    throw std::invalid_argument("walk_2d: rows not 16-byte aligned, an image narrower than a warp's "
                                "columns + 8 or lower than its rows, or a grid too large");
}

// The blocks of the library's shape (WalkShape) for a mask of width MW that the current device
// holds at once.
template <int MW> std::int64_t walk_shape_resident() {
  using Shape = WalkShape<MW>;
  static core::PerDevice cache;
  const auto kernel = convolve_walk_2d<MW, Shape::rows, Shape::warps_x, Shape::warps_y, Shape::min_blocks,
                                       Shape::pairs, 1, Shape::tail_rows, Shape::ask_level, Shape::ahead>;
  return core::resident_blocks(cache, reinterpret_cast<const void*>(kernel),
                               Walk2d<MW, Shape::rows, Shape::warps_x, Shape::warps_y>::threads);
}

// The library's tail (walk_tail_rows) for an image walk_2d_fits takes in its shape.
template <int MW> WalkTail walk_shape_tail(const ImageArgs& a) {
  using Shape = WalkShape<MW>;
  const WalkCounts c = walk_2d_counts<MW, Shape::rows, Shape::warps_x, Shape::warps_y, 1, Shape::tail_rows>(a);
  return {walk_tail_rows(c.blocks_x, c.main_rows, walk_shape_resident<MW>())};
}

// The library's shape (WalkShape) for a mask of width MW, its tail from walk_shape_tail: the
// library call and the lab's rung walked_pairs launch through it, and both fall back where it
// returns false.
template <int MW>
bool try_launch_walk_shape(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  using Shape = WalkShape<MW>;
  constexpr int S = Shape::rows, X = Shape::warps_x, Y = Shape::warps_y, T = Shape::tail_rows;
  if (!walk_2d_fits<MW, S, X, Y, 1, T>(a))
    return false;
  return try_launch_walk_2d<MW, S, X, Y, Shape::min_blocks, Shape::pairs, 1, T, Shape::ask_level, Shape::ahead>(
      a, mask, stream, walk_shape_tail<MW>(a));
}

} // namespace ladder::conv_detail
