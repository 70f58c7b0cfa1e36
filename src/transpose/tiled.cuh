// The fastest transpose we have built for Hopper, shared by the lab's "tiled" rungs and by the
// public ladder::transpose. Against the seeds' padded 32x32 tile it changes three things:
//   - 16-byte global loads and stores (when the shape and pointers allow), so a warp moves 512 B
//     per instruction instead of 128 B;
//   - more work per thread (a whole tile's loads issued before the first shared-memory store),
//     so each SM keeps enough bytes in flight to cover HBM latency;
//   - tile shapes chosen by measurement (see docs/transpose.md and bench/results/).
// Elements are moved as raw words of their size: a transpose never looks at the values.
#pragma once

#include "ladder/error.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace ladder::transpose_detail {

template <int Bytes> struct WordOf;
template <> struct WordOf<1> { using type = std::uint8_t; };
template <> struct WordOf<2> { using type = std::uint16_t; };
template <> struct WordOf<4> { using type = std::uint32_t; };
template <> struct WordOf<8> { using type = std::uint64_t; };
template <> struct WordOf<16> { using type = uint4; };

// An element whose pointers are aligned to less than its size (std::complex<float>: 8 bytes,
// aligned to 4) is moved as a blob with that alignment.
template <int Bytes, int Align> struct alignas(Align) Blob {
  unsigned char bytes[Bytes];
};
template <int Bytes, int Align>
using word_t = std::conditional_t<Bytes == Align, typename WordOf<Bytes>::type, Blob<Bytes, Align>>;

// N words loaded or stored as one aligned access.
template <class W, int N> struct alignas(sizeof(W) * N) Packet {
  W v[N];
};

template <class W, bool Vector> constexpr int vector_width() {
  return Vector && sizeof(W) < 16 ? static_cast<int>(16 / sizeof(W)) : 1;
}

// One block moves one TileRows x TileCols tile of the input per iteration (grid-stride over
// tiles, so any number of tiles fits in the grid's limits). Vector = true needs rows and cols to
// be multiples of the vector width and 16-byte aligned pointers; the dispatch checks that.
template <class W, int TileRows, int TileCols, int Threads, bool Vector>
__global__ void __launch_bounds__(Threads)
    tiled_transpose_kernel(const W* __restrict__ in, W* __restrict__ out, std::int64_t rows,
                           std::int64_t cols, std::int64_t tiles_per_row, std::int64_t tiles,
                           int nreps) {
  constexpr int V = vector_width<W, Vector>();
  static_assert(TileCols % V == 0 && TileRows % V == 0, "tile must hold whole vectors");
  constexpr int in_vectors_per_row = TileCols / V;
  constexpr int out_vectors_per_row = TileRows / V;
  constexpr int loads = TileRows * TileCols / V / Threads;
  static_assert(loads * Threads * V == TileRows * TileCols, "threads must divide the tile");
  using P = Packet<W, V>;
  // One word of padding per row: a column walk then visits every bank (the seeds' fix).
  __shared__ W tile[TileRows][TileCols + 1];

  for (int rep = 0; rep < nreps; ++rep) {
    for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      const std::int64_t r0 = (t / tiles_per_row) * TileRows;
      const std::int64_t c0 = (t % tiles_per_row) * TileCols;
      P staged[loads];
#pragma unroll
      for (int k = 0; k < loads; ++k) { // all loads in flight before the first use
        const int idx = static_cast<int>(threadIdx.x) + k * Threads;
        const int i = idx / in_vectors_per_row, j = (idx % in_vectors_per_row) * V;
        if (r0 + i < rows && c0 + j < cols)
          staged[k] = *reinterpret_cast<const P*>(in + (r0 + i) * cols + c0 + j);
      }
#pragma unroll
      for (int k = 0; k < loads; ++k) {
        const int idx = static_cast<int>(threadIdx.x) + k * Threads;
        const int i = idx / in_vectors_per_row, j = (idx % in_vectors_per_row) * V;
#pragma unroll
        for (int e = 0; e < V; ++e)
          tile[i][j + e] = staged[k].v[e];
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < loads; ++k) {
        const int idx = static_cast<int>(threadIdx.x) + k * Threads;
        const int j = idx / out_vectors_per_row, i = (idx % out_vectors_per_row) * V;
        if (c0 + j < cols && r0 + i < rows) {
          P packet;
#pragma unroll
          for (int e = 0; e < V; ++e)
            packet.v[e] = tile[i + e][j];
          *reinterpret_cast<P*>(out + (c0 + j) * rows + r0 + i) = packet;
        }
      }
      __syncthreads(); // the tile is reused by the next iteration
    }
  }
}

template <int TileRows, int TileCols, int Threads> struct TileShape {
  static constexpr int tile_rows = TileRows, tile_cols = TileCols, threads = Threads;
};

// Whether the 16-byte path applies: whole vectors per row in both matrices, aligned pointers.
template <class W>
bool vector_path_applies(const void* in, const void* out, std::int64_t rows, std::int64_t cols) {
  constexpr int V = vector_width<W, true>();
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return V > 1 && rows % V == 0 && cols % V == 0 && aligned(in) && aligned(out);
}

template <class W, class Shape, bool Vector>
const void* tiled_kernel_address() {
  return reinterpret_cast<const void*>(
      &tiled_transpose_kernel<W, Shape::tile_rows, Shape::tile_cols, Shape::threads, Vector>);
}

template <class W, class Shape, bool Vector>
void launch_tiled(const W* in, W* out, std::int64_t rows, std::int64_t cols, int nreps,
                  cudaStream_t stream) {
  if (rows == 0 || cols == 0)
    return;
  const std::int64_t tiles_per_row = (cols + Shape::tile_cols - 1) / Shape::tile_cols;
  const std::int64_t tile_rows = (rows + Shape::tile_rows - 1) / Shape::tile_rows;
  const std::int64_t tiles = tiles_per_row * tile_rows;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(tiles, 0x7fffffff));
  tiled_transpose_kernel<W, Shape::tile_rows, Shape::tile_cols, Shape::threads, Vector>
      <<<blocks, Shape::threads, 0, stream>>>(in, out, rows, cols, tiles_per_row, tiles, nreps);
  LADDER_CUDA(cudaGetLastError());
}

// The shape the library uses per element size, chosen from the tiled rungs' measurements.
template <int Bytes> struct LibraryShape { using type = TileShape<64, 64, 256>; };
template <> struct LibraryShape<16> { using type = TileShape<32, 32, 256>; };

} // namespace ladder::transpose_detail
