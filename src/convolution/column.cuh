// The column walk: convolve_tiled's row reuse, with each block walking a run of tiles down one
// column of the image and staging the next tile while it computes this one.
//
// convolve_tiled stages a tile, waits at a barrier for the whole stage to land, computes, stores
// and ends; its loads and its arithmetic never overlap within a block, only across the blocks
// that share an SM. Nsight Compute on the float 3 x 3 kernel (8192^2, H200, 2026-11-26) found
// DRAM 72% busy and the warps waiting on the stage's loads and the barrier. Here the staged rows
// live in a ring of 2 TH + MH - 1 rows (TH: the tile's rows): tile t reads TH + MH - 1 of them
// while the cp.async copies of tile t + 1's TH new rows travel into the other TH, and the MH - 1
// halo rows two tiles share are staged once, not twice.
//
// Rows outside the image are staged through the border policy (as convolve_tiled's), chunks at
// the left and right edges or off 16-byte boundaries through the tested per-chunk path, so every
// image, border and pitch works; the sums are the row reuse walk's (tiled.cuh), so results are
// bit for bit those of the library's other kernels. Float images (cp.async staging), square masks
// whose taps are compiled unrolled.
//
// The interleaved walk keeps the overlap without the run's read order: a block double-buffers
// whole windows of the tiles blockIdx.y, blockIdx.y + gridDim.y, ..., so the resident blocks
// read a band of consecutive tile rows at any time, as the tiled kernel's grid does.
#pragma once

#include "convolution/tiled.cuh"
#include "core/async_copy.cuh"
#include "core/resident_grid.hpp"

#include <algorithm>

namespace ladder::conv_detail {

// Which tiles a block walks, and so what its ring holds.
// run: a run of consecutive tiles down its column; the ring holds one tile's window and the next
//   tile's TH new rows (the MH - 1 halo rows two tiles share are staged once).
// interleaved: tiles blockIdx.y, blockIdx.y + gridDim.y, ... of its column, so that the resident
//   blocks together read a band of consecutive tile rows, as the tiled kernel's grid does; the
//   ring is two whole windows (double buffering), nothing shared between them.
enum class ColumnWalk { run, interleaved };

template <int MW, class S, ColumnWalk W> struct ColumnRing {
  static constexpr int halo_rows = MW / 2;
  static constexpr int window_rows = S::tile_h + MW - 1;
  static constexpr int rows =
      W == ColumnWalk::run ? 2 * S::tile_h + MW - 1 : 2 * window_rows;
};

template <class T, int C, int MW, class S, ColumnWalk W>
constexpr std::size_t column_stage_bytes() {
  return static_cast<std::size_t>(ColumnRing<MW, S, W>::rows) *
         stage_geometry<T, C, S>(MW).stride * sizeof(float);
}

// Stages image rows [y, y + rows) of the block's columns into ring rows slot, slot + 1, ...
// (mod ring_rows). `columns_fast`: the block's staged columns lie inside every row and start
// 16-byte aligned (a block-uniform test), so every chunk of a row is one 16-byte copy from the
// row the border policy maps it to, or zeros.
template <class T, int C, class S>
__device__ __forceinline__ void stage_ring_rows(const ImageArgs& a, float* ring, int ring_rows,
                                                StageGeometry g, bool columns_fast,
                                                std::int64_t g0, std::int64_t y, int rows,
                                                int slot) {
  constexpr int V = vector_scalars<T>;
  const int vectors_per_row = g.stride / V;
  const int total = rows * vectors_per_row;
  for (int idx = threadIdx.x + threadIdx.y * S::tx; idx < total; idx += S::threads) {
    const int r = idx / vectors_per_row;
    const int c = idx - r * vectors_per_row;
    int row_slot = slot + r;
    if (row_slot >= ring_rows)
      row_slot -= ring_rows;
    float* dst = ring + row_slot * g.stride + c * V;
    const std::int64_t q = g0 + static_cast<std::int64_t>(c) * V;
    if (columns_fast) {
      const std::int64_t ym = border_index(y + r, a.height, a.border);
      if (ym >= 0) {
        stage_chunk16<T>(dst, a.in + ym * a.in_pitch + q * static_cast<std::int64_t>(sizeof(T)));
      } else {
#pragma unroll
        for (int e = 0; e < V; e += 4)
          *reinterpret_cast<float4*>(dst + e) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
    } else {
      stage_chunk_bordered<T, C, true>(a, dst, y + r, q);
    }
  }
}

// run: block (bx, by) computes tiles by x tiles_per_block .. (by + 1) x tiles_per_block - 1 of
// tile column bx, top to bottom; interleaved: tiles by, by + gridDim.y, ... (tiles_per_block
// unused).
template <class T, int C, int MW, class S, ColumnWalk W>
__global__ void __launch_bounds__(S::threads)
    convolve_column(ImageArgs a, const __grid_constant__ MaskParam mask, int tiles_per_block) {
  static_assert(sizeof(T) == 4, "the column walk stages by cp.async: float images");
  static_assert(row_reuse_unrolled<S, MW>(), "square masks with their taps unrolled");
  using Ring = ColumnRing<MW, S, W>;
  constexpr bool interleaved = W == ColumnWalk::interleaved;
  constexpr StageGeometry g = stage_geometry<T, C, S>(MW);
  extern __shared__ __align__(16) unsigned char shared_raw[];
  float* ring = reinterpret_cast<float*>(shared_raw);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t s0 = static_cast<std::int64_t>(blockIdx.x) * S::tile_w;
  const std::int64_t g0 = s0 - g.r;
  const std::int64_t tiles_y = (a.height + S::tile_h - 1) / S::tile_h;
  const std::int64_t first =
      interleaved ? blockIdx.y : static_cast<std::int64_t>(blockIdx.y) * tiles_per_block;
  const std::int64_t end =
      interleaved || first + tiles_per_block >= tiles_y ? tiles_y : first + tiles_per_block;
  const std::int64_t step = interleaved ? gridDim.y : 1;
  if (first >= end)
    return;
  const bool columns_fast =
      g0 >= 0 && g0 + g.stride <= a.width * C &&
      ((reinterpret_cast<std::uintptr_t>(a.in + g0 * static_cast<std::int64_t>(sizeof(T))) |
        static_cast<std::uintptr_t>(a.in_pitch)) & 15) == 0;

  // The first tile's window: ring rows 0 .. TH + MH - 2 hold image rows from y_first - MH / 2.
  stage_ring_rows<T, C, S>(a, ring, Ring::rows, g, columns_fast, g0,
                           first * S::tile_h - Ring::halo_rows, Ring::window_rows, 0);
  core::commit_copies();
  int top = 0; // the ring row of this tile's first window row
  for (std::int64_t t = first; t < end; t += step) {
    const std::int64_t y0 = t * S::tile_h;
    if (t != first)
      __syncthreads(); // the rows the previous tile alone read are free
    if (t + step < end) {
      if constexpr (interleaved) { // the next tile's whole window, into the other half
        stage_ring_rows<T, C, S>(a, ring, Ring::rows, g, columns_fast, g0,
                                 (t + step) * S::tile_h - Ring::halo_rows, Ring::window_rows,
                                 top == 0 ? Ring::window_rows : 0);
      } else { // the next tile's new rows, after this tile's window
        int slot = top + Ring::window_rows;
        if (slot >= Ring::rows)
          slot -= Ring::rows;
        stage_ring_rows<T, C, S>(a, ring, Ring::rows, g, columns_fast, g0,
                                 y0 + S::tile_h + Ring::halo_rows, S::tile_h, slot);
      }
      core::commit_copies();
      core::wait_copies<1>(); // this tile's rows have landed; the next tile's may travel
    } else {
      core::wait_copies<0>();
    }
    __syncthreads();

    float acc[S::ry][S::k];
    clear_accumulators<S>(acc);
    int first_row = top + ty * S::ry;
    if (first_row >= Ring::rows)
      first_row -= Ring::rows;
    row_reuse_rows<T, C, MW, S>(
        mask,
        [&](int r) {
          const int row = first_row + r;
          return ring + (row < Ring::rows ? row : row - Ring::rows) * g.stride;
        },
        tx, acc);
    store_rows<T, C, S>(a, acc, y0 + ty * S::ry, s0 + tx * S::k);
    if constexpr (interleaved) {
      top = top == 0 ? Ring::window_rows : 0;
    } else {
      top += S::tile_h;
      if (top >= Ring::rows)
        top -= Ring::rows;
    }
  }
}

// How many tiles each block walks. 0: the runs that fill the GPU's resident blocks once (each
// tile column cut into as many runs as the resident grid has room for, never fewer than one);
// otherwise that many.
inline std::int64_t column_run(std::int64_t tiles_x, std::int64_t tiles_y, std::int64_t resident,
                               int tiles_per_block) {
  if (tiles_per_block > 0)
    return std::min<std::int64_t>(tiles_per_block, tiles_y);
  const std::int64_t runs = std::max<std::int64_t>(1, std::min(tiles_y, resident / tiles_x));
  return (tiles_y + runs - 1) / runs;
}

// Launches convolve_column for one image (width, height > 0, mask.width == mask.height == MW).
// run: tiles_per_block as column_run reads it; interleaved: as many blocks down each column as
// the resident grid has room for (at least one), or with tiles_per_block > 0 as many as walk
// about that many tiles each, each block every that-many-th tile.
template <class T, int C, int MW, class S, ColumnWalk W = ColumnWalk::run>
void launch_column(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream,
                   int tiles_per_block = 0) {
  const std::int64_t tiles_x = (a.width * C + S::tile_w - 1) / S::tile_w;
  const std::int64_t tiles_y = (a.height + S::tile_h - 1) / S::tile_h;
  constexpr std::size_t shared = column_stage_bytes<T, C, MW, S, W>();
  auto* kernel = &convolve_column<T, C, MW, S, W>;
  static core::PerDevice resident_cache; // also opts the kernel in to `shared` bytes
  const std::int64_t resident = core::resident_blocks(
      resident_cache, reinterpret_cast<const void*>(kernel), S::threads, shared);
  std::int64_t run = 0, runs = 0;
  if constexpr (W == ColumnWalk::interleaved) {
    runs = tiles_per_block > 0
               ? (tiles_y + tiles_per_block - 1) / tiles_per_block
               : std::max<std::int64_t>(1, std::min(tiles_y, resident / tiles_x));
    runs = std::min<std::int64_t>(65535, runs);
  } else {
    run = column_run(tiles_x, tiles_y, resident, tiles_per_block);
    runs = (tiles_y + run - 1) / run;
  }
  if (tiles_x > 0x7fffffff || runs > 65535 || run > 0x7fffffff)
    throw std::invalid_argument("convolve_column: the image needs more blocks than one launch has");
  kernel<<<dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(runs)),
           dim3(S::tx, S::ty), shared, stream>>>(a, mask, static_cast<int>(run));
  LADDER_CUDA(cudaGetLastError());
}

} // namespace ladder::conv_detail
