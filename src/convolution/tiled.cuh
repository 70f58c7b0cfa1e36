// The tiled, register-blocked convolution kernel behind ladder::convolve2d and convolve1d, and the
// study's rungs past the course.
//
// A block stages its input tile (outputs plus halo, every row of the mask) in shared memory, then
// each thread computes K adjacent outputs of RY rows: it reads one row of its input window into
// registers (16-byte shared loads, converted to float) and applies the whole mask row to all K
// outputs from those registers, so a window value feeds up to K x MW fused multiply-adds. The
// mask travels in the launch parameters (a __grid_constant__ struct in the constant bank): every
// call carries its own, so concurrent calls never share a __constant__ symbol.
//
// Channels are interleaved: a row is width x C scalars, and the taps of one output scalar are C
// scalars apart. Borders are resolved while staging, so the compute loop has no branches: rows and
// 16-byte chunks that lie inside the image are copied as they are (cp.async, no registers), the
// few chunks at the image's edges scalar by scalar through border_index.
#pragma once

#include "convolution/border.hpp"
#include "ladder/convolve.hpp"
#include "ladder/error.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace ladder::conv_detail {

struct MaskParam {
  float w[max_convolution_mask * max_convolution_mask]; // mask_height rows of mask_width taps
  int width = 0;
  int height = 0;
};

struct ImageArgs {
  const unsigned char* in = nullptr;
  std::int64_t in_pitch = 0; // bytes
  unsigned char* out = nullptr;
  std::int64_t out_pitch = 0;
  std::int64_t width = 0; // pixels
  std::int64_t height = 0;
  Border border = Border::zero;
};

// A block of TX x TY threads; each thread computes K adjacent scalars of RY rows, so a block's
// output tile is TX K scalars wide and TY RY rows high.
template <int TX_, int TY_, int K_, int RY_> struct TileShape {
  static constexpr int tx = TX_, ty = TY_, k = K_, ry = RY_;
  static constexpr int threads = tx * ty;
  static constexpr int tile_w = tx * k;
  static constexpr int tile_h = ty * ry;
};

// float images: 128 x 32 outputs per block (the measured sweet spot between the halo's share and
// blocks per SM); uint8: 512 x 16 bytes, one 16-byte store per thread and row; 1D signals: 1024
// outputs per block of one row.
using ShapeF32 = TileShape<32, 8, 4, 4>;
using ShapeU8 = TileShape<32, 8, 16, 2>;
using Shape1d = TileShape<256, 1, 4, 1>;

constexpr int round_up(int a, int b) { return (a + b - 1) / b * b; }

template <class T> constexpr int vector_scalars = 16 / static_cast<int>(sizeof(T));

// Where a tile's scalars sit in shared memory. The staged row starts R scalars left of the tile (R
// = the halo rounded up to whole 16-byte vectors) so that the tile, every thread's window and
// every global chunk stay 16-byte aligned; a thread's first tap is D = R - halo scalars into its
// window.
struct StageGeometry {
  int halo; // mask_width / 2 x C scalars on each side
  int r;    // halo rounded up to a multiple of the vector
  int d;    // r - halo
  int stride; // scalars per staged row: tile_w + 2 r
};

template <class T, int C, class S>
__host__ __device__ constexpr StageGeometry stage_geometry(int mask_width) {
  const int halo = mask_width / 2 * C;
  const int r = round_up(halo, vector_scalars<T>);
  return {halo, r, r - halo, S::tile_w + 2 * r};
}

// Shared memory of one block: the staged rows (tile_h + mask_height - 1) of `stride` scalars.
template <class T, int C, class S>
constexpr std::size_t stage_bytes(int mask_width, int mask_height) {
  return static_cast<std::size_t>(S::tile_h + mask_height - 1) *
         stage_geometry<T, C, S>(mask_width).stride * sizeof(T);
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

// Stages rows [y0 - mask_height / 2, ..) x scalars [g0, g0 + stride) of the input into `tile`.
// VectorStaging: whole 16-byte chunks inside the image go by cp.async; otherwise (the course-like
// register-blocked rung) every scalar is read through registers.
template <class T, int C, class S, bool VectorStaging>
__device__ __forceinline__ void stage_tile(const ImageArgs& a, T* tile, StageGeometry g,
                                           int mask_height, std::int64_t y0, std::int64_t s0) {
  constexpr int V = vector_scalars<T>;
  const int rows = S::tile_h + mask_height - 1;
  const std::int64_t row_scalars = a.width * C;
  const std::int64_t g0 = s0 - g.r;
  const int vectors_per_row = g.stride / V;
  const int total = rows * vectors_per_row;
  for (int idx = threadIdx.x + threadIdx.y * S::tx; idx < total; idx += S::threads) {
    const int r = idx / vectors_per_row;
    const int c = idx - r * vectors_per_row;
    const std::int64_t y = y0 - mask_height / 2 + r;
    const std::int64_t q = g0 + static_cast<std::int64_t>(c) * V;
    T* dst = tile + r * g.stride + c * V;
    if constexpr (VectorStaging) {
      const std::int64_t ym = border_index(y, a.height, a.border);
      if (ym >= 0 && q >= 0 && q + V <= row_scalars) {
        const unsigned char* src = a.in + ym * a.in_pitch + q * static_cast<std::int64_t>(sizeof(T));
        if ((reinterpret_cast<std::uintptr_t>(src) & 15) == 0) {
          cp_async16(dst, src);
          continue;
        }
      }
    }
    if (y >= 0 && y < a.height && q >= 0 && q + V <= row_scalars) {
      const auto* row = reinterpret_cast<const T*>(a.in + y * a.in_pitch);
#pragma unroll
      for (int e = 0; e < V; ++e)
        dst[e] = row[q + e];
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e)
        dst[e] = read_bordered<T, C>(a, y, q + e);
    }
  }
  if constexpr (VectorStaging)
    cp_async_wait_all();
}

// Loads N scalars (a multiple of V) from 16-byte aligned shared memory into floats.
template <class T, int N> __device__ __forceinline__ void load_window(const T* src, float (&win)[N]) {
  constexpr int V = vector_scalars<T>;
  static_assert(N % V == 0);
#pragma unroll
  for (int v = 0; v < N / V; ++v) {
    const uint4 chunk = reinterpret_cast<const uint4*>(src)[v];
    const T* e = reinterpret_cast<const T*>(&chunk);
#pragma unroll
    for (int i = 0; i < V; ++i)
      win[v * V + i] = to_float(e[i]);
  }
}

// MW > 0: the mask width is fixed at compile time (windows in registers, taps unrolled); MW == 0:
// any width, taps read from shared memory one by one (wide masks with several channels, whose
// windows would not fit in registers).
template <class T, int C, int MW, class S, bool VectorStaging>
__global__ void __launch_bounds__(S::threads)
    convolve_tiled(ImageArgs a, const __grid_constant__ MaskParam mask) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* tile = reinterpret_cast<T*>(shared_raw);
  const int mw = MW > 0 ? MW : mask.width;
  const int mh = mask.height;
  const StageGeometry g = stage_geometry<T, C, S>(mw);
  const std::int64_t row_scalars = a.width * C;
  const std::int64_t s0 = static_cast<std::int64_t>(blockIdx.x) * S::tile_w;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t tiles_y = (a.height + S::tile_h - 1) / S::tile_h;

  for (std::int64_t by = blockIdx.y; by < tiles_y; by += gridDim.y) {
    const std::int64_t y0 = by * S::tile_h;
    if (by != blockIdx.y)
      __syncthreads(); // the previous tile's reads are done before it is overwritten
    stage_tile<T, C, S, VectorStaging>(a, tile, g, mh, y0, s0);
    __syncthreads();

    float acc[S::ry][S::k];
#pragma unroll
    for (int o = 0; o < S::ry; ++o)
#pragma unroll
      for (int k = 0; k < S::k; ++k)
        acc[o][k] = 0.0f;

    for (int j = 0; j < mh; ++j) {
      if constexpr (MW > 0) {
        constexpr StageGeometry sg = stage_geometry<T, C, S>(MW);
        constexpr int window = round_up(sg.d + S::k + (MW - 1) * C, vector_scalars<T>);
        float m[MW];
#pragma unroll
        for (int i = 0; i < MW; ++i)
          m[i] = mask.w[j * MW + i];
#pragma unroll
        for (int o = 0; o < S::ry; ++o) {
          float win[window];
          load_window<T, window>(tile + (ty * S::ry + o + j) * sg.stride + tx * S::k, win);
#pragma unroll
          for (int i = 0; i < MW; ++i)
#pragma unroll
            for (int k = 0; k < S::k; ++k)
              acc[o][k] = __fmaf_rn(m[i], win[sg.d + k + i * C], acc[o][k]);
        }
      } else {
#pragma unroll
        for (int o = 0; o < S::ry; ++o) {
          const T* src = tile + (ty * S::ry + o + j) * g.stride + tx * S::k + g.d;
          for (int i = 0; i < mw; ++i) {
            const float mv = mask.w[j * mw + i];
#pragma unroll
            for (int k = 0; k < S::k; ++k)
              acc[o][k] = __fmaf_rn(mv, to_float(src[k + i * C]), acc[o][k]);
          }
        }
      }
    }

    const std::int64_t s = s0 + tx * S::k;
#pragma unroll
    for (int o = 0; o < S::ry; ++o) {
      const std::int64_t y = y0 + ty * S::ry + o;
      if (y >= a.height || s >= row_scalars)
        continue;
      T* row = reinterpret_cast<T*>(a.out + y * a.out_pitch);
      if (s + S::k <= row_scalars && (reinterpret_cast<std::uintptr_t>(row + s) & 15) == 0) {
        static_assert(S::k * sizeof(T) % 16 == 0);
#pragma unroll
        for (int v = 0; v < S::k * static_cast<int>(sizeof(T)) / 16; ++v) {
          uint4 chunk;
          T* e = reinterpret_cast<T*>(&chunk);
#pragma unroll
          for (int i = 0; i < vector_scalars<T>; ++i)
            e[i] = from_float<T>(acc[o][v * vector_scalars<T> + i]);
          reinterpret_cast<uint4*>(row + s)[v] = chunk;
        }
      } else {
#pragma unroll
        for (int k = 0; k < S::k; ++k)
          if (s + k < row_scalars)
            row[s + k] = from_float<T>(acc[o][k]);
      }
    }
  }
}

// Launches convolve_tiled for one image (width, height > 0). Grid: tiles along x, tiles along y
// (at most 65535 blocks; the kernel loops over the rest).
template <class T, int C, int MW, class S, bool VectorStaging>
void launch_tiled(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  const std::int64_t row_scalars = a.width * C;
  const std::int64_t tiles_x = (row_scalars + S::tile_w - 1) / S::tile_w;
  const std::int64_t tiles_y = (a.height + S::tile_h - 1) / S::tile_h;
  const std::size_t shared = stage_bytes<T, C, S>(mask.width, mask.height);
  auto* kernel = &convolve_tiled<T, C, MW, S, VectorStaging>;
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

} // namespace ladder::conv_detail
