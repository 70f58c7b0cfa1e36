// The lab core's measurements: every figure a table prints is derived here from what one operation
// does (its Work) and the peak that bounds it, for each kind of bound (bytes, FLOP/s, the host
// link, instruction rates), and rendered the same way in text, Markdown, CSV and JSON.
#include "core/measurement.hpp"
#include "core/peaks.hpp"
#include "core/report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace ladder::lab {
namespace {

Row timed(std::string name, double ms, Role role = Role::beyond, std::string variant_of = "") {
  Row r;
  r.name = std::move(name);
  r.role = role;
  r.variant_of = std::move(variant_of);
  r.check = CheckStatus::passed;
  r.timings = {Measurement{ms, ms * 0.9, ms * 1.1, 20}};
  return r;
}

Peak peak(Bound bound, double theoretical, double measured) {
  Peak p;
  p.bound = bound;
  p.theoretical = theoretical;
  p.measured = measured;
  return p;
}

// A transpose-like table: 1024 x 1024 floats read and written, bound by a 1000 GB/s copy.
Table bytes_table() {
  Table t;
  t.study = "transpose";
  t.title = "transpose 1024 x 1024 float";
  t.work.elements = 1024.0 * 1024;
  t.work.bytes_read = t.work.bytes_written = 1024.0 * 1024 * 4;
  t.work.formula = "2 x rows x cols x 4 B";
  t.peak = peak(Bound::dram_copy, 1200e9, 1000e9);
  t.groups = {"loop over launches"};
  Row skipped;
  skipped.name = "seed_only";
  skipped.role = Role::seed;
  skipped.check = CheckStatus::skipped;
  skipped.note = "needs multiples of 32";
  skipped.timings.resize(1);
  Row wrong = timed("broken", 0.1);
  wrong.check = CheckStatus::wrong;
  wrong.note = "3 of 9 elements differ";
  Row vendor = timed("cublas_geam", 0.4, Role::reference);
  vendor.vendor = true;
  t.rows = {timed("naive", 4.0, Role::seed),
            skipped,
            timed("coalesced", 1.0, Role::seed),
            timed("slow_shape", 2.0, Role::variant, "coalesced"),
            wrong,
            timed("tiled", 0.5),
            timed("ladder::transpose", 0.5, Role::library),
            timed("cudaMemcpy", 0.25, Role::reference),
            vendor};
  const char* labels[] = {"1", "2", "3", "3a", "4", "5", "lib", "ref", "ref"};
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    t.rows[i].label = labels[i];
  t.headline = true;
  return t;
}

TEST(Measurement, BytesTableDerivesThroughputPercentAndRatios) {
  const Table t = bytes_table();
  const auto m = compute_metrics(t, 0);
  ASSERT_EQ(m.size(), 9u);
  // naive: 8 MiB in 4 ms = 2.097152 GB/s, 0.2097152 % of the measured 1000 GB/s.
  EXPECT_NEAR(*m[0].throughput, 2.097152e9, 1);
  EXPECT_NEAR(*m[0].percent_of_peak, 0.2097152, 1e-9);
  EXPECT_DOUBLE_EQ(*m[0].cumulative_speedup, 1.0);
  EXPECT_FALSE(m[0].step_speedup);
  EXPECT_FALSE(m[1].time_ms); // skipped: nothing
  // coalesced: 4x over naive, step and cumulative.
  EXPECT_DOUBLE_EQ(*m[2].step_speedup, 4.0);
  EXPECT_DOUBLE_EQ(*m[2].cumulative_speedup, 4.0);
  // the variant's step is against the rung it tunes (coalesced, 1 ms), not the row above it.
  EXPECT_DOUBLE_EQ(*m[3].step_speedup, 0.5);
  EXPECT_DOUBLE_EQ(*m[3].cumulative_speedup, 2.0);
  // a wrong rung gets no speed at all, even though it was "timed"
  EXPECT_FALSE(m[4].time_ms);
  EXPECT_FALSE(m[4].throughput);
  // tiled: its step skips the variant and the wrong row: coalesced 1 ms / 0.5 ms.
  EXPECT_DOUBLE_EQ(*m[5].step_speedup, 2.0);
  EXPECT_DOUBLE_EQ(*m[5].cumulative_speedup, 8.0);
  // the library: cumulative, no step; references: throughput but no speedups.
  EXPECT_FALSE(m[6].step_speedup);
  EXPECT_DOUBLE_EQ(*m[6].cumulative_speedup, 8.0);
  EXPECT_TRUE(m[7].throughput);
  EXPECT_FALSE(m[7].step_speedup);
  EXPECT_FALSE(m[7].cumulative_speedup);
  // every ratio is higher-is-better: reference time / this time.
  ASSERT_EQ(m[6].vs_reference.size(), 2u);
  EXPECT_DOUBLE_EQ(*m[6].vs_reference[0], 0.5); // cudaMemcpy is twice as fast
  EXPECT_DOUBLE_EQ(*m[6].vs_reference[1], 0.8); // cuBLAS 0.4 ms vs 0.5 ms
}

TEST(Measurement, ReadOnlyBoundCountsOnlyTheBytesRead) {
  Table t;
  t.work.bytes_read = 4e9;
  t.work.bytes_written = 4;
  t.peak = peak(Bound::dram_read, 4.8e12, 4.0e12);
  t.groups = {"one buffer"};
  t.rows = {timed("reduce", 1.0, Role::library)};
  const auto m = compute_metrics(t, 0);
  EXPECT_NEAR(*m[0].throughput, 4.000000004e12, 1e3);
  EXPECT_NEAR(*m[0].percent_of_peak, 100.0, 1e-6); // of the read peak, never 105% of a copy's
  EXPECT_EQ(unit_of(Bound::dram_read), Unit::bytes_per_second);
}

TEST(Measurement, FlopTableUsesTheFmaPeak) {
  Table t;
  t.study = "gemm";
  t.title = "sgemm 4096";
  t.work.flops = 2.0 * 4096 * 4096 * 4096; // 137.4 GFLOP
  t.work.bytes_read = 2.0 * 4096 * 4096 * 4;
  t.work.formula = "2 x M x N x K";
  t.peak = peak(Bound::fp32_fma, 60e12, 50e12);
  t.groups = {"loop over launches"};
  t.rows = {timed("tiled", 5.0, Role::seed), timed("cublasSgemm", 2.5, Role::reference)};
  const auto m = compute_metrics(t, 0);
  EXPECT_NEAR(*m[0].throughput, 2.0 * 4096 * 4096 * 4096 / 5e-3, 1e3);
  EXPECT_NEAR(*m[1].percent_of_peak, 100.0 * (2.0 * 4096 * 4096 * 4096 / 2.5e-3) / 50e12, 1e-9);
  EXPECT_EQ(throughput_scale(Unit::flops_per_second, 50e12).header, "TFLOP/s");
  const std::string text = format_text(t);
  EXPECT_NE(text.find("TFLOP/s"), std::string::npos) << text;
  EXPECT_NE(text.find("137.439 GFLOP"), std::string::npos) << text;
  EXPECT_NE(text.find("FP32 FMA"), std::string::npos) << text;
}

TEST(Measurement, HostLinkTableUsesTheLinkPeakAndItsTheory) {
  // PCIe 5.0 x16: 32 GT/s x 16 lanes x 128/130 / 8 = 63.015 GB/s per direction.
  EXPECT_NEAR(pcie_bytes_per_second({32.0, 16}), 63.0153846e9, 1e3);
  // PCIe 2.0 x16 (8b/10b): 5 GT/s x 16 x 0.8 / 8 = 8 GB/s.
  EXPECT_NEAR(pcie_bytes_per_second({5.0, 16}), 8e9, 1);
  Table t;
  t.work.bytes_read = 1 << 30;
  t.peak = peak(Bound::host_link, pcie_bytes_per_second({32.0, 16}), 53.6e9);
  t.groups = {"host to device"};
  t.rows = {timed("pageable", 100.0, Role::seed), timed("pinned", 20.0, Role::seed)};
  const auto m = compute_metrics(t, 0);
  EXPECT_NEAR(*m[1].throughput, 53.687091e9, 1e3);
  EXPECT_NEAR(*m[1].percent_of_peak, 100.0 * 53.687091e9 / 53.6e9, 1e-6);
  EXPECT_DOUBLE_EQ(*m[1].step_speedup, 5.0);
}

TEST(Measurement, OpsTableWithOnlyATheoreticalPeakSaysSo) {
  Table t;
  t.work.ops = 1e9;
  t.work.formula = "threads x iterations";
  t.peak = peak(Bound::instruction, 2e12, 0); // not measured: % of the theoretical one
  t.groups = {"dependent-free"};
  t.rows = {timed("fadd", 1.0, Role::seed)};
  const auto m = compute_metrics(t, 0);
  EXPECT_NEAR(*m[0].throughput, 1e12, 1);
  EXPECT_NEAR(*m[0].percent_of_peak, 50.0, 1e-9);
  EXPECT_EQ(unit_name(unit_of(Bound::instruction)), "op/s");
  EXPECT_NE(format_text(t).find("% peak is of the theoretical one"), std::string::npos);
}

TEST(Measurement, PeakTheoryFromDeviceProperties) {
  DeviceInfo d;
  d.compute_major = 9;
  d.multiprocessors = 132;
  d.sm_clock_khz = 1980000;
  d.memory_clock_khz = 2619000;
  d.memory_bus_width_bits = 5120;
  // H100 SXM: 1.98 GHz x 132 SMs x 128 lanes x 2 = 66.9 TFLOP/s.
  EXPECT_NEAR(theoretical_peak(Bound::fp32_fma, d).theoretical, 1.98e9 * 132 * 128 * 2, 1);
  EXPECT_NEAR(theoretical_peak(Bound::dram_copy, d).theoretical, 2.619e9 * 5120 * 2 / 8, 1);
  EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);
  EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);
  EXPECT_EQ(fp32_lanes_per_sm(99, 0), 0);
}

TEST(Measurement, RungLabelsNumberTheStoryAndLetterTheVariants) {
  const std::vector<RungInfo> rungs = {{.name = "a", .role = Role::seed},
                                       {.name = "b", .role = Role::beyond},
                                       {.name = "b_wide", .role = Role::variant, .variant_of = "b"},
                                       {.name = "c", .role = Role::beyond},
                                       {.name = "b_deep", .role = Role::variant, .variant_of = "b"},
                                       {.name = "lib", .role = Role::library},
                                       {.name = "cub", .role = Role::reference, .vendor = true}};
  EXPECT_EQ(rung_labels(rungs),
            (std::vector<std::string>{"1", "2", "2a", "3", "2b", "lib", "ref"}));
}

TEST(Measurement, RungLabelsGoOnPastTwentySixVariants) {
  std::vector<RungInfo> rungs = {{.name = "a", .role = Role::seed}};
  for (int i = 0; i < 28; ++i)
    rungs.push_back({.name = "v", .role = Role::variant, .variant_of = "a"});
  const std::vector<std::string> labels = rung_labels(rungs);
  EXPECT_EQ(labels[1], "1a");
  EXPECT_EQ(labels[26], "1z");
  EXPECT_EQ(labels[27], "1aa");
  EXPECT_EQ(labels[28], "1ab");
}

TEST(Format, TextTableFitsInOneHundredTwentyColumnsAndSaysWhatRatiosMean) {
  Table t = bytes_table();
  t.rows[5].name = "tiled_64x64_v16_cs_persistent"; // the longest name in the registries
  t.case_label =
      "the course's size; input fits in the L2: [1] reads one buffer (L2 speed), [2] rotates over "
      "13 buffers (DRAM)";
  const std::string text = format_text(t);
  for (const char* needle :
       {"time", "GB/s", "% peak", "step", "cumul", "x cudaMemcpy", "x cublas_geam", "naive",
        "WRONG", "skipped", "needs multiples of 32", "2 x rows x cols x 4 B", "4.00x",
        "higher is better", "3a", "ref", "lib"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    EXPECT_LE(line.size(), 120u) << line;
}

TEST(Format, TuningBlocksPutEachRungBesideItsShapes) {
  Table t = bytes_table();
  t.rows[2].params = {{"threads", 256}, {"tile", 32}};
  t.rows[3].params = {{"threads", 1024}, {"tile", 32}};
  const std::string text = format_tuning_text(t);
  for (const char* needle :
       {"tuning 3 coalesced:", "threads", "tile", "1024", "3a", "slow_shape", "0.50x", "1.00x"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  EXPECT_EQ(text.find("naive"), std::string::npos) << text; // no variants: no block
  Table plain = t;
  plain.rows.erase(plain.rows.begin() + 3);
  EXPECT_EQ(format_tuning_text(plain), "");
}

TEST(Format, TimesPickTheirUnit) {
  EXPECT_EQ(format_time(0.0054), "5.4 us");
  EXPECT_EQ(format_time(0.5409), "540.9 us");
  EXPECT_EQ(format_time(2.2584), "2.258 ms");
  EXPECT_EQ(format_time(1234.5), "1.234 s");
}

TEST(Format, MarkdownAndCsvAgreeWithMetrics) {
  const Table t = bytes_table();
  const std::string md = format_markdown(t);
  EXPECT_NE(md.find("| # | rung | check |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 3 | coalesced | ok | 1 ms | 8.39 |"), std::string::npos) << md;
  const std::string csv = format_csv(t, true);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 10); // header + 9 rows
  EXPECT_NE(
      csv.find("transpose,transpose 1024 x 1024 float,loop over launches,3,coalesced,seed,ok,1,"),
      std::string::npos)
      << csv;
}

TEST(Format, JsonCarriesNumbersNeverNumbersInStrings) {
  const auto j = to_json(bytes_table());
  EXPECT_EQ(j["rows"].size(), 9u);
  EXPECT_EQ(j["rows"][4]["check"], "WRONG");
  EXPECT_TRUE(j["rows"][4]["timings"][0]["median_ms"].is_null());
  EXPECT_DOUBLE_EQ(j["rows"][2]["timings"][0]["step_speedup"].get<double>(), 4.0);
  EXPECT_EQ(j["rows"][3]["role"], "variant");
  EXPECT_EQ(j["rows"][3]["variant_of"], "coalesced");
  EXPECT_DOUBLE_EQ(j["rows"][6]["timings"][0]["vs_reference"]["cublas_geam"].get<double>(), 0.8);
  EXPECT_TRUE(j["work"]["bytes_read"].is_number());
  EXPECT_TRUE(j["peak"]["measured"].is_number());
  EXPECT_EQ(j["peak"]["unit"], "B/s");
}

TEST(Format, ExtraGroupsAreBlocksOfTheirOwn) {
  Table t = bytes_table();
  t.groups.push_back("loop in kernel (x10)");
  for (auto& row : t.rows)
    row.timings.resize(2);
  t.rows[0].timings[1] = Measurement{2.0, 2.0, 2.0, 5};
  const std::string text = format_text(t);
  EXPECT_NE(text.find("[2] loop in kernel (x10)"), std::string::npos) << text;
  const auto m = compute_metrics(t, 1);
  EXPECT_DOUBLE_EQ(*m[0].time_ms, 2.0);
  EXPECT_FALSE(m[2].time_ms); // coalesced has no in-kernel timing
}

Sweep sample_sweep() {
  Sweep s;
  s.study = "reduce";
  s.title = "reduce sweep";
  s.series = {{"int32 ladder", Role::library}, {"int32 CUB", Role::reference}};
  s.ratios = {{"x CUB", 0, 1}};
  s.points = {{1024,
               "2^10",
               {Measurement{0.004}, Measurement{0.006}},
               {CheckStatus::passed, CheckStatus::passed}},
              {1 << 20,
               "2^20",
               {Measurement{0.010}, Measurement{0.008}},
               {CheckStatus::passed, CheckStatus::passed}},
              {1 << 28,
               "2^28",
               {Measurement{0.2}, Measurement{0.2}},
               {CheckStatus::wrong, CheckStatus::passed}}};
  return s;
}

TEST(Sweep, RatiosAreVendorOverOursAndSkipWrongPoints) {
  const Sweep s = sample_sweep();
  EXPECT_DOUBLE_EQ(*sweep_ratio(s.points[0], s.ratios[0]), 1.5);
  EXPECT_DOUBLE_EQ(*sweep_ratio(s.points[1], s.ratios[0]), 0.8);
  EXPECT_FALSE(sweep_ratio(s.points[2], s.ratios[0])); // a wrong result has no ratio
  const std::string text = format_text(s);
  EXPECT_NE(text.find("WRONG"), std::string::npos) << text;
  EXPECT_NE(text.find("1.50"), std::string::npos) << text;
  const auto j = to_json(s);
  EXPECT_EQ(j["points"][0]["n"], 1024);
  EXPECT_DOUBLE_EQ(j["points"][0]["ratios"]["x CUB"].get<double>(), 1.5);
}

TEST(Summary, QuotesTheHeadlineLibraryVendorBestRungAndSweepRange) {
  StudyResults results;
  results.tables = {bytes_table()};
  results.sweeps = {sample_sweep()};
  const SummaryLine s = summarize("transpose", results);
  EXPECT_EQ(s.library, "ladder::transpose");
  EXPECT_EQ(s.vendor, "cublas_geam"); // the vendor reference, not the cudaMemcpy bound
  EXPECT_DOUBLE_EQ(*s.library_vs_vendor, 0.8);
  EXPECT_EQ(s.best_rung, "tiled"); // the first of the two 0.5 ms rows; references excluded
  EXPECT_NEAR(*s.best_percent_of_peak, 100.0 * 8388608 / 0.5e-3 / 1000e9, 1e-9);
  EXPECT_DOUBLE_EQ(*s.sweep_min, 0.8);
  EXPECT_DOUBLE_EQ(*s.sweep_max, 1.5);
  EXPECT_EQ(s.wrong, 1);
  const std::string text = format_summary_text({s});
  EXPECT_NE(text.find("0.80x cublas_geam"), std::string::npos) << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    EXPECT_LE(line.size(), 120u) << line;
}

} // namespace
} // namespace ladder::lab
