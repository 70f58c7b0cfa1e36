// Tensor maps for the bulk tensor copy (sm_90's cp.async.bulk.tensor), for the lab's kernels
// (convolution/wide_tensor.cuh; the library calls use none yet): the descriptor a kernel
// takes as a __grid_constant__ parameter to have the copy engine move a 2D box of an image into
// shared memory with one instruction. Built on the host per call (a few hundred nanoseconds, no
// device work, nothing kept: capture-safe and safe from many threads), through the driver's
// cuTensorMapEncodeTiled, reached through the runtime so that nothing links against libcuda.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace ladder::core {

// Whether the driver encodes tensor maps (a CUDA 12 driver or newer).
bool tensor_maps_available();

// The map of a row-major float image (width x height elements, rows pitch_bytes apart; base and
// pitch 16-byte aligned) whose copies bring boxes of box_width x box_height elements (each at most
// 256, box_width x 4 bytes a multiple of 16) into shared memory as dense rows; elements outside
// the image arrive as zeros. Throws ladder::CudaError where the driver refuses the map.
CUtensorMap tensor_map_2d_f32(const void* base, std::int64_t width, std::int64_t height,
                              std::int64_t pitch_bytes, int box_width, int box_height);

} // namespace ladder::core
