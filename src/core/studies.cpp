#include "core/study.hpp"

#include <ostream>

namespace ladder::lab {

namespace transpose {
const Study& study();
}
namespace reduce {
const Study& study();
}
namespace scan {
const Study& study();
}
namespace matmul {
const Study& study();
}
namespace convolution {
const Study& study();
}
namespace exercises {
const Study& study();
}
namespace transfers {
const Study& study();
}
namespace instructions {
const Study& study();
}

const std::vector<Study>& studies() {
  // Each study defines its entry next to its rungs; this list fixes the order of `ladder run`.
  static const std::vector<Study> all = {transpose::study(), reduce::study(), scan::study(),
                                         matmul::study(), convolution::study(), transfers::study(),
                                         instructions::study(), exercises::study()};
  return all;
}

const Study* find_study(std::string_view name) {
  for (const Study& s : studies())
    if (s.name == name)
      return &s;
  return nullptr;
}

bool rung_selected(const std::vector<std::string>& patterns, std::string_view name) {
  for (const std::string& pattern : patterns) {
    const std::string_view p(pattern);
    if (!p.empty() && p.back() == '*' ? name.substr(0, p.size() - 1) == p.substr(0, p.size() - 1)
                                      : name == p)
      return true;
  }
  return false;
}

void RunContext::say(const std::string& line) const {
  if (progress)
    *progress << line << std::endl;
}

const Peak& RunContext::peak(Bound bound) const {
  auto it = peaks_.find(bound);
  if (it == peaks_.end()) {
    Peak p;
    p.bound = bound;
    if (measure_peak) {
      say("ladder: measuring the peak for " + std::string(bound_name(bound)));
      p = measure_peak(bound);
    }
    it = peaks_.emplace(bound, p).first;
  }
  return it->second;
}

} // namespace ladder::lab
