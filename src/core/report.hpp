// Result tables: what a study measured, and the one place that turns times into GB/s, % of peak
// and speedups so that the text table, Markdown, CSV and JSON always agree.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ladder::lab {

struct Measurement {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int samples = 0;
};

enum class CheckStatus { passed, wrong, skipped };

struct Row {
  std::string name;
  std::string idea;
  bool is_reference = false; // vendor library rows (cudaMemcpy, cuBLAS, CUB)
  CheckStatus check = CheckStatus::skipped;
  std::string note; // why skipped, or what was wrong
  // One entry per column group of the table (e.g. "loop over launches", "loop in kernel");
  // empty when that mode does not apply to the row or the row was not timed.
  std::vector<std::optional<Measurement>> timings;
};

struct Table {
  std::string study;     // "transpose"
  std::string title;     // "transpose 16384 x 16384 float"
  std::string case_note; // "fits in L2 (seed size)" or ""
  std::string bytes_formula; // "2 x rows x cols x 4 B"
  double bytes_moved = 0;    // per operation, by that formula
  double measured_peak_gbs = 0;
  double theoretical_peak_gbs = 0;
  std::vector<std::string> groups; // column-group names, at least one
  std::vector<Row> rows;
  std::vector<std::string> footnotes;
};

// Derived figures of one row in one column group.
struct RowMetrics {
  std::optional<double> time_ms;
  std::optional<double> bandwidth_gbs;
  std::optional<double> percent_of_peak;
  std::optional<double> step_speedup;       // against the previous timed rung (not references)
  std::optional<double> cumulative_speedup; // against the first timed rung
  std::vector<std::optional<double>> vs_reference; // bandwidth / each reference row's bandwidth
};

// Effective bandwidth in GB/s (1e9 bytes per second).
double bandwidth_gbs(double bytes, double milliseconds);

std::vector<RowMetrics> compute_metrics(const Table& table, std::size_t group);

std::string check_label(const Row& row);
std::string format_text(const Table& table);
std::string format_markdown(const Table& table);
// CSV: one line per row and column group; `header` prints the column names first.
std::string format_csv(const Table& table, bool header);
nlohmann::json to_json(const Table& table);

} // namespace ladder::lab
