// Rolling sums down a column of rows: the kernels that walk rows (strip.cuh, walk.cuh) and the
// frame's walks (frame.hpp) hold MW open output rows, slot j with the sums of mask rows
// 0 .. j, and apply each input row to them. Host and device code alike: the host tests run the
// frame's walks against the CPU reference.
#pragma once

#include "convolution/border.hpp"

#include <cmath>

namespace ladder::conv_detail {

#if defined(__CUDA_ARCH__)
#define LADDER_ROLLING_UNROLL _Pragma("unroll")
#else
#define LADDER_ROLLING_UNROLL
#endif

// One input row (`w`: the thread's window, w[0] the float 4 left of its first pixel) applied to
// the open rows, slot j from slot j - 1; Edge: only slots lo .. hi (at the strip's first and last
// rows the other slots hold rows outside it). Each sum takes its mask rows top to bottom and its
// taps left to right, the reference's order, so a walk down is the reference bit for bit.
// (Taps: anything with the taps in .w, row by row: MaskParam, or a tool's own mask.)
template <int MW, int K, bool Edge, class Taps>
LADDER_CONV_HD void strip_apply_row(float (&acc)[MW][K], const float* w, const Taps& mask, int lo, int hi) {
  constexpr int d = 4 - MW / 2;
  LADDER_ROLLING_UNROLL
  for (int j = MW - 1; j >= 0; --j) {
    if (Edge && (j < lo || j > hi))
      continue;
    LADDER_ROLLING_UNROLL
    for (int k = 0; k < K; ++k) {
      float s = j == 0 ? 0.0f : acc[j - 1][k];
      LADDER_ROLLING_UNROLL
      for (int i = 0; i < MW; ++i)
#if defined(__CUDA_ARCH__)
        s = __fmaf_rn(mask.w[j * MW + i], w[d + k + i], s);
#else
        s = std::fma(mask.w[j * MW + i], w[d + k + i], s);
#endif
      acc[j][k] = s;
    }
  }
}

} // namespace ladder::conv_detail

#undef LADDER_ROLLING_UNROLL
