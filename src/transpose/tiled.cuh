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
#include <cstddef>
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

// Cache hints of the 16-byte global accesses, chosen per side: on an H200 the same hint helps one
// element size and ruins another (4-byte 64x64 tiles: .cs on both sides 0.93 of cudaMemcpy,
// none 0.84; 8-byte: .cs 0.64, none 0.92), so loads and stores are tuned separately.
//   cs: ld/st.global.cs, evict-first in L1 and L2 (each byte is touched once);
//   no_allocate: ld.global.nc.L1::no_allocate, the read-only path without L1 allocation;
//   prefetch_256: ld.global.L2::256B, L2 fetches the whole 256-byte block on a miss (the tile's
//     row segments are 256 bytes or more, so the rest is read by the same block soon after);
//   cs_prefetch_256: both;
//   evict_last: stores with an L2 evict_last cache policy: written lines stay in L2 longer, so the
//     neighbouring pieces other tiles write can join them before the write-back to DRAM.
enum class Load { normal, cs, no_allocate, prefetch_256, cs_prefetch_256 };
enum class Store { normal, cs, evict_last };

template <Load L> __device__ __forceinline__ uint4 load16(const uint4* p) {
  if constexpr (L == Load::normal) {
    return *p;
  } else if constexpr (L == Load::cs) {
    return __ldcs(p);
  } else {
    uint4 v;
    if constexpr (L == Load::no_allocate)
      asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                   : "l"(p));
    else if constexpr (L == Load::prefetch_256)
      asm volatile("ld.global.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                   : "l"(p));
    else
      asm volatile("ld.global.cs.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                   : "l"(p));
    return v;
  }
}
template <Store S> __device__ __forceinline__ void store16(uint4* p, const uint4& v) {
  if constexpr (S == Store::normal)
    *p = v;
  else if constexpr (S == Store::cs)
    __stcs(p, v);
  else // the 128-bit form takes the priority as a cache policy (createpolicy, sm_80+)
    asm volatile("{\n\t.reg .b64 policy;\n\t"
                 "createpolicy.fractional.L2::evict_last.b64 policy, 1.0;\n\t"
                 "st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, policy;\n\t}" ::"l"(p),
                 "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
}

// Global accesses of packets with the hints above (16-byte aligned packets only; others plain).
template <Load L, class P> __device__ __forceinline__ P load_global(const P* p) {
  if constexpr (L != Load::normal && sizeof(P) == 16 && alignof(P) == 16) {
    const uint4 v = load16<L>(reinterpret_cast<const uint4*>(p));
    return *reinterpret_cast<const P*>(&v);
  } else {
    return *p;
  }
}
template <Store S, class P> __device__ __forceinline__ void store_global(P* p, const P& v) {
  if constexpr (S != Store::normal && sizeof(P) == 16 && alignof(P) == 16)
    store16<S>(reinterpret_cast<uint4*>(p), *reinterpret_cast<const uint4*>(&v));
  else
    *p = v;
}

template <class W, int TileRows, int TileCols, int Threads, bool Vector, Load LoadHint,
          Store StoreHint>
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
        staged[k] =
            load_global<LoadHint>(reinterpret_cast<const P*>(in + (r0 + i) * cols + c0 + j));
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
        store_global<StoreHint>(reinterpret_cast<P*>(out + (c0 + j) * rows + r0 + i), packet);
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

template <class W, int TileRows, int TileCols, int Threads, Load LoadHint, Store StoreHint>
__global__ void __launch_bounds__(Threads)
    any_alignment_transpose_kernel(const W* __restrict__ in, W* __restrict__ out, std::int64_t rows,
                                   std::int64_t cols, TileOrder order, std::int64_t tiles,
                                   int nreps) {
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
            staged[k] = load_global<LoadHint>(reinterpret_cast<const P*>(in + first));
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
            store_global<StoreHint>(reinterpret_cast<P*>(out + c * rows + r), packet);
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

// The swizzle and the store-phase lanes for any G up to 32: a warp's store instruction covers
// Gl = min(G, 8) row groups x 32 / Gl word columns, and word column w of group g is stored at
// w ^ ((g % Gl) * 32 / Gl), which sends those 32 lanes to 32 different banks while keeping
// 4-word groups whole (the load phase stores 16-byte vectors). G = 16 or 32 (256- or 512-byte
// output segments for 1-byte elements) are split over consecutive warps of the same item.
template <int Bytes, int TileRows, int TileWords> struct PackedLayout {
  static constexpr int V = 16 / Bytes, G = TileRows / V;
  static constexpr int Gl = G < 8 ? G : 8, Wl = 32 / Gl;
  static constexpr std::size_t tile_bytes = std::size_t{TileRows} * TileWords * 4;
  static constexpr std::size_t static_limit = 48 * 1024; // larger tiles: dynamic shared memory
  static constexpr std::size_t dynamic_bytes = tile_bytes > static_limit ? tile_bytes : 0;
};

template <int Bytes, int TileRows, int TileWords, int Threads, Load LoadHint, Store StoreHint>
__global__ void __launch_bounds__(Threads)
    packed_transpose_kernel(const typename WordOf<Bytes>::type* __restrict__ in_elements,
                            typename WordOf<Bytes>::type* __restrict__ out_elements,
                            std::int64_t rows, std::int64_t cols, TileOrder order,
                            std::int64_t tiles, int nreps) {
  static_assert(Bytes == 1 || Bytes == 2 || Bytes == 4, "words pack 1-, 2- or 4-byte elements");
  using Layout = PackedLayout<Bytes, TileRows, TileWords>;
  constexpr int P = 4 / Bytes;       // elements per word
  constexpr int V = 16 / Bytes;      // elements per 16-byte vector
  constexpr int G = Layout::G;       // row groups: lanes that share a word column
  constexpr int Gl = Layout::Gl, Wl = Layout::Wl;
  constexpr int TileCols = TileWords * P;
  constexpr int vectors_per_row = TileWords / 4;
  constexpr int loads = TileRows * vectors_per_row / Threads;
  constexpr int items = G * TileWords / Threads; // store-phase items per thread
  static_assert(TileRows % V == 0 && G >= 1 && G <= 32 && 32 % G == 0,
                "row groups: a power of two up to 32");
  static_assert(TileWords % 32 == 0, "whole bank rows per tile row");
  static_assert(loads * Threads == TileRows * vectors_per_row && items * Threads == G * TileWords,
                "threads must divide the tile");
  unsigned* tile;
  if constexpr (Layout::dynamic_bytes > 0) {
    extern __shared__ uint4 packed_dynamic_tile[];
    tile = reinterpret_cast<unsigned*>(packed_dynamic_tile);
  } else {
    __shared__ uint4 tile_storage[TileRows * TileWords / 4];
    tile = reinterpret_cast<unsigned*>(tile_storage);
  }
  const auto swizzle = [](int row) { return (((row / V) % Gl) * Wl) & 31; };

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
          staged[k] = load_global<LoadHint>(
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
        // Gl groups x Wl word columns per warp instruction; then the other groups, then words.
        const int hi = idx / 32;
        const int g = (hi % (G / Gl)) * Gl + idx % Gl;
        const int w = (hi / (G / Gl)) * Wl + (idx / Gl) % Wl;
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
              store_global<StoreHint>(reinterpret_cast<uint4*>(out_elements + (c + j) * rows + r),
                                      vectors[j]);
        }
      }
      __syncthreads(); // the tile is reused by the next iteration
    }
  }
}

// Transposes in registers only, no shared memory and no barrier. A thread loads a V x V block
// of elements (V = 16 / element size: V rows of one 16-byte vector each), transposes it with
// byte permutes (1, 2 bytes), word moves (4, 8) or not at all (16 bytes), and stores V vectors
// to V output rows. Within a warp, `Lanes` neighbouring lanes take neighbouring vectors of the
// same rows and the other 32 / Lanes lanes take the next row blocks, so each warp instruction
// reads 32 / Lanes rows x Lanes x 16 bytes (Lanes = 2: whole 32-byte sectors) and writes Lanes
// output rows x 32 / Lanes x 16 bytes (Lanes = 2: 256 contiguous bytes per row): every access
// is whole sectors, without the shared-memory round trip or its barrier. K blocks per thread,
// Lanes vectors apart along the row, put K x V loads in flight (for 16-byte elements, V = 1,
// that is K elements). The block's warps tile the block's rows x columns (WR x WC warps).
// Needs rows and cols that are multiples of V and 16-byte aligned pointers (any shape for
// 16-byte elements).
template <int Bytes, int TileRows, int TileCols, int Threads, int Lanes> struct RegisterLayout {
  static constexpr int V = 16 / Bytes;
  static constexpr int warps = Threads / 32;
  static constexpr int warp_rows = 32 / Lanes * V; // input rows a warp covers
  static constexpr int WR = TileRows / warp_rows > 0 ? TileRows / warp_rows : 1;
  static constexpr int WC = warps / WR > 0 ? warps / WR : 1;
  static constexpr int K = TileCols / (WC * Lanes * V); // V x V blocks per thread
  static constexpr bool valid = Threads % 32 == 0 && Lanes >= 1 && 32 % Lanes == 0 &&
                                TileRows == WR * warp_rows && warps == WR * WC && K >= 1 &&
                                TileCols == K * WC * Lanes * V && K * V <= 16;
};

__device__ __forceinline__ unsigned word_of(const uint4& v, int q) {
  return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

// in[e]: 16 bytes of row e (V elements); out[b]: element b of every row, rows in order.
template <int Bytes>
__device__ __forceinline__ void transpose_block(const uint4 (&in)[16 / Bytes],
                                                uint4 (&out)[16 / Bytes]) {
  if constexpr (Bytes == 1) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      unsigned part[4][4]; // part[m][b]: byte b of word q of rows 4m .. 4m + 3
#pragma unroll
      for (int m = 0; m < 4; ++m)
        transpose_bytes_4x4(word_of(in[4 * m], q), word_of(in[4 * m + 1], q),
                            word_of(in[4 * m + 2], q), word_of(in[4 * m + 3], q), part[m]);
#pragma unroll
      for (int b = 0; b < 4; ++b)
        out[4 * q + b] = make_uint4(part[0][b], part[1][b], part[2][b], part[3][b]);
    }
  } else if constexpr (Bytes == 2) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      unsigned lo[4], hi[4];
#pragma unroll
      for (int m = 0; m < 4; ++m) {
        lo[m] = __byte_perm(word_of(in[2 * m], q), word_of(in[2 * m + 1], q), 0x5410);
        hi[m] = __byte_perm(word_of(in[2 * m], q), word_of(in[2 * m + 1], q), 0x7632);
      }
      out[2 * q] = make_uint4(lo[0], lo[1], lo[2], lo[3]);
      out[2 * q + 1] = make_uint4(hi[0], hi[1], hi[2], hi[3]);
    }
  } else if constexpr (Bytes == 4) {
#pragma unroll
    for (int q = 0; q < 4; ++q)
      out[q] =
          make_uint4(word_of(in[0], q), word_of(in[1], q), word_of(in[2], q), word_of(in[3], q));
  } else if constexpr (Bytes == 8) {
    out[0] = make_uint4(in[0].x, in[0].y, in[1].x, in[1].y);
    out[1] = make_uint4(in[0].z, in[0].w, in[1].z, in[1].w);
  } else {
    out[0] = in[0];
  }
}

template <int Bytes, int TileRows, int TileCols, int Threads, int Lanes, Load LoadHint,
          Store StoreHint>
__global__ void __launch_bounds__(Threads)
    register_transpose_kernel(const typename WordOf<Bytes>::type* __restrict__ in,
                              typename WordOf<Bytes>::type* __restrict__ out, std::int64_t rows,
                              std::int64_t cols, TileOrder order, std::int64_t tiles, int nreps) {
  using Layout = RegisterLayout<Bytes, TileRows, TileCols, Threads, Lanes>;
  static_assert(Layout::valid, "warps must tile the tile with whole V x V blocks");
  constexpr int V = Layout::V, K = Layout::K;
  constexpr int step = Lanes * V; // columns between a thread's blocks
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int row_in_tile = (warp % Layout::WR) * Layout::warp_rows + (lane / Lanes) * V;
  const int col_in_tile = (warp / Layout::WR) * (K * step) + (lane % Lanes) * V;

  for (int rep = 0; rep < nreps; ++rep) {
    for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      std::int64_t tr, tc;
      order.locate(t, tr, tc);
      const std::int64_t r = tr * TileRows + row_in_tile; // first of V rows, all inside or none
      const std::int64_t c = tc * TileCols + col_in_tile;
      if (r >= rows)
        continue;
      uint4 block[K][V];
#pragma unroll
      for (int e = 0; e < V; ++e)
#pragma unroll
        for (int k = 0; k < K; ++k)
          if (c + k * step < cols)
            block[k][e] = load16<LoadHint>(
                reinterpret_cast<const uint4*>(in + (r + e) * cols + c + k * step));
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (c + k * step < cols) {
          uint4 column[V];
          transpose_block<Bytes>(block[k], column);
#pragma unroll
          for (int b = 0; b < V; ++b)
            store16<StoreHint>(reinterpret_cast<uint4*>(out + (c + k * step + b) * rows + r),
                               column[b]);
        }
      }
    }
  }
}

// A tuned configuration: tile, threads per block, tile order and cache hints.
// Persistent: launch as many blocks as fit on the GPU at once (the occupancy API says how many)
// and let each walk several tiles, instead of one block per tile.
// Streaming sets both hints to .cs (or neither); LoadHint and StoreHint override it per side.
// Lanes: lanes per input row in the register kernel (Access::registers); unused by the others.
template <int TileRows, int TileCols, int Threads, int GroupRows = 0, bool Streaming = false,
          bool Persistent = false, Load LoadHint = Streaming ? Load::cs : Load::normal,
          Store StoreHint = Streaming ? Store::cs : Store::normal, int Lanes = 2>
struct TileShape {
  static constexpr int tile_rows = TileRows, tile_cols = TileCols, threads = Threads;
  static constexpr int group_rows = GroupRows;
  static constexpr bool streaming = Streaming;
  static constexpr bool persistent = Persistent;
  static constexpr Load load_hint = LoadHint;
  static constexpr Store store_hint = StoreHint;
  static constexpr int lanes = Lanes;
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
//   packed: aligned 16-byte vectors, elements of 1, 2 or 4 bytes packed in shared-memory words;
//   registers: aligned 16-byte vectors transposed in registers, no shared memory (elements held
//   in their own word: 16-byte elements need 16-byte alignment).
enum class Access { scalar, aligned_vector, any_alignment_vector, packed, registers };

// Whether a shape builds for words W with access A (a shape holds whole vectors per thread).
template <class W, class Shape, Access A> constexpr bool shape_fits() {
  constexpr int R = Shape::tile_rows, C = Shape::tile_cols, T = Shape::threads;
  if constexpr (A == Access::packed) {
    if constexpr (sizeof(W) > 4 || (C * static_cast<int>(sizeof(W))) % 128 != 0)
      return false;
    else {
      constexpr int V = 16 / sizeof(W), words = C * static_cast<int>(sizeof(W)) / 4, G = R / V;
      return R % V == 0 && G >= 1 && G <= 32 && 32 % G == 0 && (R * words / 4) % T == 0 &&
             (G * words) % T == 0;
    }
  } else if constexpr (A == Access::registers) {
    if constexpr (sizeof(W) > 16 || 16 % sizeof(W) != 0 || alignof(W) != sizeof(W))
      return false;
    else
      return RegisterLayout<sizeof(W), R, C, T, Shape::lanes>::valid;
  } else if constexpr (A == Access::any_alignment_vector) {
    return sizeof(W) < 16 && C % (16 / sizeof(W)) == 0 && R % sector_words<W>() == 0;
  } else {
    constexpr int V = vector_width<W, A == Access::aligned_vector>();
    return C % V == 0 && R % V == 0 && (R * C / V) % T == 0 && R * C / V >= T;
  }
}

// Dynamic shared memory of a launch (the packed kernel's tiles over 48 KB; 0 otherwise).
// 4-byte words per tile row of the packed kernel.
template <class W, class Shape> constexpr int packed_words() {
  return Shape::tile_cols * static_cast<int>(sizeof(W)) / 4;
}

template <class W, class Shape, Access A> constexpr std::size_t dynamic_shared_bytes() {
  if constexpr (A == Access::packed)
    return PackedLayout<sizeof(W), Shape::tile_rows, packed_words<W, Shape>()>::dynamic_bytes;
  else
    return 0;
}

template <class W, class Shape, Access A> constexpr auto tiled_kernel() {
  constexpr Load L = Shape::load_hint;
  constexpr Store S = Shape::store_hint;
  if constexpr (A == Access::packed)
    return &packed_transpose_kernel<static_cast<int>(sizeof(W)), Shape::tile_rows,
                                    packed_words<W, Shape>(), Shape::threads, L, S>;
  else if constexpr (A == Access::registers)
    return &register_transpose_kernel<static_cast<int>(sizeof(W)), Shape::tile_rows,
                                      Shape::tile_cols, Shape::threads, Shape::lanes, L, S>;
  else if constexpr (A == Access::any_alignment_vector)
    return &any_alignment_transpose_kernel<W, Shape::tile_rows, Shape::tile_cols, Shape::threads, L,
                                           S>;
  else
    return &tiled_transpose_kernel<W, Shape::tile_rows, Shape::tile_cols, Shape::threads,
                                   A == Access::aligned_vector, L, S>;
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
  constexpr std::size_t shared = dynamic_shared_bytes<W, Shape, A>();
  if constexpr (shared > 0) { // over the 48 KB a kernel gets without asking, once per device
    static core::PerDevice opted_in;
    opted_in.get(core::current_device(), [] {
      LADDER_CUDA(cudaFuncSetAttribute(tiled_kernel<W, Shape, A>(),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(shared)));
      return 1;
    });
  }
  if constexpr (Shape::persistent) {
    static core::PerDevice resident;
    grid = std::min(grid, core::resident_blocks(resident, tiled_kernel_address<W, Shape, A>(),
                                                Shape::threads, shared));
  }
  const auto blocks = static_cast<unsigned>(grid);
  if constexpr (A == Access::packed || A == Access::registers)
    tiled_kernel<W, Shape, A>()<<<blocks, Shape::threads, shared, stream>>>(
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
// transpose-tune-h200-2026-11-25*.md), aligned path at the headline shapes:
//   8 bytes (8192 x 16384): 64x64 tiles without streaming hints 554.6 us (1.02x cublasDgeam);
//     with them 886.5 us (0.64x).
//   1, 2 and 16 bytes: at their specializations below.
template <int Bytes> struct LibraryShape {
  using type = TileShape<64, 64, 256, 0, true>;
  using aligned = type;
  static constexpr Access aligned_access = Access::aligned_vector;
};
// 1 and 2 bytes: packed tiles of 16 row groups (256-byte output rows for 1-byte elements), the
// fastest rows of `ladder tune transpose` (H200, 2026-11-25): 1 byte (32768^2) without cache hints
// 559.5 us = 0.90 of the copy (8 groups: 585.3 us); 2 bytes (16384 x 32768) 16 groups x 64
// words with .cs 545.3 us = 0.93 (8 groups: 593.7 us).
template <> struct LibraryShape<1> {
  using type = TileShape<64, 64, 256, 0, true>;
  using aligned = TileShape<256, 128, 256, 0, false>; // packed: 16 groups x 32 words
  static constexpr Access aligned_access = Access::packed;
};
template <> struct LibraryShape<2> {
  using type = TileShape<64, 64, 256, 0, true>;
  using aligned = TileShape<128, 128, 256, 0, true>; // packed: 16 groups x 64 words
  static constexpr Access aligned_access = Access::packed;
};
template <> struct LibraryShape<8> {
  using type = TileShape<64, 64, 256, 0, true>;
  using aligned = TileShape<64, 64, 256, 0, false>;
  static constexpr Access aligned_access = Access::aligned_vector;
};
// 16 bytes, 16-byte aligned: 32 x 32 tiles without cache hints, walked in groups of 32 tile rows
// (4 KB output rows), 540.6 us = 0.93 of the copy at 8192^2 (cublasZgeam 543.1 us); the same
// tile in row order with .cs 567 us (H200, 2026-11-25).
template <> struct LibraryShape<16> {
  using type = TileShape<32, 32, 256, 0, true>; // pointers aligned to less than 16 bytes
  using aligned = TileShape<32, 32, 256, 32, false>;
  static constexpr Access aligned_access = Access::aligned_vector;
};

} // namespace ladder::transpose_detail
