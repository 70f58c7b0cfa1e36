#include "transpose/reference.hpp"

#include <algorithm>
#include <cstring>
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
