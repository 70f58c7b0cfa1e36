// The 1D ladder's rung past staging: no shared memory at all. Each thread computes U float4s of
// outputs and reads its window straight from global memory, as 16-byte loads: the float4 that
// holds its own four inputs and H4 = ceil(halo / 4) float4s on each side. Load j of a warp reads
// float4s q - H4 + j for 32 consecutive q (coalesced); the halo float4s are the neighbours' own,
// requested by the same warp's other loads, so they come from L1 and DRAM reads each byte once.
//
// Why: at mask 9 the staged kernel (tiled.cuh, Staging::vector) ran at 1.31x the copy's time on an
// H200 (659.3 against 504.4 us for 2^28 floats, 2026-11-25), and its SASS spends more instructions
// on staging (the border map, bounds and alignment tests of every 16-byte chunk, the barrier) than
// on its 36 fused multiply-adds per float4 of output. Here a thread of an inside block issues
// U (2 H4 + 1) loads, U MW 4 fused multiply-adds and U stores, with no test but one per block.
//
// Blocks whose windows reach outside the signal (the first and last few) or whose pointers are
// not 16-byte aligned take element-by-element reads through the border policy. Both paths sum
// the taps left to right with fused multiply-adds, as the staged kernel does, so the results are
// bit for bit its results.
#pragma once

#include "convolution/tiled.cuh"

namespace ladder::conv_detail {

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
      if (i >= n)
        continue;
      float acc = 0.0f;
#pragma unroll
      for (int t = 0; t < MW; ++t) {
        const std::int64_t x = border_index(i - W::halo + t, n, a.border);
        acc = __fmaf_rn(mask.w[t], x < 0 ? 0.0f : in[x], acc);
      }
      out[i] = acc;
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

} // namespace ladder::conv_detail
