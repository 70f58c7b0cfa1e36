// ladder/transpose.hpp: out-of-place matrix transpose.
//
//   ladder::transpose(in, out, rows, cols, stream);
//
// `in` is rows x cols, row-major; `out` becomes cols x rows, row-major. Any rows, cols >= 0
// (0 is a no-op), any element type of 1, 2, 4, 8 or 16 bytes that is trivially copyable (float,
// double, int32_t, int64_t, __half, float2, double2, ...), any pointer alignment the type allows.
// Asynchronous on `stream`. Throws std::invalid_argument (negative sizes, null pointers with a
// non-zero size, overlapping in/out, rows x cols overflowing) before any launch, and
// ladder::CudaError if a launch fails.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

namespace ladder {

namespace detail {
void transpose_bytes(const void* in, void* out, std::int64_t rows, std::int64_t cols,
                     std::size_t element_bytes, cudaStream_t stream);
} // namespace detail

template <class T>
void transpose(const T* in, T* out, std::int64_t rows, std::int64_t cols,
               cudaStream_t stream = nullptr) {
  static_assert(
      std::is_trivially_copyable_v<T> &&
          (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16),
      "ladder::transpose: T must be trivially copyable, of 1, 2, 4, 8 or 16 bytes");
  detail::transpose_bytes(in, out, rows, cols, sizeof(T), stream);
}

} // namespace ladder
