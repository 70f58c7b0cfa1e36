// ladder/reduce.hpp: reduce a device array to one value.
//
//   int total = ladder::reduce(d_in, n, ladder::Op::sum);      // waits, returns the value
//   ladder::reduce(d_in, n, ladder::Op::max, d_out, stream);    // asynchronous, on the device
//
// Types: int32_t, uint32_t, int64_t, uint64_t, float, double. Operators: sum, product, min, max,
// bit_and, bit_or (bit_and / bit_or for integer types only). Any n >= 0 (n = 0 gives the
// operator's identity: 0, 1, the type's max, its lowest, all ones, 0; +inf / -inf for floating
// min / max), including n > 2^31 where memory holds it, and any `in` aligned to sizeof(T).
//
// Integer sum and product wrap modulo 2^bits (two's complement), so they are exact in any order.
// Floating min / max ignore NaNs (fmin / fmax). Floating sums and products are computed in a
// fixed tree order (see docs/reduction.md for its error bound) that depends on the GPU model but
// not on the run: the same input on the same GPU gives the same bits.
//
// One kernel launch per call. The asynchronous overload never synchronizes and can be captured
// into a CUDA graph (first call on a stream included); the host-value overload waits for its
// stream, so it cannot be captured: called with n > 0 on a capturing stream it throws
// std::invalid_argument before anything is enqueued (n = 0 returns the identity, touching no GPU).
// Calls from several host threads and streams at once are safe.
//
// Scratch: an input of up to 64 KiB takes one block and no scratch. A larger one allocates, per
// call, a ticket counter and one flagged partial per block: 256 bytes + 16 bytes per block, the
// grid being at most the blocks resident at once (at most 8 per SM: under 17 KiB on a 132-SM
// GPU). It is allocated on `stream` (from a memory pool private to ladder, one per device, that
// keeps freed memory mapped for the next call), zeroed there, and freed on `stream` right after
// the kernel; nothing is kept per stream. The host-value overload also allocates its sizeof(T)
// result slot that way. Under graph capture the allocation and the free become graph memory nodes
// (from the device's default pool), so each launch of the graph allocates and frees its own
// (CUDA then restricts the graph: one instantiation at a time, no cloning). A call that throws
// leaves no scratch behind. Details: ladder/detail/scratch.hpp.
//
// Errors: std::invalid_argument (negative n, null `in` with n > 0, null `out_device`, a bitwise
// operator on a floating type) before anything is launched; ladder::CudaError if CUDA fails.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

namespace ladder {

enum class Op { sum, product, min, max, bit_and, bit_or };

// The element types ladder::reduce is built for.
template <class T>
inline constexpr bool is_reduce_element =
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

namespace detail {
// Defined in src/reduce/api.cu for the six element types.
template <class T>
void reduce_to_device(const T* in, std::int64_t n, Op op, T* out_device, cudaStream_t stream);
template <class T> T reduce_to_host(const T* in, std::int64_t n, Op op, cudaStream_t stream);
template <class T> T reduce_identity_of(Op op);
} // namespace detail

#define LADDER_REDUCE_ELEMENT_CHECK(T)                                                             \
  static_assert(is_reduce_element<T>,                                                              \
                "ladder::reduce: T must be int32_t, uint32_t, int64_t, uint64_t, float or double")

// Asynchronous: *out_device receives the result in stream order.
template <class T>
void reduce(const T* in, std::int64_t n, Op op, T* out_device, cudaStream_t stream) {
  LADDER_REDUCE_ELEMENT_CHECK(T);
  detail::reduce_to_device<T>(in, n, op, out_device, stream);
}

// Waits for `stream` and returns the result.
template <class T> T reduce(const T* in, std::int64_t n, Op op, cudaStream_t stream = nullptr) {
  LADDER_REDUCE_ELEMENT_CHECK(T);
  return detail::reduce_to_host<T>(in, n, op, stream);
}

// The operator's identity for T (what a reduction of zero elements returns). Throws
// std::invalid_argument for a bitwise operator on a floating type.
template <class T> T reduce_identity(Op op) {
  LADDER_REDUCE_ELEMENT_CHECK(T);
  return detail::reduce_identity_of<T>(op);
}

#undef LADDER_REDUCE_ELEMENT_CHECK

} // namespace ladder
