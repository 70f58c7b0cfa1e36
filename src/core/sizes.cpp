#include "core/sizes.hpp"

#include <charconv>
#include <stdexcept>

namespace ladder::lab {

namespace {

[[noreturn]] void bad(std::string_view what, std::string_view text, std::string_view expected) {
  throw std::invalid_argument(std::string(what) + ": '" + std::string(text) + "' is not " +
                              std::string(expected));
}

bool digits(std::string_view part, std::int64_t& value) {
  if (part.empty() || part.front() == '-' || part.front() == '+')
    return false;
  const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
  return ec == std::errc() && end == part.data() + part.size();
}

} // namespace

std::int64_t parse_count(std::string_view text, std::string_view what, std::int64_t max) {
  const std::string expected =
      "a positive element count (e.g. 1000003, 2^22 or 4Mi) of at most " + std::to_string(max);
  std::int64_t value = 0;
  if (text.size() > 2 && text.substr(0, 2) == "2^") {
    std::int64_t exponent = 0;
    if (!digits(text.substr(2), exponent) || exponent > 62)
      bad(what, text, expected);
    value = std::int64_t{1} << exponent;
  } else {
    int shift = 0;
    std::string_view number = text;
    if (text.size() > 2 && text.substr(text.size() - 1) == "i") {
      const char unit = text[text.size() - 2];
      shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : -1;
      if (shift < 0)
        bad(what, text, expected);
      number = text.substr(0, text.size() - 2);
    }
    if (!digits(number, value) || value > (max >> shift))
      bad(what, text, expected);
    value <<= shift;
  }
  if (value <= 0 || value > max)
    bad(what, text, expected);
  return value;
}

Extent2d parse_extent(std::string_view text, std::string_view what, std::int64_t max_elements) {
  const auto x = text.find('x');
  const std::string expected = "ROWSxCOLS with positive counts (e.g. 16384x16384) and at most " +
                               std::to_string(max_elements) + " elements";
  if (x == std::string_view::npos)
    bad(what, text, expected);
  Extent2d e;
  try {
    e.rows = parse_count(text.substr(0, x), what, max_elements);
    e.cols = parse_count(text.substr(x + 1), what, max_elements);
  } catch (const std::invalid_argument&) {
    bad(what, text, expected);
  }
  if (e.rows > max_elements / e.cols)
    bad(what, text, expected);
  return e;
}

Extent3d parse_extent3(std::string_view text, std::string_view what, std::int64_t max_elements) {
  const std::string expected =
      "MxNxK or N (a cube) with positive counts (e.g. 4096x4096x4096), no operand above " +
      std::to_string(max_elements) + " elements";
  Extent3d e;
  try {
    const auto x1 = text.find('x');
    if (x1 == std::string_view::npos) {
      e.m = e.n = e.k = parse_count(text, what, max_elements);
    } else {
      const auto x2 = text.find('x', x1 + 1);
      if (x2 == std::string_view::npos)
        bad(what, text, expected);
      e.m = parse_count(text.substr(0, x1), what, max_elements);
      e.n = parse_count(text.substr(x1 + 1, x2 - x1 - 1), what, max_elements);
      e.k = parse_count(text.substr(x2 + 1), what, max_elements);
    }
  } catch (const std::invalid_argument&) {
    bad(what, text, expected);
  }
  if (e.m > max_elements / e.k || e.k > max_elements / e.n || e.m > max_elements / e.n)
    bad(what, text, expected);
  return e;
}

std::string extent3_label(Extent3d e) {
  if (e.m == e.n && e.n == e.k)
    return std::to_string(e.m) + "^3";
  return std::to_string(e.m) + " x " + std::to_string(e.n) + " x " + std::to_string(e.k);
}

std::string count_label(std::int64_t n) {
  if (n >= 1024 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::int64_t{1} << k) < n)
      ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

std::string extent_label(Extent2d e) {
  return std::to_string(e.rows) + " x " + std::to_string(e.cols);
}

} // namespace ladder::lab
