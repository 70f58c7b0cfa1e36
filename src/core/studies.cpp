#include "core/study.hpp"

#include <array>
#include <ostream>

namespace ladder::lab {

// Each study defines its entry next to its rungs; this list fixes the order of `ladder run`.
// The seeds' order: transpose, reduction, scan.
const Study& transpose_study();
const Study& reduce_study();
const Study& scan_study();

std::span<const Study> studies() {
  static const std::array<Study, 3> all = {transpose_study(), reduce_study(), scan_study()};
  return all;
}

const Study* find_study(std::string_view name) {
  for (const Study& s : studies())
    if (s.name == name)
      return &s;
  return nullptr;
}

void RunContext::say(const std::string& line) const {
  if (progress)
    *progress << line << std::endl;
}

} // namespace ladder::lab
