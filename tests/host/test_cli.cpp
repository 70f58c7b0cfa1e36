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

TEST(Cli, UnknownSubcommandIsAUsageError) {
  const auto r = invoke({"frobnicate"});
  EXPECT_EQ(r.code, exit_usage);
  EXPECT_NE(r.err.find("ladder --help"), std::string::npos);
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

TEST(Cli, RunRejectsNegativeRepetitions) { EXPECT_EQ(invoke({"run", "--reps", "-3"}).code, exit_usage); }

TEST(Cli, RunRejectsSizesWithoutOneStudy) {
  EXPECT_EQ(invoke({"run", "--size", "64x64"}).code, exit_usage);
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
