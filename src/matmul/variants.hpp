// The tiled matrix multiplication ladder's registry: the course's kernels (the basic kernel, the
// tiled kernel with its boundary checks, corner turning, thread coarsening) in the order the
// material builds them, then cuBLAS. C (m x n) = A (m x k) B (k x n), float, row-major.
#pragma once

#include "core/rung.hpp"
#include "core/sizes.hpp"

#include <cuda_runtime.h>

#include <span>

namespace ladder::lab::matmul {

using Shape = Extent3d;

// What every rung gets: A and B, B transposed (n x k, for corner turning) and C.
struct Operands {
  const float* a = nullptr;
  const float* b = nullptr;
  const float* b_transposed = nullptr;
  float* c = nullptr;
  Shape shape;
};

struct Rung {
  RungInfo info;
  // nullptr when the rung handles the shape, else why not (shown in the table).
  const char* (*unsupported)(Shape shape) = nullptr;
  void (*launch)(const Operands& operands, cudaStream_t stream) = nullptr;
  // Relative rounding of each input before the products: 0 for FP32 arithmetic, 2^-11 for TF32
  // tensor-core math (10 stored mantissa bits). The check's tolerance adds 2 x this per product.
  double input_rounding = 0;
};

std::span<const Rung> registry();

} // namespace ladder::lab::matmul
