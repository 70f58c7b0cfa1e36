// The wide tile (wide.cuh) in persistent blocks fed by the bulk tensor copy: float images of one
// channel, rows 16-byte aligned. Measured slower than the wide tile from L1; kept as the measured
// case (docs/convolution.md, "The wide tile in persistent blocks, fed by tensor copies").
//
// What holds the wide tile at 7 x 7 on an H200 is the overlap of its loads with its FMAs: its
// registers keep about two input rows a warp in flight, a quarter of the cycles have no warp
// ready, and the rows warps share come back from L2 once per warp. The bulk-staged tile
// (convolve_wide_bulk_2d) fixed the traffic but paid for it in issue slots (a bulk copy a row, two
// dozen instructions each) and in late starts (each block waits for its whole stage before it
// computes). Here both go:
//
// - one instruction stages a tile: the tensor copy of a 2D box (the tile's 64 + MW - 1 rows of
//   128 + 2 x 4 h4 floats, 38 KB at 7 x 7) described by a tensor map the host builds per call;
// - blocks are persistent (as many as fit on the GPU) and walk tiles blockIdx.x, blockIdx.x +
//   gridDim.x, ... in row order through a ring of Stages stages, so while a block computes one
//   tile the copy engine fills the next ones, and the bytes in flight are bound by shared memory,
//   not registers.
//
// Warp 0's lane 0 is the producer: once every warp has read a stage (an mbarrier each stage, one
// arrival a warp), it hands the stage the tile Stages ahead. The warps' arrivals (release) and
// the producer's wait (acquire) order their reads of the stage before the copy that overwrites
// it, as CUTLASS's TMA pipelines have it. (A proxy fence before each copy as well compiles to a
// MEMBAR.ALL.CTA and measured the same: 278.0 against 276.8 us at 7 x 7, H100, commit cf4d546.)
// Each warp waits on its stage's mbarrier, then computes its rows of the tile from shared memory
// with the wide tile's own code (WideRows::staged: 16-byte shared loads, the warp's consecutive,
// no bank conflict) and stores them. A tile whose box reaches outside the image (the edges) is not
// copied: the producer only arrives on its stage, and the warps run the wide tile's global path
// through the border policy (wide_warps, with the L2 prefetch). The sums are the wide tile's, so
// every output is bit for bit the other paths'.
//
// Measured (`ladder tune convolution -s 8192x8192:7`, H100, 2026-11-27,
// bench/results/convolution-ring-tune-h100-2026-11-27-r3.md): 2 stages at 2 blocks per SM
// 276.1 us and one stage at 3 blocks 266.0, against the wide tile's 195.2. The edge tiles were
// most of the loss (with every tile copied, StageEdges, the same rings took 229.3 and 222.6 us),
// likely since the walk hands each block a fixed list of tiles and the edge tiles' global path
// runs with the L1 the stages leave, so the blocks that draw them finish last. The rest is the
// stage itself: a block per tile by tensor copy (Persistent false) took 220.8 us, and in the run
// before (-r2.md) wide_bulk, whose warps start as their own rows land, 203.6 against 221.7.
#pragma once

#include "convolution/wide.cuh"
#include "core/resident_grid.hpp"
#include "core/tensor_map.hpp"
#include "ladder/detail/bulk_copy.cuh"

#include <cuda.h>

#include <algorithm>
#include <climits>
#include <cstddef>

namespace ladder::conv_detail {

template <int MW, int KV, int RY, int Stages> struct WideRing {
  using W = Wide2d<MW, KV, RY>;
  static_assert(Stages >= 1 && Stages <= 8);
  static constexpr int rows = W::tile_h + MW - 1;              // the box's rows
  static constexpr int stride = 4 * (W::tx * KV + 2 * W::h4);  // its row, floats
  static_assert(rows <= 256 && stride <= 256, "a tensor copy's box is at most 256 a side");
  static constexpr unsigned stage_bytes = static_cast<unsigned>(rows * stride) * 4;
  static constexpr std::size_t stage_span = (stage_bytes + 127) / 128 * 128; // 128-byte aligned
  static constexpr std::size_t barrier_bytes = 128; // full and empty mbarriers of every stage
  static_assert(2 * Stages * 8 <= barrier_bytes);
  // Dynamic shared memory is aligned here to 128 bytes: up to 112 bytes lost at its start.
  static constexpr std::size_t shared_bytes = 128 + barrier_bytes + Stages * stage_span;
};

// Whether the box of the tile at (x0, y0) lies inside the image (then its stage is copied).
template <int MW, int KV, int RY>
__host__ __device__ __forceinline__ bool wide_box_inside(const ImageArgs& a, std::int64_t x0,
                                                         std::int64_t y0) {
  using W = Wide2d<MW, KV, RY>;
  return x0 - 4 * W::h4 >= 0 && x0 + W::tile_w + 4 * W::h4 <= a.width && y0 - W::halo >= 0 &&
         y0 - W::halo + W::tile_h + MW - 1 <= a.height;
}

template <int MW, int KV, int RY, int Stages, int MinBlocks, bool StageEdges>
__global__ void __launch_bounds__(256, MinBlocks)
    convolve_wide_ring_2d(ImageArgs a, const __grid_constant__ MaskParam mask,
                          const __grid_constant__ CUtensorMap in_map, int tiles_x, int tiles) {
  using W = Wide2d<MW, KV, RY>;
  using R = WideRing<MW, KV, RY, Stages>;
  extern __shared__ unsigned char shared_raw[];
  unsigned char* shared = shared_raw + ((128 - detail::bulk::shared_address(shared_raw) % 128) % 128);
  auto* full = reinterpret_cast<std::uint64_t*>(shared); // a stage's box has landed
  std::uint64_t* empty = full + Stages;                   // every warp has read a stage
  float* ring = reinterpret_cast<float*>(shared + R::barrier_bytes);
  const bool producer = threadIdx.x == 0 && threadIdx.y == 0;
  if (producer) {
    for (int s = 0; s < Stages; ++s) {
      detail::bulk::barrier_init(full + s, 1);
      detail::bulk::barrier_init(empty + s, W::ty);
    }
  }
  __syncthreads();
  const auto origin = [&](int t, std::int64_t& x0, std::int64_t& y0) {
    x0 = static_cast<std::int64_t>(t % tiles_x) * W::tile_w;
    y0 = static_cast<std::int64_t>(t / tiles_x) * W::tile_h;
  };
  // The producer: tile t into stage s, or only an arrival where its box leaves the image.
  const auto issue = [&](int t, int s) {
    std::int64_t x0, y0;
    origin(t, x0, y0);
    if (StageEdges || wide_box_inside<MW, KV, RY>(a, x0, y0)) {
      detail::bulk::expect_bytes(full + s, R::stage_bytes);
      detail::bulk::tensor_copy_2d(ring + s * (R::stage_span / 4), &in_map,
                                   static_cast<int>(x0 - 4 * W::h4),
                                   static_cast<int>(y0 - W::halo), full + s);
    } else {
      detail::bulk::arrive(full + s);
    }
  };
  if (producer)
    for (int s = 0; s < Stages; ++s)
      if (blockIdx.x + s * gridDim.x < static_cast<unsigned>(tiles))
        issue(static_cast<int>(blockIdx.x + s * gridDim.x), s);
  int i = 0;
  for (int t = static_cast<int>(blockIdx.x); t < tiles; t += static_cast<int>(gridDim.x), ++i) {
    const int s = i % Stages;
    const unsigned parity = static_cast<unsigned>(i / Stages) & 1u;
    std::int64_t x0, y0;
    origin(t, x0, y0);
    detail::bulk::wait(full + s, parity);
    if (StageEdges || wide_box_inside<MW, KV, RY>(a, x0, y0)) {
      const int ty = static_cast<int>(threadIdx.y), tx = static_cast<int>(threadIdx.x);
      wide_tile<MW, KV, RY, WideRows::staged, false, R::stride>(
          a, mask, x0 + tx * 4 * KV, y0 + ty * RY, true, nullptr,
          ring + s * (R::stage_span / 4) + ty * RY * R::stride + tx * 4 * KV);
    } else {
      wide_warps<MW, KV, RY, false, true>(a, mask, x0, y0);
    }
    __syncwarp();
    if (threadIdx.x == 0)
      detail::bulk::arrive(empty + s);
    if (producer) {
      const int next = t + Stages * static_cast<int>(gridDim.x);
      if (next < tiles) {
        detail::bulk::wait(empty + s, parity);
        issue(next, s);
      }
    }
  }
}

// Whether launch_wide_ring_2d takes this image: rows 16-byte aligned, the tile count an int, the
// tensor map's limits, and a driver that encodes tensor maps.
template <int MW, int KV, int RY> bool wide_ring_fits(const ImageArgs& a) {
  using W = Wide2d<MW, KV, RY>;
  if (!rows_aligned_to<float4>(a.in, a.in_pitch) || !rows_aligned_to<float4>(a.out, a.out_pitch))
    return false;
  if (a.width > INT_MAX / 2 || a.height > INT_MAX / 2 || a.in_pitch >= (std::int64_t{1} << 40))
    return false;
  const std::int64_t tiles_x = (a.width + W::tile_w - 1) / W::tile_w;
  const std::int64_t tiles_y = (a.height + W::tile_h - 1) / W::tile_h;
  return tiles_x * tiles_y <= INT_MAX && core::tensor_maps_available();
}

// Launches convolve_wide_ring_2d for a square mask of width MW (width, height > 0): as many
// blocks as fit on the device at once, at most one a tile. Images it does not fit
// (wide_ring_fits) take the library's wide tile from L1 instead (convolve_wide_2d in WideShape).
//
// Persistent false: a block per tile instead (each block's ring copies its one tile), the
// grid of convolve_wide_2d: the tensor copy without the persistent walk.
//
// StageEdges (a measurement, not a path for any image): every tile copied, the edge tiles too,
// their parts outside the image read as zeros by the copy engine; the stores are the interior's,
// unguarded. Right only for the zero border on images whose sides are whole tiles, where it shows
// what the edge tiles' global path costs the persistent walk.
template <int MW, int KV, int RY, int Stages, int MinBlocks, bool Persistent = true,
          bool StageEdges = false>
void launch_wide_ring_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  using W = Wide2d<MW, KV, RY>;
  using R = WideRing<MW, KV, RY, Stages>;
  if (!wide_ring_fits<MW, KV, RY>(a))
    return launch_wide_2d<MW, KV, RY, WideShape<MW>::min_blocks, WideShape<MW>::row_loop,
                          WideShape<MW>::prefetch_l2>(a, mask, stream);
  const int tiles_x = static_cast<int>((a.width + W::tile_w - 1) / W::tile_w);
  const int tiles = tiles_x * static_cast<int>((a.height + W::tile_h - 1) / W::tile_h);
  const CUtensorMap map =
      core::tensor_map_2d_f32(a.in, a.width, a.height, a.in_pitch, R::stride, R::rows);
  auto* kernel = &convolve_wide_ring_2d<MW, KV, RY, Stages, MinBlocks, StageEdges>;
  static core::PerDevice carveout;
  (void)carveout.get(core::current_device(), [&] {
    // The largest shared-memory split, so that MinBlocks rings fit an SM.
    LADDER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared));
    return 0;
  });
  // The resident grid (asked once per device; the query also opts the kernel in to its shared
  // memory, which a block per tile needs as well).
  static core::PerDevice resident;
  const std::int64_t fit = core::resident_blocks(resident, reinterpret_cast<const void*>(kernel),
                                                 W::threads, R::shared_bytes);
  const std::int64_t blocks = Persistent ? std::min<std::int64_t>(fit, tiles) : tiles;
  kernel<<<static_cast<unsigned>(blocks), dim3(W::tx, W::ty), R::shared_bytes, stream>>>(
      a, mask, map, tiles_x, tiles);
  LADDER_CUDA(cudaGetLastError());
}

} // namespace ladder::conv_detail
