// An image as the convolution kernels take it: in and out with their pitches, its size and the
// border policy. Plain data, for host and device code alike (the frame of the walked pairs,
// frame.hpp, is tested on the host).
#pragma once

#include "ladder/convolve.hpp"

#include <cstdint>

namespace ladder::conv_detail {

struct ImageArgs {
  const unsigned char* in = nullptr;
  std::int64_t in_pitch = 0; // bytes
  unsigned char* out = nullptr;
  std::int64_t out_pitch = 0;
  std::int64_t width = 0; // pixels
  std::int64_t height = 0;
  Border border = Border::zero;
};

} // namespace ladder::conv_detail
