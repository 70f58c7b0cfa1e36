// Where a tap outside the image reads from, for every border policy: one definition shared by the
// kernels and the CPU reference, so that both mean the same thing by "clamp" or "reflect".
#pragma once

#include "ladder/convolve.hpp"

#include <cstdint>

#if defined(__CUDACC__)
#define LADDER_CONV_HD __host__ __device__ __forceinline__
#else
#define LADDER_CONV_HD inline
#endif

namespace ladder::conv_detail {

// The coordinate in [0, n) that coordinate x (any integer) reads under `border`, or -1 when it
// reads a zero (Border::zero outside the image). n >= 1. Inside the image x maps to itself.
LADDER_CONV_HD std::int64_t border_index(std::int64_t x, std::int64_t n, Border border) {
  if (x >= 0 && x < n)
    return x;
  switch (border) {
  case Border::zero:
    return -1;
  case Border::clamp:
    return x < 0 ? 0 : n - 1;
  case Border::reflect: { // dcb|abcd|cba: period 2n - 2, any distance (masks wider than the image)
    if (n == 1)
      return 0;
    const std::int64_t period = 2 * n - 2;
    std::int64_t m = x % period;
    if (m < 0)
      m += period;
    return m < n ? m : period - m;
  }
  case Border::wrap:
  default: {
    std::int64_t m = x % n;
    return m < 0 ? m + n : m;
  }
  }
}

// floor(a / b) for b > 0 (a scalar index left of the image belongs to a negative pixel).
LADDER_CONV_HD std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

} // namespace ladder::conv_detail
