// ladder::exclusive_scan / inclusive_scan: argument checks, then the reduce-ahead scan (bulk
// copies, 16-byte stores) when both pointers are 16-byte aligned and n >= 2^22; else the
// single-pass look-back scan, with 16-byte accesses when aligned, 1-element accesses otherwise
// (also where a cooperative launch is not available, e.g. under stream capture). Scratch (the
// tile-status words) is allocated per call on the call's stream (ladder/detail/scratch.hpp).
#include "ladder/scan.hpp"
#include "scan/lookback_scan.cuh"
#include "scan/reduce_ahead_scan.cuh"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace ladder {

namespace detail {

void check_scan_arguments(const char* call, const void* in, const void* out, std::int64_t n,
                          std::size_t element_bytes) {
  const std::string name(call);
  if (n < 0)
    throw std::invalid_argument(name + ": n must be >= 0, got " + std::to_string(n));
  if (n == 0)
    return;
  if (n > std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(element_bytes))
    throw std::invalid_argument(name + ": n x element size overflows 64-bit byte counts");
  if (in == nullptr)
    throw std::invalid_argument(name + ": in is null with n > 0");
  if (out == nullptr)
    throw std::invalid_argument(name + ": out is null with n > 0");
  if (in == out)
    return;
  const auto bytes = static_cast<std::uintptr_t>(n) * element_bytes;
  const auto a = reinterpret_cast<std::uintptr_t>(in), b = reinterpret_cast<std::uintptr_t>(out);
  if (a < b + bytes && b < a + bytes)
    throw std::invalid_argument(name +
                                ": in and out overlap (only in == out, in place, is allowed)");
}

} // namespace detail

namespace {

template <class T, bool Inclusive>
void scan(const char* call, const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  detail::check_scan_arguments(call, in, out, n, sizeof(T));
  if (n == 0)
    return;
  using namespace scan_detail;
  if ((n + LibraryShape<T>::items - 1) / LibraryShape<T>::items > std::numeric_limits<int>::max())
    throw std::invalid_argument(std::string(call) + ": n too large for one grid (" +
                                std::to_string(n) + ")");
  const auto both = reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out);
  // Aligned: one 64 KB tile is one launch of the single-tile kernel (no scratch); from 2^22 the
  // reduce-ahead kernel; in between, and wherever it cannot run, the look-back kernel.
  const bool one_tile = n <= library_single_launch_max<T>;
  if (both % 16 != 0)
    launch_lookback_scan<T, LibraryScalarShape<T>, Inclusive>(in, out, n, stream);
  else if (!((one_tile || n >= library_reduce_ahead_min) &&
             launch_reduce_ahead_scan<T, LibraryAheadShape, Inclusive>(in, out, n, stream)))
    launch_lookback_scan<T, LibraryShape<T>, Inclusive>(in, out, n, stream);
}

} // namespace

template <class T>
void detail::exclusive_scan_of(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  scan<T, false>("ladder::exclusive_scan", in, out, n, stream);
}

template <class T>
void detail::inclusive_scan_of(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  scan<T, true>("ladder::inclusive_scan", in, out, n, stream);
}

#define LADDER_INSTANTIATE_SCAN(T)                                                                 \
  template void detail::exclusive_scan_of<T>(const T*, T*, std::int64_t, cudaStream_t);            \
  template void detail::inclusive_scan_of<T>(const T*, T*, std::int64_t, cudaStream_t);
LADDER_INSTANTIATE_SCAN(std::int32_t)
LADDER_INSTANTIATE_SCAN(std::uint32_t)
LADDER_INSTANTIATE_SCAN(std::int64_t)
LADDER_INSTANTIATE_SCAN(std::uint64_t)
LADDER_INSTANTIATE_SCAN(float)
LADDER_INSTANTIATE_SCAN(double)
#undef LADDER_INSTANTIATE_SCAN

} // namespace ladder
