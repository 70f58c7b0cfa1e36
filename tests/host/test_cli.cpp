// The command line: parsing, exit codes, and what works without a GPU.
#include "cli_invoke.hpp"
#include "commands.hpp"

#include "core/study.hpp"
#include "ladder/device.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace ladder::cli {
namespace {

using test::invoke;
using test::Result;

TEST(Cli, NoSubcommandIsAUsageError) { EXPECT_EQ(invoke({}).code, exit_usage); }

TEST(Cli, UnknownSubcommandIsAUsageErrorNamingTheWord) {
  for (const char* word : {"frobnicate", "bogus"}) {
    const auto r = invoke({word});
    EXPECT_EQ(r.code, exit_usage);
    EXPECT_NE(r.err.find(std::string("'") + word + "'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ladder --help"), std::string::npos);
  }
}

TEST(Cli, HelpExitsZero) {
  const auto r = invoke({"--help"});
  EXPECT_EQ(r.code, exit_ok);
  EXPECT_NE(r.out.find("run"), std::string::npos);
  const auto sub = invoke({"run", "--help"});
  EXPECT_EQ(sub.code, exit_ok);
  EXPECT_NE(sub.out.find("--json"), std::string::npos) << sub.out;
}

TEST(Cli, ListShowsEveryRegisteredRung) {
  const auto r = invoke({"list"});
  EXPECT_EQ(r.code, exit_ok);
  for (const auto& study : lab::studies()) {
    EXPECT_NE(r.out.find(std::string(study.name)), std::string::npos);
    for (const auto& rung : study.rungs())
      EXPECT_NE(r.out.find(std::string(rung.name)), std::string::npos) << rung.name;
  }
}

TEST(Cli, RunRejectsUnknownStudyBeforeTouchingTheGpu) {
  const auto r = invoke({"run", "no_such_study"});
  EXPECT_EQ(r.code, exit_usage);
  EXPECT_NE(r.err.find("no_such_study"), std::string::npos);
  EXPECT_NE(r.err.find("transpose"), std::string::npos); // names the known ones
}

// Every bad input is a usage error (exit 2) whose message names what the user typed, on any
// machine: all of it is checked before the device is.
void expect_usage_error(const std::vector<std::string>& args,
                        const std::vector<std::string>& named) {
  const auto r = invoke(args);
  std::string line;
  for (const auto& a : args)
    line += a + " ";
  EXPECT_EQ(r.code, exit_usage) << line << "\n" << r.err;
  for (const auto& word : named)
    EXPECT_NE(r.err.find(word), std::string::npos)
        << line << ": message does not name '" << word << "': " << r.err;
  EXPECT_LT(r.err.size(), 400u) << line << ": " << r.err;
}

TEST(Cli, RunRejectsBadIntegerOptions) {
  expect_usage_error({"run", "--reps", "-1"}, {"--reps"});
  expect_usage_error({"run", "--reps", "-3"}, {"--reps"});
  expect_usage_error({"run", "--reps", "1.5"}, {"--reps"});
  expect_usage_error({"run", "--reps", "abc"}, {"--reps"});
  expect_usage_error({"run", "--warmups", "-2"}, {"--warmups"});
  expect_usage_error({"run", "--reps", "99999999999999999999"}, {"--reps"});
}

TEST(Cli, RunRejectsSizesWithoutOneStudy) {
  expect_usage_error({"run", "--size", "64x64"}, {"--size", "one study"});
  // A study name after -s is a study, never a size: two studies with a size is an error.
  expect_usage_error({"run", "reduce", "-s", "1000", "scan"}, {"--size", "one study"});
}

TEST(Cli, RunRejectsMalformedSizesBeforeTheDevice) {
  for (const char* size : {"0x5", "abc", "5x", "99999999999999999999", "-4x4", "64"})
    expect_usage_error({"run", "transpose", "-s", size}, {"--size", std::string("'") + size + "'"});
  for (const char* size : {"0", "abc", "5x", "99999999999999999999", "-1", "2^99", "64x64"}) {
    expect_usage_error({"run", "reduce", "-s", size}, {"--size", std::string("'") + size + "'"});
    expect_usage_error({"run", "scan", "-s", size}, {"--size", std::string("'") + size + "'"});
  }
  // Each -s takes one value; a comma list is several.
  expect_usage_error({"run", "reduce", "-s", "1000,abc"}, {"--size", "'abc'"});
}

TEST(Cli, RunRejectsRungsWithoutOneStudyOrMatchingNoRung) {
  expect_usage_error({"run", "--rungs", "row_reuse"}, {"--rungs", "one study"});
  expect_usage_error({"tune", "convolution", "--rungs", "no_such_rung"},
                     {"--rungs", "'no_such_rung'", "convolution"});
  expect_usage_error({"tune", "convolution", "--rungs", "row_reuse,nope*"}, {"--rungs", "'nope*'"});
}

TEST(Cli, RungPatternsSelectNamesAndPrefixes) {
  const std::vector<std::string> patterns = {"row_reuse_bulk*", "lane_halo"};
  EXPECT_TRUE(lab::rung_selected(patterns, "row_reuse_bulk"));
  EXPECT_TRUE(lab::rung_selected(patterns, "row_reuse_bulk_ring2"));
  EXPECT_TRUE(lab::rung_selected(patterns, "lane_halo"));
  EXPECT_FALSE(lab::rung_selected(patterns, "lane_halo_ry2"));
  EXPECT_FALSE(lab::rung_selected(patterns, "row_reuse"));
  EXPECT_TRUE(lab::rung_selected({"*"}, "anything"));
  EXPECT_FALSE(lab::rung_selected({}, "row_reuse"));
}

TEST(Cli, RunOpensOutputFilesBeforeTheDevice) {
  for (const char* option : {"--json", "--csv", "--markdown"})
    expect_usage_error({"run", "transpose", option, "/nonexistent/dir/x.out"},
                       {option, "/nonexistent/dir/x.out"});
}

TEST(Cli, SizeFlagDoesNotSwallowTheStudy) {
  // `-s 64x64 transpose` names the study after the size. Without a GPU that reaches the device
  // check (exit 3); with one it runs the 64 x 64 transpose.
  const auto r = invoke({"run", "-s", "64x64", "transpose", "-q", "--reps", "1", "--warmups", "0"});
  EXPECT_EQ(r.code, device_count() > 0 ? exit_ok : exit_no_device) << r.err;
  EXPECT_EQ(r.err.find("--size"), std::string::npos) << r.err;
}

TEST(Cli, TuneNeedsOneKnownStudy) {
  expect_usage_error({"tune"}, {"study"});
  expect_usage_error({"tune", "nonesuch"}, {"nonesuch"});
}

TEST(Cli, RunWithoutDeviceExitsThree) {
  if (device_count() > 0)
    GTEST_SKIP() << "a CUDA device is present; this test is about machines without one";
  const auto r = invoke({"run"});
  EXPECT_EQ(r.code, exit_no_device);
  EXPECT_NE(r.err.find("no CUDA device"), std::string::npos);
  EXPECT_EQ(invoke({"info"}).code, exit_no_device);
}

} // namespace
} // namespace ladder::cli
