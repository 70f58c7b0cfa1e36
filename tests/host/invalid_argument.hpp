// What a call's std::invalid_argument says ("" when it throws none), so tests can check that
// the message names the bad argument.
#pragma once

#include <stdexcept>
#include <string>

namespace ladder::test {

template <class Body> std::string invalid_argument_message(Body body) {
  try {
    body();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

} // namespace ladder::test
