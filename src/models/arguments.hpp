// Argument checks shared by the models and `ladder model`: every failure names the argument (or
// the option) first, so that the message tells the user what to change.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ladder::models::detail {

[[noreturn]] inline void bad_argument(std::string_view name, const std::string& why) {
  throw std::invalid_argument(std::string(name) + ": " + why);
}

template <class Integer> void require_positive(std::string_view name, Integer value) {
  if (value <= 0) {
    bad_argument(name, "must be positive, got " + std::to_string(value));
  }
}

template <class Integer> void require_non_negative(std::string_view name, Integer value) {
  if (value < 0) {
    bad_argument(name, "must not be negative, got " + std::to_string(value));
  }
}

// The counts (warps, warp-phases, loads, addresses) grow as products of user-sized inputs; a
// product that wraps prints a negative or absurd total as if it were a result. Every 64-bit
// product and sum of such inputs goes through these, and an input whose totals do not fit is an
// error that names it.
inline std::int64_t checked_mul(std::string_view name, std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    bad_argument(name, "too large: " + std::to_string(a) + " x " + std::to_string(b) +
                           " does not fit in 64 bits");
  }
  return product;
}

inline std::int64_t checked_add(std::string_view name, std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    bad_argument(name, "too large: " + std::to_string(a) + " + " + std::to_string(b) +
                           " does not fit in 64 bits");
  }
  return sum;
}

// For value >= 0 and divisor > 0; value + divisor - 1 would overflow near the type's maximum.
template <class Integer> constexpr Integer divide_round_up(Integer value, Integer divisor) {
  return value / divisor + (value % divisor != 0 ? 1 : 0);
}

template <class Integer> constexpr Integer round_up(Integer value, Integer multiple) {
  return divide_round_up(value, multiple) * multiple;
}

} // namespace ladder::models::detail
