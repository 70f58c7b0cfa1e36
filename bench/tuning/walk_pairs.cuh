// The walked pairs (src/convolution/walk.cuh) with the edge paths they were first written with, as
// measurements: the strips tool's library_walk and edges tables time them beside the library's
// kernel. The first library-style kernel (Edges::policy) walked its edge warps as the interior
// ones, first and last rows unrolled, through the wide tile's edge path (wide_load_window): some
// 6,000 SASS instructions. On an H200 (2026-11-29, float 8192^2 7 x 7, zero border,
// bench/results/convolution-walked-h200-2026-11-29.md and convolution-walk-edges-h200-2026-11-29.md)
// it took 169-174 us, against the tool's own walked pairs' 154-158; with its edge warps skipped
// (checked inside only) 144-148, and with the edge warps moved inwards and run as interior warps
// (every output right, the edge columns and rows not written) 147.5-150.7, through one copy of the
// interior's code or two. Nsight Compute: the same instructions within 2.5%, but 0.71 cycles an
// issued instruction waiting on instruction fetch against 0.12, and 0.79 warps issued a scheduler
// a cycle against 0.88. So the edge path, not the interior, was the 10%; the library's kernel has
// none: every warp walks as an interior one, the image's frame computed apart (walk.cuh).
#pragma once

#include "convolution/walk.cuh"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace walk_pairs {

using namespace ladder::conv_detail;

// The shape measured: 2 warps side by side, 4 pairs one below the other, 16 rows a warp,
// registers for 4 blocks per SM (64 a thread). The tool's other shapes at 7 x 7 on the H200:
// a warp across and 8 rows 158.2-160.6 us, 2 across and 8 rows 162.5, 2 across and 16 rows in
// blocks of 16 warps 159.8, 4 across 162.5-183.6 (bench/results/convolution-walked-h200-2026-11-29.md).
inline constexpr int walk_narrowest = 7, walk_widest = 7;
struct WalkShape {
  static constexpr int rows = 16, warps_x = 2, warps_y = 4, min_blocks = 4;
};

// How the edge warps walk. policy: as the interior warps do (walk_phases: first and last rows
// unrolled), each row through the wide tile's edge path (wide_load_window). Measurements, not paths
// a border policy can take: zero_tested reads as the strips tool's walk_conv does, each 16-byte
// load tested against the image and zeros outside it (the zero border on a width of whole float4s
// only); zero_prefetched: the same with the rows ahead asked of L1 as the interior's are; skipped:
// the edge warps return at once (their outputs are not written, so only the inside is checked), to
// time the interior alone; as_interior: the edge warps moved inwards until their windows are inside
// and run as interior warps (every output they write is right, those of the edge columns and rows
// are not written: checked inside), edges at the interior's speed; as_interior_copy: the same
// through a second copy of the interior's code (its rows asked of L2, not L1), to tell what the
// edge warps' own time costs from what a second code path costs.
enum class Edges { policy, zero_tested, zero_prefetched, skipped, as_interior, as_interior_copy };

template <int MW, int S, Edges E>
__device__ __forceinline__ void walk_unrolled_edge(const ImageArgs& a, const OrientedTaps<MW>& taps, std::int64_t x,
                                                   std::int64_t y, bool up, bool vector, const int* cols) {
  using Wk = Walk2d<MW, S, 1, 2>;
  using W = typename Wk::Window;
  constexpr int rows = Wk::rows;
  const std::int64_t out_step = up ? -a.out_pitch : a.out_pitch;
  unsigned char* out_row = a.out + (y + (up ? S - 1 : 0)) * a.out_pitch;
  const int q6 = static_cast<int>(threadIdx.x % 32) % 6;
  const bool out_vector = rows_aligned_to<float4>(a.out, a.out_pitch) && x + 4 <= a.width;
  float acc[MW][4];
  const auto walk_step = [&](int r, int lo, int hi, auto edge) {
    float4 win[W::loads];
    if constexpr (E == Edges::zero_tested || E == Edges::zero_prefetched) {
      const std::int64_t yr = y - Wk::halo + (up ? rows - 1 - r : r), x4 = x / 4 - 1;
      if constexpr (E == Edges::zero_prefetched) {
        const std::int64_t ya = yr + (up ? -Wk::ahead : Wk::ahead);
        if (r + Wk::ahead < rows && ya >= 0 && ya < a.height && x4 + q6 / 2 < a.width / 4 && x4 + q6 / 2 >= 0)
          prefetch_line<1>(a.in + ya * a.in_pitch + (x4 + q6 / 2) * 16);
      }
      const auto* in_row = reinterpret_cast<const float4*>(a.in + yr * a.in_pitch);
#pragma unroll
      for (int j = 0; j < W::loads; ++j)
        win[j] = yr >= 0 && yr < a.height && x4 + j >= 0 && x4 + j < a.width / 4 ? __ldg(in_row + x4 + j)
                                                                                : make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
      wide_load_window<MW, 1, S, WideRows::edge>(a, nullptr, up ? rows - 1 - r : r, x, y, vector, cols, nullptr, win);
    }
    strip_apply_row<MW, 4, decltype(edge)::value>(acc, reinterpret_cast<const float*>(win), taps, lo, hi);
    if (r < MW - 1)
      return;
    // out_row: the output row slot MW - 1 finished (y + r - (MW - 1) down, y + rows - 1 - r up)
    if (y + (up ? rows - 1 - r : r - (MW - 1)) < a.height) {
      if (out_vector) {
        reinterpret_cast<float4*>(out_row)[x / 4] = pack4(acc[MW - 1]);
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
  walk_phases<MW>(S, walk_step);
}

// EdgesFirst (a measurement): the grid's first blocks are its first and last columns of blocks,
// top to bottom, the rest in raster order after them, so that the edge warps start first.
template <int MW, int S, int WarpsX, int WarpsY, int MinBlocks, Edges E = Edges::policy, bool EdgesFirst = false>
__global__ void __launch_bounds__(Walk2d<MW, S, WarpsX, WarpsY>::threads, MinBlocks)
    convolve_walk_2d(ImageArgs a, const __grid_constant__ WalkTaps<MW> mask) {
  using Wk = Walk2d<MW, S, WarpsX, WarpsY>;
  using W = typename Wk::Window;
  const int warp = static_cast<int>(threadIdx.y), wx = warp % WarpsX, wy = warp / WarpsX;
  unsigned bx = blockIdx.x, by = blockIdx.y;
  if constexpr (EdgesFirst) {
    if (gridDim.x > 2) {
      const unsigned l = blockIdx.y * gridDim.x + blockIdx.x, edge_blocks = 2 * gridDim.y, inner = gridDim.x - 2;
      if (l < edge_blocks)
        bx = l % 2 == 0 ? 0 : gridDim.x - 1, by = l / 2;
      else
        bx = 1 + (l - edge_blocks) % inner, by = (l - edge_blocks) / inner;
    }
  }
  const std::int64_t x = (static_cast<std::int64_t>(bx) * WarpsX + wx) * 128 + threadIdx.x * 4;
  const std::int64_t y = (static_cast<std::int64_t>(by) * WarpsY + wy) * S;
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
    return walk_interior<MW>(a, taps, x, y, S, up != 0);
  if constexpr (E == Edges::as_interior || E == Edges::as_interior_copy) {
    const std::int64_t xw = x - 4 * (threadIdx.x % 32);
    const std::int64_t xi = std::min(std::max(xw, std::int64_t{4 * W::h4}), a.width - 128 - 4 * W::h4);
    const std::int64_t yi = std::min(std::max(y, std::int64_t{Wk::halo}), a.height - Wk::rows + Wk::halo);
    return walk_interior<MW, true, E == Edges::as_interior ? 1 : 2>(a, taps, xi + 4 * (threadIdx.x % 32), yi, S, up != 0);
  }
  if (x >= a.width || E == Edges::skipped)
    return; // no output: the lanes share nothing
  if constexpr (E == Edges::zero_tested || E == Edges::zero_prefetched) {
    walk_unrolled_edge<MW, S, E>(a, taps, x, y, up != 0, vector, nullptr);
  } else {
    int cols[4 * W::loads];
    wide_columns<MW, 1, S>(a, x, cols);
    walk_unrolled_edge<MW, S, Edges::policy>(a, taps, x, y, up != 0, vector, cols);
  }
}

} // namespace walk_pairs
