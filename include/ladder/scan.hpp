// ladder/scan.hpp: prefix sums and stream compaction on the GPU.
//
//   ladder::exclusive_scan(in, out, n, stream);   // out[i] = in[0] + ... + in[i-1], out[0] = 0
//   ladder::inclusive_scan(in, out, n, stream);   // out[i] = in[0] + ... + in[i]
//
// Types: int32_t, uint32_t, int64_t, uint64_t, float, double (sums; integers wrap around modulo
// 2^bits as the hardware adds them). Any n >= 0 (0 is a no-op; more than 2^31 elements works, all
// indices and running totals are 64-bit), any pointer alignment the type allows (16-byte aligned
// pointers take the 16-byte load/store path), in == out allowed; any other overlap of [in, in + n)
// and [out, out + n) throws std::invalid_argument. Asynchronous on `stream`; safe to call from
// several host threads and streams at once: each call allocates its own tile-status words
// (stream-ordered, from a memory pool private to ladder) and frees it on the stream.
//
// Algorithm: one pass over the data (read n, write n). From 2^22 elements with 16-byte aligned
// pointers, the reduce-ahead scan (docs/scan.md): one cooperative launch of a GPU-filling grid
// that streams 64 KB tiles through shared memory with the bulk copy engine and reduces each tile
// two rows of tiles before it scans it, so no tile waits on a chain of predecessors (H200, 2^28
// int32: 1.26-1.27x cub::DeviceScan, 92-93% of a device-to-device copy). Below 2^22, misaligned,
// under stream capture, or where the grid cannot be launched cooperatively: the decoupled look-back
// scan of Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
// NVIDIA NVR-2016-002. Inputs that fit one tile take exactly one kernel launch and no
// allocation: 16384 4-byte or 8192 8-byte elements with 16-byte aligned pointers, half that
// otherwise. Floating-point sums are associated in a
// different order than a sequential loop, so they differ from it by rounding (docs/scan.md).
//
// Stream compaction (needs nvcc: it is a template on the caller's predicate):
//
//   struct Positive { __device__ bool operator()(int x) const { return x > 0; } };
//   std::int64_t kept = ladder::compact(in, out, n, Positive{}, stream);   // synchronizes
//   ladder::compact_async(in, out, n, Positive{}, device_count, stream);   // count on the device
//
// keeps the elements for which pred(x) is true, in their order, in out[0, kept). in == out is
// allowed (a tile only writes below its own end, after every earlier tile has read its input).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ladder {

// The element types the scans are built for.
template <class T>
inline constexpr bool is_scan_value =
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

namespace detail {
// Defined in src/scan/api.cu for the six element types.
template <class T> void exclusive_scan_of(const T* in, T* out, std::int64_t n, cudaStream_t stream);
template <class T> void inclusive_scan_of(const T* in, T* out, std::int64_t n, cudaStream_t stream);
} // namespace detail

template <class T>
void exclusive_scan(const T* in, T* out, std::int64_t n, cudaStream_t stream = nullptr) {
  static_assert(is_scan_value<T>,
                "ladder::exclusive_scan: T must be int32_t, uint32_t, int64_t, uint64_t, "
                "float or double");
  detail::exclusive_scan_of<T>(in, out, n, stream);
}

template <class T>
void inclusive_scan(const T* in, T* out, std::int64_t n, cudaStream_t stream = nullptr) {
  static_assert(is_scan_value<T>,
                "ladder::inclusive_scan: T must be int32_t, uint32_t, int64_t, uint64_t, "
                "float or double");
  detail::inclusive_scan_of<T>(in, out, n, stream);
}

namespace detail {
// Stream-ordered scratch from ladder's own memory pool (one per device, never shrunk, so a call
// does not pay for mapping memory). The memory is not initialized.
void* scratch_alloc(std::size_t bytes, cudaStream_t stream);
void scratch_free(void* pointer, cudaStream_t stream);
// Throws std::invalid_argument for n < 0, null pointers with n > 0, overlapping ranges (other
// than in == out), and byte counts that overflow.
void check_scan_arguments(const char* call, const void* in, const void* out, std::int64_t n,
                          std::size_t element_bytes);
} // namespace detail

} // namespace ladder

#if defined(__CUDACC__)
#include "ladder/detail/compact.cuh"
#endif
