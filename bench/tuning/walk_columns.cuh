// The long walks, a measurement of the strips tool (conv_strips.cu, table `columns`): the library's
// walked pairs (src/convolution/walk.cuh) with the grid the device holds at once, every warp
// walking one long segment of its strip instead of 16 rows, to take back the 6 extra rows each
// 16-row walk reads and the last wave's idle SMs. Measured slower on an H200 (2026-11-29, float
// 8192^2 7 x 7, bench/results/convolution-walk-columns-h200-2026-11-29.md): 162.2 us at best
// against the walked pairs' 153.3-159.1 in the same calls, though they issue 4.5% fewer
// instructions. Without a barrier their warps drift apart and read 297-342 MB from DRAM against
// 271; with the warps of a block's segment row meeting every row they read 276 MB and wait on
// their loads no longer than the pairs, yet their schedulers find no eligible warp more often
// (18.9% of cycles against 12.8%).
#pragma once

#include "convolution/walk.cuh"
#include "core/resident_grid.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>

namespace ladder::conv_detail {

// Frame pixel f of a thread (the frame as walk.cuh's grid had it before frame.hpp: halo rows at
// the top and bottom, then each row's 4 left columns and its columns from `right`): its sum through
// the border policy in the reference's order (mask rows in order, taps left to right).
template <int MW>
__device__ __forceinline__ void walk_frame_pixel(const ImageArgs& a, const WalkTaps<MW>& mask,
                                                 std::int64_t right, std::int64_t f) {
  constexpr int H = MW / 2;
  const std::int64_t band = H * a.width;
  std::int64_t fx, fy;
  if (f < 2 * band) {
    fy = f < band ? f / a.width : a.height - H + (f - band) / a.width;
    fx = f % a.width;
  } else {
    const std::int64_t side = 4 + a.width - right, k = f - 2 * band;
    fy = H + k / side;
    const std::int64_t c = k % side;
    fx = c < 4 ? c : right + (c - 4);
  }
  std::int64_t cols[MW];
#pragma unroll
  for (int i = 0; i < MW; ++i)
    cols[i] = border_index(fx - H + i, a.width, a.border);
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < MW; ++j) {
    const std::int64_t ym = border_index(fy - H + j, a.height, a.border);
    const auto* row = reinterpret_cast<const float*>(a.in + (ym < 0 ? 0 : ym) * a.in_pitch);
#pragma unroll
    for (int i = 0; i < MW; ++i)
      s = __fmaf_rn(mask.w[j * MW + i], ym < 0 || cols[i] < 0 ? 0.0f : __ldg(row + cols[i]), s);
  }
  reinterpret_cast<float*>(a.out + fy * a.out_pitch)[fx] = s;
}

// The long walks: the grid the device holds at once, every warp walking one segment of a
// 128-column strip, the segments of all strips as many as the resident warps and their rows
// shared out to within one, so that every warp walks about as many rows and all end together.
// (The walked pairs, walk.cuh's convolve_walk_2d, hand each warp 16 rows: 22 rows walked for 16
// finished, and 7.8 waves of blocks at 8192^2 whose last one leaves SMs idle.) The strips are the
// walked pairs' columns of warps, the first and last moved inwards; the segments split the rows
// whose windows lie inside the image, each at least MW - 1 rows, so no warp is moved up or down. A
// block holds WarpsX neighbouring strips side by side and WarpsY segments one below the other, and
// blocks go across the image first, so that neighbouring strips walk the same rows at about the
// same time (blocks of one strip's segments read 331-342 MB from DRAM, blocks of 8 or 16 strips
// 297-307). Pairs: odd segments walk upwards, so that neighbouring segments read the rows they
// share at the same time (both at the start of their walks, or both at the end); otherwise every
// warp walks down, the reference's order bit for bit. The frame comes first, a thread a pixel over
// the whole grid.
struct ColumnWalk {
  std::int64_t frame = 0, right = 0; // the frame's pixels and its first right column
  std::int64_t rows = 0;             // the rows the segments share: height - 2 halo
  std::int64_t strips = 0, blocks_x = 0;
  int segments = 0; // a strip's
};

// SyncRows > 0: the warps of a segment row of the block (its strips side by side, the same rows)
// meet at a named barrier every SyncRows walked rows, so that they read the halo columns they
// share within a few rows of each other.
template <int MW, int WarpsX, int WarpsY, int MinBlocks, bool Pairs, int SyncRows = 0>
__global__ void __launch_bounds__(32 * WarpsX * WarpsY, MinBlocks)
    convolve_walk_columns_2d(ImageArgs a, const __grid_constant__ WalkTaps<MW> mask, ColumnWalk g) {
  static_assert(!Pairs || WarpsY % 2 == 0, "a block's segments in pairs");
  constexpr int H = MW / 2, warps = WarpsX * WarpsY;
  const int lane = static_cast<int>(threadIdx.x), warp = static_cast<int>(threadIdx.y);
  // The frame first: nothing of it lives on through the walk.
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * warps * 32;
  for (std::int64_t f = (static_cast<std::int64_t>(blockIdx.x) * warps + warp) * 32 + lane; f < g.frame; f += threads)
    walk_frame_pixel<MW>(a, mask, g.right, f);
  const std::int64_t strip = blockIdx.x % g.blocks_x * WarpsX + warp % WarpsX;
  const std::int64_t segment = blockIdx.x / g.blocks_x * WarpsY + warp / WarpsX;
  if (strip >= g.strips)
    return; // the whole warp
  const std::int64_t y0 = H + segment * g.rows / g.segments;
  const std::int64_t y1 = H + (segment + 1) * g.rows / g.segments;
  const std::int64_t x_own = 128 * strip, x_last = g.right - 128;
  const std::int64_t x0 = x_own < 4 ? 4 : x_own > x_last ? x_last : x_own;
  // Warp-uniform through lane 0, so that ptxas keeps the taps in uniform registers (see
  // convolve_walk_2d). The segment's parity is its row's in the block (WarpsY even); computed
  // from the segment's index, it cost 60 instructions a row: ptxas read the taps from constant
  // memory.
  const int up = __shfl_sync(0xffffffffu, Pairs ? warp / WarpsX % 2 : 0, 0);
  const OrientedTaps<MW> taps{{mask, up * MW * MW}};
  const int s = static_cast<int>(y1 - y0);
  if constexpr (SyncRows == 0) {
    walk_interior<MW>(a, taps, x0 + 4 * lane, y0, s, up != 0);
  } else {
    // (Every strip of the row exists: launch_walk_columns_2d takes no other image with SyncRows.)
    const int id = 1 + (WarpsY > 1 ? warp / WarpsX : 0);
    walk_interior<MW>(a, taps, x0 + 4 * lane, y0, s, up != 0, 0, 0, [=](int r) {
      if (r % SyncRows == 0)
        asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(32 * WarpsX) : "memory");
    });
  }
}

// Whether convolve_walk_columns_2d can take this image: rows of in and out 16-byte aligned, at
// least 136 pixels wide (a strip inside) and 2 (MW - 1) rows high (a segment of MW - 1 rows).
template <int MW> bool walk_columns_fits(const ImageArgs& a) {
  return rows_aligned_to<float4>(a.in, a.in_pitch) && rows_aligned_to<float4>(a.out, a.out_pitch) &&
         a.width >= 136 && a.height >= 2 * (MW - 1) &&
         a.height <= std::numeric_limits<int>::max(); // a segment's rows an int
}

// The grid's plan for an image walk_columns_fits takes, over `warps` warps (the resident ones):
// every strip (their number rounded up to whole blocks) gets as many segments as the warps allow,
// a multiple of WarpsY, at least WarpsY, none under MW - 1 rows; 0 segments where the rows are too
// few for WarpsY of them.
template <int MW, int WarpsX, int WarpsY> ColumnWalk walk_columns_plan(const ImageArgs& a, std::int64_t warps) {
  ColumnWalk g;
  g.right = (a.width - 4) / 4 * 4;
  g.frame = 2 * (MW / 2) * a.width + (a.height - 2 * (MW / 2)) * (4 + a.width - g.right);
  g.rows = a.height - 2 * (MW / 2);
  g.strips = (g.right + 127) / 128;
  g.blocks_x = (g.strips + WarpsX - 1) / WarpsX;
  const std::int64_t most = g.rows / (MW - 1), share = warps / (g.blocks_x * WarpsX);
  std::int64_t segments = (share > most ? most : share) / WarpsY * WarpsY;
  if (segments < WarpsY)
    segments = most < WarpsY ? 0 : WarpsY;
  g.segments = static_cast<int>(segments);
  return g;
}

// Launches convolve_walk_columns_2d for a square mask of width MW (walk_columns_fits); `mask` one
// way up. warps > 0: the warps to share the rows among, instead of those the device holds at once
// (the strips tool's measurements). Images too low for WarpsY segments take blocks of one row of
// strips, every warp down.
template <int MW, int WarpsX, int WarpsY, int MinBlocks, bool Pairs, int SyncRows = 0>
void launch_walk_columns_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream,
                            std::int64_t warps = 0) {
  if (!walk_columns_fits<MW>(a))
    throw std::invalid_argument("walk_columns_2d: rows not 16-byte aligned, an image narrower than "
                                "136 pixels or lower than 2 (MW - 1) rows");
  const auto kernel = convolve_walk_columns_2d<MW, WarpsX, WarpsY, MinBlocks, Pairs, SyncRows>;
  if (warps <= 0) {
    static core::PerDevice resident;
    warps = core::resident_blocks(resident, reinterpret_cast<const void*>(kernel), 32 * WarpsX * WarpsY) *
            WarpsX * WarpsY;
  }
  const ColumnWalk g = walk_columns_plan<MW, WarpsX, WarpsY>(a, warps);
  if (SyncRows > 0 && g.strips % WarpsX != 0)
    throw std::invalid_argument("walk_columns_2d: SyncRows needs whole rows of strips in every block");
  if constexpr (WarpsY > 1)
    if (g.segments == 0)
      return launch_walk_columns_2d<MW, WarpsX, 1, MinBlocks * WarpsY, false, SyncRows>(a, mask, stream, warps);
  const std::int64_t blocks = g.blocks_x * (g.segments / WarpsY);
  if (blocks > std::numeric_limits<int>::max())
    throw std::invalid_argument("walk_columns_2d: more than 2^31 - 1 blocks");
  kernel<<<static_cast<unsigned>(blocks), dim3(32, WarpsX * WarpsY), 0, stream>>>(a, walk_taps<MW>(mask), g);
  LADDER_CUDA(cudaGetLastError());
}

} // namespace ladder::conv_detail
