// ladder::transpose: argument checks, then the fastest tiled kernel that applies.
#include "ladder/transpose.hpp"
#include "transpose/tiled.cuh"

#include <limits>
#include <stdexcept>
#include <string>

namespace ladder::detail {

namespace {

template <int Bytes, int Align>
void dispatch_aligned(const void* in_bytes, void* out_bytes, std::int64_t rows, std::int64_t cols,
                      cudaStream_t stream) {
  using namespace transpose_detail;
  using W = word_t<Bytes, Align>;
  using Shape = typename LibraryShape<Bytes>::type;
  const auto* in = static_cast<const W*>(in_bytes);
  auto* out = static_cast<W*>(out_bytes);
  if (rows == 1 || cols == 1) { // a vector: its transpose is the same bytes
    LADDER_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(rows * cols) * Bytes,
                                cudaMemcpyDeviceToDevice, stream));
    return;
  }
  using Library = LibraryShape<Bytes>;
  if (vector_path_applies<W>(in, out, rows, cols)) {
    if constexpr (Align == Bytes) // pointers 16-byte aligned: the element's own word
      launch_tiled<W, typename Library::aligned, Library::aligned_access>(in, out, rows, cols, 1,
                                                                          stream);
    else
      launch_tiled<W, Shape, Access::aligned_vector>(in, out, rows, cols, 1, stream);
  } else if constexpr (Bytes == 16 && Align == 16) { // any shape is whole 16-byte words
    launch_tiled<W, typename Library::aligned, Library::aligned_access>(in, out, rows, cols, 1,
                                                                        stream);
  } else if constexpr (sizeof(W) <= 8) // odd shapes or offsets: 16-byte accesses all the same
    launch_tiled<W, Shape, Access::any_alignment_vector>(in, out, rows, cols, 1, stream);
  else // 16-byte elements that are only 8-byte aligned (or less): one element per access
    launch_tiled<W, Shape, Access::scalar>(in, out, rows, cols, 1, stream);
}

// The widest word both pointers are aligned to, up to the element size.
template <int Bytes>
void dispatch(const void* in, void* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  const auto both = reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out);
  if constexpr (Bytes >= 16)
    if (both % 16 == 0)
      return dispatch_aligned<Bytes, 16>(in, out, rows, cols, stream);
  if constexpr (Bytes >= 8)
    if (both % 8 == 0)
      return dispatch_aligned<Bytes, 8>(in, out, rows, cols, stream);
  if constexpr (Bytes >= 4)
    if (both % 4 == 0)
      return dispatch_aligned<Bytes, 4>(in, out, rows, cols, stream);
  if constexpr (Bytes >= 2)
    if (both % 2 == 0)
      return dispatch_aligned<Bytes, 2>(in, out, rows, cols, stream);
  return dispatch_aligned<Bytes, 1>(in, out, rows, cols, stream);
}

} // namespace

void transpose_bytes(const void* in, void* out, std::int64_t rows, std::int64_t cols,
                     std::size_t element_bytes, cudaStream_t stream) {
  if (rows < 0)
    throw std::invalid_argument("ladder::transpose: rows must be >= 0, got " + std::to_string(rows));
  if (cols < 0)
    throw std::invalid_argument("ladder::transpose: cols must be >= 0, got " + std::to_string(cols));
  if (rows == 0 || cols == 0)
    return;
  const auto max_elements = std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(element_bytes);
  if (rows > max_elements / cols)
    throw std::invalid_argument("ladder::transpose: rows x cols overflows 64-bit byte counts");
  if (in == nullptr)
    throw std::invalid_argument("ladder::transpose: in is null with rows x cols > 0");
  if (out == nullptr)
    throw std::invalid_argument("ladder::transpose: out is null with rows x cols > 0");
  const auto bytes = static_cast<std::uintptr_t>(rows * cols) * element_bytes;
  const auto a = reinterpret_cast<std::uintptr_t>(in), b = reinterpret_cast<std::uintptr_t>(out);
  if (a < b + bytes && b < a + bytes)
    throw std::invalid_argument("ladder::transpose: in and out overlap (out-of-place only)");
  switch (element_bytes) {
  case 1: return dispatch<1>(in, out, rows, cols, stream);
  case 2: return dispatch<2>(in, out, rows, cols, stream);
  case 4: return dispatch<4>(in, out, rows, cols, stream);
  case 8: return dispatch<8>(in, out, rows, cols, stream);
  case 16: return dispatch<16>(in, out, rows, cols, stream);
  default:
    throw std::invalid_argument("ladder::transpose: element size must be 1, 2, 4, 8 or 16 bytes, got " +
                                std::to_string(element_bytes));
  }
}

} // namespace ladder::detail
