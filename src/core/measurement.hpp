// What a study measured, declared the nvbench way: a table says what one operation does (its
// Work) and which peak bounds it; the core derives every figure from that (time, throughput in
// the study's unit, % of the bound, step and cumulative speedups, ratios to the references) so
// that text, Markdown, CSV, JSON and the summary always agree.
#pragma once

#include "core/rung.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::lab {

// The peak that bounds a study.
enum class Bound {
  dram_copy,   // DRAM read + write: a device-to-device cudaMemcpy
  dram_read,   // DRAM read only: a streaming read kernel
  fp32_fma,    // FP32 fused multiply-add: clock x SMs x FP32 lanes x 2 flops
  host_link,   // the host link (PCIe or NVLink-C2C), one direction: a pinned cudaMemcpy
  instruction, // one instruction's issue rate: operations per second
};

enum class Unit { bytes_per_second, flops_per_second, ops_per_second };

std::string_view bound_name(Bound bound);
std::string_view unit_name(Unit unit); // "B/s", "FLOP/s", "op/s"
Unit unit_of(Bound bound);

// What one operation (one launch of a rung) must do. Bytes count each input read once and each
// output written once; a rung that moves more is slower, not credited.
struct Work {
  double elements = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  double flops = 0;
  double ops = 0;
  std::string formula; // how the counted quantity follows from the parameters, for the header
  double amount(Unit unit) const; // bytes read + written, flops or ops
};

// A peak in base units per second (B/s, FLOP/s, op/s). `measured` is what "% of peak" divides by
// (0 when it was not measured: then the theoretical one is used and the table says so).
struct Peak {
  Bound bound = Bound::dram_copy;
  double theoretical = 0;
  double measured = 0;
  std::string theoretical_from; // "memory clock x bus width x 2"
  std::string measured_by;      // "device-to-device cudaMemcpy of 2 GiB"
  double reference() const { return measured > 0 ? measured : theoretical; }
};

struct Measurement {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int samples = 0;
};

// wrong_as_taught: a rung the course material itself shows failing (the slides' launch on a size
// it does not handle): reported wrong and never timed, but not a failure of the run.
enum class CheckStatus { passed, wrong, skipped, wrong_as_taught };
std::string_view check_label(CheckStatus status);
// Whether a row is shown as wrong (wrong, or wrong as the material teaches it).
inline bool shows_wrong(CheckStatus s) {
  return s == CheckStatus::wrong || s == CheckStatus::wrong_as_taught;
}

struct Row {
  std::string
      label; // the rung's number in the story, as `ladder list` prints it ("7", "12b", "lib")
  std::string name;
  std::string idea;
  Role role = Role::beyond;
  std::string variant_of; // variant rows: the story rung they tune
  bool vendor = false;    // reference rows: a vendor library rather than a bound
  nlohmann::json params = nlohmann::json::object(); // the rung's typed tuning parameters
  CheckStatus check = CheckStatus::skipped;
  std::string note; // why skipped, or what was wrong
  // One entry per column group of the table (e.g. "loop over launches", "loop in kernel");
  // empty when that mode does not apply to the row or the row was not timed.
  std::vector<std::optional<Measurement>> timings;
  // This row's own bound in the table's unit, where rows are bounded differently (a table of
  // instructions: each one's nominal rate); unset: the table's peak.
  std::optional<double> peak;
};

// A row for `info` with `groups` empty timing slots.
Row make_row(const RungInfo& info, std::string label, std::size_t groups);

// The numbers `ladder list`, the tables and the docs give a registry's rungs: story rungs 1, 2,
// ..; a variant its rung's number and a letter (12a, 12b); "lib" and "ref" for the others.
std::vector<std::string> rung_labels(const std::vector<RungInfo>& rungs);

// A figure a study derives per row beyond time and throughput (op/clock/SM, cycles, ULP,
// occupancy): read from row.params[key], printed as one more column headed `header`.
struct Column {
  std::string key;
  std::string header;
};

struct Table {
  std::string study;                                // "transpose"
  std::string title;                                // "transpose 16384 x 16384 float"
  std::string case_label;                           // "the course's size; fits in L2" or ""
  nlohmann::json params = nlohmann::json::object(); // typed axes: {"rows": 16384, "type": "float"}
  bool headline = false; // the table the closing summary quotes for its study
  Work work;
  Peak peak;
  std::vector<std::string> groups; // column-group names, at least one
  std::vector<Row> rows;
  std::vector<std::string> footnotes; // prose only: figures belong in rows, params or work
  std::vector<Column> columns;        // derived figures after the standard ones
  // false: the rows are separate measurements, not a ladder (no step or cumulative speedup).
  bool speedups = true;
};

// A table none of whose rows was timed (figures in columns only): no time, throughput or bound.
bool untimed(const Table& table);

// Derived figures of one row in one column group. Every ratio is "higher is better".
struct RowMetrics {
  std::optional<double> time_ms;
  std::optional<double> throughput; // per second, in unit_of(table.peak.bound)
  std::optional<double> percent_of_peak;
  // Story rungs: against the previous timed story rung; variants: against the rung they tune.
  std::optional<double> step_speedup;
  // Against the first timed story rung (the story's start), for every row but references.
  std::optional<double> cumulative_speedup;
  std::vector<std::optional<double>> vs_reference; // reference time / this time, per reference
};

std::vector<std::size_t> reference_rows(const Table& table);
std::vector<RowMetrics> compute_metrics(const Table& table, std::size_t group);
// Throughput of `amount` units done in `milliseconds`, per second.
double per_second(double amount, double milliseconds);

// A size sweep: for each size, the library call and the vendor measured in the same run, and
// their ratios ("x vendor" = vendor time / ours: above 1 we are faster).
struct SweepSeries {
  std::string name; // "int32 ladder::reduce"
  Role role = Role::library;
};
struct SweepRatio {
  std::string label;                // "int32 x CUB"
  std::size_t ours = 0, vendor = 0; // indexes into series
};
struct SweepPoint {
  std::int64_t size = 0;
  std::string label;                             // "2^20"
  std::vector<std::optional<Measurement>> times; // one per series; empty when not timed
  std::vector<CheckStatus> checks;               // one per series
};
struct Sweep {
  std::string study;
  std::string title;
  std::string parameter = "n";
  nlohmann::json params =
      nlohmann::json::object(); // typed facts of the sweep (e.g. a launch floor)
  std::vector<SweepSeries> series;
  std::vector<SweepRatio> ratios;
  std::vector<SweepPoint> points;
  std::vector<std::string> footnotes;
};

std::optional<double> sweep_ratio(const SweepPoint& point, const SweepRatio& ratio);

// Everything one study's run produced.
struct StudyResults {
  std::vector<Table> tables;
  std::vector<Sweep> sweeps;
};

// One line of the closing summary, derived from a study's headline table and its sweeps.
struct SummaryLine {
  std::string study;
  std::string library, vendor;             // row names; empty when the table has none
  std::optional<double> library_vs_vendor; // vendor time / library time (> 1: ours is faster)
  std::string best_rung; // the fastest correct row built past the course (else of the course's)
  std::optional<double> best_percent_of_peak;
  Bound bound = Bound::dram_copy;
  std::string headline; // the table's title
  // Over every sweep point and every ratio against a reference series: the lowest and highest
  // "x vendor".
  std::optional<double> sweep_min, sweep_max;
  std::string sweep_min_at, sweep_max_at;
  int wrong = 0; // WRONG rows in any table of the study
};

SummaryLine summarize(const std::string& study, const StudyResults& results);

} // namespace ladder::lab
