// The one parser and labeller of problem sizes, for every study and the CLI: "4194304", "2^22",
// "4Mi" and "16384x16384" all mean what they say, and a size prints the same way everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ladder::lab {

// A positive element count: decimal digits, 2^K, or digits with a binary suffix Ki, Mi, Gi.
// Throws std::invalid_argument naming `what` (the option the user typed) and the text.
std::int64_t parse_count(std::string_view text, std::string_view what,
                         std::int64_t max = std::int64_t{1} << 40);

struct Extent2d {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

// ROWSxCOLS, each part a count as above.
Extent2d parse_extent(std::string_view text, std::string_view what,
                      std::int64_t max_elements = std::int64_t{1} << 36);

struct Extent3d {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
};

// MxNxK, or one count for a cube (4096 = 4096x4096x4096), each part a count as above.
Extent3d parse_extent3(std::string_view text, std::string_view what,
                       std::int64_t max_elements = std::int64_t{1} << 32);
// "4096^3" for a cube, else "4097 x 4095 x 4093".
std::string extent3_label(Extent3d e);

// "2^22" for powers of two from 2^10 up, the digits otherwise ("1000003", "512").
std::string count_label(std::int64_t n);
// "16384 x 16384".
std::string extent_label(Extent2d e);

} // namespace ladder::lab
