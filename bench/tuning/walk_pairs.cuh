// The tile walked in pairs with every border's edge path: the strips tool's walked pairs
// (conv_strips.cu, walk_conv with Alternate 2) written as the library's kernels are, on ImageArgs
// with byte pitches, any width, height, pitch and border (the wide tile's edge path for warps whose
// rows or windows leave the image), to see what the tool's kernel keeps as a library kernel. It is
// not the library's: measured in the strips tool's library_walk table on an H200 (2026-11-29,
// float 8192^2 7 x 7, zero border) it took 172.4-174.6 us, against the wide tile's 167.3-168.9 and
// the tool's own walked pairs' 154.4-158.1 in the same calls
// (bench/results/convolution-walked-h200-2026-11-29.md, calls 6 to 8).
//
// Each warp owns S output rows of 128 columns (4 pixels a thread), as the wide tile does
// (wide.cuh), but walks its S + MW - 1 input rows in a loop with rolling sums (strip.cuh's
// strip_apply_row: MW open output rows, slot j from slot j - 1, each finished row stored at once):
// 64 registers, 32 warps an SM. A row's window is three 16-byte loads from L1, asked of L1 two rows
// ahead by a prefetch that holds no register. The odd warps of a block walk upwards, so two
// neighbours read the rows they share at about the same time; the direction and the taps'
// orientation (the mask both ways up) are warp-uniform values read through a shuffle from lane 0,
// so ptxas keeps the taps in uniform registers and both directions run one code path. An upward
// warp adds the mask's rows bottom first: its sums agree with the reference within float rounding.
// Edges: warps whose rows or windows leave the image (or rows not 16-byte aligned) walk the same
// way with each row mapped through the border policy and windows that cross the left or right edge
// gathered through it (wide.cuh's wide_load_window); that path spills (27 local loads and stores
// and 516 instructions a row in its loop, against 220 and none in the interior's), but it is not
// where the kernel loses to the tool's: with its edge warps reading as the tool's do (ZeroEdges)
// it took 169.8-170.6 us (call 8). Nsight Compute (ncu-conv-f32-walked-h200-2026-11-29.md): 7,720
// SASS instructions against the tool's 3,688, 363 K local loads a launch against 61 K (the interior
// path holds 2 of its 110 local loads and stores, none in its loop), 0.68 cycles an instruction
// waiting on instruction fetch against 0.15. What makes it 10% slower than the tool's kernel was
// not found.
#pragma once

#include "convolution/strip.cuh"
#include "convolution/wide.cuh"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace walk_pairs {

using namespace ladder::conv_detail;

template <int MW, int S, int WarpsX, int WarpsY> struct Walk2d {
  static_assert(MW % 2 == 1 && MW >= 3 && MW <= 9, "one float4 of halo a side: masks 3 .. 9");
  static_assert(S >= MW - 1, "a warp's first and last MW - 1 rows apart");
  static_assert(WarpsY % 2 == 0, "warps in pairs, one above the other");
  using Window = Wide2d<MW, 1, S>;                // a thread's window: 3 float4s a row
  static constexpr int threads = 32 * WarpsX * WarpsY;
  static constexpr int halo = MW / 2, rows = S + MW - 1;
  static constexpr int tile_w = 128 * WarpsX, tile_h = S * WarpsY;
  static constexpr int ahead = 2; // rows asked of L1 ahead of the walk
};

// The shape measured: 2 warps side by side, 4 pairs one below the other, 16 rows a warp,
// registers for 4 blocks per SM (64 a thread). The tool's other shapes at 7 x 7 on the H200:
// a warp across and 8 rows 158.2-160.6 us, 2 across and 8 rows 162.5, 2 across and 16 rows in
// blocks of 16 warps 159.8, 4 across 162.5-183.6 (bench/results/convolution-walked-h200-2026-11-29.md).
inline constexpr int walk_narrowest = 7, walk_widest = 7;
struct WalkShape {
  static constexpr int rows = 16, warps_x = 2, warps_y = 4, min_blocks = 4;
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

// Asks L1 (Level 1) or L2 (Level 2) for the line holding p; no register waits on it.
template <int Level> __device__ __forceinline__ void prefetch_line(const void* p) {
  if constexpr (Level == 1)
    asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
  else
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

// A walk of S output rows' S + MW - 1 input rows through step(r, lo, hi, edge): the first and
// last MW - 1 rows unrolled, each with its open slots lo .. hi known at compile time (edge: a
// std::true_type), the rows between in a loop kept rolled, so that ptxas cannot hoist every row's
// loads to the start (strip.cuh's strip_walk keeps its first and last rows rolled too, for strips
// whose height is known only at run time).
template <int MW, int S, class Step> __device__ __forceinline__ void walk_phases(Step&& step) {
#pragma unroll
  for (int r = 0; r < MW - 1; ++r)
    step(r, 0, r, std::true_type{});
#pragma unroll 1
  for (int r = MW - 1; r < S; ++r)
    step(r, 0, MW - 1, std::false_type{});
#pragma unroll
  for (int e = 0; e < MW - 1; ++e)
    step(S + e, e + 1, MW - 1, std::true_type{});
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

// A warp's walk: S output rows from y of a thread's 4 pixels at column x, input rows taken
// downwards or (up) upwards. Interior: every row and window of the warp inside the image and
// aligned, 16-byte loads and stores one pitch apart, nothing tested; otherwise the edge path of
// wide_load_window and stores that stop at the image's edges.
// ZeroEdges (a measurement, not a border policy's path): the edge warps read as the strips tool's
// walk_conv does, each 16-byte load tested against the image and zeros outside it (the zero border
// on a width of whole float4s only).
template <int MW, int S, WideRows Rows, bool ZeroEdges = false>
__device__ __forceinline__ void walk_rows(const ImageArgs& a, const OrientedTaps<MW>& taps, std::int64_t x,
                                          std::int64_t y, bool up, bool vector, const int* cols) {
  using Wk = Walk2d<MW, S, 1, 2>;
  using W = typename Wk::Window;
  constexpr bool Interior = Rows == WideRows::interior;
  constexpr int rows = Wk::rows;
  const std::int64_t step = up ? -a.in_pitch : a.in_pitch, out_step = up ? -a.out_pitch : a.out_pitch;
  // Interior: the first walked row's window (the edge path maps each row itself), and the output
  // row the first finished slot goes to (down: the tile's first row; up: its last).
  const unsigned char* window =
      Interior ? a.in + (y - Wk::halo + (up ? rows - 1 : 0)) * a.in_pitch + (x - 4 * W::h4) * 4 : a.in;
  unsigned char* out_row = a.out + (y + (up ? S - 1 : 0)) * a.out_pitch;
  // Lane l asks L1 for line l % 6 of a row ahead: the float4 left of the warp's 512 bytes, its 4
  // lines, and the float4 right of them (lanes asking for one line make one request).
  const int lane = static_cast<int>(threadIdx.x % 32), q6 = lane % 6;
  const unsigned char* ahead = window + (Interior ? (4 * W::h4 - 4 * lane) * 4 + (q6 == 0 ? -16 : (q6 - 1) * 128) : 0);
  if constexpr (Interior) {
#pragma unroll
    for (int r = 0; r < Wk::ahead; ++r)
      prefetch_line<1>(ahead + r * step);
    ahead += Wk::ahead * step;
  }
  const bool out_vector = Interior || (rows_aligned_to<float4>(a.out, a.out_pitch) && x + 4 <= a.width);
  float acc[MW][4];
  const auto walk_step = [&](int r, int lo, int hi, auto edge) {
    float4 win[W::loads];
    if constexpr (Interior) {
      if (r + Wk::ahead < rows) {
        prefetch_line<1>(ahead);
        ahead += step;
      }
      const auto* p = reinterpret_cast<const float4*>(window);
#pragma unroll
      for (int j = 0; j < W::loads; ++j)
        win[j] = __ldg(p + j);
      window += step;
    } else if constexpr (ZeroEdges) {
      const std::int64_t yr = y - Wk::halo + (up ? rows - 1 - r : r), x4 = x / 4 - 1;
      const auto* in_row = reinterpret_cast<const float4*>(a.in + yr * a.in_pitch);
#pragma unroll
      for (int j = 0; j < W::loads; ++j)
        win[j] = yr >= 0 && yr < a.height && x4 + j >= 0 && x4 + j < a.width / 4 ? __ldg(in_row + x4 + j)
                                                                                : make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
      wide_load_window<MW, 1, S, Rows>(a, nullptr, up ? rows - 1 - r : r, x, y, vector, cols, nullptr, win);
    }
    strip_apply_row<MW, 4, decltype(edge)::value>(acc, reinterpret_cast<const float*>(win), taps, lo, hi);
    if (r < MW - 1)
      return;
    // out_row: the output row slot MW - 1 finished (y + r - (MW - 1) down, y + rows - 1 - r up)
    const bool inside = Interior || y + (up ? rows - 1 - r : r - (MW - 1)) < a.height;
    if (inside) {
      if (out_vector) {
        reinterpret_cast<float4*>(out_row)[x / 4] =
            make_float4(acc[MW - 1][0], acc[MW - 1][1], acc[MW - 1][2], acc[MW - 1][3]);
      } else {
        auto* out = reinterpret_cast<float*>(out_row) + x;
#pragma unroll
        for (int k = 0; k < 4; ++k)
          if (x + k < a.width)
            out[k] = acc[MW - 1][k];
      }
    }
    out_row += out_step;
  };
  walk_phases<MW, S>(walk_step);
}

template <int MW, int S, int WarpsX, int WarpsY, int MinBlocks, bool ZeroEdges = false>
__global__ void __launch_bounds__(Walk2d<MW, S, WarpsX, WarpsY>::threads, MinBlocks)
    convolve_walk_2d(ImageArgs a, const __grid_constant__ WalkTaps<MW> mask) {
  using Wk = Walk2d<MW, S, WarpsX, WarpsY>;
  using W = typename Wk::Window;
  const int warp = static_cast<int>(threadIdx.y), wx = warp % WarpsX, wy = warp / WarpsX;
  const std::int64_t x = (static_cast<std::int64_t>(blockIdx.x) * WarpsX + wx) * 128 + threadIdx.x * 4;
  const std::int64_t y = (static_cast<std::int64_t>(blockIdx.y) * WarpsY + wy) * S;
  if (y >= a.height)
    return; // the whole warp: its lanes share y
  // Warp-uniform (through lane 0, so that ptxas knows): odd warps walk upwards.
  const int up = __shfl_sync(0xffffffffu, wy % 2, 0);
  const OrientedTaps<MW> taps{{mask, up * MW * MW}};
  const bool vector = rows_aligned_to<float4>(a.in, a.in_pitch) && x - 4 * W::h4 >= 0 &&
                      x + 4 + 4 * W::h4 <= a.width;
  const bool interior = __all_sync(0xffffffffu, vector) && rows_aligned_to<float4>(a.out, a.out_pitch) &&
                        y - Wk::halo >= 0 && y - Wk::halo + Wk::rows <= a.height;
  if (interior)
    return walk_rows<MW, S, WideRows::interior>(a, taps, x, y, up != 0, true, nullptr);
  if (x >= a.width)
    return; // no output: the lanes share nothing
  if constexpr (ZeroEdges) {
    walk_rows<MW, S, WideRows::edge, true>(a, taps, x, y, up != 0, vector, nullptr);
  } else {
    int cols[4 * W::loads];
    wide_columns<MW, 1, S>(a, x, cols);
    walk_rows<MW, S, WideRows::edge>(a, taps, x, y, up != 0, vector, cols);
  }
}

// Whether convolve_walk_2d can take an image of this size (its grid's rows of blocks; the edge
// threads' columns are ints).
template <int MW, int S, int WarpsX, int WarpsY> bool walk_2d_fits(const ImageArgs& a) {
  using Wk = Walk2d<MW, S, WarpsX, WarpsY>;
  return (a.height + Wk::tile_h - 1) / Wk::tile_h <= 65535 &&
         a.width <= std::numeric_limits<int>::max() / 2;
}

// Launches convolve_walk_2d for a square mask of width MW (width, height > 0; walk_2d_fits);
// `mask` one way up (the launch adds the other).
template <int MW, int S, int WarpsX, int WarpsY, int MinBlocks>
void launch_walk_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  using Wk = Walk2d<MW, S, WarpsX, WarpsY>;
  if (!walk_2d_fits<MW, S, WarpsX, WarpsY>(a))
    throw std::invalid_argument("walk_2d: more than 65535 rows of blocks or rows wider than 2^30 pixels");
  const dim3 grid(static_cast<unsigned>((a.width + Wk::tile_w - 1) / Wk::tile_w),
                  static_cast<unsigned>((a.height + Wk::tile_h - 1) / Wk::tile_h));
  convolve_walk_2d<MW, S, WarpsX, WarpsY, MinBlocks>
      <<<grid, dim3(32, WarpsX * WarpsY), 0, stream>>>(a, walk_taps<MW>(mask));
  LADDER_CUDA(cudaGetLastError());
}

} // namespace walk_pairs
