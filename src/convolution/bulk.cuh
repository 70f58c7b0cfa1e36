// Row reuse staged by the bulk copy engine (sm_90's cp.async.bulk, the non-tensor form of TMA):
// float images of one channel, whose stage holds the image's own bytes.
//
// convolve_tiled's threads stage their tile themselves: every 16-byte chunk is an address, a
// cp.async and its bookkeeping (about 22 instructions with interior staging, some 5 chunks a
// thread for a 7 x 7 mask), in the same issue slots as the 784 fused multiply-adds of the thread's
// 4 x 4 outputs, and in registers that the capped 7 x 7 and 9 x 9 kernels do not have to spare.
// Here one warp hands the stage's rows to the copy engine, one bulk copy per row (the tile's
// columns plus the halo rounded out to 16 bytes: 544 bytes at 7 x 7), and that warp waits on an
// mbarrier that completes when the last byte has landed, then the block's barrier releases the
// other warps. The threads issue no load at all.
//
// Stages > 1: a block walks tiles blockIdx.x, blockIdx.x + gridDim.x, ... of the image (tiles in
// row order, so the resident blocks read a band of consecutive tile rows, as the tiled kernel's
// grid does) with a ring of Stages stages, the copies of the next Stages - 1 tiles in flight while
// it computes this one. Stages == 1: one tile per block, the tiled kernel's grid.
//
// Tiles whose stage reaches outside the image (the edges), or images whose rows are not 16-byte
// aligned, are staged by the threads through the border policy (Staging::vector), as the tiled
// kernel stages them; the sums are compute_staged_tile's, so results are bit for bit the tiled
// kernel's.
#pragma once

#include "convolution/tiled.cuh"
#include "core/resident_grid.hpp"
#include "ladder/detail/bulk_copy.cuh"

#include <algorithm>
#include <stdexcept>

namespace ladder::conv_detail {

template <int MW, class S, int Stages> struct BulkRing {
  static_assert(Stages >= 1 && Stages <= 8);
  static constexpr StageGeometry g = stage_geometry<float, 1, S>(MW);
  static constexpr int rows = S::tile_h + MW - 1;
  static constexpr unsigned row_bytes = static_cast<unsigned>(g.stride) * 4;
  static_assert(row_bytes % 16 == 0, "bulk copies move multiples of 16 bytes");
  static constexpr int stage_floats = rows * g.stride;
  static constexpr unsigned stage_bytes = static_cast<unsigned>(stage_floats) * 4;
  static constexpr std::size_t barrier_bytes = 128; // the stages' mbarriers; keeps the ring aligned
  static constexpr std::size_t shared_bytes = barrier_bytes + std::size_t{Stages} * stage_bytes;
};

// Whether tile t's stage lies inside the image (and the block may copy it whole), with its
// first output row y0 and first column s0.
template <int MW, class S>
__device__ __forceinline__ bool bulk_tile(const ImageArgs& a, std::int64_t tiles_x, std::int64_t t,
                                          bool aligned, std::int64_t& y0, std::int64_t& s0) {
  constexpr StageGeometry g = stage_geometry<float, 1, S>(MW);
  const std::int64_t by = t / tiles_x;
  y0 = by * S::tile_h;
  s0 = (t - by * tiles_x) * S::tile_w;
  const std::int64_t top = y0 - MW / 2, g0 = s0 - g.r;
  if constexpr (!detail::bulk::available)
    return false; // before sm_90: every tile staged by the threads
  return aligned && top >= 0 && top + S::tile_h + MW - 1 <= a.height && g0 >= 0 &&
         g0 + g.stride <= a.width;
}

// Warp 0: the stage of the tile at (y0, s0) into `stage`, one bulk copy per row, counted on `bar`.
template <int MW, class S, int Stages>
__device__ __forceinline__ void bulk_stage(const ImageArgs& a, std::int64_t y0, std::int64_t s0,
                                           float* stage, std::uint64_t* bar, int lane) {
  using R = BulkRing<MW, S, Stages>;
  if (lane == 0)
    detail::bulk::expect_bytes(bar, R::stage_bytes);
  __syncwarp();
  const unsigned char* first =
      a.in + (y0 - MW / 2) * a.in_pitch + (s0 - R::g.r) * static_cast<std::int64_t>(sizeof(float));
  for (int r = lane; r < R::rows; r += 32)
    detail::bulk::copy_counted(stage + r * R::g.stride, first + r * a.in_pitch, R::row_bytes, bar);
}

template <int MW, class S, int Stages>
__device__ __forceinline__ void convolve_bulk_body(const ImageArgs& a, const MaskParam& mask) {
  using R = BulkRing<MW, S, Stages>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  auto* bars = reinterpret_cast<std::uint64_t*>(shared_raw);
  float* ring = reinterpret_cast<float*>(shared_raw + R::barrier_bytes);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int thread = tx + ty * S::tx;
  const bool copier = thread < 32; // warp 0 issues the copies
  const std::int64_t tiles_x = (a.width + S::tile_w - 1) / S::tile_w;
  const std::int64_t tiles = tiles_x * ((a.height + S::tile_h - 1) / S::tile_h);
  const bool aligned = rows_aligned_to<float4>(a.in, a.in_pitch);

  if (thread == 0)
    for (int s = 0; s < Stages; ++s)
      detail::bulk::barrier_init(bars + s, 1);
  __syncthreads();

  // The first Stages - 1 tiles' copies.
  if (copier) {
    for (int k = 0; k < Stages - 1; ++k) {
      const std::int64_t t = blockIdx.x + std::int64_t{k} * gridDim.x;
      std::int64_t y0, s0;
      if (t < tiles && bulk_tile<MW, S>(a, tiles_x, t, aligned, y0, s0))
        bulk_stage<MW, S, Stages>(a, y0, s0, ring + k * R::stage_floats, bars + k, thread);
    }
  }

  unsigned parities = 0; // bit s: the phase of stage s's barrier that the next wait is for
  int slot = 0;
  for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    // Tile t + (Stages - 1) grid strides goes into the stage that the previous tile read (the
    // barrier at the end of the previous step ordered those reads before this copy).
    if (copier) {
      const std::int64_t ahead = t + std::int64_t{Stages - 1} * gridDim.x;
      const int ahead_slot = slot == 0 ? Stages - 1 : slot - 1;
      std::int64_t y0, s0;
      if (ahead < tiles && bulk_tile<MW, S>(a, tiles_x, ahead, aligned, y0, s0))
        bulk_stage<MW, S, Stages>(a, y0, s0, ring + ahead_slot * R::stage_floats, bars + ahead_slot,
                                  thread);
    }
    float* stage = ring + slot * R::stage_floats;
    std::int64_t y0, s0;
    if (bulk_tile<MW, S>(a, tiles_x, t, aligned, y0, s0)) {
      // One warp polls the stage's barrier and the block's barrier hands the landed stage to the
      // rest: with every warp polling, the polls (mbarrier.try_wait, its branch and yield, some
      // 210 instructions a warp per tile at 7 x 7) took more issue slots than the staging
      // instructions they replaced (Nsight Compute, H100, 2026-11-27).
      if (copier)
        detail::bulk::wait(bars + slot, (parities >> slot) & 1u);
      parities ^= 1u << slot;
    } else {
      stage_tile<float, 1, S, Staging::vector>(a, stage, R::g, MW, y0, s0);
    }
    __syncthreads();
    float acc[S::ry][S::k];
    compute_staged_tile<float, 1, MW, S, true>(mask, stage, R::g, MW, tx, ty, acc);
    store_rows<float, 1, S>(a, acc, y0 + ty * S::ry, s0 + tx * S::k);
    // This stage's reads (generic proxy) before the bulk copy that refills it (async proxy).
    detail::bulk::fence_proxy_async_shared();
    __syncthreads();
    slot = slot + 1 == Stages ? 0 : slot + 1;
  }
}

template <int MW, class S, int Stages>
__global__ void __launch_bounds__(S::threads)
    convolve_bulk(ImageArgs a, const __grid_constant__ MaskParam mask) {
  convolve_bulk_body<MW, S, Stages>(a, mask);
}

template <int MW, class S, int Stages>
__global__ void __launch_bounds__(S::threads, S::min_blocks)
    convolve_bulk_capped(ImageArgs a, const __grid_constant__ MaskParam mask) {
  convolve_bulk_body<MW, S, Stages>(a, mask);
}

// Launches convolve_bulk for a float image of one channel (width, height > 0) and a square mask
// of width MW: one block per tile where Stages == 1, else the resident grid walking the tiles;
// max_blocks > 0 makes the grid at most that many blocks (the tests' walks over many tiles).
template <int MW, class S, int Stages>
void launch_bulk(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream,
                 std::int64_t max_blocks = 0) {
  using R = BulkRing<MW, S, Stages>;
  auto* kernel = &convolve_bulk<MW, S, Stages>;
  if constexpr (S::min_blocks > 1)
    kernel = &convolve_bulk_capped<MW, S, Stages>;
  const std::int64_t tiles = (a.width + S::tile_w - 1) / S::tile_w *
                             ((a.height + S::tile_h - 1) / S::tile_h);
  static core::PerDevice resident_cache; // also opts the kernel in to its shared memory
  const std::int64_t resident = core::resident_blocks(
      resident_cache, reinterpret_cast<const void*>(kernel), S::threads, R::shared_bytes);
  std::int64_t blocks = Stages == 1 ? tiles : std::min(tiles, resident);
  if (max_blocks > 0)
    blocks = std::min(blocks, max_blocks);
  if (blocks > 0x7fffffff)
    throw std::invalid_argument("bulk: more than 2^31 - 1 tiles");
  kernel<<<static_cast<unsigned>(blocks), dim3(S::tx, S::ty), R::shared_bytes, stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}

} // namespace ladder::conv_detail
