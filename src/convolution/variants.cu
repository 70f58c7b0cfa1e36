// The convolution ladder, in the order of the UCAS lecture 3 slides (after "Programming Massively
// Parallel Processors", chapter 7): the basic kernel with ghost cells, the mask in constant
// memory, tiling by output tile (design 1) and by input tile (design 2), the caches for the halo,
// then the texture path of NVIDIA's "Optimizing CUDA" deck and the rungs past the course (register
// blocking, 16-byte staging, row reuse), the library call and the references. Every sum is a chain
// of fused multiply-adds in the reference's order (mask rows in order, taps left to right), so
// float rungs match the CPU to the rounding and uint8 rungs match it exactly.
#include "convolution/api_dispatch.hpp"
#include "convolution/column.cuh"
#include "convolution/reference.hpp"
#include "convolution/tiled.cuh"
#include "convolution/variants.hpp"
#include "convolution/variants_parts.hpp"
#include "convolution/window.cuh"

#include "ladder/convolve.hpp"
#include "ladder/error.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(LADDER_HAVE_NPP)
#include <nppi.h>
#endif
#if defined(LADDER_HAVE_CUDNN)
#include <cudnn.h>
#endif

namespace ladder::lab::convolution {

conv_detail::ImageArgs image_args(const Buffers2d& b, Border border) {
  conv_detail::ImageArgs a;
  a.in = static_cast<const unsigned char*>(b.in);
  a.out = static_cast<unsigned char*>(b.out);
  a.in_pitch = a.out_pitch = b.problem.pitch;
  a.width = b.problem.width;
  a.height = b.problem.height;
  a.border = border;
  return a;
}

const char* float_square_masks_fit(const Problem2d& p) {
  const int w = p.mask_width;
  return p.element == Element::f32 && p.channels == 1 && w == p.mask_height &&
                 (w == 3 || w == 5 || w == 7 || w == 9 || w == 15)
             ? nullptr
             : "float images of one channel, square masks 3, 5, 7, 9 or 15 wide";
}

namespace {

using conv_detail::from_float;
using conv_detail::ImageArgs;
using conv_detail::to_float;

constexpr int max_mask = max_convolution_mask;

// The course's constant-memory mask. One symbol for the whole lab: the study runs one rung at a
// time on one stream, which is exactly the assumption a library cannot make (ladder::convolve2d
// carries its mask in the launch parameters instead).
__constant__ float c_mask[max_mask * max_mask];

void load_constant_mask(const float* device_mask, int taps, cudaStream_t stream) {
  LADDER_CUDA(cudaMemcpyToSymbolAsync(c_mask, device_mask, sizeof(float) * taps, 0,
                                      cudaMemcpyDeviceToDevice, stream));
}

unsigned blocks_for(std::int64_t n, std::int64_t per_block) {
  return static_cast<unsigned>((n + per_block - 1) / per_block);
}

// ---- 1D ---------------------------------------------------------------------------------------

constexpr int block_1d = 1024; // the slides' TILE_SIZE / BLOCK_WIDTH

// 1. One thread per output; ghost cells (outside the signal) count as 0, so their taps are skipped.
__global__ void basic_1d(const float* N, const float* M, float* P, int mask_width,
                         std::int64_t width) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= width)
    return;
  float p = 0.0f;
  const std::int64_t start = i - mask_width / 2;
  for (int j = 0; j < mask_width; ++j)
    if (start + j >= 0 && start + j < width)
      p = __fmaf_rn(M[j], N[start + j], p);
  P[i] = p;
}

// 2. The same with the mask in constant memory: every thread of a warp reads the same tap at
// once, which the constant cache broadcasts.
__global__ void constant_1d(const float* N, float* P, int mask_width, std::int64_t width) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= width)
    return;
  float p = 0.0f;
  const std::int64_t start = i - mask_width / 2;
  for (int j = 0; j < mask_width; ++j)
    if (start + j >= 0 && start + j < width)
      p = __fmaf_rn(c_mask[j], N[start + j], p);
  P[i] = p;
}

// 3. Design 1: a block per output tile; the last n threads also load the left halo and the first
// n the right one (ghost cells as 0).
__global__ void tiled_design1_1d(const float* N, float* P, int mask_width, std::int64_t width) {
  __shared__ float N_ds[block_1d + max_mask - 1];
  const int n = mask_width / 2;
  const int t = threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + t;
  const std::int64_t left = i - blockDim.x;
  if (t >= static_cast<int>(blockDim.x) - n)
    N_ds[t - (blockDim.x - n)] = left < 0 ? 0.0f : N[left];
  N_ds[n + t] = i < width ? N[i] : 0.0f;
  const std::int64_t right = i + blockDim.x;
  if (t < n)
    N_ds[n + blockDim.x + t] = right >= width ? 0.0f : N[right];
  __syncthreads();
  if (i >= width)
    return;
  float p = 0.0f;
  for (int j = 0; j < mask_width; ++j)
    p = __fmaf_rn(c_mask[j], N_ds[t + j], p);
  P[i] = p;
}

// 4. Design 2: a block per input tile (BLOCK_WIDTH = O_TILE_WIDTH + MASK_WIDTH - 1); every thread
// loads one input, the last MASK_WIDTH - 1 compute nothing.
__global__ void tiled_design2_1d(const float* N, float* P, int mask_width, std::int64_t width) {
  __shared__ float N_ds[block_1d];
  const int n = mask_width / 2;
  const int o_tile = block_1d - (mask_width - 1);
  const int t = threadIdx.x;
  const std::int64_t out0 = static_cast<std::int64_t>(blockIdx.x) * o_tile;
  const std::int64_t in_i = out0 + t - n;
  N_ds[t] = in_i >= 0 && in_i < width ? N[in_i] : 0.0f;
  __syncthreads();
  if (t >= o_tile || out0 + t >= width)
    return;
  float p = 0.0f;
  for (int j = 0; j < mask_width; ++j)
    p = __fmaf_rn(c_mask[j], N_ds[t + j], p);
  P[out0 + t] = p;
}

// 5. Only the tile's own inputs in shared memory; the halo is read from global memory, where the
// neighbouring block has just brought it into L2 (and often L1).
__global__ void cache_halo_1d(const float* N, float* P, int mask_width, std::int64_t width) {
  __shared__ float N_ds[block_1d];
  const int t = threadIdx.x;
  const std::int64_t tile_start = static_cast<std::int64_t>(blockIdx.x) * blockDim.x;
  const std::int64_t i = tile_start + t;
  N_ds[t] = i < width ? N[i] : 0.0f;
  __syncthreads();
  if (i >= width)
    return;
  const std::int64_t tile_end = tile_start + blockDim.x;
  const std::int64_t start = i - mask_width / 2;
  float p = 0.0f;
  for (int j = 0; j < mask_width; ++j) {
    const std::int64_t k = start + j;
    if (k >= 0 && k < width)
      p = __fmaf_rn(c_mask[j], k >= tile_start && k < tile_end ? N_ds[k - tile_start] : N[k], p);
  }
  P[i] = p;
}

void launch_basic_1d(const Buffers1d& b, cudaStream_t s) {
  basic_1d<<<blocks_for(b.problem.n, block_1d), block_1d, 0, s>>>(
      b.in, b.device_mask, b.out, b.problem.mask_width, b.problem.n);
}

template <auto Kernel> void launch_constant_kernel_1d(const Buffers1d& b, cudaStream_t s) {
  load_constant_mask(b.device_mask, b.problem.mask_width, s);
  Kernel<<<blocks_for(b.problem.n, block_1d), block_1d, 0, s>>>(b.in, b.out, b.problem.mask_width,
                                                                b.problem.n);
}

void launch_design2_1d(const Buffers1d& b, cudaStream_t s) {
  load_constant_mask(b.device_mask, b.problem.mask_width, s);
  tiled_design2_1d<<<blocks_for(b.problem.n, block_1d - (b.problem.mask_width - 1)), block_1d, 0,
                     s>>>(b.in, b.out, b.problem.mask_width, b.problem.n);
}

ImageArgs signal_args(const Buffers1d& b, Border border) {
  ImageArgs a;
  a.in = reinterpret_cast<const unsigned char*>(b.in);
  a.out = reinterpret_cast<unsigned char*>(b.out);
  a.in_pitch = a.out_pitch = b.problem.n * 4;
  a.width = b.problem.n;
  a.height = 1;
  a.border = border;
  return a;
}

// The register-blocked kernel with every input read through registers (no 16-byte staging), for
// the study's mask widths.
template <int MW> void register_blocked_1d_width(const Buffers1d& b, cudaStream_t s) {
  conv_detail::launch_tiled<float, 1, MW, conv_detail::Shape1d, conv_detail::Staging::scalar>(
      signal_args(b, Border::zero),
      conv_detail::make_mask_param(b.host_mask, b.problem.mask_width, 1), s);
}

void launch_register_blocked_1d(const Buffers1d& b, cudaStream_t s) {
  switch (b.problem.mask_width) {
  case 3: return register_blocked_1d_width<3>(b, s);
  case 5: return register_blocked_1d_width<5>(b, s);
  case 7: return register_blocked_1d_width<7>(b, s);
  case 9: return register_blocked_1d_width<9>(b, s);
  case 15: return register_blocked_1d_width<15>(b, s);
  default: return register_blocked_1d_width<0>(b, s);
  }
}

void launch_staged_1d(const Buffers1d& b, cudaStream_t s) {
  conv_detail::launch_library_1d(signal_args(b, Border::zero),
                                 conv_detail::make_mask_param(b.host_mask, b.problem.mask_width, 1),
                                 s);
}

// No staging: each thread's window read from global memory as 16-byte loads (window_1d.cuh),
// U float4s of outputs per thread.
template <int U> void launch_window_1d_rung(const Buffers1d& b, cudaStream_t s) {
  conv_detail::launch_window_1d<U>(signal_args(b, Border::zero),
                                   conv_detail::make_mask_param(b.host_mask, b.problem.mask_width, 1),
                                   s);
}

void launch_library_call_1d(const Buffers1d& b, cudaStream_t s) {
  ladder::convolve1d(b.in, b.out, b.problem.n, b.host_mask, b.problem.mask_width, Border::zero, s);
}

void launch_memcpy_1d(const Buffers1d& b, cudaStream_t s) {
  LADDER_CUDA(cudaMemcpyAsync(b.out, b.in, static_cast<std::size_t>(b.problem.n) * 4,
                              cudaMemcpyDeviceToDevice, s));
}

const char* any_1d(const Problem1d&) { return nullptr; }
const char* fits_int_grid(const Problem1d& p) {
  return (p.n + block_1d - 1) / block_1d > 0x7fffffff ? "n needs more than 2^31 blocks" : nullptr;
}

// ---- 2D ---------------------------------------------------------------------------------------

constexpr int tile_2d = 16; // the slides' TILE_WIDTH for the basic and design-1 kernels
constexpr int o_tile_2d = 12; // the slides' O_TILE_WIDTH for design 2

template <class T, int C>
__device__ __forceinline__ float pixel(const ImageArgs& a, std::int64_t x, std::int64_t y, int c) {
  return to_float(reinterpret_cast<const T*>(a.in + y * a.in_pitch)[x * C + c]);
}
template <class T, int C>
__device__ __forceinline__ void store(const ImageArgs& a, std::int64_t x, std::int64_t y, int c,
                                      float v) {
  reinterpret_cast<T*>(a.out + y * a.out_pitch)[x * C + c] = from_float<T>(v);
}

// 1. The slides' 2D kernel: one thread per pixel, the mask in global memory, ghost cells as 0;
// each channel of an interleaved pixel separately (the RGB lab's loop over channels).
template <class T, int C>
__global__ void basic_2d(ImageArgs a, const float* M, int mw, int mh) {
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t y = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (x >= a.width || y >= a.height)
    return;
  for (int c = 0; c < C; ++c) {
    float p = 0.0f;
    for (int j = 0; j < mh; ++j) {
      const std::int64_t iy = y - mh / 2 + j;
      for (int i = 0; i < mw; ++i) {
        const std::int64_t ix = x - mw / 2 + i;
        if (iy >= 0 && iy < a.height && ix >= 0 && ix < a.width)
          p = __fmaf_rn(M[j * mw + i], pixel<T, C>(a, ix, iy, c), p);
      }
    }
    store<T, C>(a, x, y, c, p);
  }
}

// 2. The same with the mask in constant memory (`const __restrict__` in the slides).
template <class T, int C> __global__ void constant_2d(ImageArgs a, int mw, int mh) {
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t y = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (x >= a.width || y >= a.height)
    return;
  for (int c = 0; c < C; ++c) {
    float p = 0.0f;
    for (int j = 0; j < mh; ++j) {
      const std::int64_t iy = y - mh / 2 + j;
      for (int i = 0; i < mw; ++i) {
        const std::int64_t ix = x - mw / 2 + i;
        if (iy >= 0 && iy < a.height && ix >= 0 && ix < a.width)
          p = __fmaf_rn(c_mask[j * mw + i], pixel<T, C>(a, ix, iy, c), p);
      }
    }
    store<T, C>(a, x, y, c, p);
  }
}

// 3. Design 1: a 16 x 16 block per 16 x 16 output tile; the (16 + MH - 1) x (16 + MW - 1) input
// tile is loaded by all threads in turn (some load two or more), ghost cells as 0.
template <class T, int C> __global__ void tiled_design1_2d(ImageArgs a, int mw, int mh) {
  extern __shared__ float s_tile[];
  const int sw = tile_2d + mw - 1, sh = tile_2d + mh - 1;
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * tile_2d - mw / 2;
  const std::int64_t y0 = static_cast<std::int64_t>(blockIdx.y) * tile_2d - mh / 2;
  for (int idx = threadIdx.y * tile_2d + threadIdx.x; idx < sw * sh; idx += tile_2d * tile_2d) {
    const int r = idx / sw, col = idx - r * sw;
    const std::int64_t gx = x0 + col, gy = y0 + r;
    const bool inside = gx >= 0 && gx < a.width && gy >= 0 && gy < a.height;
    for (int c = 0; c < C; ++c)
      s_tile[idx * C + c] = inside ? pixel<T, C>(a, gx, gy, c) : 0.0f;
  }
  __syncthreads();
  const std::int64_t x = x0 + mw / 2 + threadIdx.x, y = y0 + mh / 2 + threadIdx.y;
  if (x >= a.width || y >= a.height)
    return;
  for (int c = 0; c < C; ++c) {
    float p = 0.0f;
    for (int j = 0; j < mh; ++j)
      for (int i = 0; i < mw; ++i)
        p = __fmaf_rn(c_mask[j * mw + i],
                      s_tile[((threadIdx.y + j) * sw + threadIdx.x + i) * C + c], p);
    store<T, C>(a, x, y, c, p);
  }
}

// 4. Design 2: a block per input tile of (12 + MW - 1) x (12 + MH - 1) threads, one input pixel
// each; the 12 x 12 threads of the output tile compute, the others only load.
template <class T, int C> __global__ void tiled_design2_2d(ImageArgs a, int mw, int mh) {
  extern __shared__ float s_tile[];
  const int bw = o_tile_2d + mw - 1;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t ox = static_cast<std::int64_t>(blockIdx.x) * o_tile_2d + tx;
  const std::int64_t oy = static_cast<std::int64_t>(blockIdx.y) * o_tile_2d + ty;
  const std::int64_t gx = ox - mw / 2, gy = oy - mh / 2;
  const bool inside = gx >= 0 && gx < a.width && gy >= 0 && gy < a.height;
  for (int c = 0; c < C; ++c)
    s_tile[(ty * bw + tx) * C + c] = inside ? pixel<T, C>(a, gx, gy, c) : 0.0f;
  __syncthreads();
  if (tx >= o_tile_2d || ty >= o_tile_2d || ox >= a.width || oy >= a.height)
    return;
  for (int c = 0; c < C; ++c) {
    float p = 0.0f;
    for (int j = 0; j < mh; ++j)
      for (int i = 0; i < mw; ++i)
        p = __fmaf_rn(c_mask[j * mw + i], s_tile[((ty + j) * bw + tx + i) * C + c], p);
    store<T, C>(a, ox, oy, c, p);
  }
}

// 5. "Optimizing CUDA": fetch through the texture unit, whose clamp addressing mode is the clamp
// border for free (no bounds checks in the loop), with its own cache for the 2D neighbourhood.
template <class T>
__global__ void texture_2d(cudaTextureObject_t tex, ImageArgs a, int mw, int mh) {
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t y = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (x >= a.width || y >= a.height)
    return;
  float p = 0.0f;
  for (int j = 0; j < mh; ++j) {
    const float fy = static_cast<float>(y - mh / 2 + j) + 0.5f;
    for (int i = 0; i < mw; ++i) {
      const float fx = static_cast<float>(x - mw / 2 + i) + 0.5f;
      p = __fmaf_rn(c_mask[j * mw + i], to_float(tex2D<T>(tex, fx, fy)), p);
    }
  }
  store<T, 1>(a, x, y, 0, p);
}

detail::ConvElement element_of(const Problem2d& p) {
  return p.element == Element::f32 ? detail::ConvElement::f32 : detail::ConvElement::u8;
}

// Calls f.template operator()<T, C>() for the problem's element type and channel count.
template <class F> void with_type(const Problem2d& p, F&& f) {
  if (p.element == Element::f32) {
    if (p.channels == 1)
      f.template operator()<float, 1>();
    else if (p.channels == 3)
      f.template operator()<float, 3>();
    else
      f.template operator()<float, 4>();
  } else {
    if (p.channels == 1)
      f.template operator()<std::uint8_t, 1>();
    else if (p.channels == 3)
      f.template operator()<std::uint8_t, 3>();
    else
      f.template operator()<std::uint8_t, 4>();
  }
}

dim3 grid_16(const Problem2d& p) {
  return dim3(blocks_for(p.width, tile_2d), blocks_for(p.height, tile_2d));
}

void launch_basic_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  with_type(p, [&]<class T, int C>() {
    basic_2d<T, C><<<grid_16(p), dim3(tile_2d, tile_2d), 0, s>>>(
        image_args(b, Border::zero), b.device_mask, p.mask_width, p.mask_height);
  });
}

void launch_constant_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  load_constant_mask(b.device_mask, p.mask_width * p.mask_height, s);
  with_type(p, [&]<class T, int C>() {
    constant_2d<T, C><<<grid_16(p), dim3(tile_2d, tile_2d), 0, s>>>(image_args(b, Border::zero),
                                                                     p.mask_width, p.mask_height);
  });
}

void launch_design1_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  load_constant_mask(b.device_mask, p.mask_width * p.mask_height, s);
  const std::size_t shared = sizeof(float) * p.channels * (tile_2d + p.mask_width - 1) *
                             (tile_2d + p.mask_height - 1);
  with_type(p, [&]<class T, int C>() {
    tiled_design1_2d<T, C><<<grid_16(p), dim3(tile_2d, tile_2d), shared, s>>>(
        image_args(b, Border::zero), p.mask_width, p.mask_height);
  });
}

const char* design2_fits(const Problem2d& p) {
  return (o_tile_2d + p.mask_width - 1) * (o_tile_2d + p.mask_height - 1) > 1024
             ? "an input tile of (12 + mask - 1)^2 threads exceeds 1024 threads per block"
         : p.height > 65535 * std::int64_t{o_tile_2d} ? "the grid's y dimension is limited to 65535"
                                                      : nullptr;
}

void launch_design2_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  load_constant_mask(b.device_mask, p.mask_width * p.mask_height, s);
  const dim3 block(o_tile_2d + p.mask_width - 1, o_tile_2d + p.mask_height - 1);
  const std::size_t shared = sizeof(float) * p.channels * block.x * block.y;
  with_type(p, [&]<class T, int C>() {
    tiled_design2_2d<T, C>
        <<<dim3(blocks_for(p.width, o_tile_2d), blocks_for(p.height, o_tile_2d)), block, shared,
           s>>>(image_args(b, Border::zero), p.mask_width, p.mask_height);
  });
}

const char* grid16_fits(const Problem2d& p) {
  return p.height > 65535 * std::int64_t{tile_2d} ? "the grid's y dimension is limited to 65535"
                                                  : nullptr;
}

// A texture object over the last image the texture rung read: created when the image changes
// (creating one per launch would add its host cost to every timed launch).
struct TextureCache {
  std::mutex mutex;
  const void* data = nullptr;
  std::int64_t width = 0, height = 0, pitch = 0;
  Element element = Element::f32;
  cudaTextureObject_t tex = 0;
};

cudaTextureObject_t texture_for(const Buffers2d& b) {
  static TextureCache cache;
  const Problem2d& p = b.problem;
  std::lock_guard lock(cache.mutex);
  if (cache.tex != 0 && cache.data == b.in && cache.width == p.width &&
      cache.height == p.height && cache.pitch == p.pitch && cache.element == p.element)
    return cache.tex;
  if (cache.tex != 0)
    cudaDestroyTextureObject(cache.tex);
  cache.tex = 0;
  cudaResourceDesc res{};
  res.resType = cudaResourceTypePitch2D;
  res.res.pitch2D.devPtr = const_cast<void*>(b.in);
  res.res.pitch2D.desc = p.element == Element::f32 ? cudaCreateChannelDesc<float>()
                                                   : cudaCreateChannelDesc<unsigned char>();
  res.res.pitch2D.width = static_cast<std::size_t>(p.width);
  res.res.pitch2D.height = static_cast<std::size_t>(p.height);
  res.res.pitch2D.pitchInBytes = static_cast<std::size_t>(p.pitch);
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
  desc.filterMode = cudaFilterModePoint;
  desc.readMode = cudaReadModeElementType;
  desc.normalizedCoords = 0;
  LADDER_CUDA(cudaCreateTextureObject(&cache.tex, &res, &desc, nullptr));
  cache.data = b.in;
  cache.width = p.width;
  cache.height = p.height;
  cache.pitch = p.pitch;
  cache.element = p.element;
  return cache.tex;
}

const char* texture_fits(const Problem2d& p) {
  if (p.channels != 1)
    return "textures have no 3-channel format, and this rung reads one channel";
  int device = 0, max_w = 0, max_h = 0, pitch_align = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&max_w, cudaDevAttrMaxTexture2DLinearWidth, device);
  cudaDeviceGetAttribute(&max_h, cudaDevAttrMaxTexture2DLinearHeight, device);
  cudaDeviceGetAttribute(&pitch_align, cudaDevAttrTexturePitchAlignment, device);
  if (p.width > max_w || p.height > max_h)
    return "the image exceeds the largest pitched 2D texture";
  if (pitch_align > 0 && p.pitch % pitch_align != 0)
    return "the pitch is not a multiple of the texture pitch alignment";
  return grid16_fits(p);
}

void launch_texture_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  load_constant_mask(b.device_mask, p.mask_width * p.mask_height, s);
  const cudaTextureObject_t tex = texture_for(b);
  if (p.element == Element::f32)
    texture_2d<float><<<grid_16(p), dim3(tile_2d, tile_2d), 0, s>>>(
        tex, image_args(b, Border::clamp), p.mask_width, p.mask_height);
  else
    texture_2d<unsigned char><<<grid_16(p), dim3(tile_2d, tile_2d), 0, s>>>(
        tex, image_args(b, Border::clamp), p.mask_width, p.mask_height);
}

// convolve_tiled on the study's images for the mask widths the study runs (3 to 9, and 15 where
// it is compiled unrolled), any other width on the any-width instantiation.
template <class T, int C, class S, conv_detail::Staging St, bool RowReuse>
void launch_study_widths(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  const ImageArgs a = image_args(b, Border::zero);
  const auto mask = conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height);
  switch (p.mask_width) {
  case 3: return conv_detail::launch_tiled<T, C, 3, S, St, RowReuse>(a, mask, s);
  case 5: return conv_detail::launch_tiled<T, C, 5, S, St, RowReuse>(a, mask, s);
  case 7: return conv_detail::launch_tiled<T, C, 7, S, St, RowReuse>(a, mask, s);
  case 9: return conv_detail::launch_tiled<T, C, 9, S, St, RowReuse>(a, mask, s);
  default:
    // Register blocking compiles 15 unrolled for float images only; row reuse for both.
    if constexpr ((sizeof(T) == 4 && C == 1) || RowReuse)
      if (p.mask_width == 15)
        return conv_detail::launch_tiled<T, C, 15, S, St, RowReuse>(a, mask, s);
    return conv_detail::launch_tiled<T, C, 0, S, St, RowReuse>(a, mask, s);
  }
}

// 6. Register blocking without 16-byte staging: every input goes through registers one scalar at a
// time, for the mask widths the study runs.
template <class T, int C, class S>
void register_blocked_typed(const Buffers2d& b, cudaStream_t s) {
  launch_study_widths<T, C, S, conv_detail::Staging::scalar, false>(b, s);
}

void launch_register_blocked_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  if (p.element == Element::f32 && p.channels == 1)
    return register_blocked_typed<float, 1, conv_detail::ShapeF32>(b, s);
  if (p.element == Element::u8 && p.channels == 3)
    return register_blocked_typed<std::uint8_t, 3, conv_detail::ShapeU8>(b, s);
  throw std::logic_error("register_blocked: unsupported problem");
}

const char* study_images_only(const Problem2d& p) {
  return (p.element == Element::f32 && p.channels == 1) ||
                 (p.element == Element::u8 && p.channels == 3)
             ? nullptr
             : "compiled for the study's images only (float 1 channel, uint8 3 channels)";
}

// 7. + 16-byte staging by cp.async straight into shared memory, the border resolved while staging;
// the compute walks the mask rows, a window per (mask row, output row).
void launch_staged_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  conv_detail::launch_tiled_2d<conv_detail::Staging::vector, false>(
      element_of(p), image_args(b, Border::zero), p.channels,
      conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height), s);
}

// 8. + row reuse: each input row read once per thread and applied to every output row it feeds
// (convolve_tiled's RowReuse): the library's staged kernel, here with the border B (9. is its
// clamp).
template <Border B> void launch_row_reuse_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  conv_detail::launch_library_staged_2d(
      element_of(p), image_args(b, B), p.channels,
      conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height), s);
}

// 8a. Row reuse with Staging::vector_interior: tiles whose stage lies inside the image skip the
// per-chunk border, bounds and alignment tests. Compiled for the study's images (float one
// channel, uint8 three channels), every mask width.
void launch_row_reuse_interior_2d(const Buffers2d& b, cudaStream_t s) {
  using conv_detail::Staging;
  const Problem2d& p = b.problem;
  const ImageArgs a = image_args(b, Border::zero);
  const auto mask = conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height);
  if (p.element == Element::f32 && p.channels == 1)
    return conv_detail::launch_tiled_width<float, 1, conv_detail::ShapeF32,
                                           Staging::vector_interior, true>(a, mask, s);
  if (p.element == Element::u8 && p.channels == 3)
    return conv_detail::launch_tiled_width<std::uint8_t, 3, conv_detail::ShapeU8,
                                           Staging::vector_interior, true>(a, mask, s);
  throw std::logic_error("row_reuse_interior: unsupported problem");
}

// Row reuse on RY rows per thread. RY = 2 or 1 (row_reuse_ry2, row_reuse_ry1: 16 or 8 rows per
// block instead of 32): more blocks, each with less serial work, for small pictures, at the price
// of more halo rows staged per output row. (A 1920 x 1080 RGB picture makes 782 blocks of 32-row
// tiles, at 3 blocks per SM two nearly full waves on an H200; neither variant was faster there.)
// RY = 8 with interior staging (row_reuse_interior_ry8, 64-row tiles) goes the other way: the
// MH - 1 halo rows each tile stages (and reads again from L2 or DRAM) are spread over twice the
// output rows.
template <int RY, conv_detail::Staging St = conv_detail::Staging::vector>
void launch_row_reuse_rows_2d(const Buffers2d& b, cudaStream_t s) {
  using conv_detail::TileShape;
  const Problem2d& p = b.problem;
  if (p.element == Element::f32 && p.channels == 1)
    return launch_study_widths<float, 1, TileShape<32, 8, 4, RY>, St, true>(b, s);
  if (p.element == Element::u8 && p.channels == 3)
    return launch_study_widths<std::uint8_t, 3, TileShape<32, 8, 4, RY>, St, true>(b, s);
  throw std::logic_error("row_reuse_ry: unsupported problem");
}

// 8g .. 8j. Other tile shapes for float images of one channel, interior staging and row reuse:
// registers capped for 8 or 7 blocks per SM (32 or 36 a thread; uncapped the kernels take 40 to
// 64, 4 to 6 blocks per SM; the library caps 7 x 7 and 9 x 9), and tiles 256 scalars wide (a
// warp's two 512-byte row segments side by side, half as many tile edges per row) of 32 or 16
// rows.
const char* float_images_only(const Problem2d& p) {
  return p.element == Element::f32 && p.channels == 1 ? nullptr : "float images of one channel";
}

template <class Shape, conv_detail::Staging St = conv_detail::Staging::vector_interior>
void launch_row_reuse_shape_2d(const Buffers2d& b, cudaStream_t s) {
  launch_study_widths<float, 1, Shape, St, true>(b, s);
}

// 8k, 8l. Other uint8 RGB shapes: 8 outputs a thread (the library's shape until 2026-11-26, when
// 4 outputs a thread put a warp's 16-byte window loads on consecutive 16-byte words: 4
// shared-memory wavefronts a load instead of 8), and 4 outputs a thread on tiles 256 x 32
// (64 x 4 threads, 8 rows each).
const char* rgb_images_only(const Problem2d& p) {
  return p.element == Element::u8 && p.channels == 3 ? nullptr : "uint8 images of 3 channels";
}

template <class Shape> void launch_row_reuse_rgb_shape_2d(const Buffers2d& b, cudaStream_t s) {
  launch_study_widths<std::uint8_t, 3, Shape, conv_detail::Staging::vector_interior, true>(b, s);
}

// 8e, 8f. No shared memory: each thread reads its RY + MW - 1 input rows straight from global memory
// as 16-byte loads, the halo from L1 (window.cuh). Float images of one channel, square masks up
// to 9 x 9.
const char* window_2d_fits(const Problem2d& p) {
  return p.element == Element::f32 && p.channels == 1 && p.mask_width == p.mask_height &&
                 p.mask_width <= 9
             ? nullptr
             : "float images of one channel, square masks up to 9 x 9";
}

template <int RY> void launch_window_2d_rung(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  const ImageArgs a = image_args(b, Border::zero);
  const auto mask = conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height);
  switch (p.mask_width) {
  case 1: return conv_detail::launch_window_2d<1, RY>(a, mask, s);
  case 3: return conv_detail::launch_window_2d<3, RY>(a, mask, s);
  case 5: return conv_detail::launch_window_2d<5, RY>(a, mask, s);
  case 7: return conv_detail::launch_window_2d<7, RY>(a, mask, s);
  case 9: return conv_detail::launch_window_2d<9, RY>(a, mask, s);
  default: throw std::logic_error("window_2d: unsupported mask");
  }
}

// 8m, 8n. The column walk (column.cuh): each block walks a run of tiles down its tile column and
// stages the next tile's rows by cp.async while it computes this one. Float images of one
// channel, square masks of the widths the study runs. Tiles: 0 = runs that fill the resident grid
// once, else that many tiles per block.

template <int Tiles, conv_detail::ColumnWalk W = conv_detail::ColumnWalk::run,
          class Shape = conv_detail::ShapeF32>
void launch_column_2d(const Buffers2d& b, cudaStream_t s) {
  using conv_detail::launch_column;
  const Problem2d& p = b.problem;
  const ImageArgs a = image_args(b, Border::zero);
  const auto mask = conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height);
  switch (p.mask_width) {
  case 3: return launch_column<float, 1, 3, Shape, W>(a, mask, s, Tiles);
  case 5: return launch_column<float, 1, 5, Shape, W>(a, mask, s, Tiles);
  case 7: return launch_column<float, 1, 7, Shape, W>(a, mask, s, Tiles);
  case 9: return launch_column<float, 1, 9, Shape, W>(a, mask, s, Tiles);
  case 15: return launch_column<float, 1, 15, Shape, W>(a, mask, s, Tiles);
  default: throw std::logic_error("column: unsupported mask");
  }
}

// 10. The separable path: a row pass then a column pass over the staged tile, MW + MH taps per
// output instead of MW x MH (float images, one channel, the study's widths).
void launch_separable_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  std::vector<float> column, row;
  const std::span<const float> mask(b.host_mask,
                                    static_cast<std::size_t>(p.mask_width * p.mask_height));
  if (!separable(mask, p.mask_width, p.mask_height, column, row))
    throw std::logic_error("separable: the mask is not separable");
  conv_detail::MaskParam taps{};
  std::copy(column.begin(), column.end(), taps.w);
  std::copy(row.begin(), row.end(), taps.w + p.mask_height);
  taps.width = p.mask_width;
  taps.height = p.mask_height;
  const ImageArgs a = image_args(b, Border::zero);
  using S = conv_detail::ShapeF32;
  switch (p.mask_width) {
  case 3: return conv_detail::launch_separable<float, 1, 3, S>(a, taps, s);
  case 5: return conv_detail::launch_separable<float, 1, 5, S>(a, taps, s);
  case 7: return conv_detail::launch_separable<float, 1, 7, S>(a, taps, s);
  case 9: return conv_detail::launch_separable<float, 1, 9, S>(a, taps, s);
  default: return conv_detail::launch_separable<float, 1, 15, S>(a, taps, s);
  }
}

const char* separable_fits(const Problem2d& p) {
  if (!p.mask_separable)
    return "the mask is not separable (not a column times a row)";
  if (p.element != Element::f32 || p.channels != 1)
    return "compiled for float images of one channel";
  const int w = p.mask_width;
  return w == 3 || w == 5 || w == 7 || w == 9 || w == 15 ? nullptr
                                                          : "compiled for widths 3, 5, 7, 9, 15";
}

void launch_library_call_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  if (p.element == Element::f32)
    ladder::convolve2d(static_cast<const float*>(b.in), p.pitch, static_cast<float*>(b.out),
                       p.pitch, p.width, p.height, p.channels, b.host_mask, p.mask_width,
                       p.mask_height, Border::zero, s);
  else
    ladder::convolve2d(static_cast<const std::uint8_t*>(b.in), p.pitch,
                       static_cast<std::uint8_t*>(b.out), p.pitch, p.width, p.height, p.channels,
                       b.host_mask, p.mask_width, p.mask_height, Border::zero, s);
}

// One contiguous copy of the whole pitched image (rows and their padding, pitch x height bytes):
// cudaMemcpy2D reaches only about 40% of the copy bandwidth on an H200 even when the pitch equals
// the row (8192 x 8192 float: 320 us against 126 us for the same bytes in one cudaMemcpy), which
// would make a poor bound. The padding, where there is any, is counted against the copy.
void launch_memcpy_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  LADDER_CUDA(cudaMemcpyAsync(b.out, b.in, static_cast<std::size_t>(p.pitch * p.height),
                              cudaMemcpyDeviceToDevice, s));
}

const char* any_2d(const Problem2d&) { return nullptr; }

// ---- NPP --------------------------------------------------------------------------------------

#if defined(LADDER_HAVE_NPP)
NppStreamContext npp_context(cudaStream_t stream) {
  NppStreamContext ctx{};
  ctx.hStream = stream;
  LADDER_CUDA(cudaGetDevice(&ctx.nCudaDeviceId));
  cudaDeviceProp prop{};
  LADDER_CUDA(cudaGetDeviceProperties(&prop, ctx.nCudaDeviceId));
  ctx.nMultiProcessorCount = prop.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  LADDER_CUDA(cudaStreamGetFlags(stream, &ctx.nStreamFlags));
  return ctx;
}

// NPP's filters convolve (the kernel is expected "in reverse order"): given the mask rotated by
// 180 degrees they compute the correlation the other rows compute.
void launch_npp(const Buffers2d& b, cudaStream_t s) {
  static thread_local std::pair<cudaStream_t, NppStreamContext> cached{};
  if (cached.first != s || cached.second.hStream != s)
    cached = {s, npp_context(s)};
  const Problem2d& p = b.problem;
  const NppiSize size{static_cast<int>(p.width), static_cast<int>(p.height)};
  const NppiPoint origin{0, 0};
  const NppiSize ksize{p.mask_width, p.mask_height};
  const NppiPoint anchor{p.mask_width / 2, p.mask_height / 2};
  const int step = static_cast<int>(p.pitch);
  const float* k = b.device_mask_reversed;
  NppStatus st = NPP_SUCCESS;
  if (p.element == Element::f32) {
    const auto* in = static_cast<const Npp32f*>(b.in);
    auto* out = static_cast<Npp32f*>(b.out);
    if (p.channels == 1)
      st = nppiFilterBorder_32f_C1R_Ctx(in, step, size, origin, out, step, size, k, ksize, anchor,
                                        NPP_BORDER_REPLICATE, cached.second);
    else if (p.channels == 3)
      st = nppiFilterBorder_32f_C3R_Ctx(in, step, size, origin, out, step, size, k, ksize, anchor,
                                        NPP_BORDER_REPLICATE, cached.second);
    else
      st = nppiFilterBorder_32f_C4R_Ctx(in, step, size, origin, out, step, size, k, ksize, anchor,
                                        NPP_BORDER_REPLICATE, cached.second);
  } else {
    const auto* in = static_cast<const Npp8u*>(b.in);
    auto* out = static_cast<Npp8u*>(b.out);
    if (p.channels == 1)
      st = nppiFilterBorder32f_8u_C1R_Ctx(in, step, size, origin, out, step, size, k, ksize,
                                          anchor, NPP_BORDER_REPLICATE, cached.second);
    else if (p.channels == 3)
      st = nppiFilterBorder32f_8u_C3R_Ctx(in, step, size, origin, out, step, size, k, ksize,
                                          anchor, NPP_BORDER_REPLICATE, cached.second);
    else
      st = nppiFilterBorder32f_8u_C4R_Ctx(in, step, size, origin, out, step, size, k, ksize,
                                          anchor, NPP_BORDER_REPLICATE, cached.second);
  }
  if (st != NPP_SUCCESS)
    throw std::runtime_error("nppiFilterBorder failed with NppStatus " + std::to_string(st));
}

const char* npp_fits(const Problem2d& p) {
  return p.width > 0x7fffffff || p.height > 0x7fffffff || p.pitch > 0x7fffffff
             ? "NPP takes int sizes and steps"
             : nullptr;
}
#else
void launch_npp(const Buffers2d&, cudaStream_t) {}
const char* npp_fits(const Problem2d&) {
  return "NPP was not found when ladder was built (the CUDA toolkit's nppi.h and libnppif)";
}
#endif

// ---- cuDNN ------------------------------------------------------------------------------------

#if defined(LADDER_HAVE_CUDNN)
void check_cudnn(cudnnStatus_t status, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + ": " + cudnnGetErrorString(status));
}

// One convolution set up for cuDNN: descriptors, the algorithm cuDNN's own search picked among
// the FP32 (FMA-only) ones, and its workspace. Kept for the last problem and buffers, so that
// the timed launches are only cudnnConvolutionForward.
struct CudnnPlan {
  std::mutex mutex;
  cudnnHandle_t handle = nullptr;
  std::int64_t width = -1, height = -1, pitch = -1;
  int mw = 0, mh = 0;
  const void* in = nullptr;
  void* out = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo{};
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

CudnnPlan& cudnn_plan(std::int64_t width, std::int64_t height, std::int64_t pitch_elements,
                      int mw, int mh, const void* in, void* out, const float* mask) {
  static CudnnPlan plan;
  if (plan.handle == nullptr) {
    check_cudnn(cudnnCreate(&plan.handle), "cudnnCreate");
    check_cudnn(cudnnCreateTensorDescriptor(&plan.x), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&plan.y), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateFilterDescriptor(&plan.w), "cudnnCreateFilterDescriptor");
    check_cudnn(cudnnCreateConvolutionDescriptor(&plan.conv), "cudnnCreateConvolutionDescriptor");
  }
  if (plan.width == width && plan.height == height && plan.pitch == pitch_elements &&
      plan.mw == mw && plan.mh == mh && plan.in == in && plan.out == out)
    return plan;
  const int h = static_cast<int>(height), wd = static_cast<int>(width);
  const int stride = static_cast<int>(pitch_elements);
  check_cudnn(cudnnSetTensor4dDescriptorEx(plan.x, CUDNN_DATA_FLOAT, 1, 1, h, wd, h * stride,
                                           h * stride, stride, 1),
              "cudnnSetTensor4dDescriptorEx");
  check_cudnn(cudnnSetTensor4dDescriptorEx(plan.y, CUDNN_DATA_FLOAT, 1, 1, h, wd, h * stride,
                                           h * stride, stride, 1),
              "cudnnSetTensor4dDescriptorEx");
  check_cudnn(cudnnSetFilter4dDescriptor(plan.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, mh, mw),
              "cudnnSetFilter4dDescriptor");
  check_cudnn(cudnnSetConvolution2dDescriptor(plan.conv, mh / 2, mw / 2, 1, 1, 1, 1,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "cudnnSetConvolution2dDescriptor");
  check_cudnn(cudnnSetConvolutionMathType(plan.conv, CUDNN_FMA_MATH),
              "cudnnSetConvolutionMathType");
  if (plan.workspace)
    cudaFree(plan.workspace);
  plan.workspace = nullptr;
  plan.workspace_bytes = 0;
  // cuDNN's own timed search over its algorithms (not timed here), with up to 1 GiB of workspace.
  std::size_t search_bytes = std::size_t{1} << 30;
  void* search = nullptr;
  if (cudaMalloc(&search, search_bytes) != cudaSuccess) {
    cudaGetLastError();
    search = nullptr;
    search_bytes = 0;
  }
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  const cudnnStatus_t st = cudnnFindConvolutionForwardAlgorithmEx(
      plan.handle, plan.x, in, plan.w, mask, plan.conv, plan.y, out,
      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf, search, search_bytes);
  if (search)
    cudaFree(search);
  check_cudnn(st, "cudnnFindConvolutionForwardAlgorithmEx");
  int pick = -1;
  for (int i = 0; i < found && pick < 0; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= search_bytes)
      pick = i;
  if (pick < 0)
    throw std::runtime_error("cuDNN found no algorithm for this convolution");
  plan.algo = perf[pick].algo;
  plan.workspace_bytes = perf[pick].memory;
  if (plan.workspace_bytes > 0)
    LADDER_CUDA(cudaMalloc(&plan.workspace, plan.workspace_bytes));
  plan.width = width;
  plan.height = height;
  plan.pitch = pitch_elements;
  plan.mw = mw;
  plan.mh = mh;
  plan.in = in;
  plan.out = out;
  return plan;
}

void run_cudnn(std::int64_t width, std::int64_t height, std::int64_t pitch_elements, int mw,
               int mh, const void* in, void* out, const float* mask, cudaStream_t s) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  CudnnPlan& plan = cudnn_plan(width, height, pitch_elements, mw, mh, in, out, mask);
  check_cudnn(cudnnSetStream(plan.handle, s), "cudnnSetStream");
  const float one = 1.0f, zero = 0.0f;
  check_cudnn(cudnnConvolutionForward(plan.handle, &one, plan.x, in, plan.w, mask, plan.conv,
                                      plan.algo, plan.workspace, plan.workspace_bytes, &zero,
                                      plan.y, out),
              "cudnnConvolutionForward");
}

void launch_cudnn_2d(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  run_cudnn(p.width, p.height, p.pitch / 4, p.mask_width, p.mask_height, b.in, b.out,
            b.device_mask, s);
}
void launch_cudnn_1d(const Buffers1d& b, cudaStream_t s) {
  run_cudnn(b.problem.n, 1, b.problem.n, b.problem.mask_width, 1, b.in, b.out, b.device_mask, s);
}
const char* cudnn_fits_2d(const Problem2d& p) {
  if (p.element != Element::f32 || p.channels != 1)
    return "the cuDNN row is float, one channel";
  // cuDNN 9.14's algorithm search crashed the process (or reported a destroyed context) on
  // images smaller than the mask on an H200; the row is for images, not for such corner cases.
  if (p.width < p.mask_width || p.height < p.mask_height)
    return "the cuDNN row needs an image at least the mask's size";
  return p.height * (p.pitch / 4) > 0x7fffffff ? "cuDNN's descriptors take int strides" : nullptr;
}
const char* cudnn_fits_1d(const Problem1d& p) {
  if (p.n < p.mask_width)
    return "the cuDNN row needs a signal at least the mask's length";
  return p.n > 0x7fffffff ? "cuDNN's descriptors take int sizes" : nullptr;
}
#else
void launch_cudnn_2d(const Buffers2d&, cudaStream_t) {}
void launch_cudnn_1d(const Buffers1d&, cudaStream_t) {}
constexpr const char* no_cudnn =
    "cuDNN was not found when ladder was built (set LADDER_CUDNN_ROOT to its install or wheel)";
const char* cudnn_fits_2d(const Problem2d&) { return no_cudnn; }
const char* cudnn_fits_1d(const Problem1d&) { return no_cudnn; }
#endif

} // namespace

bool have_npp() {
#if defined(LADDER_HAVE_NPP)
  return true;
#else
  return false;
#endif
}

bool have_cudnn() {
#if defined(LADDER_HAVE_CUDNN)
  return true;
#else
  return false;
#endif
}

std::span<const Rung1d> registry_1d() {
  static const Rung1d rungs[] = {
      Rung1d{.info = {.name = "basic",
                      .idea = "one thread per output, the mask in global memory, ghost cells as 0",
                      .role = Role::seed,
                      .course_row = "1D basic kernel (ghost cells)",
                      .kernel = reinterpret_cast<const void*>(&basic_1d),
                      .block_threads = block_1d},
             .unsupported = fits_int_grid,
             .launch = launch_basic_1d},
      Rung1d{.info = {.name = "constant_mask",
                      .idea = "the mask in constant memory: one broadcast read per warp and tap",
                      .role = Role::seed,
                      .course_row = "1D kernel with const __restrict__ M",
                      .kernel = reinterpret_cast<const void*>(&constant_1d),
                      .block_threads = block_1d},
             .unsupported = fits_int_grid,
             .launch = launch_constant_kernel_1d<constant_1d>},
      Rung1d{.info = {.name = "tiled_design1",
                      .idea = "a block per output tile of 1024; edge threads also load the halo",
                      .role = Role::seed,
                      .course_row = "1D tiled kernel, design 1 (TILE_SIZE 1024)",
                      .kernel = reinterpret_cast<const void*>(&tiled_design1_1d),
                      .block_threads = block_1d},
             .unsupported = fits_int_grid,
             .launch = launch_constant_kernel_1d<tiled_design1_1d>},
      Rung1d{.info = {.name = "tiled_design2",
                      .idea = "a block per input tile of 1024; MASK_WIDTH - 1 threads only load",
                      .role = Role::seed,
                      .course_row = "1D tiled kernel, design 2 (O_TILE_WIDTH 1020 for mask 5)",
                      .kernel = reinterpret_cast<const void*>(&tiled_design2_1d),
                      .block_threads = block_1d},
             .unsupported = fits_int_grid,
             .launch = launch_design2_1d},
      Rung1d{.info = {.name = "cache_halo",
                      .idea = "only the tile in shared memory; the halo from the caches",
                      .role = Role::seed,
                      .course_row = "1D tiled kernel using the caches for the halo (PMPP 7.5)",
                      .kernel = reinterpret_cast<const void*>(&cache_halo_1d),
                      .block_threads = block_1d},
             .unsupported = fits_int_grid,
             .launch = launch_constant_kernel_1d<cache_halo_1d>},
      Rung1d{.info = {.name = "register_blocked",
                      .idea = "4 outputs per thread from a register window; mask in the launch "
                              "parameters",
                      .role = Role::beyond,
                      .params = {{{"outputs_per_thread", 4}, {"threads", 256}}},
                      .block_threads = 256},
             .unsupported = any_1d,
             .launch = launch_register_blocked_1d},
      Rung1d{.info = {.name = "staged_v16",
                      .idea = "+ 16-byte cp.async staging of the tile straight into shared memory",
                      .role = Role::beyond,
                      .params = {{{"outputs_per_thread", 4}, {"threads", 256}, {"vector_bytes", 16}}},
                      .block_threads = 256},
             .unsupported = any_1d,
             .launch = launch_staged_1d},
      Rung1d{.info = {.name = "window_v16",
                      .idea = "no staging: each thread's window as 16-byte loads, the halo from "
                              "L1",
                      .role = Role::beyond,
                      .params = {{{"outputs_per_thread", 8}, {"threads", 256}, {"vector_bytes", 16}}},
                      .kernel = reinterpret_cast<const void*>(&conv_detail::convolve_window_1d<9, 2>),
                      .block_threads = 256},
             .unsupported = any_1d,
             .launch = launch_window_1d_rung<2>},
      Rung1d{.info = {.name = "window_v16_u1",
                      .idea = "4 outputs per thread",
                      .role = Role::variant,
                      .variant_of = "window_v16",
                      .params = {{{"outputs_per_thread", 4}, {"threads", 256}, {"vector_bytes", 16}}},
                      .block_threads = 256},
             .unsupported = any_1d,
             .launch = launch_window_1d_rung<1>},
      Rung1d{.info = {.name = "window_v16_u4",
                      .idea = "16 outputs per thread",
                      .role = Role::variant,
                      .variant_of = "window_v16",
                      .params = {{{"outputs_per_thread", 16}, {"threads", 256}, {"vector_bytes", 16}}},
                      .block_threads = 256},
             .unsupported = any_1d,
             .launch = launch_window_1d_rung<4>},
      Rung1d{.info = {.name = "ladder::convolve1d",
                      .idea = "the library call: checks, any n, mask width and border",
                      .role = Role::library},
             .unsupported = any_1d,
             .launch = launch_library_call_1d},
      Rung1d{.info = {.name = "cudaMemcpy",
                      .idea = "device-to-device copy of the same bytes: the bound",
                      .role = Role::reference},
             .copies = true,
             .unsupported = any_1d,
             .launch = launch_memcpy_1d},
      Rung1d{.info = {.name = "cudnnConvolutionForward",
                      .idea = "cuDNN FP32 (FMA math), the signal as a 1 x n image",
                      .role = Role::reference,
                      .vendor = true},
             .reference_order = false,
             .unsupported = cudnn_fits_1d,
             .launch = launch_cudnn_1d},
  };
  return rungs;
}

std::span<const Rung2d> registry_2d() {
  static const Rung2d rungs[] = {
      Rung2d{.info = {.name = "basic",
                      .idea = "one thread per pixel, the mask in global memory, ghost cells as 0",
                      .role = Role::seed,
                      .course_row = "2D basic kernel (unsigned char image, pitch, channels)",
                      .block_threads = 256},
             .unsupported = grid16_fits,
             .launch = launch_basic_2d},
      Rung2d{.info = {.name = "constant_mask",
                      .idea = "the mask in constant memory, broadcast to the warp",
                      .role = Role::seed,
                      .course_row = "2D kernel with const __restrict__ M",
                      .block_threads = 256},
             .unsupported = grid16_fits,
             .launch = launch_constant_2d},
      Rung2d{.info = {.name = "tiled_design1",
                      .idea = "a 16 x 16 block per output tile; threads load the halo in turns",
                      .role = Role::seed,
                      .course_row = "2D tiled kernel, design 1 (block = output tile)",
                      .block_threads = 256},
             .unsupported = grid16_fits,
             .launch = launch_design1_2d},
      Rung2d{.info = {.name = "tiled_design2",
                      .idea = "a block per input tile, O_TILE_WIDTH 12; halo threads only load",
                      .role = Role::seed,
                      .course_row = "2D tiled kernel, design 2 (O_TILE_WIDTH 12, pitched RGB lab)"},
             .unsupported = design2_fits,
             .launch = launch_design2_2d},
      Rung2d{.info = {.name = "texture_clamp",
                      .idea = "tex2D with clamp addressing: the border for free, a 2D cache",
                      .role = Role::seed,
                      .course_row = "\"Optimizing CUDA\": textures, clamp addressing",
                      .block_threads = 256},
             .border = Border::clamp,
             .unsupported = texture_fits,
             .launch = launch_texture_2d},
      Rung2d{.info = {.name = "register_blocked",
                      .idea = "K outputs x RY rows per thread from register windows; mask in the "
                              "launch parameters",
                      .role = Role::beyond,
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256}}},
                      .block_threads = 256},
             .unsupported = study_images_only,
             .launch = launch_register_blocked_2d},
      Rung2d{.info = {.name = "staged_v16",
                      .idea = "+ 16-byte cp.async staging straight into shared memory; border "
                              "resolved while staging",
                      .role = Role::beyond,
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"vector_bytes", 16}}},
                      .block_threads = 256},
             .unsupported = any_2d,
             .launch = launch_staged_2d},
      Rung2d{.info = {.name = "row_reuse",
                      .idea = "+ each input row read once per thread and applied to every output "
                              "row it feeds: RY + MW - 1 window reads instead of RY x MW",
                      .role = Role::beyond,
                      // The library's staged kernel: its staging and registers per width are
                      // api.cu's (launch_library_width), so no staging parameter here.
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"vector_bytes", 16}}},
                      .block_threads = 256},
             .unsupported = any_2d,
             .launch = launch_row_reuse_2d<Border::zero>},
      Rung2d{.info = {.name = "row_reuse_interior",
                      .idea = "tiles inside the image staged without per-chunk border, bounds and "
                              "alignment tests",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"vector_bytes", 16}, {"interior_staging", 1}}},
                      .block_threads = 256},
             .unsupported = study_images_only,
             .launch = launch_row_reuse_interior_2d},
      Rung2d{.info = {.name = "row_reuse_ry2",
                      .idea = "2 rows per thread (16-row tiles): more blocks for small pictures",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_rows", 16}, {"threads", 256}, {"vector_bytes", 16}}},
                      .block_threads = 256},
             .unsupported = study_images_only,
             .launch = launch_row_reuse_rows_2d<2>},
      Rung2d{.info = {.name = "row_reuse_ry1",
                      .idea = "1 row per thread (8-row tiles)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_rows", 8}, {"threads", 256}, {"vector_bytes", 16}}},
                      .block_threads = 256},
             .unsupported = study_images_only,
             .launch = launch_row_reuse_rows_2d<1>},
      Rung2d{.info = {.name = "row_reuse_interior_ry8",
                      .idea = "8 rows per thread (64-row tiles), interior staging: half the halo "
                              "rows per output row",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_rows", 64}, {"threads", 256}, {"vector_bytes", 16},
                                  {"interior_staging", 1}}},
                      .block_threads = 256},
             .unsupported = study_images_only,
             .launch = launch_row_reuse_rows_2d<8, conv_detail::Staging::vector_interior>},
      Rung2d{.info = {.name = "row_reuse_window",
                      .idea = "no shared memory: each thread's rows as 16-byte loads, the halo "
                              "from L1 (float, one channel)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"vector_bytes", 16}}},
                      .block_threads = 256},
             .unsupported = window_2d_fits,
             .launch = launch_window_2d_rung<4>},
      Rung2d{.info = {.name = "row_reuse_window_ry8",
                      .idea = "the same with 8 rows per thread (64-row tiles)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 64}, {"threads", 256},
                                  {"vector_bytes", 16}}},
                      .block_threads = 256},
             .unsupported = window_2d_fits,
             .launch = launch_window_2d_rung<8>},
      Rung2d{.info = {.name = "row_reuse_8_blocks",
                      .idea = "registers capped for 8 blocks per SM (32 a thread)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"blocks_per_sm", 8}}},
                      .block_threads = 256},
             .unsupported = float_images_only,
             .launch = launch_row_reuse_shape_2d<conv_detail::TileShape<32, 8, 4, 4, 8>>},
      Rung2d{.info = {.name = "row_reuse_lean",
                      .idea = "interior tiles staged with one multiply-add per 16-byte chunk and "
                              "stored with no per-row test, at every width (the library: up to "
                              "9 x 9)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"interior_staging", 2}}},
                      .block_threads = 256},
             .unsupported = float_images_only,
             .launch = launch_row_reuse_shape_2d<conv_detail::ShapeF32,
                                                 conv_detail::Staging::interior_lean>},
      Rung2d{.info = {.name = "row_reuse_lean_8_blocks",
                      .idea = "row_reuse_lean with registers for 8 blocks per SM, the staged "
                              "rows starting on 16-byte boundaries (the library's 7 x 7 and 9 x 9 "
                              "start them on 32-byte L2 sectors)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"blocks_per_sm", 8}, {"interior_staging", 2}}},
                      .block_threads = 256},
             .unsupported = float_images_only,
             .launch = launch_row_reuse_shape_2d<conv_detail::TileShape<32, 8, 4, 4, 8>,
                                                 conv_detail::Staging::interior_lean>},
      Rung2d{.info = {.name = "row_reuse_7_blocks",
                      .idea = "registers capped for 7 blocks per SM (36 a thread)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"blocks_per_sm", 7}}},
                      .block_threads = 256},
             .unsupported = float_images_only,
             .launch = launch_row_reuse_shape_2d<conv_detail::TileShape<32, 8, 4, 4, 7>>},
      Rung2d{.info = {.name = "row_reuse_w256",
                      .idea = "tiles 256 scalars wide and 32 rows high (64 x 4 threads, 8 rows "
                              "each)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 256}, {"tile_rows", 32}, {"threads", 256}}},
                      .block_threads = 256},
             .unsupported = float_images_only,
             .launch = launch_row_reuse_shape_2d<conv_detail::TileShape<64, 4, 4, 8>>},
      Rung2d{.info = {.name = "row_reuse_w256_h16",
                      .idea = "tiles 256 scalars wide and 16 rows high (64 x 4 threads, 4 rows "
                              "each)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 256}, {"tile_rows", 16}, {"threads", 256}}},
                      .block_threads = 256},
             .unsupported = float_images_only,
             .launch = launch_row_reuse_shape_2d<conv_detail::TileShape<64, 4, 4, 4>>},
      Rung2d{.info = {.name = "row_reuse_rgb_k8",
                      .idea = "uint8: 8 outputs a thread, 256 x 32 tiles (the library's shape "
                              "before: a quarter warp's window loads 32 bytes apart)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 256}, {"tile_rows", 32}, {"threads", 256},
                                  {"outputs_per_thread", 8}}},
                      .block_threads = 256},
             .unsupported = rgb_images_only,
             .launch = launch_row_reuse_rgb_shape_2d<conv_detail::TileShape<32, 8, 8, 4>>},
      Rung2d{.info = {.name = "row_reuse_rgb_k4_w256",
                      .idea = "uint8: 4 outputs a thread, 256 x 32 tiles (64 x 4 threads, 8 rows "
                              "each)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 256}, {"tile_rows", 32}, {"threads", 256},
                                  {"outputs_per_thread", 4}}},
                      .block_threads = 256},
             .unsupported = rgb_images_only,
             .launch = launch_row_reuse_rgb_shape_2d<conv_detail::TileShape<64, 4, 4, 8>>},
      Rung2d{.info = {.name = "row_reuse_column",
                      .idea = "each block walks a run of tiles down its column, staging the next "
                              "tile by cp.async while it computes this one (halo rows staged "
                              "once); runs that fill the resident grid once",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"vector_bytes", 16}, {"tiles_per_block", 0}}},
                      .block_threads = 256},
             .unsupported = float_square_masks_fit,
             .launch = launch_column_2d<0>},
      Rung2d{.info = {.name = "row_reuse_column_t8",
                      .idea = "the column walk with runs of 8 tiles (256 rows) per block",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"vector_bytes", 16}, {"tiles_per_block", 8}}},
                      .block_threads = 256},
             .unsupported = float_square_masks_fit,
             .launch = launch_column_2d<8>},
      Rung2d{.info = {.name = "row_reuse_interleaved",
                      .idea = "each block double-buffers whole tiles of its column, every "
                              "gridDim.y-th one, staging the next by cp.async while it computes "
                              "this one (the resident blocks read a band of tile rows, as the "
                              "tiled grid does)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"vector_bytes", 16}}},
                      .block_threads = 256},
             .unsupported = float_square_masks_fit,
             .launch = launch_column_2d<0, conv_detail::ColumnWalk::interleaved>},
      Rung2d{.info = {.name = "row_reuse_interleaved_cs",
                      .idea = "the interleaved walk with results stored evict-first "
                              "(st.global.cs)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"vector_bytes", 16}, {"streaming_stores", 1}}},
                      .block_threads = 256},
             .unsupported = float_square_masks_fit,
             .launch = launch_column_2d<0, conv_detail::ColumnWalk::interleaved,
                                        conv_detail::TileShape<32, 8, 4, 4, 1, true>>},
      Rung2d{.info = {.name = "row_reuse_pipelined",
                      .idea = "the resident grid walking the tiles with two stages: the next "
                              "tile's copies issued before this tile's arithmetic (registers "
                              "for 5 blocks per SM)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"stages", 2}, {"blocks_per_sm", 5}}},
                      .block_threads = 256},
             .unsupported = float_square_masks_fit,
             .launch = launch_pipelined_2d<5>},
      Rung2d{.info = {.name = "row_reuse_bulk",
                      .idea = "the stage handed to the bulk copy engine (cp.async.bulk, one copy "
                              "per row, issued by one warp; an mbarrier says when it has landed): "
                              "the threads load nothing",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"stages", 1}, {"capped_7_9", 6}}},
                      .block_threads = 256},
             .unsupported = float_square_masks_fit,
             .launch = launch_bulk_2d<1, true>},
      Rung2d{.info = {.name = "row_reuse_bulk_uncapped",
                      .idea = "row_reuse_bulk with the compiler's own register choice at every "
                              "width (the staging needs no registers)",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"stages", 1}, {"capped_7_9", 0}}},
                      .block_threads = 256},
             .unsupported = float_square_masks_fit,
             .launch = launch_bulk_2d<1, false>},
      Rung2d{.info = {.name = "row_reuse_bulk_ring2",
                      .idea = "the resident grid walks the tiles in row order, each block with a "
                              "ring of 2 bulk-copied stages: the next tile lands while this one "
                              "computes",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"stages", 2}, {"capped_7_9", 0}}},
                      .block_threads = 256},
             .unsupported = float_square_masks_fit,
             .launch = launch_bulk_2d<2, false>},
      Rung2d{.info = {.name = "row_reuse_bulk_ring3",
                      .idea = "the walk with a ring of 3 stages: two tiles in flight",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"stages", 3}, {"capped_7_9", 0}}},
                      .block_threads = 256},
             .unsupported = float_square_masks_fit,
             .launch = launch_bulk_2d<3, false>},
      Rung2d{.info = {.name = "row_reuse_128t",
                      .idea = "blocks of 128 threads (32 x 4, 8 rows each) on the same 128 x 32 "
                              "tile: the same stage per block, more blocks and so more stages in "
                              "flight per SM",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 128}}},
                      .block_threads = 128},
             .unsupported = float_images_only,
             .launch = launch_row_reuse_shape_2d<conv_detail::TileShape<32, 4, 4, 8>>},
      Rung2d{.info = {.name = "row_reuse_128t_lean",
                      .idea = "row_reuse_128t with row_reuse_lean's interior staging and stores",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 128},
                                  {"interior_staging", 2}}},
                      .block_threads = 128},
             .unsupported = float_images_only,
             .launch = launch_row_reuse_shape_2d<conv_detail::TileShape<32, 4, 4, 8>,
                                                 conv_detail::Staging::interior_lean>},
      Rung2d{.info = {.name = "row_reuse_128t_h16",
                      .idea = "blocks of 128 threads on 128 x 16 tiles (4 rows each): half the "
                              "stage, twice the blocks",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 16}, {"threads", 128}}},
                      .block_threads = 128},
             .unsupported = float_images_only,
             .launch = launch_row_reuse_shape_2d<conv_detail::TileShape<32, 4, 4, 4>>},
      Rung2d{.info = {.name = "row_reuse_cs",
                      .idea = "the tiled kernel (interior staging) with results stored "
                              "evict-first (st.global.cs), so the output's lines do not displace "
                              "the halo rows the next row of tiles reads from L2",
                      .role = Role::variant,
                      .variant_of = "row_reuse",
                      .params = {{{"tile_scalars", 128}, {"tile_rows", 32}, {"threads", 256},
                                  {"streaming_stores", 1}}},
                      .block_threads = 256},
             .unsupported = float_images_only,
             .launch = launch_row_reuse_shape_2d<conv_detail::TileShape<32, 8, 4, 4, 1, true>>},
      Rung2d{.info = {.name = "row_reuse_clamp",
                      .idea = "the same with the clamp border (NPP's replicate): what a border "
                              "policy costs",
                      .role = Role::beyond,
                      .block_threads = 256},
             .border = Border::clamp,
             .unsupported = any_2d,
             .launch = launch_row_reuse_2d<Border::clamp>},
      Rung2d{.info = {.name = "separable",
                      .idea = "a row pass then a column pass in shared memory: MW + MH taps per "
                              "output (separable masks)",
                      .role = Role::beyond,
                      .block_threads = 256},
             .reference_order = false,
             .needs_separable_mask = true,
             .unsupported = separable_fits,
             .launch = launch_separable_2d},
      Rung2d{.info = {.name = "lane_halo",
                      .idea = "no shared memory: each thread loads its own four pixels of an "
                              "input row (one 16-byte load for float, 32-bit words for uint8), "
                              "the halo from the neighbouring lanes by warp shuffles",
                      .role = Role::beyond,
                      .params = {{{"tile_pixels", 120}, {"tile_rows", 32}, {"threads", 256}}},
                      .block_threads = 256},
             .unsupported = lanes_fit,
             .launch = launch_lanes_2d_rung<0, 0>},
      Rung2d{.info = {.name = "lane_halo_row_index",
                      .idea = "lane_halo with each row's address built from its index (a 64-bit "
                              "multiply by the pitch, a clamp and a branch a row) rather than "
                              "stepped by the pitch: the lanes as first measured",
                      .role = Role::variant,
                      .variant_of = "lane_halo",
                      .params = {{{"tile_pixels", 120}, {"tile_rows", 32}, {"threads", 256},
                                  {"stepped_rows", 0}}},
                      .block_threads = 256},
             .unsupported = lanes_fit,
             .launch = launch_lanes_2d_rung<0, 0, 1, 0, true, false>},
      Rung2d{.info = {.name = "lane_halo_ry2",
                      .idea = "2 rows per thread (16-row tiles)",
                      .role = Role::variant,
                      .variant_of = "lane_halo",
                      .params = {{{"tile_rows", 16}}},
                      .block_threads = 256},
             .unsupported = lanes_fit,
             .launch = launch_lanes_2d_rung<2, 1>},
      Rung2d{.info = {.name = "lane_halo_3blocks",
                      .idea = "4 rows per thread with registers for 3 blocks per SM (85 a thread)",
                      .role = Role::variant,
                      .variant_of = "lane_halo",
                      .params = {{{"tile_rows", 32}, {"min_blocks", 3}}},
                      .block_threads = 256},
             .unsupported = lanes_fit,
             .launch = launch_lanes_2d_rung<4, 3>},
      Rung2d{.info = {.name = "lane_halo_ry8",
                      .idea = "8 rows per thread (64-row tiles)",
                      .role = Role::variant,
                      .variant_of = "lane_halo",
                      .params = {{{"tile_rows", 64}}},
                      .block_threads = 256},
             .unsupported = lanes_fit,
             .launch = launch_lanes_2d_rung<8, 1>},
      Rung2d{.info = {.name = "lane_halo_walk2",
                      .idea = "blocks of 2 tiles down the image, the next tile's rows prefetched "
                              "into L2 before this one's FMAs",
                      .role = Role::variant,
                      .variant_of = "lane_halo",
                      .params = {{{"tiles_per_block", 2}}},
                      .block_threads = 256},
             .unsupported = lanes_float_fit,
             .launch = launch_lanes_2d_rung<0, 0, 2>},
      Rung2d{.info = {.name = "lane_halo_ahead4",
                      .idea = "each block prefetches into L2 the rows of the tile 4 rows of "
                              "blocks below, for the block that computes it later",
                      .role = Role::variant,
                      .variant_of = "lane_halo",
                      .params = {{{"prefetch_tiles_ahead", 4}}},
                      .block_threads = 256},
             .unsupported = lanes_float_fit,
             .launch = launch_lanes_2d_rung<0, 0, 1, 4>},
      Rung2d{.info = {.name = "lane_halo_ry3",
                      .idea = "3 rows per thread (24-row tiles)",
                      .role = Role::variant,
                      .variant_of = "lane_halo",
                      .params = {{{"tile_rows", 24}}},
                      .block_threads = 256},
             .unsupported = lanes_float_fit,
             .launch = launch_lanes_2d_rung<3, 1, 1, 0, false>},
      Rung2d{.info = {.name = "lane_halo_ry6_3blocks",
                      .idea = "6 rows per thread (48-row tiles), registers for 3 blocks per "
                              "SM",
                      .role = Role::variant,
                      .variant_of = "lane_halo",
                      .params = {{{"tile_rows", 48}, {"min_blocks", 3}}},
                      .block_threads = 256},
             .unsupported = lanes_float_fit,
             .launch = launch_lanes_2d_rung<6, 3, 1, 0, false>},
      Rung2d{.info = {.name = "lane_stream",
                      .idea = "the lanes streamed: each warp walks a strip of 32 output rows, "
                              "asks for the input row 3 or 4 rows ahead before this row's FMAs "
                              "and stores each output row once its last mask row is in",
                      .role = Role::variant,
                      .variant_of = "lane_halo",
                      .params = {{{"strip_rows", 32}, {"rows_ahead", 4}}},
                      .block_threads = 256},
             .unsupported = lanes_float_fit,
             .launch = launch_lanes_stream_rung<32>},
      Rung2d{.info = {.name = "lane_stream_s16",
                      .idea = "the streamed lanes (lane_stream) in strips of 16 rows",
                      .role = Role::variant,
                      .variant_of = "lane_halo",
                      .params = {{{"strip_rows", 16}}},
                      .block_threads = 256},
             .unsupported = lanes_float_fit,
             .launch = launch_lanes_stream_rung<16>},
      Rung2d{.info = {.name = "lane_stream_s64",
                      .idea = "the streamed lanes (lane_stream) in strips of 64 rows",
                      .role = Role::variant,
                      .variant_of = "lane_halo",
                      .params = {{{"strip_rows", 64}}},
                      .block_threads = 256},
             .unsupported = lanes_float_fit,
             .launch = launch_lanes_stream_rung<64>},
      Rung2d{.info = {.name = "wide_window",
                      .idea = "a wider register tile per thread straight from L1, no shared "
                              "memory: 4 outputs a row in 8 rows, each input row read once as "
                              "three 16-byte loads, so that the FMAs are nearly all a thread "
                              "issues; each warp's own rows first asked of L2",
                      .role = Role::beyond,
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 64}, {"threads", 256},
                                  {"min_blocks", 3}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<0, 0, 0, false, false>},
      Rung2d{.info = {.name = "wide_window_8px",
                      .idea = "8 outputs a row in 8 rows a thread (64 sums, 128 registers, 2 "
                              "blocks per SM), unrolled",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 256}, {"tile_rows", 64}, {"min_blocks", 2}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<2, 8, 2, false, false>},
      Rung2d{.info = {.name = "wide_window_8px_ry4",
                      .idea = "8 outputs a row in 4 rows a thread, registers for 3 blocks per SM",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 256}, {"tile_rows", 32}, {"min_blocks", 3}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<2, 4, 3, false, false>},
      Rung2d{.info = {.name = "wide_window_8px_row_loop",
                      .idea = "8 x 8 outputs a thread in a loop over the mask's rows: each step "
                              "reads 8 input rows (again, from L1) and applies one mask row, a "
                              "loop body the instruction cache holds",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 256}, {"tile_rows", 64}, {"min_blocks", 2},
                                  {"row_loop", 1}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<2, 8, 2, true, false>},
      Rung2d{.info = {.name = "wide_window_4blocks",
                      .idea = "4 outputs a row in 8 rows a thread with registers for 4 blocks "
                              "per SM (64 a thread): more warps to hide the loads",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 64}, {"min_blocks", 4}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<1, 8, 4, false, false>},
      Rung2d{.info = {.name = "wide_window_no_prefetch",
                      .idea = "the library's shape without the L2 prefetch: each warp's loads "
                              "wait on DRAM for its rows",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 64}, {"min_blocks", 3},
                                  {"prefetch_l2", 0}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<1, 8, 3, false, false>},
      Rung2d{.info = {.name = "wide_window_4blocks_l2",
                      .idea = "4 outputs a row in 8 rows, 4 blocks per SM, rows prefetched to L2",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 64}, {"min_blocks", 4},
                                  {"prefetch_l2", 1}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<1, 8, 4, false, true>},
      Rung2d{.info = {.name = "wide_window_ry16_l2",
                      .idea = "4 outputs a row in 16 rows a thread (fewer loads an output, 2 "
                              "blocks per SM), rows prefetched to L2",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 128}, {"min_blocks", 2},
                                  {"prefetch_l2", 1}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<1, 16, 2, false, true>},
      Rung2d{.info = {.name = "wide_window_8px_l2",
                      .idea = "8 outputs a row in 8 rows a thread (2 blocks per SM), rows "
                              "prefetched to L2",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 256}, {"tile_rows", 64}, {"min_blocks", 2},
                                  {"prefetch_l2", 1}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<2, 8, 2, false, true>},
      Rung2d{.info = {.name = "wide_window_ry6_4blocks",
                      .idea = "4 outputs a row in 6 rows a thread, registers for 4 blocks per SM",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 48}, {"min_blocks", 4}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<1, 6, 4, false, false>},
      Rung2d{.info = {.name = "wide_window_ry6_4blocks_l2",
                      .idea = "4 outputs a row in 6 rows, 4 blocks per SM, rows prefetched to L2",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 48}, {"min_blocks", 4},
                                  {"prefetch_l2", 1}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<1, 6, 4, false, true>},
      Rung2d{.info = {.name = "wide_window_ry4_5blocks",
                      .idea = "4 outputs a row in 4 rows a thread, registers for 5 blocks per SM "
                              "(a shorter unrolled tile, more warps)",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 32}, {"min_blocks", 5}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<1, 4, 5, false, false>},
      Rung2d{.info = {.name = "wide_window_ry4_5blocks_l2",
                      .idea = "4 outputs a row in 4 rows, 5 blocks per SM, rows prefetched to L2",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 32}, {"min_blocks", 5},
                                  {"prefetch_l2", 1}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_rung<1, 4, 5, false, true>},
      Rung2d{.info = {.name = "wide_bulk",
                      .idea = "the wide tile (4 outputs a row in 8 rows a thread) from a stage in "
                              "shared memory that one warp hands to the bulk copy engine whole, "
                              "a row a copy: the bytes in flight no longer bound by registers, "
                              "each row read from L2 once per block; each warp sleeps on its rows' "
                              "mbarriers (slower on an H100: the copies and the waits cost more "
                              "issue slots than the loads they replace)",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 64}, {"min_blocks", 3}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_bulk_rung<1, 8, 3>},
      Rung2d{.info = {.name = "wide_bulk_4blocks",
                      .idea = "the wide tile staged by the bulk copy engine, registers for 4 "
                              "blocks per SM (64 a thread)",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 64}, {"min_blocks", 4}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_bulk_rung<1, 8, 4>},
      Rung2d{.info = {.name = "wide_ring",
                      .idea = "the wide tile in persistent blocks, each walking tiles through a ring "
                              "of 2 stages in shared memory that the bulk tensor copy fills (one "
                              "instruction a tile, a tensor map built per call): the next tile "
                              "lands while this one computes; 2 blocks per SM",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 64}, {"stages", 2},
                                  {"min_blocks", 2}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_ring_rung<2, 2, true, false>},
      Rung2d{.info = {.name = "wide_ring_all_copied",
                      .idea = "the ring of 2 stages with the edge tiles copied too (zeros "
                              "outside the image from the copy engine; whole tiles, zero border "
                              "only): what the edge tiles' global path costs the walk",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 64}, {"stages", 2},
                                  {"min_blocks", 2}}},
                      .block_threads = 256},
             .unsupported = wide_ring_whole_tiles_fit,
             .launch = launch_wide_ring_rung<2, 2, true, true>},
      Rung2d{.info = {.name = "wide_ring_1stage_all_copied",
                      .idea = "one stage, 3 blocks per SM, the edge tiles copied too (whole "
                              "tiles, zero border only)",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 64}, {"stages", 1},
                                  {"min_blocks", 3}}},
                      .block_threads = 256},
             .unsupported = wide_ring_whole_tiles_fit,
             .launch = launch_wide_ring_rung<1, 3, true, true>},
      Rung2d{.info = {.name = "wide_ring_1stage",
                      .idea = "the wide tile in persistent blocks with one tensor-copied stage each, "
                              "3 blocks per SM (the copy waits for the block's last warp)",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 64}, {"stages", 1},
                                  {"min_blocks", 3}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_ring_rung<1, 3, true, false>},
      Rung2d{.info = {.name = "wide_tensor_tiles",
                      .idea = "the wide tile, a block per tile, its stage filled by one tensor "
                              "copy (the ring's copy without its persistent walk; wide_bulk with "
                              "one copy a tile instead of one a row), 3 blocks per SM",
                      .role = Role::variant,
                      .variant_of = "wide_window",
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 64}, {"stages", 1},
                                  {"min_blocks", 3}}},
                      .block_threads = 256},
             .unsupported = wide_fit,
             .launch = launch_wide_ring_rung<1, 3, false, false>},
      Rung2d{.info = {.name = "streamed_strips",
                      .idea = "the window streamed down strips of 248 rows: a producer warp fills "
                              "a ring of 8 row stages by the bulk copy engine, a row a copy, and "
                              "each thread keeps the mask's open output rows of 8 pixels as "
                              "rolling sums, so each input row is read once a strip and the bytes "
                              "in flight are bound by the ring, not by registers (the wide tile "
                              "below sm_90 or for rows not 16-byte aligned)",
                      .role = Role::beyond,
                      .params = {{{"strip_pixels", 1024}, {"strip_rows", 248}, {"stages", 8},
                                  {"threads", 192}}},
                      .block_threads = 192},
             .unsupported = wide_fit,
             .launch = launch_strips_rung<0, 0, 0, 0>},
      Rung2d{.info = {.name = "streamed_strips_8warps",
                      .idea = "the streamed strips with 8 consumer warps of 4 pixels a thread "
                              "(asked of ptxas: 2 blocks per SM)",
                      .role = Role::variant,
                      .variant_of = "streamed_strips",
                      .params = {{{"strip_pixels", 1024}, {"strip_rows", 248}, {"stages", 8},
                                  {"threads", 320}}},
                      .block_threads = 320},
             .unsupported = wide_fit,
             .launch = launch_strips_rung<8, 1, 248, 2>},
      Rung2d{.info = {.name = "streamed_strips_s64",
                      .idea = "the streamed strips in strips of 64 rows (more blocks, more rows "
                              "read twice)",
                      .role = Role::variant,
                      .variant_of = "streamed_strips",
                      .params = {{{"strip_pixels", 1024}, {"strip_rows", 64}, {"stages", 8},
                                  {"threads", 192}}},
                      .block_threads = 192},
             .unsupported = wide_fit,
             .launch = launch_strips_rung<4, 2, 64, 2>},
      Rung2d{.info = {.name = "walked_pairs",
                      .idea = "the wide tile's 4 outputs a thread walked down 16 rows in a loop "
                              "with rolling sums (64 registers, 32 warps an SM), rows asked of "
                              "L2 three ahead (evict-last), odd warps walking up so that pairs "
                              "share their rows in L1; every warp walks as an interior one, the "
                              "frame walked down columns of 4 pixels",
                      .role = Role::beyond,
                      .params = {{{"tile_pixels", 128}, {"tile_rows", 16}, {"threads", 256},
                                  {"min_blocks", 4}}},
                      .block_threads = 256},
             .reference_order = false,
             .unsupported = walk_fit,
             .launch = launch_walk_rung},
      Rung2d{.info = {.name = "ladder::convolve2d",
                      .idea = "the library call: checks, any size, pitch, channels, mask, border",
                      .role = Role::library},
             // Float 7 x 7 on aligned images takes the walked pairs, whose upward warps add the
             // mask's rows bottom first.
             .reference_order = false,
             .unsupported = any_2d,
             .launch = launch_library_call_2d},
      Rung2d{.info = {.name = "cudaMemcpy",
                      .idea = "device-to-device copy of the pitched image in one piece: the bound",
                      .role = Role::reference},
             .copies = true,
             .unsupported = any_2d,
             .launch = launch_memcpy_2d},
      Rung2d{.info = {.name = "copy_with_taps",
                      .idea = "the joint bound: the copy's bytes in 16-byte loads and stores with "
                              "the mask's FMAs between them, each scalar through every tap on its "
                              "own (two words in flight a thread, taps in registers to 7 x 7)",
                      .role = Role::reference,
                      .params = {{{"words_in_flight", 2}}},
                      .block_threads = 256},
             .own_taps = true,
             .unsupported = own_taps_fit,
             .launch = launch_own_taps_rung<OwnTapsShape{}>},
      Rung2d{.info = {.name = "copy_with_taps_1w",
                      .idea = "one 16-byte word loaded at a time a thread (of up to 16 a thread)",
                      .role = Role::variant,
                      .variant_of = "copy_with_taps",
                      .params = {{{"words_in_flight", 1}}},
                      .block_threads = 256},
             .own_taps = true,
             .unsupported = own_taps_fit,
             .launch = launch_own_taps_rung<OwnTapsShape{.batch = 1}>},
      Rung2d{.info = {.name = "copy_with_taps_4w",
                      .idea = "four 16-byte words loaded together before their arithmetic",
                      .role = Role::variant,
                      .variant_of = "copy_with_taps",
                      .params = {{{"words_in_flight", 4}}},
                      .block_threads = 256},
             .own_taps = true,
             .unsupported = own_taps_fit,
             .launch = launch_own_taps_rung<OwnTapsShape{.batch = 4}>},
      Rung2d{.info = {.name = "copy_with_taps_ahead",
                      .idea = "two words a thread, the next two loaded before this round's FMAs",
                      .role = Role::variant,
                      .variant_of = "copy_with_taps",
                      .params = {{{"words_in_flight", 2}, {"loaded_ahead", 1}}},
                      .block_threads = 256},
             .own_taps = true,
             .unsupported = own_taps_fit,
             .launch = launch_own_taps_rung<OwnTapsShape{.ahead = true}>},
      Rung2d{.info = {.name = "copy_with_taps_ahead_1w",
                      .idea = "one word a thread, the next loaded before this one's FMAs",
                      .role = Role::variant,
                      .variant_of = "copy_with_taps",
                      .params = {{{"words_in_flight", 1}, {"loaded_ahead", 1}}},
                      .block_threads = 256},
             .own_taps = true,
             .unsupported = own_taps_fit,
             .launch = launch_own_taps_rung<OwnTapsShape{.batch = 1, .ahead = true}>},
      Rung2d{.info = {.name = "copy_with_taps_ring",
                      .idea = "the words staged by the bulk copy engine: a producer warp fills a "
                              "ring of 6 stages of 8 KiB, 8 warps compute from it, 2 blocks an SM",
                      .role = Role::variant,
                      .variant_of = "copy_with_taps",
                      .params = {{{"ring_stages", 6}, {"blocks_per_sm", 2}}},
                      .block_threads = 288},
             .own_taps = true,
             .unsupported = own_taps_fit,
             .launch = launch_own_taps_rung<OwnTapsShape{.ring_stages = 6, .ring_blocks = 2}>},
      Rung2d{.info = {.name = "copy_with_taps_ring_3blocks",
                      .idea = "the ring of 4 stages of 8 KiB, registers capped for 3 blocks an SM",
                      .role = Role::variant,
                      .variant_of = "copy_with_taps",
                      .params = {{{"ring_stages", 4}, {"blocks_per_sm", 3}}},
                      .block_threads = 288},
             .own_taps = true,
             .unsupported = own_taps_fit,
             .launch = launch_own_taps_rung<OwnTapsShape{.ring_stages = 4, .ring_blocks = 3}>},
      Rung2d{.info = {.name = "copy_with_taps_1w_cs",
                      .idea = "one word a thread, its results stored evict-first (st.global.cs)",
                      .role = Role::variant,
                      .variant_of = "copy_with_taps",
                      .params = {{{"words_in_flight", 1}, {"streaming_stores", 1}}},
                      .block_threads = 256},
             .own_taps = true,
             .unsupported = own_taps_fit,
             .launch = launch_own_taps_rung<OwnTapsShape{.batch = 1, .streaming = true}>},
      Rung2d{.info = {.name = "copy_with_taps_ahead_cs",
                      .idea = "two words loaded ahead, the results stored evict-first",
                      .role = Role::variant,
                      .variant_of = "copy_with_taps",
                      .params = {{{"words_in_flight", 2}, {"loaded_ahead", 1}, {"streaming_stores", 1}}},
                      .block_threads = 256},
             .own_taps = true,
             .unsupported = own_taps_fit,
             .launch = launch_own_taps_rung<OwnTapsShape{.ahead = true, .streaming = true}>},
      Rung2d{.info = {.name = "nppiFilterBorder",
                      .idea = "NPP's general filter, replicate border (float or 8u, 32f weights)",
                      .role = Role::reference,
                      .vendor = true},
             .border = Border::clamp,
             .reference_order = false,
             .unsupported = npp_fits,
             .launch = launch_npp},
      Rung2d{.info = {.name = "cudnnConvolutionForward",
                      .idea = "cuDNN FP32 (FMA math) cross-correlation, zero padding",
                      .role = Role::reference,
                      .vendor = true},
             .reference_order = false,
             .unsupported = cudnn_fits_2d,
             .launch = launch_cudnn_2d},
  };
  return rungs;
}

} // namespace ladder::lab::convolution
