// CPU references for the transpose ladder: what each variant's output must be, element for
// element. Host-only, so the host tests check them without a GPU.
#pragma once

#include "transpose/variants.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ladder::lab::transpose {

// out (cols x rows) = in (rows x cols) transposed, blocked for the CPU's caches.
template <class T>
void cpu_transpose(std::span<const T> in, std::span<T> out, std::int64_t rows, std::int64_t cols);

// The expected output of a variant of the given result kind (in and out are rows x cols floats).
void cpu_expected(Result kind, std::span<const float> in, std::span<float> out,
                  Shape shape, int tile);

// out (cols x rows) = in (rows x cols) transposed, for elements of 1, 2, 4, 8 or 16 bytes held
// as raw bytes (a transpose never looks at the values).
void cpu_transpose_bytes(std::span<const std::byte> in, std::span<std::byte> out,
                         std::int64_t rows, std::int64_t cols, int element_bytes);

// Bytewise comparison of elements of `element_bytes` bytes: "" when equal, else the number of
// differing elements and the first one, as (row, column) of an output with rows of `row_length`.
std::string compare_elements(std::span<const std::byte> got, std::span<const std::byte> expected,
                             int element_bytes, std::int64_t row_length);

// Bitwise comparison; "" when equal, else the first mismatch and the count, for the report.
std::string compare_exact(std::span<const float> got, std::span<const float> expected,
                          std::int64_t row_length);

} // namespace ladder::lab::transpose
