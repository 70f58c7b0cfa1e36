// Runs the ladder command line in-process, as the tests of every subcommand do.
#pragma once

#include "commands.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace ladder::cli::test {

struct Result {
  int code;
  std::string out, err;
};

inline Result invoke(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = run(args, out, err);
  return {code, out.str(), err.str()};
}

} // namespace ladder::cli::test
