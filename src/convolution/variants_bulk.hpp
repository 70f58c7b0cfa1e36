// The rungs staged by the bulk copy engine (bulk.cuh), compiled in their own translation unit
// (variants_bulk.cu) so that the build runs them beside the rest of the registry's kernels, and the
// registry's helpers they share with variants.cu.
#pragma once

#include "convolution/tiled.cuh"
#include "convolution/variants.hpp"

namespace ladder::lab::convolution {

// The launch arguments of a 2D rung's buffers, with the border policy it computes.
conv_detail::ImageArgs image_args(const Buffers2d& b, Border border);

// nullptr for float images of one channel with a square mask 3, 5, 7, 9 or 15 wide (the widths
// the column walk and the bulk-staged rungs compile), else why not.
const char* float_square_masks_fit(const Problem2d& p);

// Row reuse staged by bulk copies, a ring of Stages stages per block (1: one tile per block).
// LibraryShape: registers capped at 7 x 7 and 9 x 9, as the library's staged kernel's are (for 6
// blocks per SM here, where 8 spills); otherwise the compiler's own choice at every width.
template <int Stages, bool LibraryShape>
void launch_bulk_2d(const Buffers2d& b, cudaStream_t stream);

} // namespace ladder::lab::convolution
