// The tiled, register-blocked convolution kernel behind ladder::convolve2d and convolve1d, and the
// study's rungs past the course.
//
// A block stages its input tile (outputs plus halo, every row of the mask) in shared memory as
// floats (uint8 converted once, while staging, rather than at every use), then each thread
// computes K adjacent outputs of RY rows: it reads one row of its input window into registers
// (16-byte shared loads) and applies the whole mask row to all K outputs from those registers, so
// a window value feeds up to K x MW fused multiply-adds. The
// mask travels in the launch parameters (a __grid_constant__ struct in the constant bank): every
// call carries its own, so concurrent calls never share a __constant__ symbol.
//
// Channels are interleaved: a row is width x C scalars, and the taps of one output scalar are C
// scalars apart. Borders are resolved while staging, so the compute loop has no branches: rows and
// 16-byte chunks that lie inside the image are copied as they are (cp.async, no registers), the
// few chunks at the image's edges scalar by scalar through border_index.
#pragma once

#include "convolution/border.hpp"
#include "convolution/image_args.hpp"
#include "ladder/convolve.hpp"
#include "ladder/error.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace ladder::conv_detail {

struct MaskParam {
  float w[max_convolution_mask * max_convolution_mask]; // mask_height rows of mask_width taps
  int width = 0;
  int height = 0;
};

// Whether every row of an image at p with this pitch (bytes) is aligned to a V (16-byte words:
// V = float4).
template <class V> LADDER_CONV_HD bool rows_aligned_to(const void* p, std::int64_t pitch) {
  return ((reinterpret_cast<std::uintptr_t>(p) | static_cast<std::uintptr_t>(pitch)) &
          (sizeof(V) - 1)) == 0;
}

// A block of TX x TY threads; each thread computes K adjacent scalars of RY rows, so a block's
// output tile is TX K scalars wide and TY RY rows high. MinBlocks: the blocks per SM the compiler
// must leave registers for (__launch_bounds__). StreamingStores: results stored with the
// evict-first hint (st.global.cs): the output is not read again, so its lines need not displace
// the input's halo rows, which the next row of tiles reads again from L2. StageAlign: the bytes
// to which a staged row's start is aligned in the image (16: a 16-byte access; 32: an L2 sector,
// so that no sector of a row is fetched half by one warp's copy and half by another's).
template <int TX_, int TY_, int K_, int RY_, int MinBlocks_ = 1, bool StreamingStores_ = false,
          int StageAlign_ = 16>
struct TileShape {
  static constexpr int tx = TX_, ty = TY_, k = K_, ry = RY_, min_blocks = MinBlocks_;
  static constexpr bool streaming_stores = StreamingStores_;
  static constexpr int stage_align = StageAlign_;
  static_assert(StageAlign_ % 16 == 0, "staged rows start on whole 16-byte accesses");
  static constexpr int threads = tx * ty;
  static constexpr int tile_w = tx * k;
  static constexpr int tile_h = ty * ry;
};

// float images: 128 x 32 outputs per block, one 16-byte store per thread and row; uint8: 128 x 32
// bytes, 4-byte stores; 1D signals: 1024 outputs per block of one row.
// uint8 took 8 outputs a thread (256 x 32) until 2026-11-26: with K = 8 floats a thread, a
// quarter warp's 16-byte window loads fall 32 bytes apart, twice the ideal wavefronts (Nsight
// Compute). With 4, `ladder tune convolution` (H200, 2026-11-26) took uint8 RGB 3840 x 2160 5 x 5
// from 64.34 to 58.3 us and a 1920 x 1080 RGB picture from 20.51 to 17.54 us at 3 x 3 and from
// 88.29 to 74.59 us at 15 x 15 (`row_reuse_rgb_k8` keeps the old shape).
using ShapeF32 = TileShape<32, 8, 4, 4>;
// Float images of one channel with masks 7 and 9 wide: the same tile with registers capped for 8
// blocks per SM (32 a thread; 64 and 40 uncapped). `ladder tune convolution`, H200, 2026-11-26:
// see launch_library_width (api.cu). Staged rows start on a 32-byte L2 sector (8 floats of halo
// staged on each side where 3 or 4 are needed): with 16-byte starts Nsight Compute counted 10.6 M
// of the 7 x 7 kernel's 29.5 M L2 sectors as excess, about as many as its stages' reads need
// (H100, 2026-11-27, L2 throughput at 81% of its peak), and none with 32-byte starts. `ladder tune
// convolution` (H100, 2026-11-27, bench/results/convolution-lean-tune-h100-2026-11-27-r4.md):
// 7 x 7 192.7 against 209.0 us, 9 x 9 237.2 against 247.8 (row_reuse_lean_8_blocks: 16-byte
// starts); at 15 x 15 the two are one kernel (a 7-float halo rounds to 8 floats either way).
using ShapeF32Capped = TileShape<32, 8, 4, 4, 8, false, 32>;
using ShapeU8 = TileShape<32, 8, 4, 4>;
using Shape1d = TileShape<256, 1, 4, 1>;

constexpr int round_up(int a, int b) { return (a + b - 1) / b * b; }

// How a block brings its tile into shared memory.
// scalar: every scalar read on its own through registers (the register-blocked rung);
// vector: whole 16-byte chunks inside the image by 16-byte accesses, each chunk tested on its own
//   (rows and columns in the image, alignment); the few chunks at the edges scalar by scalar;
// vector_interior: the same, but a tile whose whole stage lies inside the image, with 16-byte
//   aligned rows, skips the per-chunk tests. In the sm_90 SASS of the float 3 x 3 kernel the
//   tested path costs about 70 instructions per 16-byte chunk, some 4.5 chunks per thread: more
//   than the thread's whole 3 x 3 arithmetic with row reuse (about 170 instructions);
// interior_lean: vector_interior with the interior tiles' addresses reduced to one multiply-add
//   a chunk (stage_interior_lean), their rows' count fixed at compile time where the mask's
//   height is, and their results stored with no per-row test (store_rows_interior). The float
//   7 x 7 kernel is bound by instruction issue on an H100 (Nsight Compute, 2026-11-27: issue
//   slots 84.6% busy, 784 of its 1190 instructions per warp and tile FFMAs); in its sm_90 SASS
//   vector_interior's loop took about 22 instructions a chunk (a division by the row's chunk
//   count, a 64-bit multiply by the pitch, ptxas's three empty slots beside each LDGSTS) and the
//   store about 20 a row.
enum class Staging { scalar, vector, vector_interior, interior_lean };

// Scalars of T in one 16-byte global access.
template <class T> constexpr int vector_scalars = 16 / static_cast<int>(sizeof(T));

// Where a tile's scalars sit in shared memory (as floats). The staged row starts R scalars left of
// the tile (R = the halo rounded up to whole 16-byte global accesses, or to the shape's
// stage_align) so that every global chunk is 16-byte aligned when the row is, and every thread's
// window starts on a float4; a thread's first tap is D = R - halo scalars into its window.
struct StageGeometry {
  int halo;   // mask_width / 2 x C scalars on each side
  int r;      // halo rounded up to a multiple of the global vector
  int d;      // r - halo
  int stride; // floats per staged row: tile_w + 2 r
};

template <class T, int C, class S>
__host__ __device__ constexpr StageGeometry stage_geometry(int mask_width) {
  const int halo = mask_width / 2 * C;
  const int r = round_up(halo, S::stage_align / static_cast<int>(sizeof(T)));
  return {halo, r, r - halo, S::tile_w + 2 * r};
}

// Shared memory of one block: the staged rows (tile_h + mask_height - 1) of `stride` floats.
template <class T, int C, class S>
constexpr std::size_t stage_bytes(int mask_width, int mask_height) {
  return static_cast<std::size_t>(S::tile_h + mask_height - 1) *
         stage_geometry<T, C, S>(mask_width).stride * sizeof(float);
}

// 16 bytes global -> shared without a register round trip (Ampere and later; a plain copy before).
__device__ __forceinline__ void cp_async16(void* shared, const void* global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(global));
#else
  *static_cast<uint4*>(shared) = *static_cast<const uint4*>(global);
#endif
}
__device__ __forceinline__ void cp_async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::);
#endif
}

// Four uint8 packed in a 32-bit word (the lowest byte first) as floats.
__device__ __forceinline__ float4 bytes_to_float4(unsigned w) {
  return make_float4(static_cast<float>(w & 0xffu), static_cast<float>((w >> 8) & 0xffu),
                     static_cast<float>((w >> 16) & 0xffu), static_cast<float>(w >> 24));
}

template <class T> __device__ __forceinline__ float to_float(T v) {
  return static_cast<float>(v);
}

template <class T> __device__ __forceinline__ T from_float(float v) {
  if constexpr (sizeof(T) == 1) {
    const int r = __float2int_rn(v); // ties to even, as the CPU reference's nearbyint
    return static_cast<T>(r < 0 ? 0 : r > 255 ? 255 : r);
  } else {
    return v;
  }
}

// Reads scalar `q` (any integer) of row `y` (any integer) through the border policy.
template <class T, int C>
__device__ __forceinline__ T read_bordered(const ImageArgs& a, std::int64_t y, std::int64_t q) {
  const std::int64_t ym = border_index(y, a.height, a.border);
  if (ym < 0)
    return T(0);
  const std::int64_t x = floor_div(q, C);
  const std::int64_t xm = border_index(x, a.width, a.border);
  if (xm < 0)
    return T(0);
  const auto* row = reinterpret_cast<const T*>(a.in + ym * a.in_pitch);
  return row[xm * C + (q - x * C)];
}

// One 16-byte chunk of the input (16-byte aligned) into shared memory as floats: float by cp.async,
// straight into shared memory; uint8 by one load converted once and stored as four float4.
//
// The uint8 stores go in a lane-rotated order. Consecutive lanes stage consecutive chunks, which
// land 64 bytes apart in shared memory, so the 8 lanes of a quarter warp storing their float4 v
// in step would hit only 2 of the 8 16-byte bank groups: Nsight Compute measured the staging
// stores at 12.6-way bank conflicts, 75% of their wavefronts replays (uint8 RGB 1920 x 1080, 3 x 3,
// H200, 2026-11-26). Lane l stores its float4 (v + l / 2) mod 4 at step v: bank group
// (4 l + v + l / 2) mod 8, distinct over the quarter warp.
template <class T> __device__ __forceinline__ void stage_chunk16(float* dst, const unsigned char* src) {
  if constexpr (sizeof(T) == 4) {
    cp_async16(dst, src);
  } else {
    static_assert(sizeof(T) == 1, "16-byte staging of 1- or 4-byte scalars");
    // Four 4-byte loads, each word in the step it is stored: picking words of one 16-byte load in
    // a lane-dependent order costs selects and registers (the 11 x 11 and 13 x 13 kernels then
    // spilled) or puts the chunk in local memory.
    const unsigned rotation = (threadIdx.x >> 1) & 3u;
    const auto* words = reinterpret_cast<const unsigned*>(src);
#pragma unroll
    for (unsigned v = 0; v < 4; ++v) {
      const unsigned u = (v + rotation) & 3u;
      const unsigned w = __ldg(words + u);
      reinterpret_cast<float4*>(dst)[u] = bytes_to_float4(w);
    }
  }
}

// One staged chunk (V = vector_scalars<T> scalars from scalar q of row y, both any integers) with
// every test: border, bounds and, for 16-byte accesses (Vector), alignment. Chunks inside the image
// and aligned are one 16-byte copy; the others go scalar by scalar, through the border policy where
// they reach outside the image.
template <class T, int C, bool Vector>
__device__ __forceinline__ void stage_chunk_bordered(const ImageArgs& a, float* dst, std::int64_t y,
                                                     std::int64_t q) {
  constexpr int V = vector_scalars<T>;
  const std::int64_t row_scalars = a.width * C;
  if constexpr (Vector) {
    const std::int64_t ym = border_index(y, a.height, a.border);
    if (ym >= 0 && q >= 0 && q + V <= row_scalars) {
      const unsigned char* src = a.in + ym * a.in_pitch + q * static_cast<std::int64_t>(sizeof(T));
      if ((reinterpret_cast<std::uintptr_t>(src) & 15) == 0) {
        stage_chunk16<T>(dst, src);
        return;
      }
    }
  }
  if (y >= 0 && y < a.height && q >= 0 && q + V <= row_scalars) {
    const auto* row = reinterpret_cast<const T*>(a.in + y * a.in_pitch);
#pragma unroll
    for (int e = 0; e < V; ++e)
      dst[e] = to_float(row[q + e]);
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e)
      dst[e] = to_float(read_bordered<T, C>(a, y, q + e));
  }
}

// Staging::vector_interior's fast path: when rows [y0 - mask_height / 2, ..) x scalars
// [g0, g0 + stride) all lie inside the image and every staged row starts 16-byte aligned (a
// block-uniform test), every chunk is a plain 16-byte copy with no border, bounds or alignment
// test. Returns false (nothing staged) otherwise.
template <class T, int C, class S>
__device__ __forceinline__ bool stage_interior(const ImageArgs& a, float* tile, StageGeometry g,
                                               int mask_height, std::int64_t y0, std::int64_t s0) {
  constexpr int V = vector_scalars<T>;
  const int rows = S::tile_h + mask_height - 1;
  const std::int64_t top = y0 - mask_height / 2;
  const std::int64_t g0 = s0 - g.r;
  if (top < 0 || top + rows > a.height || g0 < 0 || g0 + g.stride > a.width * C)
    return false;
  const unsigned char* base = a.in + top * a.in_pitch + g0 * static_cast<std::int64_t>(sizeof(T));
  if (((reinterpret_cast<std::uintptr_t>(base) | static_cast<std::uintptr_t>(a.in_pitch)) & 15) != 0)
    return false;
  const int vectors_per_row = g.stride / V; // a constant when the mask width is
  const int total = rows * vectors_per_row;
  for (int idx = threadIdx.x + threadIdx.y * S::tx; idx < total; idx += S::threads) {
    const int r = idx / vectors_per_row;
    const int c = idx - r * vectors_per_row;
    stage_chunk16<T>(tile + r * g.stride + c * V, base + r * a.in_pitch + c * 16);
  }
  return true;
}

// Staging::interior_lean's fast path: the tiles stage_interior takes whose stage spans less than
// 2 GiB of the input, staged with no per-chunk 64-bit arithmetic. The stage's row is exactly
// vpr 16-byte chunks (stride = vpr x V), so chunk idx of the stage sits at tile + idx V in shared
// memory and at base + idx 16 + (idx / vpr) (pitch - 16 vpr) bytes in global memory: one 32-bit
// offset from the block's base (a uniform register), a division by a constant and a
// multiply-add. M > 0: the mask is M x M, known at compile time (the chunks' loop is unrolled
// whole); M == 0: any mask (mask_height, g). Wait: float copies waited for before returning (else
// the caller waits, as the pipelined kernel does).
template <class T, int C, class S, int M, bool Wait = true>
__device__ __forceinline__ bool stage_interior_lean(const ImageArgs& a, float* tile, StageGeometry g,
                                                    int mask_height, std::int64_t y0,
                                                    std::int64_t s0) {
  constexpr int V = vector_scalars<T>;
  const int rows = S::tile_h + (M > 0 ? M : mask_height) - 1;
  const std::int64_t top = y0 - (M > 0 ? M : mask_height) / 2;
  const std::int64_t g0 = s0 - g.r;
  if (top < 0 || top + rows > a.height || g0 < 0 || g0 + g.stride > a.width * C ||
      rows * a.in_pitch > 0x7fffffff)
    return false;
  const unsigned char* base = a.in + top * a.in_pitch + g0 * static_cast<std::int64_t>(sizeof(T));
  if (((reinterpret_cast<std::uintptr_t>(base) | static_cast<std::uintptr_t>(a.in_pitch)) & 15) != 0)
    return false;
  const unsigned vpr = static_cast<unsigned>(g.stride / V); // a constant when the mask width is
  // Opaque to the optimizer: left visible, nvcc hoists the chunks' products by the excess out of
  // the kernel's loop over tiles (which a block runs once but for the tallest images) and, with
  // 32 registers a thread, spills them (64 bytes at float 7 x 7).
  unsigned excess = static_cast<unsigned>(a.in_pitch) - 16 * vpr;
  asm volatile("" : "+r"(excess));
  const unsigned tid = threadIdx.x + threadIdx.y * S::tx;
  __builtin_assume(tid < S::threads); // so the unrolled loop tests only its last chunk
  const auto chunk = [&](unsigned idx) {
    stage_chunk16<T>(tile + V * idx, base + (16 * idx + idx / vpr * excess));
  };
  if constexpr (M > 0) {
    constexpr unsigned chunks = (S::tile_h + M - 1) * (stage_geometry<T, C, S>(M).stride / V);
#pragma unroll
    for (unsigned i = 0; i < (chunks + S::threads - 1) / S::threads; ++i) {
      const unsigned idx = tid + i * S::threads;
      if (chunks % S::threads == 0 || idx < chunks)
        chunk(idx);
    }
  } else {
    const unsigned total = static_cast<unsigned>(rows) * vpr;
#pragma unroll 4
    for (unsigned idx = tid; idx < total; idx += S::threads)
      chunk(idx);
  }
  if constexpr (Wait && sizeof(T) == 4)
    cp_async_wait_all();
  return true;
}

// Stages rows [y0 - mask_height / 2, ..) x scalars [g0, g0 + stride) of the input into `tile`
// as floats, by the Staging policy St (above). M > 0: the mask's width, known at compile time
// (Staging::interior_lean unrolls its loop whole for an M x M mask), else 0. Wait: the float
// chunks copied by cp.async are waited for before returning; else the caller commits them as a
// group and waits for it (convolve_tiled_pipelined).
template <class T, int C, class S, Staging St, int M = 0, bool Wait = true>
__device__ __forceinline__ void stage_tile(const ImageArgs& a, float* tile, StageGeometry g,
                                           int mask_height, std::int64_t y0, std::int64_t s0) {
  constexpr int V = vector_scalars<T>;
  constexpr bool vector = St != Staging::scalar;
  bool staged = false;
  if constexpr (St == Staging::vector_interior)
    staged = stage_interior<T, C, S>(a, tile, g, mask_height, y0, s0);
  if constexpr (St == Staging::interior_lean) {
    bool done = false;
    if constexpr (M > 0) {
      if (mask_height == M)
        done = stage_interior_lean<T, C, S, M, Wait>(a, tile, g, mask_height, y0, s0);
      else
        done = stage_interior_lean<T, C, S, 0, Wait>(a, tile, g, mask_height, y0, s0);
    } else {
      done = stage_interior_lean<T, C, S, 0, Wait>(a, tile, g, mask_height, y0, s0);
    }
    if (done)
      return;
  }
  if (!staged) {
    const int rows = S::tile_h + mask_height - 1;
    const std::int64_t g0 = s0 - g.r;
    const int vectors_per_row = g.stride / V;
    const int total = rows * vectors_per_row;
    for (int idx = threadIdx.x + threadIdx.y * S::tx; idx < total; idx += S::threads) {
      const int r = idx / vectors_per_row;
      const int c = idx - r * vectors_per_row;
      stage_chunk_bordered<T, C, vector>(a, tile + r * g.stride + c * V, y0 - mask_height / 2 + r,
                                         g0 + static_cast<std::int64_t>(c) * V);
    }
  }
  if constexpr (Wait && vector && sizeof(T) == 4)
    cp_async_wait_all();
}

// Loads N floats (a multiple of 4) from 16-byte aligned shared memory.
template <int N> __device__ __forceinline__ void load_window(const float* src, float (&win)[N]) {
  static_assert(N % 4 == 0);
#pragma unroll
  for (int v = 0; v < N / 4; ++v) {
    const float4 chunk = reinterpret_cast<const float4*>(src)[v];
    win[4 * v] = chunk.x;
    win[4 * v + 1] = chunk.y;
    win[4 * v + 2] = chunk.z;
    win[4 * v + 3] = chunk.w;
  }
}

// Stores K results (K x sizeof(T) bytes: 4, 8 or 16) as one aligned vector; Streaming: with the
// evict-first hint.
template <class T, int K, bool Streaming>
__device__ __forceinline__ void store_vector(T* dst, const float* acc) {
  constexpr int bytes = K * static_cast<int>(sizeof(T));
  static_assert(bytes == 4 || bytes == 8 || bytes == 16);
  using Word = std::conditional_t<bytes == 16, uint4, std::conditional_t<bytes == 8, uint2, unsigned>>;
  Word word;
  T* e = reinterpret_cast<T*>(&word);
#pragma unroll
  for (int k = 0; k < K; ++k)
    e[k] = from_float<T>(acc[k]);
  if constexpr (Streaming)
    __stcs(reinterpret_cast<Word*>(dst), word);
  else
    *reinterpret_cast<Word*>(dst) = word;
}

// A thread's RY x K sums, zeroed.
template <class S> __device__ __forceinline__ void clear_accumulators(float (&acc)[S::ry][S::k]) {
#pragma unroll
  for (int o = 0; o < S::ry; ++o)
#pragma unroll
    for (int k = 0; k < S::k; ++k)
      acc[o][k] = 0.0f;
}

// RowReuse's walk for one thread: `row(r)` points at staged row r of the thread's window rows
// (r = 0 .. RY + MW - 2; output row o's mask row j is window row o + j), in the stage geometry
// of mask width MW; the thread's window starts tx x K scalars into each.
template <class T, int C, int MW, class S, class Row>
__device__ __forceinline__ void row_reuse_rows(const MaskParam& mask, Row row, int tx,
                                               float (&acc)[S::ry][S::k]) {
  constexpr StageGeometry sg = stage_geometry<T, C, S>(MW);
  constexpr int skip = sg.d / 4 * 4, d = sg.d - skip; // the window starts on a float4
  constexpr int window = round_up(d + S::k + (MW - 1) * C, 4);
#pragma unroll
  for (int r = 0; r < S::ry + MW - 1; ++r) {
    float win[window];
    load_window<window>(row(r) + tx * S::k + skip, win);
#pragma unroll
    for (int o = 0; o < S::ry; ++o) {
      const int j = r - o; // input row r is mask row j of output row o
      if (j >= 0 && j < MW) {
#pragma unroll
        for (int i = 0; i < MW; ++i)
#pragma unroll
          for (int k = 0; k < S::k; ++k)
            acc[o][k] = __fmaf_rn(mask.w[j * MW + i], win[d + k + i * C], acc[o][k]);
      }
    }
  }
}

// Stores a thread's RY x K results: rows y .. y + RY - 1 from scalar s, one vector per row where
// the row holds all K and the address allows it, scalar by scalar at the image's right edge.
template <class T, int C, class S>
__device__ __forceinline__ void store_rows(const ImageArgs& a, const float (&acc)[S::ry][S::k],
                                           std::int64_t y, std::int64_t s) {
  const std::int64_t row_scalars = a.width * C;
  if (s >= row_scalars)
    return;
  constexpr int store_bytes = S::k * static_cast<int>(sizeof(T));
#pragma unroll
  for (int o = 0; o < S::ry; ++o) {
    if (y + o >= a.height)
      return;
    T* row = reinterpret_cast<T*>(a.out + (y + o) * a.out_pitch);
    if (s + S::k <= row_scalars &&
        (reinterpret_cast<std::uintptr_t>(row + s) & (store_bytes - 1)) == 0) {
      store_vector<T, S::k, S::streaming_stores>(row + s, acc[o]);
    } else {
#pragma unroll
      for (int k = 0; k < S::k; ++k)
        if (s + k < row_scalars)
          row[s + k] = from_float<T>(acc[o][k]);
    }
  }
}

// Staging::interior_lean's store: where the block's whole output tile lies inside the image and
// every output row is aligned to a thread's vector, each of the thread's RY rows is one vector
// store, one pitch after the last, with no per-row test (store_rows tests each row's height,
// width and alignment: about 20 instructions a row in the float 7 x 7 kernel's SASS). Returns
// false (nothing stored) otherwise; the test is the same for the whole block.
template <class T, int C, class S>
__device__ __forceinline__ bool store_rows_interior(const ImageArgs& a,
                                                    const float (&acc)[S::ry][S::k],
                                                    std::int64_t y0, std::int64_t s0) {
  constexpr int store_bytes = S::k * static_cast<int>(sizeof(T));
  if (y0 + S::tile_h > a.height || s0 + S::tile_w > a.width * C ||
      ((reinterpret_cast<std::uintptr_t>(a.out) | static_cast<std::uintptr_t>(a.out_pitch)) &
       (store_bytes - 1)) != 0)
    return false;
  unsigned char* row = a.out + (y0 + threadIdx.y * S::ry) * a.out_pitch +
                       (s0 + threadIdx.x * S::k) * static_cast<std::int64_t>(sizeof(T));
#pragma unroll
  for (int o = 0; o < S::ry; ++o) {
    store_vector<T, S::k, S::streaming_stores>(reinterpret_cast<T*>(row), acc[o]);
    row += a.out_pitch;
  }
  return true;
}

// Row reuse walks the whole tile of a thread unrolled: RY x MW x MW x K fused multiply-adds of
// straight-line code (float 15 x 15: 3600, about 58 KB of SASS, which ran at 82.7% of the FP32
// peak on an H200). Bodies up to twice that (uint8 15 x 15: 7200) are compiled with it; wider
// masks keep the mask-row loop, whose code is one mask row long, until a larger body is timed.
inline constexpr int row_reuse_max_unrolled_fmas = 7200;

template <class S, int MW> constexpr bool row_reuse_unrolled() {
  return MW > 0 && S::ry * MW * MW * S::k <= row_reuse_max_unrolled_fmas;
}

// MW > 0: the mask width is fixed at compile time (windows in registers, taps unrolled); MW == 0:
// any width, taps read from shared memory one by one (wide masks with several channels, whose
// windows would not fit in registers).
// RowReuse (square masks with MW known at compile time, within the budget above): walk the
// RY + MW - 1 input rows a thread needs once each and apply each to every output row that uses it,
// instead of reading a window per (mask row, output row) pair: RY + MW - 1 window reads instead of
// RY x MW (8 against 20 for 5 x 5, RY = 4), the shared-memory traffic that bounds the kernel at
// small masks. Every output still sums mask rows in order and taps left to right, so results are
// bit for bit those of the mask-row loop.
// One thread's RY x K sums over a staged tile (`tile`: the stage of geometry g, rows of g.stride
// floats): row reuse where the mask is square and its width compiled in (MW), else the mask-row
// loop. The staged kernels (convolve_tiled, convolve_bulk) share it, so they agree bit for bit.
template <class T, int C, int MW, class S, bool RowReuse>
__device__ __forceinline__ void compute_staged_tile(const MaskParam& mask, const float* tile,
                                                    StageGeometry g, int mh, int tx, int ty,
                                                    float (&acc)[S::ry][S::k]) {
  [[maybe_unused]] const int mw = MW > 0 ? MW : mask.width;
  clear_accumulators<S>(acc);

  bool rows_done = false;
  if constexpr (RowReuse && row_reuse_unrolled<S, MW>()) {
    if (mh == MW) {
      constexpr int stride = stage_geometry<T, C, S>(MW).stride;
      row_reuse_rows<T, C, MW, S>(
          mask, [&](int r) { return tile + (ty * S::ry + r) * stride; }, tx, acc);
      rows_done = true;
    }
  }

  if (!rows_done) {
    for (int j = 0; j < mh; ++j) {
      if constexpr (MW > 0) {
        constexpr StageGeometry sg = stage_geometry<T, C, S>(MW);
        // The window starts on the float4 that holds the first tap.
        constexpr int skip = sg.d / 4 * 4, d = sg.d - skip;
        constexpr int window = round_up(d + S::k + (MW - 1) * C, 4);
        float m[MW];
#pragma unroll
        for (int i = 0; i < MW; ++i)
          m[i] = mask.w[j * MW + i];
#pragma unroll
        for (int o = 0; o < S::ry; ++o) {
          float win[window];
          load_window<window>(tile + (ty * S::ry + o + j) * sg.stride + tx * S::k + skip, win);
#pragma unroll
          for (int i = 0; i < MW; ++i)
#pragma unroll
            for (int k = 0; k < S::k; ++k)
              acc[o][k] = __fmaf_rn(m[i], win[d + k + i * C], acc[o][k]);
        }
      } else {
#pragma unroll
        for (int o = 0; o < S::ry; ++o) {
          const float* src = tile + (ty * S::ry + o + j) * g.stride + tx * S::k + g.d;
          for (int i = 0; i < mw; ++i) {
            const float mv = mask.w[j * mw + i];
#pragma unroll
            for (int k = 0; k < S::k; ++k)
              acc[o][k] = __fmaf_rn(mv, src[k + i * C], acc[o][k]);
          }
        }
      }
    }
  }
}

template <class T, int C, int MW, class S, Staging St, bool RowReuse>
__device__ __forceinline__ void convolve_tiled_body(const ImageArgs& a, const MaskParam& mask) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  float* tile = reinterpret_cast<float*>(shared_raw);
  const int mw = MW > 0 ? MW : mask.width;
  const int mh = mask.height;
  const StageGeometry g = stage_geometry<T, C, S>(mw);
  const std::int64_t s0 = static_cast<std::int64_t>(blockIdx.x) * S::tile_w;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t tiles_y = (a.height + S::tile_h - 1) / S::tile_h;

  for (std::int64_t by = blockIdx.y; by < tiles_y; by += gridDim.y) {
    const std::int64_t y0 = by * S::tile_h;
    if (by != blockIdx.y)
      __syncthreads(); // the previous tile's reads are done before it is overwritten
    stage_tile<T, C, S, St, MW>(a, tile, g, mh, y0, s0);
    __syncthreads();

    float acc[S::ry][S::k];
    compute_staged_tile<T, C, MW, S, RowReuse>(mask, tile, g, mh, tx, ty, acc);
    if constexpr (St == Staging::interior_lean) {
      if (store_rows_interior<T, C, S>(a, acc, y0, s0))
        continue;
    }
    store_rows<T, C, S>(a, acc, y0 + ty * S::ry, s0 + tx * S::k);
  }
}

// The kernel, with the compiler's own register choice (S::min_blocks == 1) or registers capped
// for S::min_blocks blocks per SM. Two kernels, not one with __launch_bounds__(threads, 1): ptxas
// reads an explicit minimum of 1 as leave to use more registers (nvcc 13.0, sm_90: the float
// 7 x 7 kernel went from 64 to 109 and from 193.9 to 244.8 us on 8192^2, H200, 2026-11-26).
template <class T, int C, int MW, class S, Staging St, bool RowReuse = false>
__global__ void __launch_bounds__(S::threads)
    convolve_tiled(ImageArgs a, const __grid_constant__ MaskParam mask) {
  convolve_tiled_body<T, C, MW, S, St, RowReuse>(a, mask);
}

template <class T, int C, int MW, class S, Staging St, bool RowReuse = false>
__global__ void __launch_bounds__(S::threads, S::min_blocks)
    convolve_tiled_capped(ImageArgs a, const __grid_constant__ MaskParam mask) {
  convolve_tiled_body<T, C, MW, S, St, RowReuse>(a, mask);
}

// Launches convolve_tiled for one image (width, height > 0). Grid: tiles along x, tiles along y
// (at most 65535 blocks; the kernel loops over the rest).
template <class T, int C, int MW, class S, Staging St, bool RowReuse = false>
void launch_tiled(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  const std::int64_t row_scalars = a.width * C;
  const std::int64_t tiles_x = (row_scalars + S::tile_w - 1) / S::tile_w;
  const std::int64_t tiles_y = (a.height + S::tile_h - 1) / S::tile_h;
  const std::size_t shared = stage_bytes<T, C, S>(mask.width, mask.height);
  auto* kernel = &convolve_tiled<T, C, MW, S, St, RowReuse>;
  if constexpr (S::min_blocks > 1)
    kernel = &convolve_tiled_capped<T, C, MW, S, St, RowReuse>;
  if (shared > 48 * 1024) {
    // Opt in once per kernel to the largest stage any mask can need (31 x 31).
    static const cudaError_t opted = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
        static_cast<int>(stage_bytes<T, C, S>(max_convolution_mask, max_convolution_mask)));
    LADDER_CUDA(opted);
  }
  const dim3 grid(static_cast<unsigned>(tiles_x),
                  static_cast<unsigned>(tiles_y < 65535 ? tiles_y : 65535));
  kernel<<<grid, dim3(S::tx, S::ty), shared, stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}

// Mask widths compiled with their taps unrolled, per channel count: every odd width whose register
// window (K + (MW - 1) C floats plus alignment) stays near 64 floats; wider masks with several
// channels take the any-width kernel. uint8 with several channels stopped at 9 until 2026-11-25,
// when a 1920 x 1080 RGB picture took 717 us at 15 x 15 on the any-width kernel against 70 us at
// 9 x 9 (H200): there each tap is a scalar shared load, and with K = 8 floats per thread the
// warp's 32 loads fall 32 bytes apart, on 4 of the 32 banks: an 8-way conflict on every load.
// Unrolled with row reuse (ptxas, nvcc 13.0, sm_90): uint8 RGB 15 x 15 takes 112 registers and
// no spill; with the lane-rotated staging stores (stage_chunk16) the one kernel of the library
// that spills is uint8 of one channel at 7 x 7 with interior staging (80 registers, one word).
template <int C> constexpr int widest_unrolled() { return C == 1 ? max_convolution_mask : 15; }

// Launches convolve_tiled for mask.width: the instantiation unrolled for it, or the any-width one.
template <class T, int C, class S, Staging St, bool RowReuse, int MW = 1>
void launch_tiled_width(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  if constexpr (MW > widest_unrolled<C>()) {
    launch_tiled<T, C, 0, S, St, RowReuse>(a, mask, stream);
  } else {
    if (mask.width == MW)
      launch_tiled<T, C, MW, S, St, RowReuse>(a, mask, stream);
    else
      launch_tiled_width<T, C, S, St, RowReuse, MW + 2>(a, mask, stream);
  }
}

template <class T, class S, Staging St, bool RowReuse>
void launch_tiled_channels(int channels, const ImageArgs& a, const MaskParam& mask,
                           cudaStream_t stream) {
  switch (channels) {
  case 1: return launch_tiled_width<T, 1, S, St, RowReuse>(a, mask, stream);
  case 3: return launch_tiled_width<T, 3, S, St, RowReuse>(a, mask, stream);
  default: return launch_tiled_width<T, 4, S, St, RowReuse>(a, mask, stream);
  }
}

// Every element type, channel count and mask width of ladder::convolve2d, with one staging policy
// and one compute walk: the library's choice and the study's earlier rungs are instances of it.
template <Staging St, bool RowReuse>
void launch_tiled_2d(detail::ConvElement element, const ImageArgs& a, int channels,
                     const MaskParam& mask, cudaStream_t stream) {
  if (element == detail::ConvElement::f32)
    launch_tiled_channels<float, ShapeF32, St, RowReuse>(channels, a, mask, stream);
  else
    launch_tiled_channels<std::uint8_t, ShapeU8, St, RowReuse>(channels, a, mask, stream);
}

} // namespace ladder::conv_detail

namespace ladder::conv_detail {

// The separable path for masks that are a column times a row (Gaussian, box): the staged tile is
// filtered along rows into a second shared buffer (every staged row, so the halo rows too), then
// along columns: MW + MH multiply-adds per output instead of MW x MH. `taps.w` holds the column
// (taps.height values) then the row (taps.width values). The order of the sums differs from the
// direct kernel's, so results agree with the reference to the rounding, not bit for bit.
template <class T, int C, int MW, class S>
__global__ void __launch_bounds__(S::threads)
    convolve_separable(ImageArgs a, const __grid_constant__ MaskParam taps) {
  static_assert(MW > 0);
  extern __shared__ __align__(16) unsigned char shared_raw[];
  float* tile = reinterpret_cast<float*>(shared_raw);
  const int mh = taps.height;
  constexpr StageGeometry g = stage_geometry<T, C, S>(MW);
  const int rows = S::tile_h + mh - 1;
  float* across = tile + rows * g.stride; // rows x tile_w: the row pass
  const std::int64_t s0 = static_cast<std::int64_t>(blockIdx.x) * S::tile_w;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t tiles_y = (a.height + S::tile_h - 1) / S::tile_h;
  float row_taps[MW];
#pragma unroll
  for (int i = 0; i < MW; ++i)
    row_taps[i] = taps.w[mh + i];

  for (std::int64_t by = blockIdx.y; by < tiles_y; by += gridDim.y) {
    const std::int64_t y0 = by * S::tile_h;
    if (by != blockIdx.y)
      __syncthreads();
    stage_tile<T, C, S, Staging::vector>(a, tile, g, mh, y0, s0);
    __syncthreads();
    constexpr int skip = g.d / 4 * 4, d = g.d - skip;
    constexpr int window = round_up(d + S::k + (MW - 1) * C, 4);
    for (int r = ty; r < rows; r += S::ty) {
      float win[window];
      load_window<window>(tile + r * g.stride + tx * S::k + skip, win);
      float h[S::k];
#pragma unroll
      for (int k = 0; k < S::k; ++k) {
        h[k] = 0.0f;
#pragma unroll
        for (int i = 0; i < MW; ++i)
          h[k] = __fmaf_rn(row_taps[i], win[d + k + i * C], h[k]);
      }
#pragma unroll
      for (int k = 0; k < S::k; k += 4)
        *reinterpret_cast<float4*>(across + r * S::tile_w + tx * S::k + k) =
            make_float4(h[k], h[k + 1], h[k + 2], h[k + 3]);
    }
    __syncthreads();
    float acc[S::ry][S::k];
    clear_accumulators<S>(acc);
    for (int j = 0; j < mh + S::ry - 1; ++j) {
      float v[S::k];
      load_window<S::k>(across + (ty * S::ry + j) * S::tile_w + tx * S::k, v);
#pragma unroll
      for (int o = 0; o < S::ry; ++o) {
        const int jj = j - o; // this input row is tap jj of output row o
        if (jj >= 0 && jj < mh) {
          const float t = taps.w[jj];
#pragma unroll
          for (int k = 0; k < S::k; ++k)
            acc[o][k] = __fmaf_rn(t, v[k], acc[o][k]);
        }
      }
    }
    store_rows<T, C, S>(a, acc, y0 + ty * S::ry, s0 + tx * S::k);
  }
}

template <class T, int C, int MW, class S>
void launch_separable(const ImageArgs& a, const MaskParam& taps, cudaStream_t stream) {
  const std::int64_t tiles_x = (a.width * C + S::tile_w - 1) / S::tile_w;
  const std::int64_t tiles_y = (a.height + S::tile_h - 1) / S::tile_h;
  const std::size_t shared = stage_bytes<T, C, S>(MW, taps.height) +
                             static_cast<std::size_t>(S::tile_h + taps.height - 1) * S::tile_w * 4;
  auto* kernel = &convolve_separable<T, C, MW, S>;
  static const cudaError_t opted = cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
      static_cast<int>(stage_bytes<T, C, S>(MW, max_convolution_mask) +
                       (S::tile_h + max_convolution_mask - 1) * S::tile_w * 4));
  LADDER_CUDA(opted);
  const dim3 grid(static_cast<unsigned>(tiles_x),
                  static_cast<unsigned>(tiles_y < 65535 ? tiles_y : 65535));
  kernel<<<grid, dim3(S::tx, S::ty), shared, stream>>>(a, taps);
  LADDER_CUDA(cudaGetLastError());
}

} // namespace ladder::conv_detail
