// The tiled matrix multiplication ladder's registry: the course's kernels (the basic kernel, the
// tiled kernel with its boundary checks, corner turning, thread coarsening) in the order the
// material builds them, then cuBLAS. C (m x n) = A (m x k) B (k x n), float, row-major.
#pragma once

#include "core/rung.hpp"
#include "core/sizes.hpp"
#include "ladder/gemm.hpp"

#include <cuda_runtime.h>

#include <span>

namespace ladder::lab::matmul {

using Shape = Extent3d;

// The product a table measures: C (m x n) = op(A) op(B), op(A) m x k, op(B) k x n.
struct Problem {
  Shape shape;
  Trans trans_a = Trans::none, trans_b = Trans::none;
  bool untransposed() const { return trans_a == Trans::none && trans_b == Trans::none; }
};

// What every rung gets: A and B as stored for the problem's transposes (row-major, packed: lda is
// A's stored row length), B transposed (n x k, for corner turning; set for untransposed problems)
// and C (m x n, packed).
struct Operands {
  const float* a = nullptr;
  const float* b = nullptr;
  const float* b_transposed = nullptr;
  float* c = nullptr;
  Problem problem;
  Shape shape() const { return problem.shape; }
  std::int64_t lda() const;
  std::int64_t ldb() const;
};

struct Rung {
  RungInfo info;
  // nullptr when the rung handles the problem, else why not (shown in the table).
  const char* (*unsupported)(const Problem& problem) = nullptr;
  void (*launch)(const Operands& operands, cudaStream_t stream) = nullptr;
  // Relative rounding of each input before the products: 0 for FP32 arithmetic, 2^-11 for TF32
  // tensor-core math (10 stored mantissa bits). The check's tolerance adds 2 x this per product.
  double input_rounding = 0;
};

std::span<const Rung> registry();

} // namespace ladder::lab::matmul
