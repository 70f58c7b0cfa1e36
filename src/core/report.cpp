#include "core/report.hpp"

#include "core/sizes.hpp"
#include "core/text_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace ladder::lab {

namespace {

constexpr std::size_t text_width = 118; // prose lines; tables are kept under 120 columns

std::string speedup(std::optional<double> value) { return format_fixed(value, 2, "x"); }

// Word-wraps `text` to text_width, each line starting with `indent`.
std::string wrap(const std::string& text, const std::string& indent) {
  std::istringstream words(text);
  std::string word, line, out;
  while (words >> word) {
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > text_width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty())
    out += indent + line + "\n";
  return out;
}

std::string amount_text(double amount, Unit unit) {
  const char* base = unit == Unit::bytes_per_second   ? "B"
                     : unit == Unit::flops_per_second ? "FLOP"
                                                      : "op";
  char buffer[64];
  if (amount >= 1e9)
    std::snprintf(buffer, sizeof buffer, "%.3f G%s", amount / 1e9, base);
  else if (amount >= 1e6)
    std::snprintf(buffer, sizeof buffer, "%.3f M%s", amount / 1e6, base);
  else if (amount >= 1e3)
    std::snprintf(buffer, sizeof buffer, "%.3f k%s", amount / 1e3, base);
  else
    std::snprintf(buffer, sizeof buffer, "%.0f %s", amount, base);
  return buffer;
}

std::string rate_text(double rate, const ThroughputScale& scale) {
  return format_figure(rate / scale.divisor) + " " + scale.header;
}

// The lines above a table: what one run does and the peak that bounds it.
std::string describe(const Table& table) {
  if (untimed(table))
    return "";
  const Unit unit = unit_of(table.peak.bound);
  const ThroughputScale scale = throughput_scale(unit, table.peak.reference());
  std::string work =
      "work per run: " + table.work.formula + " = " + amount_text(table.work.amount(unit), unit);
  std::string bound = "bound: " + std::string(bound_name(table.peak.bound)) + ", ";
  if (table.peak.measured > 0)
    bound += "measured " + rate_text(table.peak.measured, scale) +
             (table.peak.measured_by.empty() ? "" : " (" + table.peak.measured_by + ")") + ", ";
  else
    bound += "not measured, ";
  bound += "theoretical " + rate_text(table.peak.theoretical, scale) +
           (table.peak.theoretical_from.empty() ? "" : " (" + table.peak.theoretical_from + ")");
  if (table.peak.measured <= 0)
    bound += "; % peak is of the theoretical one";
  return wrap(work, "") + wrap(bound, "");
}

struct Layout {
  std::vector<std::size_t> refs;
  std::vector<std::vector<RowMetrics>> metrics; // per group
  ThroughputScale scale;
};

Layout layout(const Table& table) {
  Layout l;
  l.refs = reference_rows(table);
  for (std::size_t g = 0; g < table.groups.size(); ++g)
    l.metrics.push_back(compute_metrics(table, g));
  l.scale = throughput_scale(unit_of(table.peak.bound), table.peak.reference());
  return l;
}

std::string row_label(const Row& row) {
  return row.label.empty() ? std::string(role_name(row.role)) : row.label;
}

std::vector<std::string> main_header(const Table& table, const Layout& l) {
  std::vector<std::string> header = {"#", "rung", "check"};
  if (!untimed(table))
    header.insert(header.end(), {"time", l.scale.header, "% peak"});
  if (table.speedups && !untimed(table))
    header.insert(header.end(), {"step", "cumul"});
  for (auto r : l.refs)
    header.push_back("x " + short_reference_name(table.rows[r].name));
  for (const auto& c : table.columns)
    header.push_back(c.header);
  return header;
}

// A derived figure of row.params: numbers as figures, text as it is, "-" when absent.
std::string column_cell(const Row& row, const Column& column) {
  if (!row.params.contains(column.key))
    return "-";
  const auto& v = row.params.at(column.key);
  if (v.is_number_integer())
    return v.dump();
  if (v.is_number())
    return format_figure(v.get<double>());
  if (v.is_string())
    return v.get<std::string>();
  return v.is_null() ? "-" : v.dump();
}

std::vector<std::string> main_cells(const Table& table, const Layout& l, std::size_t i,
                                    std::size_t group) {
  const Row& row = table.rows[i];
  const RowMetrics& m = l.metrics[group][i];
  std::vector<std::string> cells = {row_label(row), row.name, std::string(check_label(row.check))};
  if (!untimed(table))
    cells.insert(cells.end(), {m.time_ms ? format_time(*m.time_ms) : "-",
                               format_figure(m.throughput
                                                 ? std::optional(*m.throughput / l.scale.divisor)
                                                 : std::nullopt),
                               format_fixed(m.percent_of_peak, 1)});
  if (table.speedups && !untimed(table))
    cells.insert(cells.end(), {speedup(m.step_speedup), speedup(m.cumulative_speedup)});
  for (const auto& ratio : m.vs_reference)
    cells.push_back(format_fixed(ratio, 2));
  for (const auto& c : table.columns)
    cells.push_back(column_cell(row, c));
  return cells;
}

std::string ratio_legend(const Table& table, const Layout& l) {
  if (!table.speedups || untimed(table))
    return "";
  std::string legend = "ratios (higher is better): step = the previous story rung's time / this "
                       "time (a variant: the "
                       "rung it tunes), cumul = the first rung's time / this time";
  for (auto r : l.refs)
    legend += ", x " + short_reference_name(table.rows[r].name) + " = " + table.rows[r].name +
              " time / this time";
  return legend;
}

std::string notes_text(const Table& table) {
  std::string out;
  for (const Row& row : table.rows)
    if (!row.note.empty())
      out += wrap(row.name + ": " + row.note, "  ");
  for (const auto& note : table.footnotes)
    out += wrap("note: " + note, "  ");
  return out;
}

} // namespace

std::string format_fixed(std::optional<double> value, int decimals, const char* suffix) {
  if (!value || !std::isfinite(*value))
    return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f%s", decimals, *value, suffix);
  return buffer;
}

std::string format_figure(std::optional<double> value) {
  if (!value || !std::isfinite(*value))
    return "-";
  const double v = std::fabs(*value);
  return format_fixed(value, v >= 100 ? 0 : v >= 10 ? 1 : v >= 1 ? 2 : 3);
}

std::string format_exact(std::optional<double> value) {
  if (!value || !std::isfinite(*value))
    return "";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9g", *value);
  return buffer;
}

std::string wrap_text(const std::string& text, const std::string& indent) {
  return wrap(text, indent);
}

std::string format_time(double ms) {
  char buffer[64];
  const double s = ms * 1e-3;
  if (s >= 1)
    std::snprintf(buffer, sizeof buffer, "%.4g s", s);
  else if (ms >= 1)
    std::snprintf(buffer, sizeof buffer, "%.4g ms", ms);
  else if (ms >= 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.4g us", ms * 1e3);
  else
    std::snprintf(buffer, sizeof buffer, "%.4g ns", ms * 1e6);
  return buffer;
}

ThroughputScale throughput_scale(Unit unit, double peak) {
  switch (unit) {
  case Unit::bytes_per_second:
    return {"GB/s", 1e9};
  case Unit::flops_per_second:
    return peak >= 1e12 ? ThroughputScale{"TFLOP/s", 1e12} : ThroughputScale{"GFLOP/s", 1e9};
  case Unit::ops_per_second:
    return peak >= 1e12 ? ThroughputScale{"Top/s", 1e12} : ThroughputScale{"Gop/s", 1e9};
  }
  return {"?", 1};
}

std::string short_reference_name(const std::string& name) {
  const auto colon = name.find("::");
  return colon == std::string::npos ? name : name.substr(0, colon);
}

std::string format_text(const Table& table) {
  const Layout l = layout(table);
  std::string out = "== " + table.title + " ==";
  if (!table.case_label.empty()) {
    const std::string label = "[" + table.case_label + "]";
    out +=
        out.size() + 2 + label.size() <= text_width ? "  " + label + "\n" : "\n" + wrap(label, "");
  } else {
    out += "\n";
  }
  out += describe(table);
  std::ostringstream grid;
  {
    TextTable t(main_header(table, l), 3);
    for (std::size_t i = 0; i < table.rows.size(); ++i)
      t.add(main_cells(table, l, i, 0));
    if (table.groups.size() > 1)
      grid << "[1] " << table.groups[0] << "\n";
    t.print(grid);
  }
  // Further column groups as narrow blocks of their own, so no line passes 120 columns.
  for (std::size_t g = 1; g < table.groups.size(); ++g) {
    TextTable t({"#", "rung", "time", l.scale.header, "% peak"}, 2);
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
      const RowMetrics& m = l.metrics[g][i];
      if (!m.time_ms)
        continue;
      t.add({row_label(table.rows[i]), table.rows[i].name, format_time(*m.time_ms),
             format_figure(m.throughput ? std::optional(*m.throughput / l.scale.divisor)
                                        : std::nullopt),
             format_fixed(m.percent_of_peak, 1)});
    }
    grid << "\n[" << g + 1 << "] " << table.groups[g] << "\n";
    t.print(grid);
  }
  out += grid.str();
  out += wrap(ratio_legend(table, l), "  ");
  out += notes_text(table);
  return out;
}

std::string format_tuning_text(const Table& table) {
  const auto m = compute_metrics(table, 0);
  std::string out;
  for (std::size_t p = 0; p < table.rows.size(); ++p) {
    const Row& parent = table.rows[p];
    std::vector<std::size_t> members = {p};
    for (std::size_t v = 0; v < table.rows.size(); ++v)
      if (table.rows[v].role == Role::variant && table.rows[v].variant_of == parent.name)
        members.push_back(v);
    if (members.size() == 1)
      continue;
    std::vector<std::string> keys;
    for (auto i : members)
      for (const auto& [key, value] : table.rows[i].params.items())
        if (value.is_number_integer() && std::find(keys.begin(), keys.end(), key) == keys.end())
          keys.push_back(key);
    std::vector<std::string> header = {"#", "shape"};
    header.insert(header.end(), keys.begin(), keys.end());
    header.insert(header.end(), {"time", "% peak", "x " + parent.label});
    TextTable t(header, 2);
    for (auto i : members) {
      const Row& row = table.rows[i];
      std::vector<std::string> cells = {row.label, row.name};
      for (const auto& key : keys)
        cells.push_back(row.params.contains(key) ? row.params.at(key).dump() : "-");
      cells.push_back(m[i].time_ms ? format_time(*m[i].time_ms)
                                   : std::string(check_label(row.check)));
      cells.push_back(format_fixed(m[i].percent_of_peak, 1));
      cells.push_back(i == p ? "1.00x" : speedup(m[i].step_speedup));
      t.add(std::move(cells));
    }
    std::ostringstream grid;
    t.print(grid);
    out += "tuning " + parent.label + " " + parent.name + ":\n" + grid.str() + "\n";
  }
  return out;
}

std::string format_markdown(const Table& table) {
  const Layout l = layout(table);
  std::string out = "### " + table.title + "\n\n";
  if (!table.case_label.empty())
    out += "*" + table.case_label + "*\n\n";
  // One bullet per line of the header: Markdown would run them into one paragraph.
  std::istringstream header(describe(table));
  std::string bullets;
  for (std::string part; std::getline(header, part);) {
    const bool starts = part.rfind("work per run:", 0) == 0 || part.rfind("bound:", 0) == 0;
    if (starts && !bullets.empty())
      bullets += "\n";
    bullets += (starts ? "- " : " ") + part;
  }
  out += bullets + "\n";
  for (std::size_t g = 0; g < table.groups.size(); ++g) {
    out += "\n";
    if (table.groups.size() > 1)
      out += "**" + table.groups[g] + "**\n\n";
    const auto header = main_header(table, l);
    out += "|";
    for (const auto& h : header)
      out += " " + h + " |";
    out += "\n|";
    for (std::size_t c = 0; c < header.size(); ++c)
      out += c < 3 ? " --- |" : " ---: |";
    out += "\n";
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
      out += "|";
      for (const auto& cell : main_cells(table, l, i, g))
        out += " " + cell + " |";
      out += "\n";
    }
  }
  if (const std::string legend = ratio_legend(table, l); !legend.empty())
    out += "\n" + legend + ".\n";
  for (const Row& row : table.rows)
    if (!row.note.empty())
      out += "- " + row.name + ": " + row.note + "\n";
  for (const auto& note : table.footnotes)
    out += "- " + note + "\n";
  return out + "\n";
}

namespace {
std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

} // namespace

std::string format_csv(const Table& table, bool header) {
  std::string out;
  if (header)
    out +=
        "study,table,group,label,rung,role,check,median_ms,min_ms,max_ms,samples,throughput,unit,"
        "percent_of_peak,step_speedup,cumulative_speedup,peak_measured,peak_theoretical,note\n";
  const Unit unit = unit_of(table.peak.bound);
  for (std::size_t g = 0; g < table.groups.size(); ++g) {
    const auto metrics = compute_metrics(table, g);
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
      const Row& row = table.rows[i];
      const RowMetrics& m = metrics[i];
      const auto& t = g < row.timings.size() ? row.timings[g] : std::nullopt;
      out += csv_escape(table.study) + "," + csv_escape(table.title) + "," +
             csv_escape(table.groups[g]) + "," + csv_escape(row.label) + "," +
             csv_escape(row.name) + "," + std::string(role_name(row.role)) + "," +
             std::string(check_label(row.check)) + "," + format_exact(m.time_ms) + "," +
             format_exact(t ? std::optional(t->min_ms) : std::nullopt) + "," +
             format_exact(t ? std::optional(t->max_ms) : std::nullopt) + "," +
             (t ? std::to_string(t->samples) : std::string()) + "," + format_exact(m.throughput) +
             "," + std::string(unit_name(unit)) + "," + format_exact(m.percent_of_peak) + "," +
             format_exact(m.step_speedup) + "," + format_exact(m.cumulative_speedup) + "," +
             format_exact(table.peak.measured) + "," + format_exact(table.peak.theoretical) + "," +
             csv_escape(row.note) + "\n";
    }
  }
  return out;
}

namespace {
nlohmann::json opt(std::optional<double> v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
} // namespace

nlohmann::json to_json(const Table& table) {
  using nlohmann::json;
  const auto refs = reference_rows(table);
  std::vector<std::vector<RowMetrics>> metrics;
  for (std::size_t g = 0; g < table.groups.size(); ++g)
    metrics.push_back(compute_metrics(table, g));
  json rows = json::array();
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const Row& row = table.rows[i];
    json groups = json::array();
    for (std::size_t g = 0; g < table.groups.size(); ++g) {
      const RowMetrics& m = metrics[g][i];
      const auto& t = g < row.timings.size() ? row.timings[g] : std::nullopt;
      json vs = json::object();
      for (std::size_t k = 0; k < refs.size(); ++k)
        vs[table.rows[refs[k]].name] = opt(m.vs_reference[k]);
      groups.push_back({{"group", table.groups[g]},
                        {"median_ms", opt(m.time_ms)},
                        {"min_ms", t ? json(t->min_ms) : json(nullptr)},
                        {"max_ms", t ? json(t->max_ms) : json(nullptr)},
                        {"samples", t ? json(t->samples) : json(nullptr)},
                        {"throughput", opt(m.throughput)},
                        {"percent_of_peak", opt(m.percent_of_peak)},
                        {"step_speedup", opt(m.step_speedup)},
                        {"cumulative_speedup", opt(m.cumulative_speedup)},
                        {"vs_reference", vs}});
    }
    rows.push_back({{"label", row.label},
                    {"name", row.name},
                    {"idea", row.idea},
                    {"role", role_name(row.role)},
                    {"variant_of", row.variant_of},
                    {"vendor", row.vendor},
                    {"params", row.params},
                    {"check", check_label(row.check)},
                    {"note", row.note},
                    {"peak", row.peak ? json(*row.peak) : json(nullptr)},
                    {"timings", groups}});
  }
  json columns = json::array();
  for (const auto& c : table.columns)
    columns.push_back({{"key", c.key}, {"header", c.header}});
  const Unit unit = unit_of(table.peak.bound);
  return {{"study", table.study},
          {"title", table.title},
          {"case_label", table.case_label},
          {"headline", table.headline},
          {"params", table.params},
          {"work",
           {{"elements", table.work.elements},
            {"bytes_read", table.work.bytes_read},
            {"bytes_written", table.work.bytes_written},
            {"flops", table.work.flops},
            {"ops", table.work.ops},
            {"formula", table.work.formula}}},
          {"peak",
           {{"bound", bound_name(table.peak.bound)},
            {"unit", unit_name(unit)},
            {"theoretical", table.peak.theoretical},
            {"measured", table.peak.measured},
            {"theoretical_from", table.peak.theoretical_from},
            {"measured_by", table.peak.measured_by}}},
          {"groups", table.groups},
          {"rows", rows},
          {"columns", columns},
          {"speedups", table.speedups},
          {"footnotes", table.footnotes}};
}

namespace {

std::vector<std::string> sweep_header(const Sweep& sweep) {
  std::vector<std::string> header = {sweep.parameter};
  for (const auto& s : sweep.series)
    header.push_back(s.name);
  for (const auto& r : sweep.ratios)
    header.push_back(r.label);
  return header;
}

std::vector<std::string> sweep_cells(const Sweep& sweep, const SweepPoint& p) {
  std::vector<std::string> cells = {p.label};
  for (std::size_t s = 0; s < sweep.series.size(); ++s) {
    const bool wrong = s < p.checks.size() && shows_wrong(p.checks[s]);
    cells.push_back(wrong                              ? "WRONG"
                    : s < p.times.size() && p.times[s] ? format_time(p.times[s]->median_ms)
                                                       : "-");
  }
  for (const auto& r : sweep.ratios)
    cells.push_back(format_fixed(sweep_ratio(p, r), 2));
  return cells;
}

std::string sweep_legend(const Sweep& sweep) {
  std::string legend = "median time per call; ";
  for (std::size_t i = 0; i < sweep.ratios.size(); ++i)
    legend += (i ? ", " : "") + sweep.ratios[i].label + " = " +
              sweep.series[sweep.ratios[i].vendor].name + " time / " +
              sweep.series[sweep.ratios[i].ours].name + " time";
  return legend + " (above 1: ours is faster)";
}

} // namespace

std::string format_text(const Sweep& sweep) {
  std::string out = "== " + sweep.title + " ==\n";
  std::ostringstream grid;
  TextTable t(sweep_header(sweep), 1);
  for (const auto& p : sweep.points)
    t.add(sweep_cells(sweep, p));
  t.print(grid);
  out += grid.str() + wrap(sweep_legend(sweep), "  ");
  for (const auto& note : sweep.footnotes)
    out += wrap("note: " + note, "  ");
  return out;
}

std::string format_markdown(const Sweep& sweep) {
  std::string out = "### " + sweep.title + "\n\n|";
  const auto header = sweep_header(sweep);
  for (const auto& h : header)
    out += " " + h + " |";
  out += "\n|";
  for (std::size_t c = 0; c < header.size(); ++c)
    out += c == 0 ? " --- |" : " ---: |";
  out += "\n";
  for (const auto& p : sweep.points) {
    out += "|";
    for (const auto& cell : sweep_cells(sweep, p))
      out += " " + cell + " |";
    out += "\n";
  }
  out += "\n" + sweep_legend(sweep) + ".\n";
  for (const auto& note : sweep.footnotes)
    out += "- " + note + "\n";
  return out + "\n";
}

nlohmann::json to_json(const Sweep& sweep) {
  using nlohmann::json;
  json series = json::array();
  for (const auto& s : sweep.series)
    series.push_back({{"name", s.name}, {"role", role_name(s.role)}});
  json ratios = json::array();
  for (const auto& r : sweep.ratios)
    ratios.push_back({{"label", r.label},
                      {"ours", sweep.series[r.ours].name},
                      {"vendor", sweep.series[r.vendor].name}});
  json points = json::array();
  for (const auto& p : sweep.points) {
    json times = json::array();
    for (std::size_t s = 0; s < sweep.series.size(); ++s) {
      const auto& t = s < p.times.size() ? p.times[s] : std::nullopt;
      times.push_back(
          {{"series", sweep.series[s].name},
           {"check", check_label(s < p.checks.size() ? p.checks[s] : CheckStatus::skipped)},
           {"median_ms", t ? json(t->median_ms) : json(nullptr)},
           {"min_ms", t ? json(t->min_ms) : json(nullptr)},
           {"max_ms", t ? json(t->max_ms) : json(nullptr)},
           {"samples", t ? json(t->samples) : json(nullptr)}});
    }
    json x = json::object();
    for (const auto& r : sweep.ratios)
      x[r.label] = opt(sweep_ratio(p, r));
    points.push_back(
        {{sweep.parameter, p.size}, {"label", p.label}, {"times", times}, {"ratios", x}});
  }
  return {{"study", sweep.study},
          {"title", sweep.title},
          {"parameter", sweep.parameter},
          {"params", sweep.params},
          {"series", series},
          {"ratios", ratios},
          {"points", points},
          {"footnotes", sweep.footnotes}};
}

namespace {

std::string percent_of(const SummaryLine& s) {
  return s.best_percent_of_peak
             ? format_fixed(s.best_percent_of_peak, 1) + "% of " + std::string(bound_name(s.bound))
             : "-";
}

std::string sweep_range(const SummaryLine& s) {
  if (!s.sweep_min)
    return "-";
  return format_fixed(s.sweep_min, 2, "x") + " .. " + format_fixed(s.sweep_max, 2, "x");
}

std::vector<std::string> summary_cells(const SummaryLine& s) {
  return {s.study,
          s.library.empty() ? "-" : s.library,
          s.library_vs_vendor
              ? format_fixed(s.library_vs_vendor, 2, "x") + " " + short_reference_name(s.vendor)
              : "-",
          s.best_rung.empty() ? "-" : s.best_rung,
          percent_of(s),
          sweep_range(s)};
}

const std::vector<std::string> summary_header = {"study",     "library call", "x vendor",
                                                 "best rung", "of its bound", "sweep x vendor"};

} // namespace

std::string format_summary_text(const std::vector<SummaryLine>& lines) {
  std::ostringstream grid;
  TextTable t(summary_header, 2);
  for (const auto& s : lines)
    t.add(summary_cells(s));
  t.print(grid);
  std::string out = "== summary ==\n" + grid.str();
  out += wrap(
      "x vendor = the vendor library's time / the library call's time at the study's headline size "
      "(above 1: ladder is faster); best rung = the fastest correct rung there, as % of the peak "
      "that "
      "bounds the study; sweep x vendor = the lowest and highest ratio over the size sweep",
      "  ");
  for (const auto& s : lines) {
    if (s.sweep_min)
      out += wrap(
          s.study + ": sweep lowest at " + s.sweep_min_at + ", highest at " + s.sweep_max_at, "  ");
    if (s.wrong > 0)
      out += "  " + s.study + ": " + std::to_string(s.wrong) + " WRONG row(s)\n";
  }
  return out;
}

std::string format_summary_markdown(const std::vector<SummaryLine>& lines) {
  std::string out = "## Summary\n\n|";
  for (const auto& h : summary_header)
    out += " " + h + " |";
  out += "\n| --- | --- | ---: | --- | ---: | ---: |\n";
  for (const auto& s : lines) {
    out += "|";
    for (const auto& cell : summary_cells(s))
      out += " " + cell + " |";
    out += "\n";
  }
  return out + "\n";
}

namespace {

template <class Enum, std::size_t N>
Enum enum_from(const nlohmann::json& j, const char* field, const std::array<Enum, N>& all,
               std::string_view (*name)(Enum)) {
  const std::string text = j.at(field).get<std::string>();
  for (Enum e : all)
    if (name(e) == text)
      return e;
  throw std::invalid_argument(std::string("unknown ") + field + " '" + text + "'");
}

const std::array<Role, 5> all_roles = {Role::seed, Role::beyond, Role::variant, Role::library,
                                       Role::reference};
const std::array<CheckStatus, 4> all_checks = {CheckStatus::passed, CheckStatus::wrong,
                                               CheckStatus::skipped, CheckStatus::wrong_as_taught};
const std::array<Bound, 5> all_bounds = {Bound::dram_copy, Bound::dram_read, Bound::fp32_fma,
                                         Bound::host_link, Bound::instruction};

double number_or(const nlohmann::json& j, const char* field, double fallback) {
  return j.contains(field) && j.at(field).is_number() ? j.at(field).get<double>() : fallback;
}

std::optional<Measurement> measurement_from(const nlohmann::json& j) {
  if (!j.contains("median_ms") || !j.at("median_ms").is_number())
    return std::nullopt;
  Measurement m;
  m.median_ms = j.at("median_ms").get<double>();
  m.min_ms = number_or(j, "min_ms", m.median_ms);
  m.max_ms = number_or(j, "max_ms", m.median_ms);
  m.samples = static_cast<int>(number_or(j, "samples", 0));
  return m;
}

template <class F> auto parsing(const char* what, F&& body) {
  try {
    return body();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string(what) + ": " + e.what());
  }
}

} // namespace

Table table_from_json(const nlohmann::json& j) {
  return parsing("table", [&] {
    Table t;
    t.study = j.at("study").get<std::string>();
    t.title = j.at("title").get<std::string>();
    t.case_label = j.value("case_label", "");
    t.params = j.value("params", nlohmann::json::object());
    t.headline = j.value("headline", false);
    const auto& w = j.at("work");
    t.work.elements = w.value("elements", 0.0);
    t.work.bytes_read = w.value("bytes_read", 0.0);
    t.work.bytes_written = w.value("bytes_written", 0.0);
    t.work.flops = w.value("flops", 0.0);
    t.work.ops = w.value("ops", 0.0);
    t.work.formula = w.value("formula", "");
    const auto& p = j.at("peak");
    t.peak.bound = enum_from(p, "bound", all_bounds, bound_name);
    t.peak.theoretical = p.value("theoretical", 0.0);
    t.peak.measured = p.value("measured", 0.0);
    t.peak.theoretical_from = p.value("theoretical_from", "");
    t.peak.measured_by = p.value("measured_by", "");
    t.groups = j.at("groups").get<std::vector<std::string>>();
    for (const auto& r : j.at("rows")) {
      Row row;
      row.label = r.value("label", "");
      row.name = r.at("name").get<std::string>();
      row.idea = r.value("idea", "");
      row.role = enum_from(r, "role", all_roles, role_name);
      row.variant_of = r.value("variant_of", "");
      row.vendor = r.value("vendor", false);
      row.params = r.value("params", nlohmann::json::object());
      row.check = enum_from(r, "check", all_checks, check_label);
      row.note = r.value("note", "");
      if (r.contains("peak") && r.at("peak").is_number())
        row.peak = r.at("peak").get<double>();
      row.timings.resize(t.groups.size());
      const auto& timings = r.at("timings");
      for (std::size_t g = 0; g < t.groups.size() && g < timings.size(); ++g)
        row.timings[g] = measurement_from(timings[g]);
      t.rows.push_back(std::move(row));
    }
    t.footnotes = j.value("footnotes", std::vector<std::string>{});
    for (const auto& c : j.value("columns", nlohmann::json::array()))
      t.columns.push_back({c.at("key").get<std::string>(), c.at("header").get<std::string>()});
    t.speedups = j.value("speedups", true);
    return t;
  });
}

Sweep sweep_from_json(const nlohmann::json& j) {
  return parsing("sweep", [&] {
    Sweep s;
    s.study = j.at("study").get<std::string>();
    s.title = j.at("title").get<std::string>();
    s.parameter = j.value("parameter", "n");
    s.params = j.value("params", nlohmann::json::object());
    for (const auto& series : j.at("series"))
      s.series.push_back(
          {series.at("name").get<std::string>(), enum_from(series, "role", all_roles, role_name)});
    const auto index = [&](const std::string& name) {
      for (std::size_t i = 0; i < s.series.size(); ++i)
        if (s.series[i].name == name)
          return i;
      throw std::invalid_argument("sweep ratio names an unknown series '" + name + "'");
    };
    for (const auto& r : j.at("ratios"))
      s.ratios.push_back({r.at("label").get<std::string>(), index(r.at("ours").get<std::string>()),
                          index(r.at("vendor").get<std::string>())});
    for (const auto& p : j.at("points")) {
      SweepPoint point;
      point.size = p.at(s.parameter).get<std::int64_t>();
      point.label = p.value("label", count_label(point.size));
      for (const auto& t : p.at("times")) {
        point.times.push_back(measurement_from(t));
        point.checks.push_back(enum_from(t, "check", all_checks, check_label));
      }
      s.points.push_back(std::move(point));
    }
    s.footnotes = j.value("footnotes", std::vector<std::string>{});
    return s;
  });
}

nlohmann::json to_json(const SummaryLine& s) {
  return {{"study", s.study},
          {"headline", s.headline},
          {"library", s.library},
          {"vendor", s.vendor},
          {"library_vs_vendor", opt(s.library_vs_vendor)},
          {"best_rung", s.best_rung},
          {"best_percent_of_peak", opt(s.best_percent_of_peak)},
          {"bound", bound_name(s.bound)},
          {"sweep_min", opt(s.sweep_min)},
          {"sweep_min_at", s.sweep_min_at},
          {"sweep_max", opt(s.sweep_max)},
          {"sweep_max_at", s.sweep_max_at},
          {"wrong_rows", s.wrong}};
}

} // namespace ladder::lab
