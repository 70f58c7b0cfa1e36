// The study list that the CLI, the tests and the benchmark iterate, and what a study's run gets.
// Each study owns its registry of rungs (e.g. transpose::rungs()); this is the layer above it.
#pragma once

#include "core/harness.hpp"
#include "core/measurement.hpp"
#include "ladder/device.hpp"

#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::lab {

struct RunOptions {
  std::vector<std::string> sizes; // checked by the study's check_size before any device work
  std::string image; // a picture the study takes as its input (`--image`), checked by check_image
  TimingOptions timing;
  bool small = false; // small sizes only (tests, sanitizers)
  bool all = false;   // the variants too (tuning shapes), and the extra cases
  // Non-empty: only the rungs these patterns select (rung_selected), with the library call and
  // the references beside them (`--rungs`, a tuning run's subset).
  std::vector<std::string> rungs;
};

// Whether `name` is selected by one of `patterns`: a pattern is a rung's name, or a prefix
// followed by '*'.
bool rung_selected(const std::vector<std::string>& patterns, std::string_view name);

class RunContext {
public:
  RunOptions options;
  DeviceInfo device;
  std::ostream* progress = nullptr; // stderr in the CLI; may be null
  // Measures a peak on the device; set by whoever runs the studies (the CLI, the tests).
  std::function<Peak(Bound)> measure_peak;

  void say(const std::string& line) const;
  // The peak that bounds `bound`, measured once per run on first use.
  const Peak& peak(Bound bound) const;
  // Whether a rung is shown: variants only with --all (or `ladder tune`); with --rungs, the rungs
  // it selects, the library call and the references.
  bool shows(const RungInfo& rung) const {
    if (!options.rungs.empty())
      return rung.role == Role::library || rung.role == Role::reference ||
             rung_selected(options.rungs, rung.name);
    return options.all || rung.role != Role::variant;
  }

private:
  mutable std::map<Bound, Peak> peaks_;
};

struct Study {
  std::string_view name;
  std::string_view title;
  // The course material it reproduces, by title and author.
  std::string_view course;
  std::vector<RungInfo> (*rungs)();
  StudyResults (*run)(const RunContext&);
  // Throws std::invalid_argument naming --size when `size` means nothing to this study. Called for
  // every --size before the device is touched.
  void (*check_size)(std::string_view size);
  std::string_view size_syntax; // "ROWSxCOLS", "N or 2^K"
  // Non-null for a study that takes a picture as its input (`--image PATH`): throws
  // std::invalid_argument naming --image when the file cannot be used. Called before the device is
  // touched.
  void (*check_image)(const std::string& path) = nullptr;
  // Text printed under the rung list by `ladder list` (e.g. Brent's-theorem figures).
  std::string (*notes)() = nullptr;
  // Non-empty: why `ladder run` with no study named leaves this study out (naming it runs it).
  std::string_view not_in_default_run = {};
};

// In the course's order: transpose, reduction, scan, matrix multiplication.
const std::vector<Study>& studies();
const Study* find_study(std::string_view name);

} // namespace ladder::lab
