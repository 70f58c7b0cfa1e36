// Integer options of every subcommand: one parser, one validator, one message shape.
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ladder::cli {

// ---- integer options ----------------------------------------------------------------------------

// A whole decimal integer ("12", "-3") and nothing else. CLI11 alone reads "010" as octal 8 and
// "0x10" as 16, and its versions differ on "1.5" and "1e3".
inline std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc{} || stop != end || text.empty()) {
    return std::nullopt;
  }
  return value;
}

template <class T> struct ElementOf { using type = T; };
template <class T> struct ElementOf<std::vector<T>> { using type = T; };

// Every integer option is added through this, so that a value that is not an integer, or is
// outside [min, max], stops the command before any model runs, with a message naming the option
// and the value as typed (CLI11 reports "--option: why"; `ladder` exits 2). List options check
// each element. `max_reason` says where the maximum comes from. The value reaches CLI11's own
// conversion rewritten in plain decimal.
template <class Target, class Value = typename ElementOf<Target>::type>
CLI::Option* add_integer(CLI::App& command, const std::string& name, Target& target,
                         const std::string& description, std::type_identity_t<Value> min,
                         std::type_identity_t<Value> max = std::numeric_limits<Value>::max(),
                         const std::string& max_reason = {}) {
  static_assert(std::is_integral_v<Value>);
  std::string expected;
  if (max == std::numeric_limits<Value>::max() && (min == 0 || min == 1)) {
    expected = min == 0 ? "a non-negative integer" : "a positive integer";
  } else {
    expected = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  }
  const auto check = [=](std::string& text) -> std::string {
    const auto value = parse_integer(text);
    if (!value) {
      return "expected " + expected + ", got '" + text + "'";
    }
    if (*value < min || *value > max) {
      const bool explain = *value > max && !max_reason.empty();
      return "must be " + expected + ", got " + text + (explain ? " (" + max_reason + ")" : "");
    }
    text = std::to_string(*value);
    return {};
  };
  return command.add_option(name, target, description)->transform(CLI::Validator(check, ""));
}

} // namespace ladder::cli
