// The frame of the walked pairs (walk.cuh): the outputs around the warps' tiles whose windows do
// not lie inside the image, computed a run of 4 pixels of a row (a quad) a thread, through the
// border policy, every output's sum in the reference's order (mask rows top to bottom, taps left
// to right), so bit for bit the reference. A thread a quad reads 4 + MW - 1 columns of each mask
// row once for 4 outputs, where a thread a pixel read MW for one and mapped them through the
// border again for each. Host and device code alike: the host tests run it against the CPU
// reference.
#pragma once

#include "convolution/border.hpp"
#include "convolution/image_args.hpp"

#include <cmath>
#include <cstdint>

namespace ladder::conv_detail {

#if defined(__CUDA_ARCH__)
#define LADDER_FRAME_UNROLL _Pragma("unroll")
#else
#define LADDER_FRAME_UNROLL
#endif

// The frame of a float image of one channel at least 136 pixels wide and 2 halo rows high, in
// quads: the halo rows at the top and at the bottom, each in row_quads quads from column 0 (the
// last partial where the width is no multiple of 4); between them, each row's quad at column 0
// and its quads from column `right` (width - right is 4 to 7 columns: a quad, then a partial one
// where there are more than 4).
struct FrameQuads {
  std::int64_t right = 0;      // the last multiple of 4 with right + 4 <= width
  std::int64_t row_quads = 0;  // a top or bottom row's
  std::int64_t side_quads = 0; // a row's between them: the left one and 1 or 2 on the right
  std::int64_t band = 0;       // the top rows' (and the bottom rows')
  std::int64_t count = 0;
};

LADDER_CONV_HD FrameQuads frame_quads(std::int64_t width, std::int64_t height, int halo) {
  FrameQuads f;
  f.right = (width - 4) / 4 * 4;
  f.row_quads = (width + 3) / 4;
  f.side_quads = 1 + (width - f.right + 3) / 4;
  f.band = halo * f.row_quads;
  f.count = 2 * f.band + (height - 2 * halo) * f.side_quads;
  return f;
}

// Quad q (0 <= q < f.count) of the frame of a; taps.w[j MW + i]: the mask's row j, tap i.
// Ahead (a knob of the strips tool's walk_frame table): on the device, every row's lines asked of
// L1 before the first load (the lines of its first, middle and last column), so that the loads,
// which 64 registers let in a few rows at a time, wait on L1 rather than DRAM.
template <int MW, bool Ahead = false, class Taps>
LADDER_CONV_HD void frame_quad(const ImageArgs& a, const Taps& taps, const FrameQuads& f, std::int64_t q) {
  constexpr int H = MW / 2, cols = MW + 3;
  std::int64_t fx = 0, fy = 0;
  if (q < 2 * f.band) {
    const std::int64_t r = q < f.band ? q : q - f.band;
    fy = (q < f.band ? 0 : a.height - H) + r / f.row_quads;
    fx = 4 * (r % f.row_quads);
  } else {
    const std::int64_t k = q - 2 * f.band, c = k % f.side_quads;
    fy = H + k / f.side_quads;
    fx = c == 0 ? 0 : f.right + 4 * (c - 1);
  }
  std::int64_t col[cols];
  LADDER_FRAME_UNROLL
  for (int i = 0; i < cols; ++i)
    col[i] = border_index(fx - H + i, a.width, a.border);
#if defined(__CUDA_ARCH__)
  if constexpr (Ahead) {
#pragma unroll
    for (int j = 0; j < MW; ++j) {
      const std::int64_t ym = border_index(fy - H + j, a.height, a.border);
      if (ym < 0)
        continue;
      const auto* row = reinterpret_cast<const float*>(a.in + ym * a.in_pitch);
      const int probe[3] = {0, H, cols - 1};
#pragma unroll
      for (int k = 0; k < 3; ++k)
        if (col[probe[k]] >= 0)
          asm volatile("prefetch.global.L1 [%0];" ::"l"(row + col[probe[k]]));
    }
  }
#endif
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  LADDER_FRAME_UNROLL
  for (int j = 0; j < MW; ++j) {
    const std::int64_t ym = border_index(fy - H + j, a.height, a.border);
    const auto* row = reinterpret_cast<const float*>(a.in + (ym < 0 ? 0 : ym) * a.in_pitch);
    LADDER_FRAME_UNROLL
    for (int i = 0; i < cols; ++i) {
      float v = 0.0f;
      if (ym >= 0 && col[i] >= 0) {
#if defined(__CUDA_ARCH__)
        v = __ldg(row + col[i]);
#else
        v = row[col[i]];
#endif
      }
      // Output k takes column i as its tap i - k: taps left to right for each output.
      LADDER_FRAME_UNROLL
      for (int k = 0; k < 4; ++k)
        if (i - k >= 0 && i - k < MW)
#if defined(__CUDA_ARCH__)
          acc[k] = __fmaf_rn(taps.w[j * MW + i - k], v, acc[k]);
#else
          acc[k] = std::fma(taps.w[j * MW + i - k], v, acc[k]);
#endif
    }
  }
  auto* out = reinterpret_cast<float*>(a.out + fy * a.out_pitch) + fx;
  LADDER_FRAME_UNROLL
  for (int k = 0; k < 4; ++k)
    if (fx + k < a.width)
      out[k] = acc[k];
}

} // namespace ladder::conv_detail

#undef LADDER_FRAME_UNROLL
