// The fastest transpose we have built for Hopper, shared by the lab's "tiled" rungs and by the
// public ladder::transpose. Against the seeds' padded 32x32 tile it changes three things:
//   - 16-byte global loads and stores (when the shape and pointers allow), so a warp moves 512 B
//     per instruction instead of 128 B;
//   - more work per thread (a whole tile's loads issued before the first shared-memory store),
//     so each SM keeps enough bytes in flight to cover HBM latency;
//   - tile shapes chosen by measurement (see docs/transpose.md and bench/results/).
// Elements are moved as raw words of their size: a transpose never looks at the values.
#pragma once

#include "core/resident_grid.hpp"

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
// Which input tile the t-th block takes. Row order (group_rows = 0) makes the blocks in flight
// read a few whole row bands but write 256-byte pieces all over the output; grouping
// `group_rows` tile rows and walking them column by column keeps both sides in a compact patch,
// so reads and writes each stay within fewer DRAM pages.
struct TileOrder {
  std::int64_t tile_rows, tiles_per_row, group_rows;
  __device__ void locate(std::int64_t t, std::int64_t& tr, std::int64_t& tc) const {
    if (group_rows <= 0) {
      tr = t / tiles_per_row;
      tc = t % tiles_per_row;
      return;
    }
    const std::int64_t per_group = group_rows * tiles_per_row;
    const std::int64_t group = t / per_group, within = t % per_group;
    const std::int64_t height = min(group_rows, tile_rows - group * group_rows);
    tr = group * group_rows + within % height;
    tc = within / height;
  }
};

// Global accesses with an optional streaming hint (evict-first: each byte is touched once).
template <bool Streaming, class P> __device__ __forceinline__ P load_global(const P* p) {
  if constexpr (Streaming && sizeof(P) == 16 && alignof(P) == 16) {
    const uint4 v = __ldcs(reinterpret_cast<const uint4*>(p));
    return *reinterpret_cast<const P*>(&v);
  } else {
    return *p;
  }
}
template <bool Streaming, class P> __device__ __forceinline__ void store_global(P* p, const P& v) {
  if constexpr (Streaming && sizeof(P) == 16 && alignof(P) == 16)
    __stcs(reinterpret_cast<uint4*>(p), *reinterpret_cast<const uint4*>(&v));
  else
    *p = v;
}

template <class W, int TileRows, int TileCols, int Threads, bool Vector, bool Streaming = false>
__global__ void __launch_bounds__(Threads)
    tiled_transpose_kernel(const W* __restrict__ in, W* __restrict__ out, std::int64_t rows,
                           std::int64_t cols, TileOrder order, std::int64_t tiles, int nreps) {
  constexpr int V = vector_width<W, Vector>();
  static_assert(TileCols % V == 0 && TileRows % V == 0, "tile must hold whole vectors");
  constexpr int in_vectors_per_row = TileCols / V;
  constexpr int out_vectors_per_row = TileRows / V;
  constexpr int loads = TileRows * TileCols / V / Threads;
  static_assert(loads * Threads * V == TileRows * TileCols, "threads must divide the tile");
  using P = Packet<W, V>;
  // One word of padding per row: a column walk then visits every bank (the seeds' fix).
  __shared__ W tile[TileRows][TileCols + 1];

  // Loads of one tile, held in registers until they are stashed in shared memory.
  P staged[loads];
  const auto load = [&](std::int64_t t) {
    std::int64_t tr, tc;
    order.locate(t, tr, tc);
    const std::int64_t r0 = tr * TileRows, c0 = tc * TileCols;
#pragma unroll
    for (int k = 0; k < loads; ++k) { // all loads in flight before the first use
      const int idx = static_cast<int>(threadIdx.x) + k * Threads;
      const int i = idx / in_vectors_per_row, j = (idx % in_vectors_per_row) * V;
      if (r0 + i < rows && c0 + j < cols)
        staged[k] = load_global<Streaming>(reinterpret_cast<const P*>(in + (r0 + i) * cols + c0 + j));
    }
  };
  const auto stash = [&] {
#pragma unroll
    for (int k = 0; k < loads; ++k) {
      const int idx = static_cast<int>(threadIdx.x) + k * Threads;
      const int i = idx / in_vectors_per_row, j = (idx % in_vectors_per_row) * V;
#pragma unroll
      for (int e = 0; e < V; ++e)
        tile[i][j + e] = staged[k].v[e];
    }
  };
  const auto store = [&](std::int64_t t) {
    std::int64_t tr, tc;
    order.locate(t, tr, tc);
    const std::int64_t r0 = tr * TileRows, c0 = tc * TileCols;
#pragma unroll
    for (int k = 0; k < loads; ++k) {
      const int idx = static_cast<int>(threadIdx.x) + k * Threads;
      const int j = idx / out_vectors_per_row, i = (idx % out_vectors_per_row) * V;
      if (c0 + j < cols && r0 + i < rows) {
        P packet;
#pragma unroll
        for (int e = 0; e < V; ++e)
          packet.v[e] = tile[i + e][j];
        store_global<Streaming>(reinterpret_cast<P*>(out + (c0 + j) * rows + r0 + i), packet);
      }
    }
  };

  // With fewer blocks than tiles (a persistent grid) each block walks several tiles, and the
  // loads of its next tile are in flight while it writes the current one out of shared memory.
  for (int rep = 0; rep < nreps; ++rep) {
    std::int64_t t = blockIdx.x;
    if (t < tiles)
      load(t);
    for (; t < tiles; t += gridDim.x) {
      stash();
      __syncthreads();
      if (t + gridDim.x < tiles)
        load(t + gridDim.x);
      store(t);
      __syncthreads(); // the tile is reused by the next iteration
    }
  }
}

// Any shape, any alignment, still with 16-byte accesses. When rows is not a multiple of the
// vector width, each output row starts at a different offset within a 32-byte sector, and tiles
// cut on the logical grid would make two blocks write parts of the same sector: measured on an
// H200, that costs a third of the bandwidth (partial-sector writes). So the tile is sheared: for
// output row c its segment is shifted up by p(c) < S words so that it starts on a sector
// boundary, and the block stages S extra input rows (a halo) to cover the shift. Every block
// then writes whole sectors, with single elements only at the matrix's own edges. On the input
// side (misaligned reads cost nothing measurable) each row segment is covered by TileCols / V + 1
// aligned vectors, and the elements outside the tile are dropped.
template <class W> constexpr int sector_words() {
  return 32 / sizeof(W) > 16 / sizeof(W) ? static_cast<int>(32 / sizeof(W)) : static_cast<int>(16 / sizeof(W));
}

template <class W, int TileRows, int TileCols, int Threads, bool Streaming>
__global__ void __launch_bounds__(Threads)
    any_alignment_transpose_kernel(const W* __restrict__ in, W* __restrict__ out,
                                   std::int64_t rows, std::int64_t cols, TileOrder order,
                                   std::int64_t tiles, int nreps) {
  constexpr int V = static_cast<int>(16 / sizeof(W));
  constexpr int S = sector_words<W>();
  static_assert(V >= 2 && TileCols % V == 0 && TileRows % S == 0, "needs words under 16 bytes");
  constexpr int staged_rows = TileRows + S;  // the tile plus the halo above it
  constexpr int in_slots = TileCols / V + 1; // aligned vectors touching one input row segment
  constexpr int out_vectors = TileRows / V;  // vectors per (sector-aligned) output segment
  constexpr int loads = (staged_rows * in_slots + Threads - 1) / Threads;
  constexpr int stores = (TileCols * out_vectors + Threads - 1) / Threads;
  constexpr int no_column = -(1 << 20);
  using P = Packet<W, V>;
  __shared__ W tile[staged_rows][TileCols + 1];

  const std::int64_t n = rows * cols;
  // Where element 0 of each matrix sits within its 16-byte line / 32-byte sector.
  const auto in_phase = static_cast<std::int64_t>((reinterpret_cast<std::uintptr_t>(in) / sizeof(W)) % V);
  const auto out_phase = static_cast<std::int64_t>((reinterpret_cast<std::uintptr_t>(out) / sizeof(W)) % S);

  for (int rep = 0; rep < nreps; ++rep) {
    for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      std::int64_t tr, tc;
      order.locate(t, tr, tc);
      const std::int64_t r0 = tr * TileRows, c0 = tc * TileCols;
      const std::int64_t top = r0 - S; // input row held in tile row 0
      P staged[loads];
      int first_column[loads]; // tile column of each staged vector's element 0
#pragma unroll
      for (int k = 0; k < loads; ++k) {
        const int idx = static_cast<int>(threadIdx.x) + k * Threads;
        const int i = idx / in_slots, slot = idx % in_slots;
        const std::int64_t r = top + i;
        first_column[k] = no_column;
        if (idx < staged_rows * in_slots && r >= 0 && r < rows) {
          const std::int64_t g = r * cols + c0;
          const int lead = static_cast<int>((g + in_phase) & (V - 1));
          const std::int64_t first = g - lead + slot * V;
          first_column[k] = slot * V - lead;
          if (first_column[k] >= TileCols) { // the spare slot of an aligned row: nothing inside
            first_column[k] = no_column;
          } else if (first >= 0 && first + V <= n) {
            staged[k] = load_global<Streaming>(reinterpret_cast<const P*>(in + first));
          } else { // the vector would reach outside the matrix: only its inside elements
#pragma unroll
            for (int e = 0; e < V; ++e)
              if (first + e >= 0 && first + e < n)
                staged[k].v[e] = in[first + e];
          }
        }
      }
#pragma unroll
      for (int k = 0; k < loads; ++k) {
        const int idx = static_cast<int>(threadIdx.x) + k * Threads;
        const int i = idx / in_slots;
#pragma unroll
        for (int e = 0; e < V; ++e) {
          const int c = first_column[k] + e; // elements past the row's end land in columns
          if (c >= 0 && c < TileCols)        // the store phase never reads
            tile[i][c] = staged[k].v[e];
        }
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < stores; ++k) {
        const int idx = static_cast<int>(threadIdx.x) + k * Threads;
        const int j = idx / out_vectors, v = idx % out_vectors;
        const std::int64_t c = c0 + j;
        if (idx < TileCols * out_vectors && c < cols) {
          const int shift = static_cast<int>((out_phase + c * rows) % S);
          const std::int64_t r = r0 - shift + v * V; // first output position of this vector
          const int row = S - shift + v * V;         // its tile row
          if (r >= 0 && r + V <= rows) {
            P packet;
#pragma unroll
            for (int e = 0; e < V; ++e)
              packet.v[e] = tile[row + e][j];
            store_global<Streaming>(reinterpret_cast<P*>(out + c * rows + r), packet);
          } else {
#pragma unroll
            for (int e = 0; e < V; ++e)
              if (r + e >= 0 && r + e < rows)
                out[c * rows + r + e] = tile[row + e][j];
          }
        }
      }
      __syncthreads();
    }
  }
}

// Elements of 1 or 2 bytes, packed in 4-byte words through shared memory. The generic kernel
// moves such elements one at a time between shared memory and registers (16 one-byte shared
// loads per 16-byte store): the shared-memory pipe, not DRAM, becomes the limit. Here a thread
// of the store phase reads V words down one word column of the tile (V = 16 / element size
// input rows, each word P = 4 / element size neighbouring elements of a row), transposes that
// V x P block of elements in registers (byte permutes), and writes P whole 16-byte vectors, one
// to each of P output rows: 4 bytes per shared-memory access instead of 1 or 2. Bank conflicts
// are avoided by an XOR swizzle instead of padding: word column w of tile row i is stored at
// w ^ swizzle(i / V), so the G = TileRows / V lanes that read the same word column at G different
// row groups hit G different banks (padding cannot do that: the rows they read are V apart).
// Needs what the aligned 16-byte kernel needs: rows and cols multiples of V, 16-byte aligned
// pointers. Also built for 4-byte words (P = 1) as a tuning variant.
// 4 x 4 bytes: word j of the result holds byte j of a, b, c, d (in that order).
__device__ __forceinline__ void transpose_bytes_4x4(unsigned a, unsigned b, unsigned c,
                                                    unsigned d, unsigned (&r)[4]) {
  const unsigned ab_lo = __byte_perm(a, b, 0x5140), cd_lo = __byte_perm(c, d, 0x5140);
  const unsigned ab_hi = __byte_perm(a, b, 0x7362), cd_hi = __byte_perm(c, d, 0x7362);
  r[0] = __byte_perm(ab_lo, cd_lo, 0x5410);
  r[1] = __byte_perm(ab_lo, cd_lo, 0x7632);
  r[2] = __byte_perm(ab_hi, cd_hi, 0x5410);
  r[3] = __byte_perm(ab_hi, cd_hi, 0x7632);
}

template <int Bytes, int TileRows, int TileWords, int Threads, bool Streaming>
__global__ void __launch_bounds__(Threads)
    packed_transpose_kernel(const typename WordOf<Bytes>::type* __restrict__ in_elements,
                            typename WordOf<Bytes>::type* __restrict__ out_elements,
                            std::int64_t rows, std::int64_t cols, TileOrder order,
                            std::int64_t tiles, int nreps) {
  static_assert(Bytes == 1 || Bytes == 2 || Bytes == 4, "words pack 1-, 2- or 4-byte elements");
  constexpr int P = 4 / Bytes;       // elements per word
  constexpr int V = 16 / Bytes;      // elements per 16-byte vector
  constexpr int G = TileRows / V;    // row groups: lanes that share a word column
  constexpr int TileCols = TileWords * P;
  constexpr int vectors_per_row = TileWords / 4;
  constexpr int loads = TileRows * vectors_per_row / Threads;
  constexpr int items = G * TileWords / Threads; // store-phase items per thread
  static_assert(TileRows % V == 0 && G <= 8 && 32 % G == 0,
                "row groups: a power of two up to 8 (the swizzle keeps 4-word groups whole)");
  static_assert(TileWords % 32 == 0, "whole bank rows per tile row");
  static_assert(loads * Threads == TileRows * vectors_per_row && items * Threads == G * TileWords,
                "threads must divide the tile");
  constexpr int lanes_per_column = 32 / G;
  __shared__ uint4 tile_storage[TileRows * TileWords / 4];
  auto* tile = reinterpret_cast<unsigned*>(tile_storage);
  const auto swizzle = [](int row) { return ((row / V) * lanes_per_column) & 31; };

  for (int rep = 0; rep < nreps; ++rep) {
    for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      std::int64_t tr, tc;
      order.locate(t, tr, tc);
      const std::int64_t r0 = tr * TileRows, c0 = tc * TileCols;
      uint4 staged[loads];
#pragma unroll
      for (int k = 0; k < loads; ++k) {
        const int idx = static_cast<int>(threadIdx.x) + k * Threads;
        const int i = idx / vectors_per_row, q = idx % vectors_per_row;
        if (r0 + i < rows && c0 + q * V < cols)
          staged[k] = load_global<Streaming>(
              reinterpret_cast<const uint4*>(in_elements + (r0 + i) * cols + c0 + q * V));
      }
#pragma unroll
      for (int k = 0; k < loads; ++k) {
        const int idx = static_cast<int>(threadIdx.x) + k * Threads;
        const int i = idx / vectors_per_row, q = idx % vectors_per_row;
        *reinterpret_cast<uint4*>(tile + i * TileWords + ((q * 4) ^ swizzle(i))) = staged[k];
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < items; ++k) {
        const int idx = static_cast<int>(threadIdx.x) + k * Threads;
        const int g = idx % G, w = idx / G;
        const std::int64_t r = r0 + static_cast<std::int64_t>(g) * V; // first output column
        const std::int64_t c = c0 + static_cast<std::int64_t>(w) * P; // first output row
        unsigned words[V];
#pragma unroll
        for (int e = 0; e < V; ++e)
          words[e] = tile[(g * V + e) * TileWords + (w ^ swizzle(g * V))];
        uint4 vectors[P];
        if constexpr (Bytes == 1) {
          unsigned part[4][4]; // part[m][j]: bytes j of words 4m .. 4m + 3
#pragma unroll
          for (int m = 0; m < 4; ++m)
            transpose_bytes_4x4(words[4 * m], words[4 * m + 1], words[4 * m + 2], words[4 * m + 3],
                                part[m]);
#pragma unroll
          for (int j = 0; j < 4; ++j)
            vectors[j] = make_uint4(part[0][j], part[1][j], part[2][j], part[3][j]);
        } else if constexpr (Bytes == 2) {
          unsigned lo[4], hi[4];
#pragma unroll
          for (int m = 0; m < 4; ++m) {
            lo[m] = __byte_perm(words[2 * m], words[2 * m + 1], 0x5410);
            hi[m] = __byte_perm(words[2 * m], words[2 * m + 1], 0x7632);
          }
          vectors[0] = make_uint4(lo[0], lo[1], lo[2], lo[3]);
          vectors[1] = make_uint4(hi[0], hi[1], hi[2], hi[3]);
        } else {
          vectors[0] = make_uint4(words[0], words[1], words[2], words[3]);
        }
        if (r < rows) {
#pragma unroll
          for (int j = 0; j < P; ++j)
            if (c + j < cols)
              store_global<Streaming>(reinterpret_cast<uint4*>(out_elements + (c + j) * rows + r),
                                      vectors[j]);
        }
      }
      __syncthreads(); // the tile is reused by the next iteration
    }
  }
}

// A tuned configuration: tile, threads per block, tile order and cache hint.
// Persistent: launch as many blocks as fit on the GPU at once (the occupancy API says how many)
// and let each walk several tiles, instead of one block per tile.
template <int TileRows, int TileCols, int Threads, int GroupRows = 0, bool Streaming = false,
          bool Persistent = false>
struct TileShape {
  static constexpr int tile_rows = TileRows, tile_cols = TileCols, threads = Threads;
  static constexpr int group_rows = GroupRows;
  static constexpr bool streaming = Streaming;
  static constexpr bool persistent = Persistent;
};

// Whether the 16-byte path applies: whole vectors per row in both matrices, aligned pointers.
template <class W>
bool vector_path_applies(const void* in, const void* out, std::int64_t rows, std::int64_t cols) {
  constexpr int V = vector_width<W, true>();
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return V > 1 && rows % V == 0 && cols % V == 0 && aligned(in) && aligned(out);
}

// Which kernel moves the tiles: scalar words, aligned 16-byte vectors, or 16-byte vectors at
// any alignment.
// packed: aligned 16-byte vectors with the elements (1, 2 or 4 bytes) packed in shared-memory words.
enum class Access { scalar, aligned_vector, any_alignment_vector, packed };

// Whether a shape builds for words W with access A (a shape holds whole vectors per thread).
template <class W, class Shape, Access A> constexpr bool shape_fits() {
  constexpr int R = Shape::tile_rows, C = Shape::tile_cols, T = Shape::threads;
  if constexpr (A == Access::packed) {
    if constexpr (sizeof(W) > 4 || (C * static_cast<int>(sizeof(W))) % 128 != 0)
      return false;
    else {
      constexpr int V = 16 / sizeof(W), words = C * static_cast<int>(sizeof(W)) / 4, G = R / V;
      return R % V == 0 && G >= 1 && G <= 8 && 32 % G == 0 && (R * words / 4) % T == 0 &&
             (G * words) % T == 0;
    }
  } else if constexpr (A == Access::any_alignment_vector) {
    return sizeof(W) < 16 && C % (16 / sizeof(W)) == 0 && R % sector_words<W>() == 0;
  } else {
    constexpr int V = vector_width<W, A == Access::aligned_vector>();
    return C % V == 0 && R % V == 0 && (R * C / V) % T == 0 && R * C / V >= T;
  }
}

template <class W, class Shape, Access A> constexpr auto tiled_kernel() {
  if constexpr (A == Access::packed)
    return &packed_transpose_kernel<static_cast<int>(sizeof(W)), Shape::tile_rows,
                                    Shape::tile_cols * static_cast<int>(sizeof(W)) / 4,
                                    Shape::threads, Shape::streaming>;
  else if constexpr (A == Access::any_alignment_vector)
    return &any_alignment_transpose_kernel<W, Shape::tile_rows, Shape::tile_cols, Shape::threads,
                                           Shape::streaming>;
  else
    return &tiled_transpose_kernel<W, Shape::tile_rows, Shape::tile_cols, Shape::threads,
                                   A == Access::aligned_vector, Shape::streaming>;
}

template <class W, class Shape, Access A> const void* tiled_kernel_address() {
  return reinterpret_cast<const void*>(tiled_kernel<W, Shape, A>());
}

template <class W, class Shape, Access A>
void launch_tiled(const W* in, W* out, std::int64_t rows, std::int64_t cols, int nreps,
                  cudaStream_t stream, std::int64_t group_rows = Shape::group_rows) {
  if (rows == 0 || cols == 0)
    return;
  TileOrder order;
  order.tiles_per_row = (cols + Shape::tile_cols - 1) / Shape::tile_cols;
  // The sheared tiles of the any-alignment kernel reach up to S - 1 rows past the last one.
  const std::int64_t reach = A == Access::any_alignment_vector ? rows + sector_words<W>() - 1 : rows;
  order.tile_rows = (reach + Shape::tile_rows - 1) / Shape::tile_rows;
  order.group_rows = group_rows;
  const std::int64_t tiles = order.tiles_per_row * order.tile_rows;
  std::int64_t grid = std::min<std::int64_t>(tiles, 0x7fffffff);
  if constexpr (Shape::persistent) {
    static core::PerDevice resident;
    grid = std::min(grid, core::resident_blocks(resident, tiled_kernel_address<W, Shape, A>(), Shape::threads));
  }
  const auto blocks = static_cast<unsigned>(grid);
  if constexpr (A == Access::packed)
    tiled_kernel<W, Shape, A>()<<<blocks, Shape::threads, 0, stream>>>(
        reinterpret_cast<const typename WordOf<sizeof(W)>::type*>(in),
        reinterpret_cast<typename WordOf<sizeof(W)>::type*>(out), rows, cols, order, tiles, nreps);
  else
    tiled_kernel<W, Shape, A>()<<<blocks, Shape::threads, 0, stream>>>(in, out, rows, cols, order,
                                                                       tiles, nreps);
  LADDER_CUDA(cudaGetLastError());
}

// The shape the library uses per element size, chosen from the tiled rungs' measurements.
// H200, 16384 x 16384 float (bench/results/transpose-sweep-*.txt): 64x64 tiles, 256 threads,
// streaming hints reached 94.9% of cudaMemcpy (cuBLAS geam 93.4%) in the tile sweep
// (bench/results/transpose-sweep-h200-2026-11-21.txt); without the hints 84%; 128 threads 94.6%;
// a persistent grid 91.8%; tile order made no measurable difference.
// `type`: the tile of the any-alignment and scalar kernels; `aligned` and `aligned_access`: what
// runs when the aligned 16-byte path applies (whole vectors per row, 16-byte aligned pointers).
// Per element size, from `ladder tune transpose` on an H200 (2026-11-25; bench/results/
// transpose-tune-h200-2026-11-25.md), aligned path at the headline shapes:
//   1 byte (32768^2): packed words, 8 row groups of 32 words, 256 threads, no streaming hints
//     584.8 us (0.86 of cudaMemcpy); the 16-byte tiled kernel 860 us.
//   2 bytes (16384 x 32768): packed words, 8 groups of 64 words, 256 threads 593.4 us (0.85);
//     tiled 788 us.
//   8 bytes (8192 x 16384): 64x64 tiles without streaming hints 554.6 us (1.02x cublasDgeam);
//     with them 886.5 us (0.64x).
//   16 bytes (8192^2): every tile within 1% (566 us, 0.96x cublasZgeam); 32x32 kept.
template <int Bytes> struct LibraryShape {
  using type = TileShape<64, 64, 256, 0, true>;
  using aligned = type;
  static constexpr Access aligned_access = Access::aligned_vector;
};
template <> struct LibraryShape<1> {
  using type = TileShape<64, 64, 256, 0, true>;
  using aligned = TileShape<128, 128, 256, 0, false>; // packed: 8 groups x 32 words
  static constexpr Access aligned_access = Access::packed;
};
template <> struct LibraryShape<2> {
  using type = TileShape<64, 64, 256, 0, true>;
  using aligned = TileShape<64, 128, 256, 0, true>; // packed: 8 groups x 64 words
  static constexpr Access aligned_access = Access::packed;
};
template <> struct LibraryShape<8> {
  using type = TileShape<64, 64, 256, 0, true>;
  using aligned = TileShape<64, 64, 256, 0, false>;
  static constexpr Access aligned_access = Access::aligned_vector;
};
template <> struct LibraryShape<16> {
  using type = TileShape<32, 32, 256, 0, true>;
  using aligned = type;
  static constexpr Access aligned_access = Access::aligned_vector;
};

} // namespace ladder::transpose_detail
