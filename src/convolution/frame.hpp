// The frame of the walked pairs (walk.cuh): the outputs around the warps' tiles whose windows do
// not lie inside the image, walked down columns of quads (runs of 4 pixels of a row) with rolling
// sums (rolling.hpp), a thread a run, each input row's window loaded once through the border
// policy and applied to the run's open rows. Every output's sum in the reference's order (mask
// rows top to bottom, taps left to right), so bit for bit the reference. Host and device code
// alike: the host tests run it against the CPU reference.
//
// Measured on an H200 (float 8192^2 7 x 7, zero border, the strips tool's table walk_frame,
// bench/results/convolution-walk-frame-walks-h200-2026-11-29.md, medians of four rounds against
// no frame in the same call): the walk took 1.6-2.3 us more with its frame a thread a quad of one
// row (MW rows of MW + 3 loads for 4 outputs, a warp's loads each on up to 22 lines), and about
// 1.1 us more walked so; side runs of 8 to 32 rows measured level, of 64 rows far slower (185 us:
// the frame's last threads end long after the walk). 16-byte loads, and the top and bottom rows a
// quad a thread rather than walked, measured level.
#pragma once

#include "convolution/border.hpp"
#include "convolution/image_args.hpp"
#include "convolution/rolling.hpp"

#include <cstdint>

namespace ladder::conv_detail {

// The frame of a float image of one channel at least 136 pixels wide and 2 halo rows high: the
// halo rows at the top and at the bottom, row_quads quads across (from column 0, the last partial
// where the width is no multiple of 4), and between them the side columns: each row's quad at
// column 0 and its quads from column `right` (width - right is 4 to 7 columns: a quad, then a
// partial one where there are more than 4), side_quads of them. A thread walks the top (or the
// bottom) rows of one quad column, or a run of side_rows rows of a side column (the last run of
// each shorter).
struct FrameWalks {
  std::int64_t right = 0;      // the last multiple of 4 with right + 4 <= width
  std::int64_t row_quads = 0;  // quads across a top or bottom row
  std::int64_t side_quads = 0; // a row's between them: the left one and 1 or 2 on the right
  std::int64_t side_rows = 0;  // output rows a side walk
  std::int64_t side_walks = 0; // a side column's
  std::int64_t count = 0;      // threads: 2 row_quads + side_quads side_walks
};

LADDER_CONV_HD FrameWalks frame_walks(std::int64_t width, std::int64_t height, int halo, int side_rows) {
  FrameWalks f;
  f.right = (width - 4) / 4 * 4;
  f.row_quads = (width + 3) / 4;
  f.side_quads = 1 + (width - f.right + 3) / 4;
  f.side_rows = side_rows;
  f.side_walks = (height - 2 * halo + side_rows - 1) / side_rows;
  f.count = 2 * f.row_quads + f.side_quads * f.side_walks;
  return f;
}

// The quads at column fx (a multiple of 4) of output rows y0 .. y0 + s - 1, walked down: each
// input row's window (the 12 columns from fx - 4, as the walks hold it, of which MW + 3 are read)
// loaded through the border and applied to the open rows, each finished row stored. The columns
// are held in 32 bits (images narrower than 2^31 pixels): in 64, the walk's 28 sums, its window
// and its columns took more than 64 registers.
template <int MW, class Taps>
LADDER_CONV_HD void frame_walk(const ImageArgs& a, const Taps& taps, std::int64_t fx, std::int64_t y0, int s) {
  constexpr int H = MW / 2, cols = MW + 3, d = 4 - H;
  int col[cols];
  for (int i = 0; i < cols; ++i)
    col[i] = static_cast<int>(border_index(fx - H + i, a.width, a.border));
  unsigned char* out = a.out + y0 * a.out_pitch;
  float acc[MW][4];
  float win[12] = {};
  for (int r = 0; r < s + MW - 1; ++r) {
    const std::int64_t ym = border_index(y0 - H + r, a.height, a.border);
    const auto* row = reinterpret_cast<const float*>(a.in + (ym < 0 ? 0 : ym) * a.in_pitch);
    for (int i = 0; i < cols; ++i) {
      int c = ym < 0 ? -1 : col[i];
#if defined(__CUDA_ARCH__)
      // The column opaque each row, so that its address is made from the row's (an IMAD.WIDE)
      // rather than held across the walk as a 64-bit offset: 10 such offsets spilled.
      asm("" : "+r"(c));
#endif
      float v = 0.0f;
      if (c >= 0) {
#if defined(__CUDA_ARCH__)
        v = __ldg(row + c);
#else
        v = row[c];
#endif
      }
      win[d + i] = v;
    }
    strip_apply_row<MW, 4, true>(acc, win, taps, r - s + 1 > 0 ? r - s + 1 : 0, r < MW - 1 ? r : MW - 1);
    if (r < MW - 1)
      continue;
    auto* o = reinterpret_cast<float*>(out) + fx;
    for (int k = 0; k < 4; ++k)
      if (fx + k < a.width)
        o[k] = acc[MW - 1][k];
    out += a.out_pitch;
  }
}

// Thread q (0 <= q < f.count) of the frame of a: the top rows of a quad column, the bottom rows of
// one, or a run of a side column (a warp's lanes the runs of one side column, side_rows apart: the
// same control flow).
template <int MW, class Taps>
LADDER_CONV_HD void frame_part(const ImageArgs& a, const Taps& taps, const FrameWalks& f, std::int64_t q) {
  constexpr int H = MW / 2;
  std::int64_t fx = 0, y0 = 0, s = H;
  if (q < 2 * f.row_quads) {
    const bool top = q < f.row_quads;
    fx = 4 * (top ? q : q - f.row_quads);
    y0 = top ? 0 : a.height - H;
  } else {
    const std::int64_t k = q - 2 * f.row_quads, c = k / f.side_walks, w = k % f.side_walks;
    fx = c == 0 ? 0 : f.right + 4 * (c - 1);
    y0 = H + w * f.side_rows;
    s = a.height - H - y0 < f.side_rows ? a.height - H - y0 : f.side_rows;
  }
  frame_walk<MW>(a, taps, fx, y0, static_cast<int>(s));
}

} // namespace ladder::conv_detail
