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
#include "convolution/rolling.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ladder::conv_detail {

#if defined(__CUDA_ARCH__)
#define LADDER_FRAME_UNROLL _Pragma("unroll")
#else
#define LADDER_FRAME_UNROLL
#endif

// The frame of a float image of one channel at least 136 pixels wide and 2 halo rows high: the
// halo rows at the top and at the bottom, row_quads quads across (from column 0, the last partial
// where the width is no multiple of 4), and between them the side columns: each row's quad at
// column 0 and its quads from column `right` (width - right is 4 to 7 columns: a quad, then a
// partial one where there are more than 4), side_quads of them. Threads walk down columns of
// quads (frame_walk): a side column in side_walks runs of side_rows rows (the last run shorter),
// the top and bottom rows a run of halo rows a quad column (band_walked; otherwise a thread a
// quad of one row). (band_walked and vector_loads: knobs of the strips tool's walk_frame table.)
struct FrameQuads {
  std::int64_t right = 0;      // the last multiple of 4 with right + 4 <= width
  std::int64_t row_quads = 0;  // a top or bottom row's
  std::int64_t side_quads = 0; // a row's between them: the left one and 1 or 2 on the right
  std::int64_t halo = 0;
  std::int64_t band = 0;       // threads of the top rows (and of the bottom rows)
  std::int64_t side_rows = 0;  // output rows a side walk
  std::int64_t side_walks = 0; // a side column's
  std::int64_t count = 0;      // threads: 2 band + side_quads side_walks
  bool band_walked = true, vector_loads = true;
};

LADDER_CONV_HD FrameQuads frame_quads(std::int64_t width, std::int64_t height, int halo, int side_rows,
                                      bool band_walked = true, bool vector_loads = true) {
  FrameQuads f;
  f.right = (width - 4) / 4 * 4;
  f.row_quads = (width + 3) / 4;
  f.side_quads = 1 + (width - f.right + 3) / 4;
  f.halo = halo;
  f.band = band_walked ? f.row_quads : halo * f.row_quads;
  f.side_rows = side_rows;
  f.side_walks = (height - 2 * halo + side_rows - 1) / side_rows;
  f.count = 2 * f.band + f.side_quads * f.side_walks;
  f.band_walked = band_walked;
  f.vector_loads = vector_loads;
  return f;
}

// Loads column c of a row, or 0 where the border reads a zero (c < 0).
LADDER_CONV_HD float frame_load(const float* row, std::int64_t c) {
  if (c < 0)
    return 0.0f;
#if defined(__CUDA_ARCH__)
  return __ldg(row + c);
#else
  return row[c];
#endif
}

// The quad at (fx, fy) of the frame of a; taps.w[j MW + i]: the mask's row j, tap i.
template <int MW, class Taps>
LADDER_CONV_HD void frame_quad_at(const ImageArgs& a, const Taps& taps, std::int64_t fx, std::int64_t fy) {
  constexpr int H = MW / 2, cols = MW + 3;
  std::int64_t col[cols];
  LADDER_FRAME_UNROLL
  for (int i = 0; i < cols; ++i)
    col[i] = border_index(fx - H + i, a.width, a.border);
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  LADDER_FRAME_UNROLL
  for (int j = 0; j < MW; ++j) {
    const std::int64_t ym = border_index(fy - H + j, a.height, a.border);
    const auto* row = reinterpret_cast<const float*>(a.in + (ym < 0 ? 0 : ym) * a.in_pitch);
    LADDER_FRAME_UNROLL
    for (int i = 0; i < cols; ++i) {
      const float v = ym < 0 ? 0.0f : frame_load(row, col[i]);
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

// The quads at column fx (a multiple of 4) of output rows y0 .. y0 + s - 1, walked down: each
// input row's window (the 12 columns from fx - 4, as the walks hold it, of which MW + 3 are read)
// loaded once, through the border, and applied to the open rows (rolling.hpp), each finished row
// stored. Where its 4 columns lie inside the image a float4 of the window is one 16-byte load
// (vector_loads; rows 16-byte aligned on the device, as the walk's), otherwise its columns are
// loaded one by one. The columns are held in 32 bits (images narrower than 2^31 pixels): in 64,
// the walk's 28 sums, its window and its columns took more than 64 registers.
template <int MW, class Taps>
LADDER_CONV_HD void frame_walk(const ImageArgs& a, const Taps& taps, bool vector_loads, std::int64_t fx,
                               std::int64_t y0, int s) {
  constexpr int H = MW / 2, cols = MW + 3, d = 4 - H;
  int col[cols];
  LADDER_FRAME_UNROLL
  for (int i = 0; i < cols; ++i)
    col[i] = static_cast<int>(border_index(fx - H + i, a.width, a.border));
  unsigned char* out = a.out + y0 * a.out_pitch;
  float acc[MW][4];
  float win[12] = {};
  for (int r = 0; r < s + MW - 1; ++r) {
    const std::int64_t ym = border_index(y0 - H + r, a.height, a.border);
    const auto* row = reinterpret_cast<const float*>(a.in + (ym < 0 ? 0 : ym) * a.in_pitch);
    LADDER_FRAME_UNROLL
    for (int v = 0; v < 3; ++v) {
      if (vector_loads && ym >= 0 && fx - 4 + 4 * v >= 0 && fx + 4 * v <= a.width) {
#if defined(__CUDA_ARCH__)
        const float4 w4 = __ldg(reinterpret_cast<const float4*>(row + fx - 4 + 4 * v));
        win[4 * v] = w4.x, win[4 * v + 1] = w4.y, win[4 * v + 2] = w4.z, win[4 * v + 3] = w4.w;
#else
        std::memcpy(win + 4 * v, row + fx - 4 + 4 * v, 4 * sizeof(float));
#endif
        continue;
      }
      LADDER_FRAME_UNROLL
      for (int e = 0; e < 4; ++e) {
        const int i = 4 * v + e - d; // the column's index in col
        if (i < 0 || i >= cols)
          continue;
        int c = ym < 0 ? -1 : col[i];
#if defined(__CUDA_ARCH__)
        // The column opaque each row, so that its address is made from the row's (an IMAD.WIDE)
        // rather than held across the walk as a 64-bit offset: 10 such offsets spilled.
        asm("" : "+r"(c));
#endif
        win[4 * v + e] = frame_load(row, c);
      }
    }
    strip_apply_row<MW, 4, true>(acc, win, taps, r - s + 1 > 0 ? r - s + 1 : 0, r < MW - 1 ? r : MW - 1);
    if (r < MW - 1)
      continue;
    auto* o = reinterpret_cast<float*>(out) + fx;
    LADDER_FRAME_UNROLL
    for (int k = 0; k < 4; ++k)
      if (fx + k < a.width)
        o[k] = acc[MW - 1][k];
    out += a.out_pitch;
  }
}

// Thread q (0 <= q < f.count) of the frame of a: a walk down the top or bottom rows (or a quad of
// them), or a run of a side column.
template <int MW, class Taps>
LADDER_CONV_HD void frame_part(const ImageArgs& a, const Taps& taps, const FrameQuads& f, std::int64_t q) {
  constexpr int H = MW / 2;
  std::int64_t fx = 0, y0 = 0, s = H;
  if (q < 2 * f.band) {
    const std::int64_t r = q < f.band ? q : q - f.band;
    y0 = q < f.band ? 0 : a.height - H;
    if (!f.band_walked)
      return frame_quad_at<MW>(a, taps, 4 * (r % f.row_quads), y0 + r / f.row_quads);
    fx = 4 * r;
  } else {
    // A warp's lanes walk one side column (the same control flow), side_rows apart.
    const std::int64_t k = q - 2 * f.band, c = k / f.side_walks, w = k % f.side_walks;
    fx = c == 0 ? 0 : f.right + 4 * (c - 1);
    y0 = H + w * f.side_rows;
    s = a.height - H - y0 < f.side_rows ? a.height - H - y0 : f.side_rows;
  }
  frame_walk<MW>(a, taps, f.vector_loads, fx, y0, static_cast<int>(s));
}

} // namespace ladder::conv_detail

#undef LADDER_FRAME_UNROLL
