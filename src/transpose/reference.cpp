#include "transpose/reference.hpp"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace ladder::lab::transpose {

template <class T>
void cpu_transpose(std::span<const T> in, std::span<T> out, std::int64_t rows, std::int64_t cols) {
  if (static_cast<std::int64_t>(in.size()) != rows * cols ||
      static_cast<std::int64_t>(out.size()) != rows * cols)
    throw std::invalid_argument("cpu_transpose: spans must hold rows x cols elements");
  constexpr std::int64_t block = 64; // keeps both the read and the write side in cache
  for (std::int64_t r0 = 0; r0 < rows; r0 += block)
    for (std::int64_t c0 = 0; c0 < cols; c0 += block)
      for (std::int64_t r = r0; r < std::min(rows, r0 + block); ++r)
        for (std::int64_t c = c0; c < std::min(cols, c0 + block); ++c)
          out[c * rows + r] = in[r * cols + c];
}

template void cpu_transpose<float>(std::span<const float>, std::span<float>, std::int64_t, std::int64_t);
template void cpu_transpose<double>(std::span<const double>, std::span<double>, std::int64_t, std::int64_t);
template void cpu_transpose<std::int32_t>(std::span<const std::int32_t>, std::span<std::int32_t>, std::int64_t, std::int64_t);
template void cpu_transpose<std::int64_t>(std::span<const std::int64_t>, std::span<std::int64_t>, std::int64_t, std::int64_t);

namespace {
struct Bytes16 { // a 16-byte element, copied whole
  std::uint64_t lo, hi;
};
template <class T>
void transpose_as(std::span<const std::byte> in, std::span<std::byte> out, std::int64_t rows,
                  std::int64_t cols) {
  const auto n = in.size() / sizeof(T);
  cpu_transpose<T>({reinterpret_cast<const T*>(in.data()), n},
                   {reinterpret_cast<T*>(out.data()), out.size() / sizeof(T)}, rows, cols);
}
} // namespace

template void cpu_transpose<std::uint8_t>(std::span<const std::uint8_t>, std::span<std::uint8_t>, std::int64_t, std::int64_t);
template void cpu_transpose<std::uint16_t>(std::span<const std::uint16_t>, std::span<std::uint16_t>, std::int64_t, std::int64_t);
template void cpu_transpose<std::uint32_t>(std::span<const std::uint32_t>, std::span<std::uint32_t>, std::int64_t, std::int64_t);
template void cpu_transpose<std::uint64_t>(std::span<const std::uint64_t>, std::span<std::uint64_t>, std::int64_t, std::int64_t);

void cpu_transpose_bytes(std::span<const std::byte> in, std::span<std::byte> out,
                         std::int64_t rows, std::int64_t cols, int element_bytes) {
  if (in.size() % static_cast<std::size_t>(element_bytes) != 0 || in.size() != out.size())
    throw std::invalid_argument("cpu_transpose_bytes: in and out must hold the same whole elements");
  switch (element_bytes) {
  case 1: return transpose_as<std::uint8_t>(in, out, rows, cols);
  case 2: return transpose_as<std::uint16_t>(in, out, rows, cols);
  case 4: return transpose_as<std::uint32_t>(in, out, rows, cols);
  case 8: return transpose_as<std::uint64_t>(in, out, rows, cols);
  case 16: return transpose_as<Bytes16>(in, out, rows, cols);
  default: throw std::invalid_argument("cpu_transpose_bytes: element size must be 1, 2, 4, 8 or 16");
  }
}

std::string compare_elements(std::span<const std::byte> got, std::span<const std::byte> expected,
                             int element_bytes, std::int64_t row_length) {
  if (got.size() != expected.size())
    return "size mismatch";
  if (std::memcmp(got.data(), expected.data(), got.size()) == 0)
    return "";
  const auto e = static_cast<std::size_t>(element_bytes);
  std::int64_t mismatches = 0, first = -1;
  for (std::size_t i = 0; i < got.size() / e; ++i)
    if (std::memcmp(got.data() + i * e, expected.data() + i * e, e) != 0) {
      if (first < 0)
        first = static_cast<std::int64_t>(i);
      ++mismatches;
    }
  const auto hex = [&](std::span<const std::byte> bytes) {
    std::ostringstream s;
    s << "0x" << std::hex;
    for (std::size_t b = e; b-- > 0;) // little-endian: the last byte is the most significant
      s << std::setw(2) << std::setfill('0')
        << static_cast<unsigned>(bytes[static_cast<std::size_t>(first) * e + b]);
    return s.str();
  };
  std::ostringstream out;
  out << mismatches << " of " << got.size() / e << " elements differ; first at ("
      << first / row_length << ", " << first % row_length << "): got " << hex(got)
      << ", expected " << hex(expected);
  return out.str();
}

void cpu_expected(Result kind, std::span<const float> in, std::span<float> out,
                  Shape s, int tile) {
  switch (kind) {
  case Result::copy:
    std::copy(in.begin(), in.end(), out.begin());
    return;
  case Result::transpose:
    cpu_transpose<float>(in, out, s.rows, s.cols);
    return;
  case Result::tile_local_transpose: // out keeps in's shape; each tile transposed
    for (std::int64_t r = 0; r < s.rows; ++r)
      for (std::int64_t c = 0; c < s.cols; ++c) {
        const std::int64_t r0 = r - r % tile, c0 = c - c % tile;
        out[r * s.cols + c] = in[(r0 + (c - c0)) * s.cols + (c0 + (r - r0))];
      }
    return;
  case Result::tiles_moved: // out is cols x rows; tile (i, j) lands at (j, i) as is
    for (std::int64_t r = 0; r < s.rows; ++r)
      for (std::int64_t c = 0; c < s.cols; ++c) {
        const std::int64_t r0 = r - r % tile, c0 = c - c % tile;
        out[(c0 + (r - r0)) * s.rows + (r0 + (c - c0))] = in[r * s.cols + c];
      }
    return;
  }
}

std::string compare_exact(std::span<const float> got, std::span<const float> expected,
                          std::int64_t row_length) {
  if (got.size() != expected.size())
    return "size mismatch";
  if (std::memcmp(got.data(), expected.data(), got.size_bytes()) == 0)
    return "";
  std::int64_t mismatches = 0, first = -1;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(float)) != 0) {
      if (first < 0)
        first = static_cast<std::int64_t>(i);
      ++mismatches;
    }
  std::ostringstream out;
  out << mismatches << " of " << got.size() << " elements differ; first at (" << first / row_length
      << ", " << first % row_length << "): got " << got[first] << ", expected " << expected[first];
  return out.str();
}

} // namespace ladder::lab::transpose
