// `ladder model <topic>`: output, JSON and exit codes, through ladder::cli::run.
#include "cli_invoke.hpp"
#include "commands.hpp"

#include "ladder/device.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace ladder::cli {
namespace {

using test::invoke;
using test::Result;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

nlohmann::json parse_json(const Result& result) {
  EXPECT_EQ(result.code, exit_ok) << result.err;
  return nlohmann::json::parse(result.out);
}

TEST(ModelCli, OccupancyOfTheSeedExample) {
  // "Optimizing CUDA" (NVIDIA), "Occupancy Calculator": G80, 192 threads, 20 registers, 68 bytes.
  const auto r = invoke({"model", "occupancy", "--gpu", "g80", "--threads", "192", "--registers",
                         "20", "--smem", "68"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_TRUE(contains(r.out, "50%")) << r.out;
  EXPECT_TRUE(contains(r.out, "384")) << r.out;
  EXPECT_TRUE(contains(r.out, "Limiting: registers")) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(ModelCli, OccupancyJsonCarriesEveryLimit) {
  const auto document = parse_json(invoke({"model", "occupancy", "--gpu", "g80", "--threads", "192",
                                           "--registers", "20", "--smem", "68", "--json"}));
  const auto& result = document.at("result");
  EXPECT_EQ(result.at("active_threads_per_sm"), 384);
  EXPECT_EQ(result.at("active_warps_per_sm"), 12);
  EXPECT_EQ(result.at("active_blocks_per_sm"), 2);
  EXPECT_DOUBLE_EQ(result.at("occupancy").get<double>(), 0.5);
  EXPECT_EQ(result.at("blocks_limited_by").at("warps"), 4);
  EXPECT_EQ(result.at("blocks_limited_by").at("registers"), 2);
  EXPECT_EQ(result.at("blocks_limited_by").at("shared_memory"), 32);
  EXPECT_EQ(document.at("max_blocks_per_gpu"), 32);
  EXPECT_EQ(document.at("architecture").at("max_warps_per_sm"), 24);
}

TEST(ModelCli, OccupancySweepsTheSpreadsheetsGraphs) {
  const auto document =
      parse_json(invoke({"model", "occupancy", "--gpu", "g80", "--threads", "192", "--registers",
                         "20", "--smem", "68", "--sweep", "all", "--json"}));
  const auto& sweeps = document.at("sweeps");
  EXPECT_EQ(sweeps.at("threads per block").size(), 16u);       // 32 .. 512
  EXPECT_EQ(sweeps.at("registers per thread").size(), 128u);   // 1 .. 128
  EXPECT_EQ(sweeps.at("shared memory per block").size(), 33u); // 0 .. 16384 by 512
  const auto table = invoke({"model", "occupancy", "--gpu", "sm_90", "--threads", "256",
                             "--registers", "32", "--sweep", "registers"});
  ASSERT_EQ(table.code, exit_ok) << table.err;
  EXPECT_TRUE(contains(table.out, "Varying registers per thread")) << table.out;
  EXPECT_TRUE(contains(table.out, "129 - 255")) << "runs of equal results share a row\n"
                                                << table.out;
}

TEST(ModelCli, OccupancyUsageErrorsNameTheOption) {
  const auto zero =
      invoke({"model", "occupancy", "--gpu", "g80", "--threads", "0", "--registers", "20"});
  EXPECT_EQ(zero.code, exit_usage);
  EXPECT_TRUE(contains(zero.err, "--threads")) << zero.err;
  const auto too_many =
      invoke({"model", "occupancy", "--gpu", "g80", "--threads", "513", "--registers", "20"});
  EXPECT_EQ(too_many.code, exit_usage);
  EXPECT_TRUE(contains(too_many.err, "--threads")) << too_many.err;
  EXPECT_TRUE(contains(too_many.err, "512")) << "says the limit: " << too_many.err;
  const auto registers =
      invoke({"model", "occupancy", "--gpu", "sm_90", "--threads", "128", "--registers", "300"});
  EXPECT_EQ(registers.code, exit_usage);
  EXPECT_TRUE(contains(registers.err, "--registers")) << registers.err;
  const auto unknown =
      invoke({"model", "occupancy", "--gpu", "g81", "--threads", "128", "--registers", "20"});
  EXPECT_EQ(unknown.code, exit_usage);
  EXPECT_TRUE(contains(unknown.err, "--gpu")) << unknown.err;
  EXPECT_TRUE(contains(unknown.err, "gtx280")) << "lists the known GPUs: " << unknown.err;
  const auto no_gpu = invoke({"model", "occupancy", "--threads", "128", "--registers", "20"});
  EXPECT_EQ(no_gpu.code, exit_usage);
  EXPECT_TRUE(contains(no_gpu.err, "--gpu")) << no_gpu.err;
  EXPECT_EQ(invoke({"model", "occupancy", "--gpu", "g80", "--registers", "20"}).code, exit_usage)
      << "--threads is required";
  EXPECT_EQ(invoke({"model", "occupancy", "--gpu", "g80", "--device", "--threads", "128",
                    "--registers", "20"})
                .code,
            exit_usage);
  const auto carveout = invoke({"model", "occupancy", "--gpu", "h100", "--threads", "128",
                                "--registers", "32", "--carveout", "-5"});
  EXPECT_EQ(carveout.code, exit_usage);
  EXPECT_TRUE(contains(carveout.err, "--carveout")) << carveout.err;
  EXPECT_EQ(invoke({"model", "occupancy", "--gpu", "g80", "--threads", "128", "--registers", "20",
                    "--sweep", "warps"})
                .code,
            exit_usage);
}

TEST(ModelCli, CurrentDeviceNeedsOne) {
  const auto r =
      invoke({"model", "occupancy", "--device", "--threads", "256", "--registers", "32"});
  if (device_count() == 0) {
    EXPECT_EQ(r.code, exit_no_device);
    EXPECT_TRUE(contains(r.err, "no CUDA device")) << r.err;
    EXPECT_EQ(invoke({"model", "bandwidth", "--device"}).code, exit_no_device);
  } else {
    EXPECT_EQ(r.code, exit_ok) << r.err;
    EXPECT_TRUE(contains(r.out, "Occupancy of each multiprocessor")) << r.out;
  }
}

TEST(ModelCli, BandwidthOfTheSeedsGpus) {
  // "Optimizing CUDA" (NVIDIA), "Theoretical Bandwidth": GTX 280, 141.7 GB/s = 131.9 GiB/s (truncated there).
  const auto r = invoke({"model", "bandwidth", "--gpu", "gtx280"});
  ASSERT_EQ(r.code, exit_ok) << r.err;
  EXPECT_TRUE(contains(r.out, "141.70")) << r.out;
  EXPECT_TRUE(contains(r.out, "131.96")) << r.out;
  // "Optimizing CUDA code" (Moreno Maza), reduction: "384 x 1800 / 8 = 86.4GB/s", the clock being the effective rate.
  const auto g80 = parse_json(invoke({"model", "bandwidth", "--clock-mhz", "1800", "--bus-bits",
                                      "384", "--transfers-per-clock", "1", "--json"}));
  EXPECT_NEAR(g80.at("results").at(0).at("gb_per_second").get<double>(), 86.4, 1e-9);
  const auto all = parse_json(invoke({"model", "bandwidth", "--json"}));
  EXPECT_GE(all.at("results").size(), 7u);
}

TEST(ModelCli, BandwidthUsageErrors) {
  const auto zero = invoke({"model", "bandwidth", "--clock-mhz", "0", "--bus-bits", "384"});
  EXPECT_EQ(zero.code, exit_usage);
  EXPECT_TRUE(contains(zero.err, "--clock-mhz")) << zero.err;
  EXPECT_EQ(invoke({"model", "bandwidth", "--clock-mhz", "900"}).code, exit_usage)
      << "--clock-mhz needs --bus-bits";
  const auto unknown = invoke({"model", "bandwidth", "--gpu", "voodoo2"});
  EXPECT_EQ(unknown.code, exit_usage);
  EXPECT_TRUE(contains(unknown.err, "--gpu")) << unknown.err;
}

TEST(ModelCli, BanksOfTheTransposeTile) {
  // "Optimizing CUDA" (NVIDIA), "Bank Conflicts in Transpose": 16-way on 16 banks, conflict-free when padded.
  const auto conflicted = invoke({"model", "banks", "--banks", "16", "--tile", "32x32"});
  ASSERT_EQ(conflicted.code, exit_ok) << conflicted.err;
  EXPECT_TRUE(contains(conflicted.out, "16-way")) << conflicted.out;
  const auto padded =
      parse_json(invoke({"model", "banks", "--tile", "32x32", "--padding", "1", "--json"}));
  EXPECT_EQ(padded.at("degree"), 1);
  const auto stride =
      parse_json(invoke({"model", "banks", "--banks", "16", "--stride", "8", "--json"}));
  EXPECT_EQ(stride.at("degree"), 8);
  const auto permutation = parse_json(invoke({"model", "banks", "--permutation", "5", "--json"}));
  EXPECT_EQ(permutation.at("degree"), 1);
  const auto words = parse_json(invoke({"model", "banks", "--words", "0,32,64,1", "--json"}));
  EXPECT_EQ(words.at("degree"), 3);
  const auto bad_tile = invoke({"model", "banks", "--tile", "32"});
  EXPECT_EQ(bad_tile.code, exit_usage);
  EXPECT_TRUE(contains(bad_tile.err, "--tile")) << bad_tile.err;
  EXPECT_EQ(invoke({"model", "banks", "--banks", "24"}).code, exit_usage);
  EXPECT_EQ(invoke({"model", "banks", "--stride", "2", "--tile", "32x32"}).code, exit_usage);
}

TEST(ModelCli, CoalescingOfTheSeedsPatterns) {
  // "Optimizing CUDA" (NVIDIA), "Coalescing - Compute capability 1.2 and higher": "2 transactions - 64B and 32B".
  const auto crossing =
      parse_json(invoke({"model", "coalescing", "--pattern", "crossing", "--json"}));
  ASSERT_EQ(crossing.at("results").size(), 3u);
  const auto& cc12 = crossing.at("results").at(1);
  EXPECT_EQ(cc12.at("rules"), "cc 1.2/1.3");
  ASSERT_EQ(cc12.at("transactions").size(), 2u);
  EXPECT_EQ(cc12.at("transactions").at(0).at("bytes"), 32);
  EXPECT_EQ(cc12.at("transactions").at(1).at("bytes"), 64);
  // "Optimizing CUDA" (NVIDIA), "Coalescing in Transpose": the naive write needs a transaction per thread.
  const auto naive = invoke({"model", "coalescing", "--pattern", "transpose-naive-write"});
  ASSERT_EQ(naive.code, exit_ok) << naive.err;
  EXPECT_TRUE(contains(naive.out, "32 x 32 B")) << naive.out;
  EXPECT_TRUE(contains(naive.out, "12.5%")) << naive.out;
  const auto inactive =
      parse_json(invoke({"model", "coalescing", "--addresses", "0,4,-,12", "--json"}));
  EXPECT_EQ(inactive.at("results").at(0).at("bytes_requested"), 12);
}

TEST(ModelCli, CoalescingUsageErrors) {
  const auto pattern = invoke({"model", "coalescing", "--pattern", "zigzag"});
  EXPECT_EQ(pattern.code, exit_usage);
  EXPECT_TRUE(contains(pattern.err, "--pattern")) << pattern.err;
  const auto size = invoke({"model", "coalescing", "--element-size", "3"});
  EXPECT_EQ(size.code, exit_usage);
  EXPECT_TRUE(contains(size.err, "--element-size")) << size.err;
  const auto address = invoke({"model", "coalescing", "--addresses", "0,4,x"});
  EXPECT_EQ(address.code, exit_usage);
  EXPECT_TRUE(contains(address.err, "--addresses")) << address.err;
}

TEST(ModelCli, DivergenceOfTheSeedsAnalyses) {
  const auto seeds = invoke({"model", "divergence"});
  ASSERT_EQ(seeds.code, exit_ok) << seeds.err;
  EXPECT_TRUE(contains(seeds.out, "1 / 32")) << seeds.out;
  EXPECT_TRUE(contains(seeds.out, "336 / 2352")) << seeds.out;
  EXPECT_TRUE(contains(seeds.out, "14 / 392")) << seeds.out;
  EXPECT_TRUE(contains(seeds.out, "350 / 2744")) << seeds.out;
  const auto matmul =
      parse_json(invoke({"model", "divergence", "--width", "64", "--tile", "16", "--json"}));
  EXPECT_EQ(matmul.at("tiled_matmul").at("either").at("divergent"), 0);
  EXPECT_FALSE(matmul.contains("boundary_check"));
  const auto bad = invoke({"model", "divergence", "--n", "100", "--block", "0"});
  EXPECT_EQ(bad.code, exit_usage);
  EXPECT_TRUE(contains(bad.err, "--block")) << bad.err;
}

TEST(ModelCli, TilingPrintsBothSeedTables) {
  const auto tables = invoke({"model", "tiling"});
  ASSERT_EQ(tables.code, exit_ok) << tables.err;
  for (const char* value : {"4.0", "7.2", "8.7", "11.1", "36.0", "51.8", "64.0"}) {
    EXPECT_TRUE(contains(tables.out, value)) << value << '\n' << tables.out;
  }
  const auto document = parse_json(invoke({"model", "tiling", "--width", "1024", "--json"}));
  EXPECT_EQ(document.at("1d").size(), 10u);
  EXPECT_EQ(document.at("2d").size(), 8u);
  EXPECT_TRUE(document.at("1d").at(0).contains("exact"));
  const auto bad = invoke({"model", "tiling", "--tiles", "0"});
  EXPECT_EQ(bad.code, exit_usage);
  EXPECT_TRUE(contains(bad.err, "--tiles")) << bad.err;
}

TEST(ModelCli, ModelNeedsATopic) {
  EXPECT_EQ(invoke({"model"}).code, exit_usage);
  EXPECT_EQ(invoke({"model", "roofline"}).code, exit_usage);
  const auto help = invoke({"model", "occupancy", "--help"});
  EXPECT_EQ(help.code, exit_ok);
  EXPECT_TRUE(contains(help.out, "--registers")) << help.out;
}

} // namespace
} // namespace ladder::cli
