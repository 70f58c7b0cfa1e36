// Renderings of what a study measured: text for a 120-column terminal, Markdown, CSV and JSON,
// all from the derived figures of core/measurement.hpp, so they always agree.
#pragma once

#include "core/measurement.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ladder::lab {

// "-" for a missing or non-finite value, else the value with `decimals` decimals and `suffix`.
std::string format_fixed(std::optional<double> value, int decimals, const char* suffix = "");
// Three significant figures at most, never exponent notation (throughputs, percents).
std::string format_figure(std::optional<double> value);
// Nine significant digits for machines (CSV cells, the report's data attributes); "" when missing.
std::string format_exact(std::optional<double> value);
// "541.0 us", "2.258 ms", "1.234 s": four significant figures, the unit chosen per value.
std::string format_time(double milliseconds);
// The throughput column's header and scale for a table ("GB/s", 1e9).
struct ThroughputScale {
  std::string header;
  double divisor = 1;
};
ThroughputScale throughput_scale(Unit unit, double peak);
// "cub" for "cub::DeviceReduce::Sum": the short name a ratio column is headed with.
std::string short_reference_name(const std::string& name);

// Word-wraps `text` to 118 columns, every line starting with `indent`.
std::string wrap_text(const std::string& text, const std::string& indent);

std::string format_text(const Table& table);
std::string format_markdown(const Table& table);
// `ladder tune`: for each story rung that has tuning variants in the table, one block of the rung
// and its variants with their typed parameters as columns, the time, % of peak and "x rung" (the
// rung's time / the variant's: above 1 the shape is faster). "" when the table has no variants.
std::string format_tuning_text(const Table& table);
// CSV: one line per row and column group; `header` prints the column names first.
std::string format_csv(const Table& table, bool header);
nlohmann::json to_json(const Table& table);

std::string format_text(const Sweep& sweep);
std::string format_markdown(const Sweep& sweep);
nlohmann::json to_json(const Sweep& sweep);

// The inverse of to_json: a table or sweep as a run's JSON carries it, so readers of results (the
// HTML report, the tests) derive every figure with compute_metrics, never from stored text.
// Throws std::invalid_argument naming what is missing or malformed.
Table table_from_json(const nlohmann::json& j);
Sweep sweep_from_json(const nlohmann::json& j);

std::string format_summary_text(const std::vector<SummaryLine>& lines);
std::string format_summary_markdown(const std::vector<SummaryLine>& lines);
nlohmann::json to_json(const SummaryLine& line);

} // namespace ladder::lab
