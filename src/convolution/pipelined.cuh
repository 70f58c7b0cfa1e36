// Row reuse with the threads' own staging pipelined across tiles: float images of one channel.
//
// convolve_tiled stages a tile, waits for it and computes it, so each block's copies and its
// arithmetic take turns, and only the other resident blocks keep DRAM busy while it computes.
// Here a resident block walks tiles blockIdx.x, blockIdx.x + gridDim.x, ... (row order, as the
// bulk ring walks them) with two stages: it issues the next tile's cp.async copies
// (Staging::interior_lean, the edge tiles through the border policy) right after the block's
// barrier and computes the current tile while they fly, so one wait per tile covers a copy
// issued a whole tile of arithmetic earlier. Twice the shared memory per block (41 KB at 7 x 7),
// so fewer blocks per SM than the tiled kernel's 8; the sums are compute_staged_tile's, bit for
// bit the tiled kernel's.
//
// Measured slower than the tiled kernel at every width but 9 x 9 (level) on an H100 (7 x 7: 238.5
// against 208.8 us; variants_bulk.cu has the figures): the overlap does not pay for the blocks
// per SM it costs (5 instead of 8 at 7 x 7), as the bulk-staged rings did not either.
#pragma once

#include "convolution/tiled.cuh"
#include "core/resident_grid.hpp"

#include <algorithm>
#include <stdexcept>

namespace ladder::conv_detail {

template <int MW, class S> struct PipelinedStages {
  static constexpr StageGeometry g = stage_geometry<float, 1, S>(MW);
  static constexpr int stage_floats = (S::tile_h + MW - 1) * g.stride;
  static constexpr std::size_t shared_bytes = 2 * std::size_t{stage_floats} * sizeof(float);
};

template <int MW, class S>
__global__ void __launch_bounds__(S::threads, S::min_blocks)
    convolve_pipelined(ImageArgs a, const __grid_constant__ MaskParam mask) {
  using P = PipelinedStages<MW, S>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  float* current = reinterpret_cast<float*>(shared_raw);
  float* next = current + P::stage_floats;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t tiles_x = (a.width + S::tile_w - 1) / S::tile_w;
  const std::int64_t tiles = tiles_x * ((a.height + S::tile_h - 1) / S::tile_h);
  const auto origin = [&](std::int64_t t, std::int64_t& y0, std::int64_t& s0) {
    const std::int64_t by = t / tiles_x;
    y0 = by * S::tile_h;
    s0 = (t - by * tiles_x) * S::tile_w;
  };
  std::int64_t t = blockIdx.x, y0, s0;
  if (t >= tiles)
    return;
  origin(t, y0, s0);
  stage_tile<float, 1, S, Staging::interior_lean, MW, false>(a, current, P::g, MW, y0, s0);
  for (; t < tiles; t += gridDim.x) {
    // This tile's copies (the only ones in flight) have landed for every thread, and every thread
    // is done reading `next` (the last tile's stage) before the next copies overwrite it.
    cp_async_wait_all();
    __syncthreads();
    const std::int64_t ahead = t + gridDim.x;
    if (ahead < tiles) {
      std::int64_t ay0, as0;
      origin(ahead, ay0, as0);
      stage_tile<float, 1, S, Staging::interior_lean, MW, false>(a, next, P::g, MW, ay0, as0);
    }
    origin(t, y0, s0);
    float acc[S::ry][S::k];
    compute_staged_tile<float, 1, MW, S, true>(mask, current, P::g, MW, tx, ty, acc);
    if (!store_rows_interior<float, 1, S>(a, acc, y0, s0))
      store_rows<float, 1, S>(a, acc, y0 + ty * S::ry, s0 + tx * S::k);
    float* const done = current;
    current = next;
    next = done;
  }
}

// Launches convolve_pipelined for a float image of one channel (width, height > 0) and a square
// mask of width MW (mask.height == MW): the resident grid; max_blocks > 0 makes it at most that
// many blocks (the tests' walks over many tiles).
template <int MW, class S>
void launch_pipelined(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream,
                      std::int64_t max_blocks = 0) {
  using P = PipelinedStages<MW, S>;
  auto* kernel = &convolve_pipelined<MW, S>;
  const std::int64_t tiles = (a.width + S::tile_w - 1) / S::tile_w *
                             ((a.height + S::tile_h - 1) / S::tile_h);
  static core::PerDevice resident_cache; // also opts the kernel in to its shared memory
  std::int64_t blocks = std::min(
      tiles, core::resident_blocks(resident_cache, reinterpret_cast<const void*>(kernel),
                                   S::threads, P::shared_bytes));
  if (max_blocks > 0)
    blocks = std::min(blocks, max_blocks);
  kernel<<<static_cast<unsigned>(blocks), dim3(S::tx, S::ty), P::shared_bytes, stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}

} // namespace ladder::conv_detail
