// ladder/gemm.hpp: general matrix multiplication in FP32, row-major, BLAS semantics.
//
//   ladder::gemm(ladder::Trans::none, ladder::Trans::none, m, n, k,
//                1.0f, a, k, b, n, 0.0f, c, n, stream);            // C = A B
//
// C (m x n, leading dimension ldc) = alpha op(A) op(B) + beta C, where op(A) is m x k and op(B)
// is k x n. Row-major: element (i, j) of a matrix with leading dimension ld is at p[i * ld + j].
// A is stored m x k (Trans::none, lda >= k) or k x m (Trans::transpose, lda >= m); B is stored
// k x n (none, ldb >= n) or n x k (transpose, ldb >= k); ldc >= n. Every leading dimension is at
// least 1.
//
// BLAS semantics: m or n == 0 does nothing; k == 0 or alpha == 0 gives beta C without reading A
// or B; beta == 0 never reads C (NaN in C does not leak into the result). Any m, n, k >= 0, any
// leading dimension allowed above, any pointer alignment a float allows (16-byte loads where the
// pointers and leading dimensions permit, element loads otherwise). FP32 arithmetic throughout:
// no TF32, no reduced precision.
//
// Asynchronous on `stream`, no synchronization; safe from several host threads and streams at
// once and inside CUDA graph capture. Scratch: where both operands are k-contiguous (A
// untransposed and B transposed) or rows are off 16-byte boundaries (a leading dimension not a
// multiple of 4, a pointer not 16-byte aligned), and the product is large enough for it to pay,
// an operand is first copied into scratch (turned by ladder::transpose, or given 16-byte aligned
// rows) so that the kernel reads it with 16-byte loads; at most 256 MiB per call (larger operands
// are copied in panels), allocated and freed on `stream` as ladder/detail/scratch.hpp describes.
// Other products allocate nothing. Shapes with too few tiles to fill the GPU
// split k over several blocks that add their partial products into C atomically (after C is
// scaled by beta), so their low-order bits may differ from run to run; all others are
// deterministic.
//
// Throws std::invalid_argument naming the argument (negative sizes, a leading dimension too
// small, a null pointer with a non-zero size, C overlapping A or B, a matrix whose extent
// overflows 64-bit byte counts) before anything is launched, and ladder::CudaError if a launch
// fails.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

namespace ladder {

enum class Trans { none, transpose };

namespace detail {
template <class T> struct identity {
  using type = T;
};
void gemm_f32(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
              float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
              float beta, float* c, std::int64_t ldc, cudaStream_t stream);
} // namespace detail

// T is deduced from the matrices; alpha and beta convert to it (1.0 works as well as 1.0f).
template <class T>
void gemm(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
          typename detail::identity<T>::type alpha, const T* a, std::int64_t lda, const T* b,
          std::int64_t ldb, typename detail::identity<T>::type beta, T* c, std::int64_t ldc,
          cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<T, float>, "ladder::gemm: only float is provided");
  detail::gemm_f32(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream);
}

} // namespace ladder
