// ladder::exclusive_scan / inclusive_scan: argument checks, then the reduce-ahead scan (bulk
// copies, 16-byte stores) when both pointers are 16-byte aligned, or equally misaligned (a head up
// to out's next 128-byte boundary is scanned first), and n >= 2^22; else the single-pass look-back scan, with 16-byte
// accesses on the same condition, 1-element accesses when the pointers sit at different offsets
// within 16 bytes (also where a cooperative launch is not available, e.g. under stream capture). Scratch (the
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

// The reduce-ahead kernel for an aligned `in` and an `out` that is not (the instantiation for
// its offset within 16 bytes); false where it cannot run (the caller falls back).
template <class T, bool Inclusive>
bool launch_shifted(const T* in, T* out, std::int64_t n, cudaStream_t stream,
                    scan_detail::ScanHead<T> head) {
  using namespace scan_detail;
  const auto shift = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) % 16 / sizeof(T));
  if constexpr (sizeof(T) == 4) {
    if (shift == 1)
      return launch_reduce_ahead_scan<T, LibraryAheadShape, Inclusive, 1>(in, out, n, stream, 0, head);
    if (shift == 2)
      return launch_reduce_ahead_scan<T, LibraryAheadShape, Inclusive, 2>(in, out, n, stream, 0, head);
    if (shift == 3)
      return launch_reduce_ahead_scan<T, LibraryAheadShape, Inclusive, 3>(in, out, n, stream, 0, head);
  } else {
    if (shift == 1)
      return launch_reduce_ahead_scan<T, LibraryAheadShape, Inclusive, 1>(in, out, n, stream, 0, head);
  }
  return false;
}

template <class T, bool Inclusive>
void scan(const char* call, const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  detail::check_scan_arguments(call, in, out, n, sizeof(T));
  if (n == 0)
    return;
  using namespace scan_detail;
  if ((n + LibraryShape<T>::items - 1) / LibraryShape<T>::items > std::numeric_limits<int>::max())
    throw std::invalid_argument(std::string(call) + ": n too large for one grid (" +
                                std::to_string(n) + ")");
  const auto in_phase = reinterpret_cast<std::uintptr_t>(in) % 16;
  const auto out_phase = reinterpret_cast<std::uintptr_t>(out) % 16;
  // Pointers with the same offset within 16 bytes (both one element past a boundary, say): the
  // elements before `out`'s next 128-byte boundary are the head, scanned by the block that owns
  // tile 0, and everything after it takes the aligned path with the head's sum carried into
  // tile 0. 128 bytes, not 16: a warp's 512-byte store that starts 16 bytes into a line touches
  // five lines, two of them in part, and the misaligned scan lost 5% at 2^28 that way (H200).
  // Different offsets: up to `in`'s next 16-byte boundary (the shifted stores handle `out`).
  const auto head_bytes =
      in_phase == out_phase ? (128 - reinterpret_cast<std::uintptr_t>(out) % 128) % 128
                            : (16 - in_phase) % 16;
  const auto head_count = static_cast<std::int64_t>(head_bytes / sizeof(T));
  const ScanHead<T> head{in, out, static_cast<int>(head_count)};
  const T* body_in = in + head_count;
  T* body_out = out + head_count;
  const std::int64_t body = n - head_count;
  if (in_phase != out_phase) {
    // Different offsets: the head aligns the input (bulk copies), and the reduce-ahead kernel
    // stores 16-byte vectors shifted across lanes by the output's offset from a boundary.
    if (n >= library_reduce_ahead_min &&
        launch_shifted<T, Inclusive>(body_in, body_out, body, stream, head))
      return;
    launch_lookback_scan<T, LibraryScalarShape<T>, Inclusive>(in, out, n, stream);
    return;
  }
  if (body <= 0) {
    launch_lookback_scan<T, LibraryScalarShape<T>, Inclusive>(in, out, n, stream);
    return;
  }
  // One 64 KB tile is one launch of the single-tile kernel (no scratch); from 2^22 the
  // reduce-ahead kernel; in between, and wherever it cannot run, the look-back kernel.
  // The threshold is on n, not the body: a misaligned call of 2^22 elements is no smaller a job.
  const bool one_tile = body <= library_single_launch_max<T>;
  if (!((one_tile || n >= library_reduce_ahead_min) &&
        launch_reduce_ahead_scan<T, LibraryAheadShape, Inclusive>(body_in, body_out, body, stream,
                                                                  0, head)))
    launch_lookback_scan<T, LibraryShape<T>, Inclusive>(body_in, body_out, body, stream, head);
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
