// ladder/scan.hpp: prefix sums and stream compaction on the GPU.
//
//   ladder::exclusive_scan(in, out, n, stream);   // out[i] = in[0] + ... + in[i-1], out[0] = 0
//   ladder::inclusive_scan(in, out, n, stream);   // out[i] = in[0] + ... + in[i]
//
// Types: int32_t, uint32_t, int64_t, uint64_t, float, double (sums; integers wrap around modulo
// 2^bits as the hardware adds them). Any n >= 0 (0 is a no-op; more than 2^31 elements works, all
// indices and running totals are 64-bit), any pointer alignment the type allows (in and out at the same
// offset within 16 bytes: the elements before out's next 128-byte boundary are scanned first by
// one warp, the rest with aligned 16-byte accesses; at different offsets: up to in's next 16-byte
// boundary, then 16-byte loads and stores shifted across lanes), in == out allowed; any other overlap of [in, in + n)
// and [out, out + n) throws std::invalid_argument. Asynchronous on `stream`; safe to call from
// several host threads and streams at once, and inside CUDA graph capture (first call on a stream
// included; the scan then takes the look-back kernel, since a cooperative launch cannot be
// captured).
//
// Scratch: an input of one tile (below) takes none. A larger one allocates one block per call:
// 272 bytes plus, per tile, 8 bytes for 4-byte types (tiles of 8192 elements, 16384 on the
// reduce-ahead path: at most about n / 1024 bytes) or 20 bytes for 8-byte types (tiles of 4096
// or 8192 elements: at most about n / 200 bytes). It is allocated on `stream` (from a memory pool
// private to ladder, one per device, that keeps freed memory mapped for the next call), zeroed,
// and freed on `stream` right after the kernel; nothing is kept per stream. Under graph capture
// the allocation and the free become graph memory nodes (from the device's default pool), so each
// launch of the graph allocates and frees its own (CUDA then restricts the graph: one
// instantiation at a time, no cloning). A call that throws leaves no scratch behind. Details:
// ladder/detail/scratch.hpp.
//
// Algorithm: one pass over the data (read n, write n). From 2^22 elements, the reduce-ahead scan (docs/scan.md): one cooperative launch of a GPU-filling grid
// that streams 64 KB tiles through shared memory with the bulk copy engine and reduces each tile
// two rows of tiles before it scans it, so no tile waits on a chain of predecessors (H200, 2^28
// int32: 1.26-1.27x cub::DeviceScan, 92-93% of a device-to-device copy). Below 2^22, under
// stream capture, or where the grid cannot be launched cooperatively: the decoupled look-back
// scan of Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
// NVIDIA NVR-2016-002 (with 1-element accesses when in and out sit at different offsets within
// 16 bytes). Inputs that fit one tile take exactly one kernel launch and no allocation: 16384
// 4-byte or 8192 8-byte elements past the head when in and out sit at the same offset, half that
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
// From 2^22 elements (any alignment of `in` and `out`: the elements before in's first 16-byte
// boundary are tested by one warp first), outside stream capture, the
// reduce-ahead schedule of the scans (one cooperative launch; pred runs once per element; each
// tile's kept elements are compacted in its shared-memory stage and written out with aligned
// 16-byte stores, scalar ones only before the first and after the last 16-byte boundary of the
// tile's output; 32 KB tiles of 256 threads; H200, 2^28 int32, about half kept: 1.27x
// cub::DeviceSelect::If, docs/scan.md);
// otherwise the look-back. Scratch as for the scans: none for one tile (4096 4-byte or 2048
// 8-byte elements), else 272 bytes + 8 bytes per tile (at most about n / 512 or n / 256 bytes;
// n / 1024 or n / 512 on the reduce-ahead path), per call, freed on the stream.
// compact() also allocates its 8-byte count that way, copies it to the host and waits for the
// stream, so it cannot be captured: called with n > 0 on a capturing stream it throws
// std::invalid_argument before anything is enqueued; compact_async can be captured.
#pragma once

#include "ladder/detail/scratch.hpp"

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
// Throws std::invalid_argument for n < 0, null pointers with n > 0, overlapping ranges (other
// than in == out), and byte counts that overflow.
void check_scan_arguments(const char* call, const void* in, const void* out, std::int64_t n,
                          std::size_t element_bytes);
} // namespace detail

} // namespace ladder

#if defined(__CUDACC__)
#include "ladder/detail/compact.cuh"
#endif
