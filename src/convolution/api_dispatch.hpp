// What the library's translation unit offers the study: the launches behind ladder::convolve2d
// and convolve1d without the argument checks (the study checks its own buffers), for its rows.
#pragma once

#include "ladder/convolve.hpp"

#include <cuda_runtime_api.h>

namespace ladder::conv_detail {

struct MaskParam;
struct ImageArgs;

MaskParam make_mask_param(const float* mask, int mask_width, int mask_height);
void launch_library_2d(detail::ConvElement element, const ImageArgs& a, int channels,
                       const MaskParam& mask, cudaStream_t stream);
// The library's staged kernel alone (what launch_library_2d runs where the lane-halo kernel does
// not apply).
void launch_library_staged_2d(detail::ConvElement element, const ImageArgs& a, int channels,
                              const MaskParam& mask, cudaStream_t stream);
void launch_library_1d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream);

} // namespace ladder::conv_detail
