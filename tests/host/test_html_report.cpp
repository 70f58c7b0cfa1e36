// `ladder report`: the page carries every study, rung, reference and summary line of the runs it
// is given, its numbers are the lab core's derived figures, a WRONG rung never gets a bar, and
// several runs compare rung by rung.
#include "cli_invoke.hpp"

#include "core/html_report.hpp"
#include "core/measurement.hpp"
#include "core/report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

namespace ladder::lab {
namespace {

const std::string small_run = std::string(LADDER_SOURCE_DIR) + "/tests/data/run-small.json";
const std::string latest_run =
    std::string(LADDER_SOURCE_DIR) + "/bench/results/ladder-h200-2026-11-23.json";

std::string attribute_of(const std::string& html, const std::string& element_start,
                         const std::string& attribute) {
  const auto at = html.find(element_start);
  if (at == std::string::npos)
    return "";
  const auto end = html.find('>', at);
  const std::string tag = html.substr(at, end - at);
  const auto a = tag.find(" " + attribute + "=\"");
  if (a == std::string::npos)
    return "";
  const auto from = a + attribute.size() + 3;
  return tag.substr(from, tag.find('"', from) - from);
}

std::string escaped(std::string text) {
  std::string out;
  for (char c : text)
    out += c == '>'   ? std::string("&gt;")
           : c == '<' ? std::string("&lt;")
           : c == '&' ? std::string("&amp;")
                      : std::string(1, c);
  return out;
}

void expect_every_rung_with_its_figures(const RunDocument& doc, const std::string& html) {
  for (const auto& study : doc.doc.at("studies")) {
    EXPECT_NE(html.find("data-study=\"" + study.at("name").get<std::string>() + "\""),
              std::string::npos)
        << study.at("name");
    for (const auto& tj : study.at("tables")) {
      const Table t = table_from_json(tj);
      const auto m = compute_metrics(t, 0);
      const auto table_at = html.find("<h3>" + escaped(t.title) + "</h3>");
      ASSERT_NE(table_at, std::string::npos) << t.title;
      const std::string section = html.substr(table_at);
      for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const std::string start = "<g class=\"rung\" data-rung=\"" + t.rows[i].name + "\"";
        ASSERT_NE(section.find(start), std::string::npos) << t.title << ": " << t.rows[i].name;
        const std::string shown = attribute_of(section, start, "data-throughput");
        if (m[i].throughput) {
          // The page's number is the lab core's derived figure, to 9 significant digits.
          ASSERT_FALSE(shown.empty()) << t.rows[i].name;
          EXPECT_NEAR(std::stod(shown), *m[i].throughput, *m[i].throughput * 1e-8)
              << t.rows[i].name;
          // And the JSON's stored figure agrees with the core's.
          const auto stored = tj.at("rows")[i].at("timings")[0].at("throughput");
          if (stored.is_number())
            EXPECT_NEAR(stored.get<double>(), *m[i].throughput, *m[i].throughput * 1e-9);
        } else {
          EXPECT_TRUE(shown.empty()) << t.rows[i].name;
        }
      }
    }
  }
}

TEST(HtmlReport, SmallRunHasEveryStudyRungReferenceAndSummary) {
  const RunDocument doc = read_run_document(small_run);
  const std::string html = render_html_report({doc});
  expect_every_rung_with_its_figures(doc, html);
  for (const char* needle :
       {"id=\"summary\"", "data-study=\"transpose\"", "data-study=\"reduce\"", "cublas_geam",
        "cub::DeviceReduce::Sum", "cudaMemcpy", "GeForce GTX 280", "G80", "measured DRAM read",
        "<polyline", "prefers-color-scheme: dark", "name=\"viewport\""})
    EXPECT_NE(html.find(needle), std::string::npos) << needle;
  // Self-contained: no script, no remote resource.
  for (const char* banned : {"<script", "http://", "https://", "src=\"", "@import", "url("})
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  // The summary's ratio is the one summarize() derives from the same tables.
  StudyResults transpose;
  transpose.tables.push_back(table_from_json(doc.doc["studies"][0]["tables"][0]));
  const SummaryLine line = summarize("transpose", transpose);
  ASSERT_TRUE(line.library_vs_vendor);
  const auto row = html.find("<tr data-study=\"transpose\">");
  ASSERT_NE(row, std::string::npos);
  const auto value = html.find("data-x-vendor=\"", row) + 15;
  EXPECT_NEAR(std::stod(html.substr(value, html.find('"', value) - value)), *line.library_vs_vendor,
              1e-8);
}

TEST(HtmlReport, WrongRungIsShownWrongAndNeverAsABar) {
  const std::string html = render_html_report({read_run_document(small_run)});
  const std::string start = "<g class=\"rung\" data-rung=\"polled_finish\" data-check=\"WRONG\"";
  const auto at = html.find(start);
  ASSERT_NE(at, std::string::npos);
  const std::string group = html.substr(at, html.find("</g>", at) - at);
  EXPECT_EQ(group.find("<rect"), std::string::npos) << group;
  EXPECT_NE(group.find("WRONG: got 12, expected 13"), std::string::npos) << group;
  EXPECT_EQ(html.find("data-bar-for=\"polled_finish\""), std::string::npos);
}

TEST(HtmlReport, LatestCommittedRunHasEveryRung) {
  const RunDocument doc = read_run_document(latest_run);
  const std::string html = render_html_report({doc});
  expect_every_rung_with_its_figures(doc, html);
  for (const char* study : {"transpose", "reduce", "scan"})
    EXPECT_NE(html.find(std::string("<tr data-study=\"") + study + "\">"), std::string::npos)
        << study;
  // The course's scan timings beside the sweep's: 16M elements on the 8800 GTX took 15.85 ms.
  const auto row = html.find("<tr data-course-n=\"16777216\">");
  ASSERT_NE(row, std::string::npos);
  EXPECT_NE(html.substr(row, 200).find("15.85 ms"), std::string::npos) << html.substr(row, 200);
}

// The transfers study's overlap pipeline records each stage's events: the page draws them as a
// timeline, one lane per stream and one bar per stage.
TEST(HtmlReport, OverlapPipelineIsDrawnAsATimeline) {
  const RunDocument doc = read_run_document(std::string(LADDER_SOURCE_DIR) +
                                            "/bench/results/ladder-h200-2026-11-25.json");
  const std::string html = render_html_report({doc});
  const auto at = html.find("<div class=\"chart timeline\">");
  ASSERT_NE(at, std::string::npos);
  const std::string chart = html.substr(at, html.find("</svg>", at) - at);
  std::size_t stages = 0;
  for (const auto& study : doc.doc.at("studies"))
    for (const auto& t : study.at("tables"))
      if (t.contains("params") && t.at("params").contains("timeline"))
        stages += t.at("params").at("timeline").size();
  ASSERT_GT(stages, 0u);
  std::size_t bars = 0;
  for (auto p = chart.find("<rect class=\"series"); p != std::string::npos;
       p = chart.find("<rect class=\"series", p + 1))
    ++bars;
  EXPECT_EQ(bars, stages);
  for (const char* stage : {"copy in", "kernel", "copy out"})
    EXPECT_NE(chart.find(std::string("data-stage=\"") + stage + "\""), std::string::npos) << stage;
  EXPECT_NE(chart.find(">stream 7</text>"), std::string::npos);
  // Tables without a timeline draw none.
  EXPECT_EQ(render_html_report({read_run_document(small_run)}).find("chart timeline"),
            std::string::npos);
}

TEST(HtmlReport, SeveralRunsCompareRungByRung) {
  RunDocument base = read_run_document(small_run);
  RunDocument faster = base;
  faster.path = "faster.json";
  // Every time halved: every rung of the second run is 2x the first.
  for (auto& study : faster.doc["studies"])
    for (auto& table : study["tables"])
      for (auto& row : table["rows"])
        for (auto& g : row["timings"])
          if (g["median_ms"].is_number())
            g["median_ms"] = g["median_ms"].get<double>() / 2;
  const std::string html = render_html_report({base, faster});
  EXPECT_NE(html.find("id=\"compare\""), std::string::npos);
  const std::regex compared("data-compare=\"([^\"]+)\" data-x=\"([^\"]+)\"");
  int rows = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), compared), end; it != end; ++it, ++rows)
    EXPECT_NEAR(std::stod((*it)[2]), 2.0, 1e-9) << (*it)[1];
  EXPECT_GE(rows, 10);
}

TEST(HtmlReport, BadInputIsNamed) {
  EXPECT_THROW((void)read_run_document("/nonexistent/run.json"), std::invalid_argument);
  const std::string not_json = std::string(LADDER_SOURCE_DIR) + "/CMakeLists.txt";
  try {
    (void)read_run_document(not_json);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CMakeLists.txt"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)render_html_report({}), std::invalid_argument);
}

TEST(HtmlReport, CommandWritesThePageAndRejectsBadArgumentsBeforeWork) {
  const std::string out = ::testing::TempDir() + "ladder-report-test.html";
  const auto ok = cli::test::invoke({"report", small_run, "-o", out});
  EXPECT_EQ(ok.code, cli::exit_ok) << ok.err;
  std::ifstream file(out);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_NE(text.str().find("data-study=\"reduce\""), std::string::npos);
  const auto missing = cli::test::invoke({"report", "/nonexistent/run.json", "-o", out});
  EXPECT_EQ(missing.code, cli::exit_usage);
  EXPECT_NE(missing.err.find("/nonexistent/run.json"), std::string::npos) << missing.err;
  const auto unwritable = cli::test::invoke({"report", small_run, "-o", "/nonexistent/dir/r.html"});
  EXPECT_EQ(unwritable.code, cli::exit_usage);
  EXPECT_NE(unwritable.err.find("--output"), std::string::npos) << unwritable.err;
  const auto no_output = cli::test::invoke({"report", small_run});
  EXPECT_EQ(no_output.code, cli::exit_usage);
}

} // namespace
} // namespace ladder::lab
