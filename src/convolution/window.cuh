// The rungs past staging: no shared memory at all. Each thread reads its window straight from
// global memory as 16-byte loads, the halo from L1 (the neighbours' own float4s, requested by the
// same warp's other loads), so DRAM reads each byte once, and no barrier, border map or per-chunk
// test stands between the loads and the fused multiply-adds.
//
// 1D: each thread computes U float4s of outputs from the float4 that holds its own four inputs
// and H4 = ceil(halo / 4) float4s on each side. Load j of a warp reads float4s q - H4 + j for 32
// consecutive q (coalesced). At mask 9 the staged kernel (tiled.cuh, Staging::vector) ran at 1.31x
// the copy's time on an H200 (659.3 against 504.4 us for 2^28 floats, 2026-11-25), and its SASS
// spends more instructions on staging (the border map, bounds and alignment tests of every 16-byte
// chunk, the barrier) than on its 36 fused multiply-adds per float4 of output.
//
// 2D (float, one channel): a thread computes one float4 of outputs in each of RY rows, walking the
// RY + MH - 1 input rows it needs once each (row reuse, as tiled.cuh's RowReuse) and applying each
// to every output row it feeds, from 2 H4 + 1 float4s per row.
//
// Blocks whose windows reach outside the image (the edges) or whose pointers and pitches are not
// 16-byte aligned read element by element through the border policy. Every path sums mask rows in
// order and taps left to right with fused multiply-adds, as the staged kernels and the CPU
// reference do, so their results are bit for bit the same.
#pragma once

#include "convolution/tiled.cuh"

#include <stdexcept>

namespace ladder::conv_detail {

// One output scalar (x, y) of a one-channel float image through the border policy: mask rows in
// order, taps left to right.
template <int MW, int MH>
__device__ __forceinline__ float bordered_output(const ImageArgs& a, const MaskParam& mask,
                                                 std::int64_t y, std::int64_t x) {
  float acc = 0.0f;
#pragma unroll
  for (int j = 0; j < MH; ++j) {
    const std::int64_t ym = border_index(y - MH / 2 + j, a.height, a.border);
    const auto* row = reinterpret_cast<const float*>(a.in + (ym < 0 ? 0 : ym) * a.in_pitch);
#pragma unroll
    for (int i = 0; i < MW; ++i) {
      const std::int64_t xm = border_index(x - MW / 2 + i, a.width, a.border);
      acc = __fmaf_rn(mask.w[j * MW + i], ym < 0 || xm < 0 ? 0.0f : row[xm], acc);
    }
  }
  return acc;
}

// Row reuse in registers: input row r of a thread's window (w[k + i] is tap i of output column
// k, 4 columns) applied as mask row r - o to each of its RY output rows o that it feeds, taps left
// to right. r is a compile-time constant once the caller's row loop is unrolled.
template <int MW, int RY>
__device__ __forceinline__ void apply_input_row(float (&acc)[RY][4], const MaskParam& mask,
                                                const float* w, int r) {
#pragma unroll
  for (int o = 0; o < RY; ++o) {
    const int j = r - o; // input row r is mask row j of output row o
    if (j >= 0 && j < MW) {
#pragma unroll
      for (int i = 0; i < MW; ++i)
#pragma unroll
        for (int k = 0; k < 4; ++k)
          acc[o][k] = __fmaf_rn(mask.w[j * MW + i], w[k + i], acc[o][k]);
    }
  }
}

template <int MW, int U> struct Window1d {
  static_assert(MW % 2 == 1 && MW <= max_convolution_mask, "odd mask widths up to 31");
  static constexpr int threads = 256;
  static constexpr int halo = MW / 2;
  static constexpr int h4 = (halo + 3) / 4;     // float4s of halo on each side
  static constexpr int d = 4 * h4 - halo;       // the first tap's offset in the window
  static constexpr int loads = 2 * h4 + 1;      // float4s per output float4
  static constexpr int per_block = threads * U * 4; // outputs of one block
};

template <int MW, int U>
__global__ void __launch_bounds__(256)
    convolve_window_1d(ImageArgs a, const __grid_constant__ MaskParam mask) {
  using W = Window1d<MW, U>;
  const auto* in = reinterpret_cast<const float*>(a.in);
  auto* out = reinterpret_cast<float*>(a.out);
  const std::int64_t n = a.width;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * W::per_block;
  const bool aligned =
      ((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) & 15) == 0;
  const bool inside = first - 4 * W::h4 >= 0 && first + W::per_block + 4 * W::h4 <= n;
  if (aligned && inside) {
    const auto* in4 = reinterpret_cast<const float4*>(in);
    float4 win[U][W::loads];
    // Every load of the thread in flight before the first use.
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t q = first / 4 + u * W::threads + threadIdx.x;
#pragma unroll
      for (int j = 0; j < W::loads; ++j)
        win[u][j] = __ldg(in4 + q - W::h4 + j);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const float* w = reinterpret_cast<const float*>(win[u]);
      float acc[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        acc[k] = 0.0f;
#pragma unroll
        for (int i = 0; i < MW; ++i)
          acc[k] = __fmaf_rn(mask.w[i], w[W::d + k + i], acc[k]);
      }
      const std::int64_t q = first / 4 + u * W::threads + threadIdx.x;
      reinterpret_cast<float4*>(out)[q] = make_float4(acc[0], acc[1], acc[2], acc[3]);
    }
    return;
  }
  // The edges of the signal, or pointers off 16-byte boundaries: element by element.
#pragma unroll 1
  for (int u = 0; u < U; ++u)
#pragma unroll 1
    for (int k = 0; k < 4; ++k) {
      const std::int64_t i = first + (static_cast<std::int64_t>(u) * W::threads + threadIdx.x) * 4 + k;
      if (i < n)
        out[i] = bordered_output<MW, 1>(a, mask, 0, i);
    }
}

// Launches convolve_window_1d for mask.width (odd, 1 .. 31) on the signal a.width x 1 (n > 0).
template <int U, int MW = 1>
void launch_window_1d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  if constexpr (MW < max_convolution_mask) {
    if (mask.width != MW)
      return launch_window_1d<U, MW + 2>(a, mask, stream);
  }
  using W = Window1d<MW, U>;
  const std::int64_t blocks = (a.width + W::per_block - 1) / W::per_block;
  convolve_window_1d<MW, U><<<static_cast<unsigned>(blocks), W::threads, 0, stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}

// 2D: blocks of 32 x 8 threads, each thread one float4 of RY rows: tiles of 128 x 8 RY outputs.
template <int MW, int RY> struct Window2d {
  static_assert(MW % 2 == 1, "odd mask widths");
  static constexpr int tx = 32, ty = 8, threads = tx * ty;
  static constexpr int halo = MW / 2;
  static constexpr int h4 = (halo + 3) / 4;
  static constexpr int d = 4 * h4 - halo;
  static constexpr int loads = 2 * h4 + 1;
  static constexpr int tile_w = tx * 4, tile_h = ty * RY;
};

// Square masks of width MW on float images of one channel.
template <int MW, int RY>
__global__ void __launch_bounds__(256)
    convolve_window_2d(ImageArgs a, const __grid_constant__ MaskParam mask) {
  using W = Window2d<MW, RY>;
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * W::tile_w;
  const std::int64_t y0 = static_cast<std::int64_t>(blockIdx.y) * W::tile_h;
  const std::int64_t x = x0 + threadIdx.x * 4, y = y0 + threadIdx.y * RY;
  const bool aligned = ((reinterpret_cast<std::uintptr_t>(a.in) |
                         reinterpret_cast<std::uintptr_t>(a.out) |
                         static_cast<std::uintptr_t>(a.in_pitch) |
                         static_cast<std::uintptr_t>(a.out_pitch)) & 15) == 0;
  const bool inside = x0 - 4 * W::h4 >= 0 && x0 + W::tile_w + 4 * W::h4 <= a.width &&
                      y0 - W::halo >= 0 && y0 + W::tile_h + W::halo <= a.height;
  if (aligned && inside) {
    float acc[RY][4];
#pragma unroll
    for (int o = 0; o < RY; ++o)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        acc[o][k] = 0.0f;
    const unsigned char* first_row = a.in + (y - W::halo) * a.in_pitch;
#pragma unroll
    for (int r = 0; r < RY + MW - 1; ++r) {
      const auto* row = reinterpret_cast<const float4*>(first_row + r * a.in_pitch);
      float4 win4[W::loads];
#pragma unroll
      for (int j = 0; j < W::loads; ++j)
        win4[j] = __ldg(row + x / 4 - W::h4 + j);
      apply_input_row<MW, RY>(acc, mask, reinterpret_cast<const float*>(win4) + W::d, r);
    }
#pragma unroll
    for (int o = 0; o < RY; ++o)
      *reinterpret_cast<float4*>(a.out + (y + o) * a.out_pitch + x * 4) =
          make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]);
    return;
  }
  // The image's edges, or rows off 16-byte boundaries: element by element.
#pragma unroll 1
  for (int o = 0; o < RY; ++o)
#pragma unroll 1
    for (int k = 0; k < 4; ++k)
      if (y + o < a.height && x + k < a.width)
        reinterpret_cast<float*>(a.out + (y + o) * a.out_pitch)[x + k] =
            bordered_output<MW, MW>(a, mask, y + o, x + k);
}

// Launches convolve_window_2d for a square mask of width MW (width, height > 0). Grid: tiles
// along x, tiles along y (at most 65535 rows of tiles).
template <int MW, int RY>
void launch_window_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  using W = Window2d<MW, RY>;
  const std::int64_t tiles_x = (a.width + W::tile_w - 1) / W::tile_w;
  const std::int64_t tiles_y = (a.height + W::tile_h - 1) / W::tile_h;
  if (tiles_y > 65535)
    throw std::invalid_argument("window_2d: more than 65535 rows of tiles");
  convolve_window_2d<MW, RY><<<dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(tiles_y)),
                               dim3(W::tx, W::ty), 0, stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}


// 2D with the halo from the neighbouring lanes (float, one channel, square masks up to 9 x 9):
// each thread loads only the float4 of its own four columns from each input row, and the H = MW / 2
// scalars on either side come from the lanes left and right of it by warp shuffles. A warp reads
// 128 columns and writes the middle 120: its lanes 0 and 31 only load, the halo of lanes 1 and 30
// (so no lane loads twice, and no register holds a second window). A row costs one 16-byte load
// per thread (the window kernel above takes 2 H4 + 1, the staged kernels a trip through shared
// memory and a barrier), and every load of the thread is in flight before its first FMA. A warp
// is one row of threads (blocks of 32 x 8), so its lanes share their rows and shuffle partners.
// Rows outside the image are mapped through the border policy once per row; a float4 that is not
// wholly inside the image (its edges) or not 16-byte aligned is gathered element by element
// through the border policy, and the shuffles carry those values on as the neighbours' halo. The
// sums run mask rows in order and taps left to right, as every other path: bit for bit the same.
template <int MW, int RY> struct Lanes2d {
  static_assert(MW % 2 == 1 && MW <= 9, "odd masks up to 9 wide: a halo of one float4 at most");
  static constexpr int tx = 32, ty = 8, threads = tx * ty;
  static constexpr int halo = MW / 2;
  static constexpr int rows = RY + MW - 1; // input rows a thread reads
  static constexpr int tile_w = 4 * (tx - 2), tile_h = ty * RY; // outputs: lanes 1 .. 30
};

// The library's lane-halo kernels (api.cu): masks up to lanes_widest wide, RY rows per thread
// and registers for min_blocks blocks per SM at each width. `ladder tune convolution`, float
// 8192^2 against the copy's 181.5 us, H100, 2026-11-26 (bench/results/
// convolution-tune-h100-2026-11-26-r3.md): 3 x 3 182.6 us at RY 2, 184.6 at RY 4, 185.9 at RY 8;
// 5 x 5 185.0 at RY 4, 203.7 at RY 2, 188.5 at RY 8; the staged kernel 201.8 and 203.6 us. From
// 7 x 7 on the staged kernel wins (7 x 7: 214.4 against 229.0 us at RY 4; 9 x 9: 251.5 against
// 360.7): the arithmetic dominates there, and the lanes 0 and 31 that only load, the shuffles and
// the three blocks per SM that 72 registers allow cost more than staging does. No width spills
// (58 to 84 registers a thread), so no cap is set.
inline constexpr int lanes_widest = 5;
template <int MW> struct LanesShape {
  static constexpr int ry = MW == 3 ? 2 : 4;
  static constexpr int min_blocks = 1;
};

// The float4 at columns x .. x + 3 of image row ym (border_index's result: -1 reads zeros): one
// 16-byte load when `vector` (the caller knows it lies inside and is aligned), else element by
// element through the border policy.
__device__ __forceinline__ float4 lanes_float4(const ImageArgs& a, std::int64_t ym,
                                               std::int64_t x, bool vector) {
  const auto* row = reinterpret_cast<const float*>(a.in + (ym < 0 ? 0 : ym) * a.in_pitch);
  if (vector)
    return __ldg(reinterpret_cast<const float4*>(row + x));
  float v[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const std::int64_t xm = border_index(x + e, a.width, a.border);
    v[e] = ym < 0 || xm < 0 ? 0.0f : row[xm];
  }
  return make_float4(v[0], v[1], v[2], v[3]);
}

template <int MW, int RY, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    convolve_lanes_2d(ImageArgs a, const __grid_constant__ MaskParam mask) {
  using L = Lanes2d<MW, RY>;
  constexpr int H = L::halo;
  const int lane = threadIdx.x;
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * L::tile_w - 4 + 4 * lane;
  const std::int64_t y = static_cast<std::int64_t>(blockIdx.y) * L::tile_h + threadIdx.y * RY;
  if (y >= a.height)
    return; // the whole warp: its lanes share y
  const bool vector = rows_16_aligned(a.in, a.in_pitch) && x >= 0 && x + 4 <= a.width;

  float4 own[L::rows];
#pragma unroll
  for (int r = 0; r < L::rows; ++r) {
    const std::int64_t ym = border_index(y - H + r, a.height, a.border);
    own[r] = lanes_float4(a, ym, x, vector && ym >= 0);
  }

  float acc[RY][4];
#pragma unroll
  for (int o = 0; o < RY; ++o)
#pragma unroll
    for (int k = 0; k < 4; ++k)
      acc[o][k] = 0.0f;
#pragma unroll
  for (int r = 0; r < L::rows; ++r) {
    // The row's window: H scalars of the left neighbour, this lane's 4, H of the right one.
    float w[4 + 2 * H];
    const float mine[4] = {own[r].x, own[r].y, own[r].z, own[r].w};
#pragma unroll
    for (int t = 0; t < H; ++t) {
      w[t] = __shfl_up_sync(0xffffffffu, mine[4 - H + t], 1);
      w[4 + H + t] = __shfl_down_sync(0xffffffffu, mine[t], 1);
    }
#pragma unroll
    for (int k = 0; k < 4; ++k)
      w[H + k] = mine[k];
    apply_input_row<MW, RY>(acc, mask, w, r);
  }
  if (lane == 0 || lane == 31 || x >= a.width)
    return;
  const bool out_vector = rows_16_aligned(a.out, a.out_pitch) && x + 4 <= a.width;
#pragma unroll
  for (int o = 0; o < RY; ++o) {
    if (y + o >= a.height)
      break;
    auto* row = reinterpret_cast<float*>(a.out + (y + o) * a.out_pitch);
    if (out_vector) {
      *reinterpret_cast<float4*>(row + x) = make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]);
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (x + k < a.width)
          row[x + k] = acc[o][k];
    }
  }
}

// Whether convolve_lanes_2d can take an image of this height (its grid's rows of tiles).
template <int MW, int RY> bool lanes_2d_fits(std::int64_t height) {
  return (height + Lanes2d<MW, RY>::tile_h - 1) / Lanes2d<MW, RY>::tile_h <= 65535;
}

// Launches convolve_lanes_2d (width, height > 0; lanes_2d_fits).
template <int MW, int RY, int MinBlocks>
void launch_lanes_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  using L = Lanes2d<MW, RY>;
  if (!lanes_2d_fits<MW, RY>(a.height))
    throw std::invalid_argument("lanes_2d: more than 65535 rows of tiles");
  const std::int64_t tiles_x = (a.width + L::tile_w - 1) / L::tile_w;
  const std::int64_t tiles_y = (a.height + L::tile_h - 1) / L::tile_h;
  convolve_lanes_2d<MW, RY, MinBlocks>
      <<<dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(tiles_y)), dim3(L::tx, L::ty), 0,
         stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}

} // namespace ladder::conv_detail
