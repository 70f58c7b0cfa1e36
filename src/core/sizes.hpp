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

// "2^22" for powers of two from 2^10 up, the digits otherwise ("1000003", "512").
std::string count_label(std::int64_t n);
// "16384 x 16384".
std::string extent_label(Extent2d e);

} // namespace ladder::lab
