#include "core/report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace ladder::lab {

double bandwidth_gbs(double bytes, double milliseconds) {
  return milliseconds > 0 ? bytes / (milliseconds * 1e-3) / 1e9 : 0.0;
}

namespace {

std::optional<double> row_time(const Row& row, std::size_t group) {
  if (row.check != CheckStatus::passed || group >= row.timings.size() || !row.timings[group])
    return std::nullopt;
  return row.timings[group]->median_ms;
}

std::string fixed(std::optional<double> value, int decimals, const char* suffix = "") {
  if (!value)
    return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f%s", decimals, *value, suffix);
  return buffer;
}

std::vector<std::size_t> reference_rows(const Table& table) {
  std::vector<std::size_t> refs;
  for (std::size_t i = 0; i < table.rows.size(); ++i)
    if (table.rows[i].is_reference)
      refs.push_back(i);
  return refs;
}

// The cells of the table, shared by the text and Markdown renderers.
struct Grid {
  std::vector<std::string> group_header; // one per column (group name on its first column)
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> body;
};

Grid build_grid(const Table& table) {
  Grid grid;
  const auto refs = reference_rows(table);
  grid.header = {"rung", "check"};
  grid.group_header = {"", ""};
  for (std::size_t g = 0; g < table.groups.size(); ++g) {
    std::vector<std::string> cols = {"time ms", "GB/s", "% peak", "step", "cumul"};
    if (g == 0)
      for (auto r : refs)
        cols.push_back("x " + table.rows[r].name);
    for (std::size_t c = 0; c < cols.size(); ++c) {
      grid.header.push_back(cols[c]);
      grid.group_header.push_back(c == 0 ? table.groups[g] : "");
    }
  }
  std::vector<std::vector<RowMetrics>> metrics;
  for (std::size_t g = 0; g < table.groups.size(); ++g)
    metrics.push_back(compute_metrics(table, g));
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const Row& row = table.rows[i];
    std::vector<std::string> cells = {row.is_reference ? "[ref] " + row.name : row.name,
                                      check_label(row)};
    for (std::size_t g = 0; g < table.groups.size(); ++g) {
      const RowMetrics& m = metrics[g][i];
      cells.push_back(fixed(m.time_ms, 4));
      cells.push_back(fixed(m.bandwidth_gbs, 1));
      cells.push_back(fixed(m.percent_of_peak, 1));
      cells.push_back(fixed(m.step_speedup, 2, "x"));
      cells.push_back(fixed(m.cumulative_speedup, 2, "x"));
      if (g == 0)
        for (const auto& ratio : m.vs_reference)
          cells.push_back(fixed(ratio, 3));
    }
    grid.body.push_back(std::move(cells));
  }
  return grid;
}

std::string describe_case(const Table& table) {
  std::ostringstream out;
  char bytes[64];
  if (table.bytes_moved >= 1e9)
    std::snprintf(bytes, sizeof bytes, "%.3f GB", table.bytes_moved / 1e9);
  else if (table.bytes_moved >= 1e6)
    std::snprintf(bytes, sizeof bytes, "%.3f MB", table.bytes_moved / 1e6);
  else
    std::snprintf(bytes, sizeof bytes, "%.3f kB", table.bytes_moved / 1e3);
  out << "bytes per run: " << table.bytes_formula << " = " << bytes
      << "; measured peak (device-to-device cudaMemcpy, read + write) "
      << fixed(table.measured_peak_gbs, 1) << " GB/s, theoretical "
      << fixed(table.theoretical_peak_gbs, 1) << " GB/s";
  return out.str();
}

} // namespace

std::string check_label(const Row& row) {
  switch (row.check) {
  case CheckStatus::passed:
    return "ok";
  case CheckStatus::wrong:
    return "WRONG";
  case CheckStatus::skipped:
    return "skipped";
  }
  return "?";
}

std::vector<RowMetrics> compute_metrics(const Table& table, std::size_t group) {
  const auto refs = reference_rows(table);
  std::vector<RowMetrics> out(table.rows.size());
  std::optional<double> first_rung_ms, previous_rung_ms;
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const Row& row = table.rows[i];
    RowMetrics& m = out[i];
    m.time_ms = row_time(row, group);
    if (m.time_ms) {
      m.bandwidth_gbs = bandwidth_gbs(table.bytes_moved, *m.time_ms);
      if (table.measured_peak_gbs > 0)
        m.percent_of_peak = 100.0 * *m.bandwidth_gbs / table.measured_peak_gbs;
      if (!row.is_reference) {
        if (previous_rung_ms)
          m.step_speedup = *previous_rung_ms / *m.time_ms;
        if (first_rung_ms)
          m.cumulative_speedup = *first_rung_ms / *m.time_ms;
        else
          m.cumulative_speedup = 1.0;
        if (!first_rung_ms)
          first_rung_ms = m.time_ms;
        previous_rung_ms = m.time_ms;
      }
    }
    for (auto r : refs) {
      auto ref_ms = row_time(table.rows[r], group);
      if (m.time_ms && ref_ms)
        m.vs_reference.push_back(*ref_ms / *m.time_ms);
      else
        m.vs_reference.push_back(std::nullopt);
    }
  }
  return out;
}

std::string format_text(const Table& table) {
  const Grid grid = build_grid(table);
  std::vector<std::size_t> width(grid.header.size(), 0);
  auto widen = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c)
      width[c] = std::max(width[c], cells[c].size());
  };
  widen(grid.header);
  for (const auto& cells : grid.body)
    widen(cells);
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const bool group_start = c >= 2 && !grid.group_header[c].empty();
      s += group_start ? " | " : (c == 0 ? "" : "  ");
      const std::string& cell = cells[c];
      const std::size_t pad = width[c] - std::min(width[c], cell.size());
      s += c == 0 ? cell + std::string(pad, ' ') : std::string(pad, ' ') + cell;
    }
    while (!s.empty() && s.back() == ' ')
      s.pop_back();
    return s + "\n";
  };
  std::string out = "== " + table.title + (table.case_note.empty() ? "" : "  [" + table.case_note + "]") +
                    " ==\n" + describe_case(table) + "\n";
  if (table.groups.size() > 1) {
    // Group names above their first column.
    std::string s;
    for (std::size_t c = 0; c < grid.header.size(); ++c) {
      const bool group_start = c >= 2 && !grid.group_header[c].empty();
      std::string sep = group_start ? " | " : (c == 0 ? "" : "  ");
      std::string cell = group_start ? grid.group_header[c] : "";
      s += sep + cell + std::string(width[c] - std::min(width[c], cell.size()), ' ');
    }
    while (!s.empty() && s.back() == ' ')
      s.pop_back();
    out += s + "\n";
  }
  out += line(grid.header);
  for (const auto& cells : grid.body)
    out += line(cells);
  for (const Row& row : table.rows)
    if (!row.note.empty())
      out += "  " + row.name + ": " + row.note + "\n";
  for (const auto& note : table.footnotes)
    out += "  note: " + note + "\n";
  return out;
}

std::string format_markdown(const Table& table) {
  const Grid grid = build_grid(table);
  std::string out = "### " + table.title + "\n\n";
  if (!table.case_note.empty())
    out += "*" + table.case_note + "*\n\n";
  out += describe_case(table) + ".\n\n|";
  for (std::size_t c = 0; c < grid.header.size(); ++c) {
    std::string name = grid.header[c];
    if (table.groups.size() > 1 && c >= 2) {
      // Markdown has no spanning headers: prefix each timed column with its group's index.
      std::size_t g = 0;
      for (std::size_t k = 2; k <= c; ++k)
        if (!grid.group_header[k].empty() && k != 2)
          ++g;
      name = "[" + std::to_string(g + 1) + "] " + name;
    }
    out += " " + name + " |";
  }
  out += "\n|";
  for (std::size_t c = 0; c < grid.header.size(); ++c)
    out += c < 2 ? " --- |" : " ---: |";
  out += "\n";
  for (const auto& cells : grid.body) {
    out += "|";
    for (const auto& cell : cells)
      out += " " + cell + " |";
    out += "\n";
  }
  if (table.groups.size() > 1) {
    out += "\n";
    for (std::size_t g = 0; g < table.groups.size(); ++g)
      out += "[" + std::to_string(g + 1) + "] " + table.groups[g] + (g + 1 < table.groups.size() ? "; " : "\n");
  }
  bool any_note = false;
  for (const Row& row : table.rows)
    if (!row.note.empty()) {
      out += std::string(any_note ? "" : "\n") + "- " + row.name + ": " + row.note + "\n";
      any_note = true;
    }
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
    out += "study,case,group,rung,reference,check,median_ms,min_ms,max_ms,samples,bandwidth_gbs,"
           "percent_of_peak,step_speedup,cumulative_speedup,measured_peak_gbs,note\n";
  for (std::size_t g = 0; g < table.groups.size(); ++g) {
    const auto metrics = compute_metrics(table, g);
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
      const Row& row = table.rows[i];
      const RowMetrics& m = metrics[i];
      const auto& t = g < row.timings.size() ? row.timings[g] : std::nullopt;
      auto num = [](std::optional<double> v) { return v ? fixed(v, 6) : std::string(); };
      out += csv_escape(table.study) + "," + csv_escape(table.title) + "," +
             csv_escape(table.groups[g]) + "," + csv_escape(row.name) + "," +
             (row.is_reference ? "1" : "0") + "," + check_label(row) + "," +
             num(m.time_ms) + "," + num(t ? std::optional(t->min_ms) : std::nullopt) + "," +
             num(t ? std::optional(t->max_ms) : std::nullopt) + "," +
             (t ? std::to_string(t->samples) : std::string()) + "," + num(m.bandwidth_gbs) + "," +
             num(m.percent_of_peak) + "," + num(m.step_speedup) + "," +
             num(m.cumulative_speedup) + "," + fixed(table.measured_peak_gbs, 3) + "," +
             csv_escape(row.note) + "\n";
    }
  }
  return out;
}

nlohmann::json to_json(const Table& table) {
  using nlohmann::json;
  auto opt = [](std::optional<double> v) { return v ? json(*v) : json(nullptr); };
  json rows = json::array();
  std::vector<std::vector<RowMetrics>> metrics;
  for (std::size_t g = 0; g < table.groups.size(); ++g)
    metrics.push_back(compute_metrics(table, g));
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const Row& row = table.rows[i];
    json groups = json::array();
    for (std::size_t g = 0; g < table.groups.size(); ++g) {
      const RowMetrics& m = metrics[g][i];
      const auto& t = g < row.timings.size() ? row.timings[g] : std::nullopt;
      json vs = json::array();
      for (const auto& v : m.vs_reference)
        vs.push_back(opt(v));
      groups.push_back({{"group", table.groups[g]},
                        {"median_ms", opt(m.time_ms)},
                        {"min_ms", t ? json(t->min_ms) : json(nullptr)},
                        {"max_ms", t ? json(t->max_ms) : json(nullptr)},
                        {"samples", t ? json(t->samples) : json(nullptr)},
                        {"bandwidth_gbs", opt(m.bandwidth_gbs)},
                        {"percent_of_peak", opt(m.percent_of_peak)},
                        {"step_speedup", opt(m.step_speedup)},
                        {"cumulative_speedup", opt(m.cumulative_speedup)},
                        {"vs_reference", vs}});
    }
    rows.push_back({{"name", row.name},
                    {"idea", row.idea},
                    {"reference", row.is_reference},
                    {"check", check_label(row)},
                    {"note", row.note},
                    {"timings", groups}});
  }
  return {{"study", table.study},
          {"title", table.title},
          {"case_note", table.case_note},
          {"bytes_formula", table.bytes_formula},
          {"bytes_moved", table.bytes_moved},
          {"measured_peak_gbs", table.measured_peak_gbs},
          {"theoretical_peak_gbs", table.theoretical_peak_gbs},
          {"groups", table.groups},
          {"rows", rows},
          {"footnotes", table.footnotes}};
}

} // namespace ladder::lab
