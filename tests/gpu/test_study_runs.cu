// Every study end to end through the lab core, as `ladder run --small --all` drives it: the
// protocol checks every rung on the GPU, the tables and sweeps carry typed figures, and every
// rendering (text, Markdown, CSV, JSON, the HTML report) takes them. Skipped under --small (the
// compute-sanitizer runs: the rungs are covered there by the registry-driven tests).
#include "gpu_test.hpp"

#include "core/html_report.hpp"
#include "core/peaks.hpp"
#include "core/report.hpp"
#include "core/study.hpp"

#include <gtest/gtest.h>

namespace ladder::test {
namespace {

class StudyRunTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(StudyRunTest, SmallRunChecksEveryRungAndRendersEverywhere) {
  if (small_mode())
    GTEST_SKIP() << "the registry-driven tests cover the rungs under compute-sanitizer";
  const lab::Study& study = lab::studies()[GetParam()];
  lab::RunContext ctx;
  ctx.options.small = true;
  ctx.options.all = true;
  ctx.options.timing.warmups = 1;
  ctx.options.timing.repetitions = 3;
  ctx.device = current_device_info();
  ctx.measure_peak = [&](lab::Bound bound) {
    return lab::measure_peak(bound, ctx.device, ctx.options.timing, true);
  };
  const lab::StudyResults results = study.run(ctx);
  ASSERT_FALSE(results.tables.empty()) << study.name;
  nlohmann::json tables = nlohmann::json::array(), sweeps = nlohmann::json::array();
  for (const lab::Table& t : results.tables) {
    // Tables of results that are not times (accuracy, counts) carry no peak and no timings.
    const bool timed_table = !lab::untimed(t);
    // A timed table names its bound, or says why none applies (a sieve: no single peak).
    if (timed_table && t.peak.reference() <= 0)
      EXPECT_FALSE(t.peak.theoretical_from.empty()) << t.title << ": no peak and no reason";
    int timed = 0;
    for (const lab::Row& row : t.rows) {
      EXPECT_NE(row.check, lab::CheckStatus::wrong)
          << t.title << ": " << row.name << ": " << row.note;
      if (row.check == lab::CheckStatus::passed)
        timed += row.timings[0].has_value();
    }
    if (timed_table)
      EXPECT_GT(timed, 0) << t.title;
    EXPECT_FALSE(lab::format_text(t).empty());
    EXPECT_FALSE(lab::format_markdown(t).empty());
    EXPECT_FALSE(lab::format_csv(t, true).empty());
    tables.push_back(lab::to_json(t));
    // What the report reads back is what was measured.
    const lab::Table again = lab::table_from_json(tables.back());
    ASSERT_EQ(again.rows.size(), t.rows.size());
  }
  for (const lab::Sweep& s : results.sweeps) {
    EXPECT_FALSE(s.points.empty()) << s.title;
    sweeps.push_back(lab::to_json(s));
  }
  const lab::SummaryLine line = lab::summarize(std::string(study.name), results);
  EXPECT_EQ(line.wrong, 0);
  const nlohmann::json doc = {{"device", {{"name", ctx.device.name}}},
                              {"date", "now"},
                              {"studies", nlohmann::json::array({{{"name", study.name},
                                                                  {"title", study.title},
                                                                  {"course", study.course},
                                                                  {"tables", tables},
                                                                  {"sweeps", sweeps}}})}};
  const std::string html = lab::render_html_report({{"this run", doc}});
  EXPECT_NE(html.find("data-study=\"" + std::string(study.name) + "\""), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Studies, StudyRunTest,
                         ::testing::Range<std::size_t>(0, lab::studies().size()),
                         [](const auto& info) {
                           return test_name(lab::studies()[info.param].name);
                         });

} // namespace
} // namespace ladder::test
