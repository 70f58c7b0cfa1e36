// The one place that turns times into GB/s, % of peak and speedups, and its renderings.
#include "core/report.hpp"

#include <gtest/gtest.h>

namespace ladder::lab {
namespace {

Row timed(std::string name, double ms, bool reference = false) {
  Row r;
  r.name = std::move(name);
  r.is_reference = reference;
  r.check = CheckStatus::passed;
  r.timings = {Measurement{ms, ms * 0.9, ms * 1.1, 20}};
  return r;
}

Table sample_table() {
  Table t;
  t.study = "transpose";
  t.title = "transpose 1024 x 1024 float";
  t.bytes_formula = "2 x rows x cols x 4 B";
  t.bytes_moved = 2.0 * 1024 * 1024 * 4;
  t.measured_peak_gbs = 1000;
  t.groups = {"loop over launches"};
  t.rows = {timed("naive", 4.0), timed("coalesced", 1.0), timed("cudaMemcpy", 0.5, true)};
  Row wrong = timed("broken", 0.1);
  wrong.check = CheckStatus::wrong;
  wrong.note = "3 of 9 elements differ";
  t.rows.insert(t.rows.begin() + 2, wrong);
  Row skipped;
  skipped.name = "seed_only";
  skipped.check = CheckStatus::skipped;
  skipped.note = "needs multiples of 32";
  skipped.timings.resize(1);
  t.rows.insert(t.rows.begin() + 1, skipped);
  return t;
}

TEST(Bandwidth, DecimalGigabytesPerSecond) {
  // 2 x 2048 x 2048 x 4 bytes in 1 ms = 33.554432 GB/s (the seeds' formula, 1e9 bytes).
  EXPECT_NEAR(bandwidth_gbs(2.0 * 2048 * 2048 * 4, 1.0), 33.554432, 1e-9);
  EXPECT_EQ(bandwidth_gbs(100, 0), 0.0);
}

TEST(Metrics, StepAndCumulativeSkipWrongSkippedAndReferenceRows) {
  const Table t = sample_table();
  const auto m = compute_metrics(t, 0);
  ASSERT_EQ(m.size(), 5u);
  // naive
  EXPECT_DOUBLE_EQ(*m[0].cumulative_speedup, 1.0);
  EXPECT_FALSE(m[0].step_speedup);
  // skipped row: nothing
  EXPECT_FALSE(m[1].time_ms);
  // coalesced: 4x over naive in both columns
  EXPECT_DOUBLE_EQ(*m[2].step_speedup, 4.0);
  EXPECT_DOUBLE_EQ(*m[2].cumulative_speedup, 4.0);
  EXPECT_NEAR(*m[2].bandwidth_gbs, 8.388608, 1e-9);
  EXPECT_NEAR(*m[2].percent_of_peak, 0.8388608, 1e-9);
  // a wrong rung gets no speed at all, even though it was "timed"
  EXPECT_FALSE(m[3].time_ms);
  EXPECT_FALSE(m[3].bandwidth_gbs);
  // the reference gets bandwidth but no speedups
  EXPECT_TRUE(m[4].bandwidth_gbs);
  EXPECT_FALSE(m[4].step_speedup);
  // ratio to the reference: coalesced is half as fast as cudaMemcpy
  ASSERT_EQ(m[2].vs_reference.size(), 1u);
  EXPECT_DOUBLE_EQ(*m[2].vs_reference[0], 0.5);
}

TEST(Format, TextTableHasHeaderRowsAndNotes) {
  const std::string text = format_text(sample_table());
  for (const char* needle : {"time ms", "GB/s", "% peak", "step", "cumul", "x cudaMemcpy", "naive",
                             "[ref] cudaMemcpy", "WRONG", "skipped", "needs multiples of 32",
                             "2 x rows x cols x 4 B", "4.00x"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
}

TEST(Format, MarkdownAndCsvAgreeWithMetrics) {
  const Table t = sample_table();
  const std::string md = format_markdown(t);
  EXPECT_NE(md.find("| rung | check |"), std::string::npos) << md;
  EXPECT_NE(md.find("| coalesced | ok | 1.0000 | 8.4 |"), std::string::npos) << md;
  const std::string csv = format_csv(t, true);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 6); // header + 5 rows
  EXPECT_NE(csv.find("transpose,transpose 1024 x 1024 float,loop over launches,coalesced,0,ok,1.000000"),
            std::string::npos)
      << csv;
}

TEST(Format, JsonCarriesEveryRowAndGroup) {
  const auto j = to_json(sample_table());
  EXPECT_EQ(j["rows"].size(), 5u);
  EXPECT_EQ(j["rows"][3]["check"], "WRONG");
  EXPECT_TRUE(j["rows"][3]["timings"][0]["median_ms"].is_null());
  EXPECT_DOUBLE_EQ(j["rows"][2]["timings"][0]["step_speedup"].get<double>(), 4.0);
}

TEST(Format, TwoGroupsRenderSideBySide) {
  Table t = sample_table();
  t.groups.push_back("loop in kernel (x10)");
  for (auto& row : t.rows)
    row.timings.resize(2);
  t.rows[0].timings[1] = Measurement{2.0, 2.0, 2.0, 5};
  const std::string text = format_text(t);
  EXPECT_NE(text.find("loop in kernel (x10)"), std::string::npos) << text;
  EXPECT_NE(text.find(" | "), std::string::npos) << text;
  const auto m = compute_metrics(t, 1);
  EXPECT_DOUBLE_EQ(*m[0].time_ms, 2.0);
  EXPECT_FALSE(m[2].time_ms); // coalesced has no in-kernel timing
}

} // namespace
} // namespace ladder::lab
