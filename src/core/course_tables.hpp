// The course's published tables, kept in the source with their citation, so a report can set what
// each step bought on the course's GPU beside what it buys on this one, each as a fraction of its
// own GPU's peak.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ladder::lab {

struct CourseRow {
  std::string_view course_row; // as the registry's RungInfo::course_row names it
  double gbs = 0;              // effective bandwidth the course printed
  double ms = 0;               // time the course printed (0 where it printed none)
};

struct CourseTable {
  std::string_view study;
  std::string_view title;
  std::string_view gpu;
  double peak_gbs = 0; // the GPU's theoretical peak, as the course gives it
  std::string_view citation;
  std::vector<CourseRow> rows;
};

const std::vector<CourseTable>& course_tables();

// A course table of times on the CPU and the GPU by size (the scan's), set beside a sweep that
// times the same two things.
struct CourseTiming {
  std::int64_t n = 0;
  double cpu_ms = 0;
  double gpu_ms = 0;
};

struct CourseSpeedupTable {
  std::string_view study;
  std::string_view title;
  std::string_view machine; // the course's CPU and GPU
  std::string_view citation;
  std::string_view cpu_series, gpu_series; // the sweep series that time the same two things
  std::vector<CourseTiming> rows;
};

const std::vector<CourseSpeedupTable>& course_speedup_tables();

} // namespace ladder::lab
