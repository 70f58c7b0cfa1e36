// `ladder model <topic>` rejects bad input before any model runs: every integer option is an
// integer in its range, options that would be ignored are errors, totals that do not fit in 64
// bits are errors, and each message names the option and the value as the user typed them.
#include "cli_invoke.hpp"
#include "commands.hpp"

#include "ladder/device.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace ladder::cli {
namespace {

using test::invoke;
using test::Result;
using Args = std::vector<std::string>;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A usage error (exit 2) whose message names `option`.
void expect_usage_error(const Args& args, const std::string& option) {
  std::string command;
  for (const auto& arg : args) {
    command += arg + " ";
  }
  SCOPED_TRACE(command);
  const auto r = invoke(args);
  EXPECT_EQ(r.code, exit_usage) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, option)) << r.err;
  EXPECT_TRUE(r.out.empty()) << "nothing runs before the error:\n" << r.out;
}

Args with(Args args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(ModelCliValidation, BanksRejectsANegativeStride) {
  // It used to become stride 1 (the option's "unset" value was -1).
  const auto r = invoke({"model", "banks", "--stride", "-1"});
  EXPECT_EQ(r.code, exit_usage) << r.out;
  EXPECT_TRUE(contains(r.err, "--stride")) << r.err;
  EXPECT_TRUE(contains(r.err, "-1")) << r.err;
  expect_usage_error({"model", "banks", "--permutation", "-1"}, "--permutation");
}

TEST(ModelCliValidation, BanksBoundsThreadsInsteadOfSimulatingThemAll) {
  const auto start = std::chrono::steady_clock::now();
  const auto r = invoke({"model", "banks", "--threads", "100000000"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(r.code, exit_usage);
  EXPECT_TRUE(contains(r.err, "--threads")) << r.err;
  EXPECT_TRUE(contains(r.err, "1024")) << "says the limit: " << r.err;
  EXPECT_EQ(invoke({"model", "banks", "--threads", "1024"}).code, exit_ok);
}

TEST(ModelCliValidation, CoalescingStrideZeroIsABroadcast) {
  const auto r = invoke({"model", "coalescing", "--stride", "0", "--json"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  const auto document = nlohmann::json::parse(r.out);
  for (const auto& result : document.at("results")) {
    SCOPED_TRACE(result.at("rules").get<std::string>());
    EXPECT_LE(result.at("efficiency").get<double>(), 1.0);
    EXPECT_TRUE(result.at("broadcast").get<bool>());
    EXPECT_EQ(result.at("bytes_used"), 4);
  }
  const auto& sectors = document.at("results").at(2);
  EXPECT_EQ(sectors.at("transactions").size(), 1u) << "one sector serves the warp";
  EXPECT_DOUBLE_EQ(sectors.at("efficiency").get<double>(), 4.0 / 32.0);
  const auto text = invoke({"model", "coalescing", "--stride", "0"});
  EXPECT_TRUE(contains(text.out, "Broadcast")) << text.out;
  EXPECT_FALSE(contains(text.out, "400%")) << text.out;
}

TEST(ModelCliValidation, CoalescingErrorsNameTheOptionAndValueTyped) {
  // The model sees a byte stride (-4) and an address list; the user typed --stride -1.
  const auto stride = invoke({"model", "coalescing", "--stride", "-1"});
  EXPECT_EQ(stride.code, exit_usage);
  EXPECT_TRUE(contains(stride.err, "--stride")) << stride.err;
  EXPECT_TRUE(contains(stride.err, "-1")) << stride.err;
  EXPECT_FALSE(contains(stride.err, "-4")) << stride.err;
  const auto offset = invoke({"model", "coalescing", "--offset", "2"});
  EXPECT_EQ(offset.code, exit_usage);
  EXPECT_TRUE(contains(offset.err, "--offset")) << offset.err;
  EXPECT_FALSE(contains(offset.err, "--addresses")) << offset.err;
  const auto huge = invoke({"model", "coalescing", "--stride", "4611686018427387904"});
  EXPECT_EQ(huge.code, exit_usage);
  EXPECT_TRUE(contains(huge.err, "--stride: 4611686018427387904")) << huge.err;
  const auto height = invoke({"model", "coalescing", "--pattern", "transpose-naive-write",
                              "--matrix-height", "4611686018427387904"});
  EXPECT_EQ(height.code, exit_usage);
  EXPECT_TRUE(contains(height.err, "--matrix-height")) << height.err;
  expect_usage_error({"model", "coalescing", "--addresses", "0,4611686018427387904"},
                     "--addresses");
}

TEST(ModelCliValidation, TotalsThatDoNotFitAreUsageErrors) {
  // These printed negative or wrapped totals with exit 0.
  expect_usage_error({"model", "tiling", "--width", "5000000000", "--dims", "2"}, "--width");
  expect_usage_error({"model", "tiling", "--width", "9223372036854775807", "--dims", "1"},
                     "--width");
  expect_usage_error({"model", "divergence", "--width", "9223372036854775807", "--tile", "1"},
                     "--width");
  expect_usage_error(
      {"model", "divergence", "--n", "9223372036854775807", "--block", "2", "--warp", "1"}, "--n");
  // Large inputs whose totals fit are counted, at once.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(invoke({"model", "tiling", "--width", "1000000000000000", "--dims", "1"}).code,
            exit_ok);
  EXPECT_EQ(invoke({"model", "divergence", "--width", "10000000", "--tile", "16"}).code, exit_ok);
  expect_usage_error({"model", "divergence", "--width", "3000000000", "--tile", "16"}, "--width");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(ModelCliValidation, IntegerOptionsTakeWholeDecimalIntegers) {
  const std::vector<std::pair<Args, std::string>> options{
      {{"model", "occupancy", "--gpu", "h100", "--registers", "32", "--threads"}, "--threads"},
      {{"model", "occupancy", "--gpu", "h100", "--threads", "128", "--registers"}, "--registers"},
      {{"model", "occupancy", "--gpu", "h100", "--threads", "128", "--registers", "32", "--smem"},
       "--smem"},
      {{"model", "occupancy", "--gpu", "h100", "--threads", "128", "--registers", "32", "--sweep",
        "smem", "--step"},
       "--step"},
      {{"model", "bandwidth", "--clock-mhz", "900", "--bus-bits"}, "--bus-bits"},
      {{"model", "banks", "--stride"}, "--stride"},
      {{"model", "banks", "--threads"}, "--threads"},
      {{"model", "banks", "--words"}, "--words"},
      {{"model", "banks", "--tile", "32x32", "--padding"}, "--padding"},
      {{"model", "coalescing", "--stride"}, "--stride"},
      {{"model", "coalescing", "--threads"}, "--threads"},
      {{"model", "coalescing", "--element-size"}, "--element-size"},
      {{"model", "divergence", "--n"}, "--n"},
      {{"model", "divergence", "--n", "100", "--block"}, "--block"},
      {{"model", "divergence", "--width", "100", "--tile"}, "--tile"},
      {{"model", "divergence", "--warp"}, "--warp"},
      {{"model", "tiling", "--tiles"}, "--tiles"},
      {{"model", "tiling", "--masks"}, "--masks"},
      {{"model", "tiling", "--width"}, "--width"},
  };
  for (const auto& [args, option] : options) {
    for (const std::string value : {"1.5", "abc", "0x10", "1e3", "4 "}) {
      expect_usage_error(with(args, {value}), option);
    }
  }
  // Decimal, not octal: CLI11 alone reads "010" as 8.
  const auto r = invoke(
      {"model", "occupancy", "--gpu", "h100", "--threads", "010", "--registers", "32", "--json"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("result").at("threads_per_block"), 10);
}

TEST(ModelCliValidation, NegativeZeroAndAbsurdValuesAreRejected) {
  expect_usage_error(
      {"model", "occupancy", "--gpu", "h100", "--threads", "-32", "--registers", "32"},
      "--threads");
  expect_usage_error(
      {"model", "occupancy", "--gpu", "h100", "--threads", "128", "--registers", "-1"},
      "--registers");
  expect_usage_error({"model", "occupancy", "--gpu", "h100", "--threads", "128", "--registers",
                      "32", "--smem", "-1"},
                     "--smem");
  expect_usage_error({"model", "occupancy", "--gpu", "h100", "--threads", "128", "--registers",
                      "32", "--sweep", "smem", "--step", "0"},
                     "--step");
  // --bus-bits 0 with --clock-mhz 0 used to print the whole GPU table.
  expect_usage_error({"model", "bandwidth", "--clock-mhz", "0", "--bus-bits", "0"}, "--bus-bits");
  expect_usage_error({"model", "bandwidth", "--clock-mhz", "inf", "--bus-bits", "384"},
                     "--clock-mhz");
  expect_usage_error({"model", "bandwidth", "--clock-mhz", "900", "--bus-bits", "384",
                      "--transfers-per-clock", "0"},
                     "--transfers-per-clock");
  expect_usage_error({"model", "banks", "--offset", "-1"}, "--offset");
  expect_usage_error({"model", "banks", "--words", "0,-4"}, "--words");
  expect_usage_error({"model", "banks", "--tile", "0x32"}, "--tile");
  expect_usage_error({"model", "banks", "--tile", "32x32", "--padding", "-1"}, "--padding");
  expect_usage_error({"model", "banks", "--stride", "9223372036854775807"}, "--stride");
  expect_usage_error({"model", "coalescing", "--threads", "0"}, "--threads");
  expect_usage_error({"model", "coalescing", "--threads", "100000000"}, "--threads");
  expect_usage_error({"model", "coalescing", "--offset", "-4"}, "--offset");
  expect_usage_error({"model", "divergence", "--n", "-1"}, "--n");
  expect_usage_error({"model", "divergence", "--width", "0"}, "--width");
  expect_usage_error({"model", "divergence", "--width", "100", "--tile", "2000"}, "--tile");
  expect_usage_error({"model", "divergence", "--warp", "0"}, "--warp");
  expect_usage_error({"model", "tiling", "--width", "0"}, "--width"); // was silently ignored
  expect_usage_error({"model", "tiling", "--width", "64", "--height", "-3"}, "--height");
  expect_usage_error({"model", "tiling", "--masks", "5,-9"}, "--masks");
}

TEST(ModelCliValidation, OptionsThatWouldBeIgnoredAreErrors) {
  expect_usage_error({"model", "banks", "--padding", "1"}, "--padding");
  expect_usage_error({"model", "banks", "--tile", "32x32", "--offset", "3"}, "--offset");
  expect_usage_error({"model", "coalescing", "--pattern", "crossing", "--offset", "8"}, "--offset");
  expect_usage_error({"model", "coalescing", "--matrix-height", "64"}, "--matrix-height");
  expect_usage_error({"model", "coalescing", "--pattern", "crossing", "--matrix-height", "64"},
                     "--matrix-height");
  expect_usage_error({"model", "coalescing", "--addresses", "0,4", "--threads", "8"}, "--threads");
  expect_usage_error({"model", "divergence", "--block", "64"}, "--block");
  expect_usage_error({"model", "divergence", "--tile", "8"}, "--tile");
  expect_usage_error({"model", "tiling", "--height", "64"}, "--height");
  expect_usage_error({"model", "occupancy", "--gpu", "h100", "--threads", "128", "--registers",
                      "32", "--step", "64"},
                     "--step");
  expect_usage_error({"model", "bandwidth", "--transfers-per-clock", "1"}, "--transfers-per-clock");
}

TEST(ModelCliValidation, HopperPresets) {
  const auto h200 = invoke({"model", "bandwidth", "--gpu", "h200"});
  ASSERT_EQ(h200.code, exit_ok) << h200.err;
  EXPECT_TRUE(contains(h200.out, "4814.")) << h200.out;
  const auto h100 = invoke({"model", "bandwidth", "--gpu", "H100"});
  ASSERT_EQ(h100.code, exit_ok) << h100.err;
  EXPECT_TRUE(contains(h100.out, "3352.")) << h100.out;
  const auto occupancy =
      invoke({"model", "occupancy", "--gpu", "h200", "--threads", "256", "--registers", "32"});
  ASSERT_EQ(occupancy.code, exit_ok) << occupancy.err;
  EXPECT_TRUE(contains(occupancy.out, "132 SMs")) << occupancy.out;
  EXPECT_TRUE(contains(occupancy.out, "Maximum simultaneous blocks per GPU")) << occupancy.out;
}

TEST(ModelCliValidation, GpuCurrentIsThisMachinesGpu) {
  const auto occupancy =
      invoke({"model", "occupancy", "--gpu", "current", "--threads", "256", "--registers", "32"});
  const auto bandwidth = invoke({"model", "bandwidth", "--gpu", "current"});
  if (device_count() == 0) {
    EXPECT_EQ(occupancy.code, exit_no_device);
    EXPECT_TRUE(contains(occupancy.err, "no CUDA device")) << occupancy.err;
    EXPECT_EQ(bandwidth.code, exit_no_device);
    EXPECT_TRUE(contains(bandwidth.err, "no CUDA device")) << bandwidth.err;
  } else {
    EXPECT_EQ(occupancy.code, exit_ok) << occupancy.err;
    EXPECT_EQ(bandwidth.code, exit_ok) << bandwidth.err;
  }
  // A bad value is a usage error whether or not there is a device: it is checked first.
  expect_usage_error(
      {"model", "occupancy", "--gpu", "current", "--threads", "0", "--registers", "32"},
      "--threads");
  const auto unknown =
      invoke({"model", "occupancy", "--gpu", "h300", "--threads", "256", "--registers", "32"});
  EXPECT_EQ(unknown.code, exit_usage);
  EXPECT_TRUE(contains(unknown.err, "current")) << "lists current: " << unknown.err;
}

} // namespace
} // namespace ladder::cli
