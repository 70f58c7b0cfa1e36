// Argument checks shared by the models: every failure names the argument first.
#pragma once

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

template <class Integer> constexpr Integer divide_round_up(Integer value, Integer divisor) {
  return (value + divisor - 1) / divisor;
}

template <class Integer> constexpr Integer round_up(Integer value, Integer multiple) {
  return divide_round_up(value, multiple) * multiple;
}

} // namespace ladder::models::detail
