#include "core/html_report.hpp"

#include "core/course_tables.hpp"
#include "core/report.hpp"
#include "core/study.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace ladder::lab {

namespace {

// --- text helpers ------------------------------------------------------------------------------

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string slug(const std::string& text) {
  std::string out;
  for (char c : text)
    out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  return out;
}

// --- the page's parts --------------------------------------------------------------------------

constexpr const char* style = R"(
:root { --fg: #1d2330; --bg: #ffffff; --muted: #6b7280; --grid: #d9dde5; --panel: #f5f7fa;
  --seed: #7c8db5; --beyond: #2f6fde; --variant: #9aa9c9; --library: #14a37f; --reference: #c9a227;
  --wrong: #d1343a; --peak: #d1343a; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e9ef; --bg: #14171d; --muted: #9aa3b2; --grid: #343a46; --panel: #1c2029;
    --seed: #8fa2cc; --beyond: #5b92ff; --variant: #6f7d99; --library: #37c99d; --reference: #e0bd4a;
    --wrong: #ff6b6f; --peak: #ff6b6f; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 16px; background: var(--bg); color: var(--fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.6em; margin: 0.2em 0; } h2 { margin-top: 2em; border-bottom: 1px solid var(--grid); }
h3 { margin-top: 1.5em; font-size: 1.1em; }
.muted { color: var(--muted); } .wrong { color: var(--wrong); font-weight: 600; }
dl.device { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; background: var(--panel);
  padding: 10px 14px; border-radius: 8px; }
dl.device dt { color: var(--muted); } dl.device dd { margin: 0; overflow-wrap: anywhere; }
h2, h3 { overflow-wrap: anywhere; } .chart { overflow-x: auto; } .chart svg { min-width: 640px; }
.scroll { overflow-x: auto; } table { border-collapse: collapse; font-size: 0.88em; margin: 8px 0; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--grid); text-align: right; white-space: nowrap; }
th:nth-child(-n+2), td:nth-child(-n+2) { text-align: left; } td.idea { text-align: left; white-space: normal; min-width: 18em; }
svg { width: 100%; height: auto; display: block; } svg text { fill: var(--fg); font-size: 12px; }
svg .axis { stroke: var(--grid); } svg .label { fill: var(--muted); font-size: 11px; }
svg .bar.role-seed { fill: var(--seed); } svg .bar.role-beyond { fill: var(--beyond); }
svg .bar.role-variant { fill: var(--variant); } svg .bar.role-library { fill: var(--library); }
svg .bar.role-reference { fill: var(--reference); } svg .then { fill: var(--muted); } svg .now { fill: var(--beyond); }
svg .peak { stroke: var(--peak); stroke-dasharray: 5 4; } svg .ref { stroke: var(--reference); stroke-dasharray: 2 3; }
svg .wrong { fill: var(--wrong); } svg .series0 { stroke: var(--library); fill: var(--library); }
svg .series1 { stroke: var(--reference); fill: var(--reference); } svg .series2 { stroke: var(--seed); fill: var(--seed); }
svg .series3 { stroke: var(--beyond); fill: var(--beyond); } svg .line { fill: none; stroke-width: 2; }
nav a { margin-right: 12px; } .legend span { margin-right: 14px; white-space: nowrap; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; }
)";

const char* role_colour_var(Role role) {
  switch (role) {
  case Role::seed:
    return "var(--seed)";
  case Role::beyond:
    return "var(--beyond)";
  case Role::variant:
    return "var(--variant)";
  case Role::library:
    return "var(--library)";
  case Role::reference:
    return "var(--reference)";
  }
  return "var(--fg)";
}

std::string role_legend() {
  std::string out = "<p class=\"legend\">";
  for (Role r : {Role::seed, Role::beyond, Role::variant, Role::library, Role::reference})
    out += std::string("<span><span class=\"swatch\" style=\"background:") + role_colour_var(r) +
           "\"></span>" + std::string(role_name(r)) + "</span>";
  return out + "<span><span class=\"swatch\" style=\"background:var(--peak)\"></span>measured "
               "peak</span></p>\n";
}

// One ladder: a horizontal bar per rung, its throughput in the table's unit with its step written
// on it; a dashed line at the measured peak, dotted lines at each reference. WRONG and skipped rows
// get words, never a bar.
std::string bar_chart(const Table& t, const std::vector<RowMetrics>& m) {
  const ThroughputScale scale = throughput_scale(unit_of(t.peak.bound), t.peak.reference());
  double top = t.peak.reference();
  for (const auto& r : m)
    if (r.throughput)
      top = std::max(top, *r.throughput);
  top = top > 0 ? top * 1.08 : 1;
  const double width = 900, label_w = 250, x0 = label_w + 10, x1 = width - 20, row_h = 22,
               head = 34;
  const double height = head + row_h * static_cast<double>(t.rows.size()) + 26;
  const auto x = [&](double v) { return x0 + (x1 - x0) * v / top; };
  std::ostringstream s;
  s << "<div class=\"chart\"><svg viewBox=\"0 0 " << width << " " << height
    << "\" role=\"img\" aria-label=\"" << escape(t.title) << "\">\n";
  for (int k = 0; k <= 4; ++k) {
    const double v = top / 1.08 * k / 4, gx = x(v);
    s << "<line class=\"axis\" x1=\"" << gx << "\" y1=\"" << head - 6 << "\" x2=\"" << gx
      << "\" y2=\"" << height - 22 << "\"/><text class=\"label\" x=\"" << gx << "\" y=\""
      << height - 8 << "\" text-anchor=\"middle\">" << format_figure(v / scale.divisor)
      << "</text>\n";
  }
  s << "<text class=\"label\" x=\"" << x1 << "\" y=\"" << height - 8
    << "\" text-anchor=\"end\" dy=\"-12\">" << escape(scale.header) << "</text>\n";
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const Row& row = t.rows[i];
    const double y = head + row_h * static_cast<double>(i);
    s << "<g class=\"rung\" data-rung=\"" << escape(row.name) << "\" data-check=\""
      << check_label(row.check) << "\"";
    if (m[i].throughput)
      s << " data-throughput=\"" << format_exact(*m[i].throughput) << "\"";
    if (m[i].percent_of_peak)
      s << " data-percent=\"" << format_exact(*m[i].percent_of_peak) << "\"";
    s << "><title>"
      << escape((row.label.empty() ? "" : row.label + " ") + row.name + ": " + row.idea)
      << "</title>";
    s << "<text x=\"" << label_w << "\" y=\"" << y + 15 << "\" text-anchor=\"end\">"
      << escape((row.label.empty() ? "" : row.label + "  ") + row.name) << "</text>";
    if (shows_wrong(row.check)) {
      s << "<text class=\"wrong\" x=\"" << x0 + 4 << "\" y=\"" << y + 15 << "\">"
        << check_label(row.check) << ": " << escape(row.note) << "</text>";
    } else if (!m[i].throughput) {
      s << "<text class=\"label\" x=\"" << x0 + 4 << "\" y=\"" << y + 15 << "\">"
        << (row.check == CheckStatus::skipped ? "skipped" : "not timed")
        << (row.note.empty() ? "" : ": " + escape(row.note)) << "</text>";
    } else {
      const double w = std::max(1.0, x(*m[i].throughput) - x0);
      std::string text = format_figure(*m[i].throughput / scale.divisor) + " " + scale.header;
      if (m[i].step_speedup)
        text += "  step " + format_fixed(*m[i].step_speedup, 2) + "x";
      s << "<rect class=\"bar role-" << role_name(row.role) << "\" data-bar-for=\""
        << escape(row.name) << "\" x=\"" << x0 << "\" y=\"" << y + 3 << "\" width=\"" << w
        << "\" height=\"" << row_h - 6 << "\" rx=\"2\"/>";
      const bool inside = w > 230;
      s << "<text x=\"" << (inside ? x0 + w - 6 : x0 + w + 6) << "\" y=\"" << y + 15 << "\""
        << (inside ? " text-anchor=\"end\" style=\"fill:#fff\"" : "") << ">" << text << "</text>";
    }
    s << "</g>\n";
  }
  const auto vline = [&](double v, const char* cls, const std::string& label, int lane) {
    const double gx = x(v);
    s << "<line class=\"" << cls << "\" x1=\"" << gx << "\" y1=\"" << head - 4 << "\" x2=\"" << gx
      << "\" y2=\"" << height - 22 << "\"/><text class=\"label\" x=\"" << gx << "\" y=\""
      << 12 + 12 * lane << "\" text-anchor=\"end\">" << escape(label) << "</text>\n";
  };
  if (t.peak.reference() > 0)
    vline(t.peak.reference(), "peak",
          std::string(t.peak.measured > 0 ? "measured " : "theoretical ") +
              std::string(bound_name(t.peak.bound)) + " " +
              format_figure(t.peak.reference() / scale.divisor) + " " + scale.header,
          0);
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    if (t.rows[i].role == Role::reference && t.rows[i].vendor && m[i].throughput)
      vline(*m[i].throughput, "ref", t.rows[i].name, 1);
  s << "</svg></div>\n";
  return s.str();
}

// A table whose params hold a "timeline" (stages timed with events: {stream, stage, start_ms,
// end_ms}, as the transfers study's overlap pipeline records): one lane per stream, one bar per
// stage, on a common time axis, so the overlap (or its absence) is seen, not inferred.
std::string timeline_chart(const Table& t) {
  if (!t.params.contains("timeline") || !t.params.at("timeline").is_array() ||
      t.params.at("timeline").empty())
    return {};
  const auto& stages = t.params.at("timeline");
  int lanes = 0;
  double end = 0;
  std::vector<std::string> names; // stage names in order of first appearance: the colours
  for (const auto& e : stages) {
    lanes = std::max(lanes, e.value("stream", 0) + 1);
    end = std::max(end, e.value("end_ms", 0.0));
    const std::string stage = e.value("stage", std::string());
    if (std::find(names.begin(), names.end(), stage) == names.end())
      names.push_back(stage);
  }
  if (end <= 0)
    return {};
  const double width = 900, x0 = 90, x1 = width - 20, lane_h = 18, head = 10;
  const double height = head + lane_h * lanes + 30;
  const auto x = [&](double ms) { return x0 + (x1 - x0) * ms / end; };
  std::ostringstream s;
  s << "<div class=\"chart timeline\"><svg viewBox=\"0 0 " << width << " " << height
    << "\" role=\"img\" aria-label=\"" << escape(t.title) << ": timeline\">\n";
  for (int k = 0; k <= 4; ++k) {
    const double ms = end * k / 4, gx = x(ms);
    s << "<line class=\"axis\" x1=\"" << gx << "\" y1=\"" << head << "\" x2=\"" << gx
      << "\" y2=\"" << height - 22 << "\"/><text class=\"label\" x=\"" << gx << "\" y=\""
      << height - 8 << "\" text-anchor=\"middle\">" << format_fixed(ms, 2) << " ms</text>\n";
  }
  for (int lane = 0; lane < lanes; ++lane)
    s << "<text class=\"label\" x=\"" << x0 - 6 << "\" y=\"" << head + lane_h * lane + 13
      << "\" text-anchor=\"end\">stream " << lane << "</text>\n";
  for (const auto& e : stages) {
    const int lane = e.value("stream", 0);
    const std::string stage = e.value("stage", std::string());
    const auto colour = std::find(names.begin(), names.end(), stage) - names.begin();
    const double a = e.value("start_ms", 0.0), b = e.value("end_ms", 0.0);
    s << "<rect class=\"series" << colour % 4 << "\" data-stage=\"" << escape(stage) << "\" x=\""
      << x(a) << "\" y=\"" << head + lane_h * lane + 2 << "\" width=\"" << std::max(1.0, x(b) - x(a))
      << "\" height=\"" << lane_h - 4 << "\"><title>stream " << lane << ", " << escape(stage) << ": "
      << format_fixed(a, 3) << " to " << format_fixed(b, 3) << " ms</title></rect>\n";
  }
  s << "</svg></div>\n<p class=\"legend\">";
  for (std::size_t k = 0; k < names.size(); ++k)
    s << "<span><svg width=\"14\" height=\"10\" style=\"display:inline;width:14px\"><rect "
      << "class=\"series" << k % 4 << "\" width=\"14\" height=\"10\"/></svg> " << escape(names[k])
      << "</span> ";
  s << "(each bar from the event before a stage to the event after it, in ms after the first: a copy queued behind another one on the same copy engine counts its wait)</p>\n";
  return s.str();
}

std::string rows_table(const Table& t, const std::vector<RowMetrics>& m) {
  const ThroughputScale scale = throughput_scale(unit_of(t.peak.bound), t.peak.reference());
  const auto refs = reference_rows(t);
  std::ostringstream s;
  s << "<div "
       "class=\"scroll\"><table><tr><th>#</th><th>rung</th><th>role</th><th>check</th><th>time</"
       "th><th>"
    << escape(scale.header) << "</th><th>% peak</th><th>step</th><th>cumul</th>";
  for (auto r : refs)
    s << "<th>x " << escape(short_reference_name(t.rows[r].name)) << "</th>";
  s << "<th>idea</th></tr>\n";
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const Row& row = t.rows[i];
    s << "<tr data-rung=\"" << escape(row.name) << "\"><td>" << escape(row.label) << "</td><td>"
      << escape(row.name) << "</td><td>" << role_name(row.role) << "</td><td"
      << (shows_wrong(row.check) ? " class=\"wrong\"" : "") << ">"
      << check_label(row.check) << "</td><td>" << (m[i].time_ms ? format_time(*m[i].time_ms) : "-")
      << "</td><td>" << (m[i].throughput ? format_figure(*m[i].throughput / scale.divisor) : "-")
      << "</td><td>" << format_fixed(m[i].percent_of_peak, 1) << "</td><td>"
      << format_fixed(m[i].step_speedup, 2, "x") << "</td><td>"
      << format_fixed(m[i].cumulative_speedup, 2, "x") << "</td>";
    for (const auto& v : m[i].vs_reference)
      s << "<td>" << format_fixed(v, 2) << "</td>";
    s << "<td class=\"idea\">" << escape(row.idea)
      << (row.note.empty() ? "" : " <span class=\"muted\">(" + escape(row.note) + ")</span>")
      << "</td></tr>\n";
  }
  s << "</table></div>\n";
  return s.str();
}

// Time per series over size (log-log), and the ratios over size with a line at 1.
std::string sweep_charts(const Sweep& sw) {
  std::ostringstream s;
  double lo_t = 1e300, hi_t = 0;
  for (const auto& p : sw.points)
    for (const auto& t : p.times)
      if (t && t->median_ms > 0) {
        lo_t = std::min(lo_t, t->median_ms);
        hi_t = std::max(hi_t, t->median_ms);
      }
  if (sw.points.size() < 2 || hi_t <= 0)
    return "";
  const double lo_x = std::log2(static_cast<double>(sw.points.front().size));
  const double hi_x = std::log2(static_cast<double>(sw.points.back().size));
  const double width = 900, height = 300, left = 70, right = 20, top = 20, bottom = 40;
  const auto px = [&](std::int64_t n) {
    return left + (width - left - right) * (std::log2(static_cast<double>(n)) - lo_x) /
                      std::max(1e-9, hi_x - lo_x);
  };
  const double ly0 = std::floor(std::log10(lo_t)), ly1 = std::ceil(std::log10(hi_t));
  const auto py = [&](double ms) {
    return top + (height - top - bottom) * (1 - (std::log10(ms) - ly0) / std::max(1e-9, ly1 - ly0));
  };
  s << "<div class=\"chart\"><svg viewBox=\"0 0 " << width << " " << height
    << "\" role=\"img\" aria-label=\"" << escape(sw.title) << " time\">\n";
  for (double e = ly0; e <= ly1; e += 1) {
    const double y = py(std::pow(10.0, e));
    s << "<line class=\"axis\" x1=\"" << left << "\" x2=\"" << width - right << "\" y1=\"" << y
      << "\" y2=\"" << y << "\"/><text class=\"label\" x=\"" << left - 6 << "\" y=\"" << y + 4
      << "\" text-anchor=\"end\">" << format_time(std::pow(10.0, e)) << "</text>\n";
  }
  for (const auto& p : sw.points)
    s << "<text class=\"label\" x=\"" << px(p.size) << "\" y=\"" << height - 20
      << "\" text-anchor=\"middle\">" << escape(p.label) << "</text>\n";
  for (std::size_t k = 0; k < sw.series.size(); ++k) {
    std::string points;
    for (const auto& p : sw.points)
      if (k < p.times.size() && p.times[k] && p.checks[k] == CheckStatus::passed)
        points += format_exact(px(p.size)) + "," + format_exact(py(p.times[k]->median_ms)) + " ";
    s << "<polyline class=\"line series" << k % 4 << "\" data-series=\""
      << escape(sw.series[k].name) << "\" points=\"" << points << "\"/>\n";
  }
  s << "<text class=\"label\" x=\"" << left << "\" y=\"" << height - 4 << "\">"
    << escape(sw.parameter)
    << " (log scale); time per call (log scale)</text></svg></div>\n<p class=\"legend\">";
  for (std::size_t k = 0; k < sw.series.size(); ++k)
    s << "<span><svg width=\"14\" height=\"10\" style=\"display:inline;width:14px\"><rect "
         "class=\"series"
      << k % 4 << "\" width=\"14\" height=\"10\"/></svg> " << escape(sw.series[k].name)
      << "</span>";
  s << "</p>\n";
  if (sw.ratios.empty())
    return s.str();
  double lo_r = 0.5, hi_r = 1.5;
  for (const auto& p : sw.points)
    for (const auto& r : sw.ratios)
      if (auto v = sweep_ratio(p, r)) {
        lo_r = std::min(lo_r, *v);
        hi_r = std::max(hi_r, *v);
      }
  const double rh = 220;
  const auto ry = [&](double v) {
    return top + (rh - top - bottom) * (1 - (v - lo_r) / (hi_r - lo_r));
  };
  s << "<div class=\"chart\"><svg viewBox=\"0 0 " << width << " " << rh
    << "\" role=\"img\" aria-label=\"" << escape(sw.title)
    << " ratios\">\n<line class=\"peak\" x1=\"" << left << "\" x2=\"" << width - right << "\" y1=\""
    << ry(1) << "\" y2=\"" << ry(1) << "\"/><text class=\"label\" x=\"" << left - 6 << "\" y=\""
    << ry(1) + 4 << "\" text-anchor=\"end\">1.0x</text><text class=\"label\" x=\"" << left - 6
    << "\" y=\"" << ry(hi_r) + 4 << "\" text-anchor=\"end\">" << format_fixed(hi_r, 2)
    << "x</text><text class=\"label\" x=\"" << left - 6 << "\" y=\"" << ry(lo_r) + 4
    << "\" text-anchor=\"end\">" << format_fixed(lo_r, 2) << "x</text>\n";
  for (std::size_t k = 0; k < sw.ratios.size(); ++k) {
    std::string points;
    for (const auto& p : sw.points)
      if (auto v = sweep_ratio(p, sw.ratios[k]))
        points += format_exact(px(p.size)) + "," + format_exact(ry(*v)) + " ";
    s << "<polyline class=\"line series" << (k + 2) % 4 << "\" data-ratio=\""
      << escape(sw.ratios[k].label) << "\" points=\"" << points << "\"/>\n";
  }
  s << "</svg></div>\n<p class=\"legend\">";
  for (std::size_t k = 0; k < sw.ratios.size(); ++k)
    s << "<span><svg width=\"14\" height=\"10\" style=\"display:inline;width:14px\"><rect "
         "class=\"series"
      << (k + 2) % 4 << "\" width=\"14\" height=\"10\"/></svg> " << escape(sw.ratios[k].label)
      << "</span>";
  s << "</p><p class=\"muted\">Above 1x the library call is faster than the vendor (or the CPU) at "
       "that size.</p>\n";
  return s.str();
}

std::string sweep_table(const Sweep& sw) {
  std::ostringstream s;
  s << "<div class=\"scroll\"><table><tr><th>" << escape(sw.parameter) << "</th>";
  for (const auto& series : sw.series)
    s << "<th>" << escape(series.name) << "</th>";
  for (const auto& r : sw.ratios)
    s << "<th>" << escape(r.label) << "</th>";
  s << "</tr>\n";
  for (const auto& p : sw.points) {
    s << "<tr><td>" << escape(p.label) << "</td>";
    for (std::size_t k = 0; k < sw.series.size(); ++k) {
      const bool wrong = k < p.checks.size() && shows_wrong(p.checks[k]);
      s << "<td" << (wrong ? " class=\"wrong\">WRONG" : ">")
        << (wrong                              ? ""
            : k < p.times.size() && p.times[k] ? format_time(p.times[k]->median_ms)
                                               : "-")
        << "</td>";
    }
    for (const auto& r : sw.ratios) {
      const auto v = sweep_ratio(p, r);
      s << "<td" << (v ? " data-ratio=\"" + format_exact(*v) + "\"" : "") << ">"
        << format_fixed(v, 2, "x") << "</td>";
    }
    s << "</tr>\n";
  }
  return s.str() + "</table></div>\n";
}

// The course's table beside ours: each row's bandwidth as % of its own GPU's peak, then and now.
std::string course_comparison(const std::string& study_name, const Table* headline,
                              const std::string& gpu) {
  const Study* study = find_study(study_name);
  if (!headline || !study)
    return "";
  const auto rungs = study->rungs();
  const auto m = compute_metrics(*headline, 0);
  std::ostringstream s;
  for (const CourseTable& course : course_tables()) {
    if (course.study != study_name)
      continue;
    struct Pair {
      std::string rung, course_row;
      double then = 0;
      std::optional<double> now;
    };
    std::vector<Pair> pairs;
    for (const CourseRow& cr : course.rows) {
      Pair p{"", std::string(cr.course_row), 100.0 * cr.gbs / course.peak_gbs, std::nullopt};
      for (const RungInfo& r : rungs)
        if (r.course_row == cr.course_row)
          p.rung = std::string(r.name);
      for (std::size_t i = 0; i < headline->rows.size(); ++i)
        if (headline->rows[i].name == p.rung)
          p.now = m[i].percent_of_peak;
      pairs.push_back(p);
    }
    const double width = 900, label_w = 250, x0 = label_w + 10, x1 = width - 60, pair_h = 30,
                 head = 10;
    const double height = head + pair_h * static_cast<double>(pairs.size()) + 24;
    const auto x = [&](double pct) { return x0 + (x1 - x0) * std::min(pct, 110.0) / 110.0; };
    s << "<h3>The course's table beside this run</h3><p>" << escape(std::string(course.title))
      << " on the " << escape(std::string(course.gpu)) << " (" << format_fixed(course.peak_gbs, 1)
      << " GB/s peak), from " << escape(std::string(course.citation)) << "; beside it, "
      << escape(headline->title) << " on the " << escape(gpu) << ", as % of "
      << escape(std::string(bound_name(headline->peak.bound)))
      << " measured in the same run.</p>\n<div class=\"chart\"><svg viewBox=\"0 0 " << width << " "
      << height << "\" role=\"img\" aria-label=\"course comparison\">\n";
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const double y = head + pair_h * static_cast<double>(i);
      const Pair& p = pairs[i];
      s << "<g data-course-row=\"" << escape(p.course_row) << "\"><title>" << escape(p.course_row)
        << "</title>"
        << "<text x=\"" << label_w << "\" y=\"" << y + 17 << "\" text-anchor=\"end\">"
        << escape(p.rung) << "</text>"
        << "<rect class=\"then\" x=\"" << x0 << "\" y=\"" << y + 2 << "\" width=\""
        << x(p.then) - x0 << "\" height=\"11\"/><text class=\"label\" x=\"" << x(p.then) + 4
        << "\" y=\"" << y + 12 << "\">" << format_fixed(p.then, 1) << "% then</text>";
      if (p.now)
        s << "<rect class=\"now\" x=\"" << x0 << "\" y=\"" << y + 15 << "\" width=\""
          << x(*p.now) - x0 << "\" height=\"11\"/><text class=\"label\" x=\"" << x(*p.now) + 4
          << "\" y=\"" << y + 25 << "\">" << format_fixed(*p.now, 1) << "% now</text>";
      s << "</g>\n";
    }
    s << "</svg></div>\n";
  }
  return s.str();
}

// The course's CPU-vs-GPU timings beside a sweep that times the same pair on this machine.
std::string course_speedups(const std::string& study_name, const std::vector<Sweep>& sweeps,
                            const std::string& gpu) {
  std::ostringstream s;
  for (const CourseSpeedupTable& course : course_speedup_tables()) {
    if (course.study != study_name)
      continue;
    for (const Sweep& sw : sweeps) {
      std::optional<std::size_t> cpu, ours;
      for (std::size_t k = 0; k < sw.series.size(); ++k) {
        if (sw.series[k].name == course.cpu_series)
          cpu = k;
        if (sw.series[k].name == course.gpu_series)
          ours = k;
      }
      if (!cpu || !ours)
        continue;
      s << "<h3>The course's table beside this run</h3><p>" << escape(std::string(course.title))
        << ", " << escape(std::string(course.machine)) << ", from "
        << escape(std::string(course.citation)) << "; beside it, the same pair on the "
        << escape(gpu) << " and this host (" << escape(sw.title)
        << "). Speedup = CPU time / GPU time.</p>\n<div "
           "class=\"scroll\"><table><tr><th>n</th><th>course CPU</th>"
           "<th>course GPU</th><th>course speedup</th><th>CPU now</th><th>ladder "
           "now</th><th>speedup now</th></tr>\n";
      for (const CourseTiming& row : course.rows) {
        s << "<tr data-course-n=\"" << row.n << "\"><td>" << row.n << "</td><td>"
          << format_time(row.cpu_ms) << "</td><td>" << format_time(row.gpu_ms) << "</td><td>"
          << format_fixed(row.cpu_ms / row.gpu_ms, 2) << "x</td>";
        const SweepPoint* point = nullptr;
        for (const SweepPoint& p : sw.points)
          if (p.size == row.n)
            point = &p;
        const auto time = [&](std::size_t k) -> std::optional<double> {
          if (!point || k >= point->times.size() || !point->times[k] ||
              point->checks[k] != CheckStatus::passed)
            return std::nullopt;
          return point->times[k]->median_ms;
        };
        const auto c = time(*cpu), g = time(*ours);
        s << "<td>" << (c ? format_time(*c) : "-") << "</td><td>" << (g ? format_time(*g) : "-")
          << "</td><td>" << (c && g ? format_fixed(*c / *g, 2) + "x" : "-") << "</td></tr>\n";
      }
      s << "</table></div>\n";
      break;
    }
  }
  return s.str();
}

std::string summary_table(const std::vector<SummaryLine>& lines) {
  std::ostringstream s;
  s << "<div class=\"scroll\"><table><tr><th>study</th><th>library call</th><th>x "
       "vendor</th><th>vendor</th>"
       "<th>best rung</th><th>% of its bound</th><th>bound</th><th>sweep x vendor</th><th>wrong "
       "rows</th></tr>\n";
  for (const auto& l : lines)
    s << "<tr data-study=\"" << escape(l.study) << "\"><td>" << escape(l.study) << "</td><td>"
      << escape(l.library) << "</td><td"
      << (l.library_vs_vendor ? " data-x-vendor=\"" + format_exact(*l.library_vs_vendor) + "\""
                              : "")
      << ">" << format_fixed(l.library_vs_vendor, 2, "x") << "</td><td title=\"" << escape(l.vendor)
      << "\">" << escape(short_reference_name(l.vendor)) << "</td><td>" << escape(l.best_rung)
      << "</td><td>" << format_fixed(l.best_percent_of_peak, 1, "%") << "</td><td>"
      << escape(std::string(bound_name(l.bound))) << "</td><td>"
      << (l.sweep_min
              ? format_fixed(*l.sweep_min, 2) + "x .. " + format_fixed(*l.sweep_max, 2) + "x"
              : "-")
      << "</td><td" << (l.wrong ? " class=\"wrong\"" : "") << ">" << l.wrong << "</td></tr>\n";
  return s.str() +
         "</table></div>\n<p class=\"muted\">x vendor: the vendor library's time over the library "
         "call's at the study's headline size (above 1x ladder is faster). Best rung: the fastest "
         "correct rung built past the course, as % of the peak that bounds the study.</p>\n";
}

// --- reading runs ------------------------------------------------------------------------------

struct StudyRun {
  std::string name, title, course;
  StudyResults results;
};

struct Run {
  std::string path, gpu, date, driver, runtime;
  std::vector<StudyRun> studies;
};

std::string string_or(const nlohmann::json& j, const char* field,
                      const std::string& fallback = "unknown") {
  if (j.contains(field) && j.at(field).is_string())
    return j.at(field).get<std::string>();
  if (j.contains(field) && j.at(field).is_number())
    return j.at(field).dump();
  return fallback;
}

Run parse_run(const RunDocument& d) {
  Run run;
  run.path = d.path;
  try {
    const auto& device = d.doc.at("device");
    run.gpu = string_or(device, "name");
    run.driver = string_or(device, "driver_version");
    run.runtime = string_or(device, "runtime_version");
    run.date = string_or(d.doc, "date");
    for (const auto& s : d.doc.at("studies")) {
      StudyRun study{s.at("name").get<std::string>(),
                     string_or(s, "title", ""),
                     string_or(s, "course", ""),
                     {}};
      for (const auto& t : s.at("tables"))
        study.results.tables.push_back(table_from_json(t));
      for (const auto& sw : s.value("sweeps", nlohmann::json::array()))
        study.results.sweeps.push_back(sweep_from_json(sw));
      run.studies.push_back(std::move(study));
    }
  } catch (const std::exception& e) {
    throw std::invalid_argument(d.path + ": not a ladder run's JSON (" + e.what() + ")");
  }
  return run;
}

const Table* headline_of(const StudyResults& r) {
  for (const Table& t : r.tables)
    if (t.headline)
      return &t;
  return r.tables.empty() ? nullptr : &r.tables.front();
}

std::string peaks_list(const Run& run) {
  std::map<std::string, Peak> peaks;
  for (const auto& s : run.studies)
    for (const auto& t : s.results.tables)
      peaks.emplace(std::string(bound_name(t.peak.bound)), t.peak);
  std::string out;
  for (const auto& [name, p] : peaks) {
    const auto scale = throughput_scale(unit_of(p.bound), p.reference());
    out +=
        "<dt>" + escape(name) + "</dt><dd>measured " +
        (p.measured > 0 ? format_figure(p.measured / scale.divisor) + " " + scale.header
                        : std::string("-")) +
        (p.measured_by.empty() ? ""
                               : " <span class=\"muted\">(" + escape(p.measured_by) + ")</span>") +
        ", theoretical " + format_figure(p.theoretical / scale.divisor) + " " + scale.header +
        (p.theoretical_from.empty()
             ? ""
             : " <span class=\"muted\">(" + escape(p.theoretical_from) + ")</span>") +
        "</dd>";
  }
  return out;
}

// Run k against run 0: every rung of a table both have, time and ratio.
std::string comparison(const Run& base, const Run& other) {
  std::ostringstream s;
  s << "<h3>" << escape(other.path) << " (" << escape(other.gpu) << ") against "
    << escape(base.path) << " (" << escape(base.gpu)
    << ")</h3>\n<p class=\"muted\">x = the first run's time / this run's time: above 1x this run "
       "is faster.</p>\n";
  for (const auto& bs : base.studies)
    for (const auto& os : other.studies) {
      if (bs.name != os.name)
        continue;
      for (const Table& bt : bs.results.tables)
        for (const Table& ot : os.results.tables) {
          if (bt.title != ot.title)
            continue;
          const auto bm = compute_metrics(bt, 0), om = compute_metrics(ot, 0);
          s << "<h4>" << escape(bt.title)
            << "</h4><div class=\"scroll\"><table><tr><th>#</th><th>rung</th><th>"
            << escape(base.path) << "</th><th>" << escape(other.path) << "</th><th>x</th></tr>\n";
          for (std::size_t i = 0; i < bt.rows.size(); ++i)
            for (std::size_t k = 0; k < ot.rows.size(); ++k) {
              if (bt.rows[i].name != ot.rows[k].name)
                continue;
              std::optional<double> x;
              if (bm[i].time_ms && om[k].time_ms)
                x = *bm[i].time_ms / *om[k].time_ms;
              s << "<tr data-compare=\"" << escape(bt.rows[i].name) << "\""
                << (x ? " data-x=\"" + format_exact(*x) + "\"" : "") << "><td>"
                << escape(bt.rows[i].label) << "</td><td>" << escape(bt.rows[i].name) << "</td><td>"
                << (bm[i].time_ms ? format_time(*bm[i].time_ms) : check_label(bt.rows[i].check))
                << "</td><td>"
                << (om[k].time_ms ? format_time(*om[k].time_ms) : check_label(ot.rows[k].check))
                << "</td><td>" << format_fixed(x, 2, "x") << "</td></tr>\n";
            }
          s << "</table></div>\n";
        }
    }
  return s.str();
}

} // namespace

RunDocument read_run_document(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw std::invalid_argument(path + ": cannot open for reading");
  RunDocument d{path, {}};
  try {
    d.doc = nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(path + ": not valid JSON (" + e.what() + ")");
  }
  if (!d.doc.is_object() || !d.doc.contains("studies") || !d.doc.contains("device"))
    throw std::invalid_argument(
        path + ": not a ladder run's JSON (no \"studies\" or \"device\"; written by "
               "`ladder run --json`)");
  return d;
}

std::string render_html_report(const std::vector<RunDocument>& documents) {
  if (documents.empty())
    throw std::invalid_argument("the report needs at least one run's JSON");
  std::vector<Run> runs;
  for (const auto& d : documents)
    runs.push_back(parse_run(d));
  const Run& first = runs.front();
  std::ostringstream s;
  s << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
       "'unsafe-inline'\">"
       "<meta name=\"color-scheme\" content=\"light dark\"><title>ladder: "
    << escape(first.gpu) << ", " << escape(first.date) << "</title><style>" << style
    << "</style></head><body>\n";
  s << "<header><h1>ladder on " << escape(first.gpu)
    << "</h1><p class=\"muted\">The classic CUDA case studies, rung "
       "by rung: every rung checked against a CPU reference before it was timed; times are "
       "medians.</p>\n";
  for (const Run& run : runs) {
    s << "<dl class=\"device\"><dt>run</dt><dd>" << escape(run.path) << "</dd><dt>GPU</dt><dd>"
      << escape(run.gpu) << "</dd><dt>driver</dt><dd>" << escape(run.driver)
      << "</dd><dt>CUDA runtime</dt><dd>" << escape(run.runtime) << "</dd><dt>date</dt><dd>"
      << escape(run.date) << "</dd>" << peaks_list(run) << "</dl>\n";
  }
  s << "</header>\n<nav><a href=\"#summary\">summary</a>";
  for (const auto& st : first.studies)
    s << "<a href=\"#" << slug(st.name) << "\">" << escape(st.name) << "</a>";
  if (runs.size() > 1)
    s << "<a href=\"#compare\">runs compared</a>";
  s << "</nav>\n";
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const Run& run = runs[k];
    const std::string suffix = runs.size() > 1 ? " (" + escape(run.path) + ")" : "";
    std::vector<SummaryLine> lines;
    for (const auto& st : run.studies)
      lines.push_back(summarize(st.name, st.results));
    s << "<section" << (k == 0 ? " id=\"summary\"" : "") << "><h2>Summary" << suffix << "</h2>\n"
      << summary_table(lines) << "</section>\n";
    for (const auto& st : run.studies) {
      s << "<section" << (k == 0 ? " id=\"" + slug(st.name) + "\"" : "") << " data-study=\""
        << escape(st.name) << "\"><h2>" << escape(st.name) << ": " << escape(st.title) << suffix
        << "</h2><p class=\"muted\">After " << escape(st.course) << ".</p>\n"
        << role_legend();
      for (const Table& t : st.results.tables) {
        const auto m = compute_metrics(t, 0);
        s << "<h3>" << escape(t.title) << "</h3>";
        if (!t.case_label.empty())
          s << "<p class=\"muted\">" << escape(t.case_label) << "</p>";
        s << "<p class=\"muted\">Work per run: " << escape(t.work.formula) << "; "
          << (t.groups.empty() ? "" : escape(t.groups.front())) << ".</p>\n"
          << bar_chart(t, m) << timeline_chart(t) << rows_table(t, m);
      }
      for (const Sweep& sw : st.results.sweeps)
        s << "<h3>" << escape(sw.title) << "</h3>\n" << sweep_charts(sw) << sweep_table(sw);
      s << course_comparison(st.name, headline_of(st.results), run.gpu)
        << course_speedups(st.name, st.results.sweeps, run.gpu) << "</section>\n";
    }
  }
  if (runs.size() > 1) {
    s << "<section id=\"compare\"><h2>Runs compared</h2>\n";
    for (std::size_t k = 1; k < runs.size(); ++k)
      s << comparison(first, runs[k]);
    s << "</section>\n";
  }
  s << "<footer class=\"muted\"><p>Made by <code>ladder report</code> from";
  for (const auto& r : runs)
    s << " " << escape(r.path);
  s << ". Self-contained: no scripts, fonts or network.</p></footer></body></html>\n";
  return s.str();
}

} // namespace ladder::lab
