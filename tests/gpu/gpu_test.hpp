#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace ladder::test {

// True under --small (compute-sanitizer runs): tests drop their largest sizes.
bool small_mode();

// GoogleTest parameter names allow only [A-Za-z0-9_].
inline std::string test_name(std::string_view name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

} // namespace ladder::test
