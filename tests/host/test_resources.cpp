// `ladder list --resources` on the host side: the device-to-model bridge (DeviceInfo ->
// DeviceProperties -> ArchitectureLimits), the model column, the agreement count, the text table
// and the JSON, with rows filled by hand; and the command's behaviour without a GPU. What the CUDA
// occupancy API answers is checked on a GPU by tests/gpu/test_occupancy_agreement.cu.
#include "cli_invoke.hpp"
#include "commands.hpp"
#include "resources.hpp"

#include "core/study.hpp"
#include "ladder/device.hpp"
#include "ladder/models.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace ladder::cli {
namespace {

namespace models = ladder::models;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What cudaGetDeviceProperties reports on an H100 SXM (and an H200: the same SM).
DeviceInfo hopper_device() {
  DeviceInfo info;
  info.name = "Test H100";
  info.compute_major = 9;
  info.compute_minor = 0;
  info.multiprocessors = 132;
  info.warp_size = 32;
  info.max_threads_per_multiprocessor = 2048;
  info.max_threads_per_block = 1024;
  info.max_blocks_per_multiprocessor = 32;
  info.registers_per_multiprocessor = 65536;
  info.registers_per_block = 65536;
  info.shared_memory_per_multiprocessor = 233472;
  info.shared_memory_per_block = 49152;
  info.shared_memory_per_block_optin = 232448;
  info.reserved_shared_memory_per_block = 1024;
  return info;
}

TEST(DeviceBridge, EveryFieldTheModelNeedsComesFromTheDevice) {
  const DeviceInfo info = hopper_device();
  const models::DeviceProperties properties = models::device_properties(info);
  EXPECT_EQ(properties.compute_major, 9);
  EXPECT_EQ(properties.warp_size, 32);
  EXPECT_EQ(properties.max_threads_per_sm, 2048);
  EXPECT_EQ(properties.max_blocks_per_sm, 32);
  EXPECT_EQ(properties.registers_per_block, 65536);
  EXPECT_EQ(properties.registers_per_sm, 65536);
  EXPECT_EQ(properties.shared_memory_per_block, 49152);
  EXPECT_EQ(properties.shared_memory_per_sm, 233472);
  EXPECT_EQ(properties.shared_memory_per_block_optin, 232448);
  EXPECT_EQ(properties.reserved_shared_memory_per_block, 1024);

  // An H100's own limits are the table's sm_90 entry: same results everywhere.
  const auto device = models::architecture_from_device(properties);
  const auto& table = models::find_architecture("sm_90");
  EXPECT_EQ(device.name, "sm_90");
  EXPECT_EQ(device.max_warps_per_sm, table.max_warps_per_sm);
  EXPECT_EQ(device.max_blocks_per_sm, table.max_blocks_per_sm);
  EXPECT_EQ(device.max_registers_per_block, table.max_registers_per_block);
  EXPECT_EQ(device.shared_memory_per_sm, table.shared_memory_per_sm);
  EXPECT_EQ(device.shared_memory_per_block, table.shared_memory_per_block);
  EXPECT_EQ(device.shared_memory_per_block_optin, table.shared_memory_per_block_optin);
  EXPECT_EQ(device.reserved_shared_memory_per_block, table.reserved_shared_memory_per_block);
  for (int threads : {32, 96, 256, 1000, 1024}) {
    for (int registers : {0, 16, 32, 33, 64, 128, 255}) {
      for (std::int64_t shared : {0, 1, 4096, 49152, 100000, 232448}) {
        const models::BlockResources block{threads, registers, shared};
        EXPECT_EQ(models::occupancy(device, block).active_blocks_per_sm,
                  models::occupancy(table, block).active_blocks_per_sm)
            << threads << " threads, " << registers << " registers, " << shared << " B";
      }
    }
  }
}

TEST(DeviceBridge, TheDevicesValuesWinOverTheTable) {
  // A made-up sm_90 part with fewer resident blocks, no driver reserve and less register file:
  // each of these must reach the model.
  DeviceInfo info = hopper_device();
  info.max_blocks_per_multiprocessor = 16;
  info.reserved_shared_memory_per_block = 0;
  info.registers_per_block = 32768;
  const auto arch = models::architecture_from_device(models::device_properties(info));
  EXPECT_EQ(arch.max_blocks_per_sm, 16);
  EXPECT_EQ(arch.reserved_shared_memory_per_block, 0);
  EXPECT_EQ(arch.max_registers_per_block, 32768);

  const auto small_blocks = models::occupancy(arch, {32, 16, 0});
  EXPECT_EQ(small_blocks.active_blocks_per_sm, 16);
  EXPECT_EQ(small_blocks.limiters.front(), models::OccupancyLimiter::blocks_per_sm);
  // The reserve reaches the model: 233472 / 58368 = 4 blocks without it, / (58368 + 1024) = 3
  // with it.
  EXPECT_EQ(models::occupancy(arch, {64, 16, 58368}).active_blocks_per_sm, 4);
  DeviceInfo with_reserve = info;
  with_reserve.reserved_shared_memory_per_block = 1024;
  EXPECT_EQ(
      models::occupancy(models::architecture_from_device(models::device_properties(with_reserve)),
                        {64, 16, 58368})
          .active_blocks_per_sm,
      3);
  // 1024 threads x 64 registers = 65536 registers: more than this part's 32768 per block.
  EXPECT_EQ(models::occupancy(arch, {1024, 64, 0}).active_blocks_per_sm, 0);
}

TEST(DeviceBridge, AnUnreadReserveFallsBackToTheTable) {
  DeviceInfo info; // filled by hand: only the compute capability
  info.compute_major = 9;
  info.compute_minor = 0;
  EXPECT_EQ(info.reserved_shared_memory_per_block, -1) << "-1 until read from a device";
  const auto arch = models::architecture_from_device(models::device_properties(info));
  EXPECT_EQ(arch.reserved_shared_memory_per_block, 1024);
  EXPECT_EQ(arch.max_blocks_per_sm, 32);
  EXPECT_EQ(arch.shared_memory_per_block, 48 * 1024);
}

// ---- the report, with rows filled by hand
// --------------------------------------------------------

RungResources kernel_row(std::string rung, int threads, int registers, std::int64_t static_shared,
                         std::int64_t dynamic_shared) {
  RungResources row;
  row.study = "demo";
  row.rung = std::move(rung);
  row.has_kernel = true;
  row.block_threads = threads;
  row.dynamic_shared_bytes = dynamic_shared;
  row.attributes.registers_per_thread = registers;
  row.attributes.static_shared_bytes = static_shared;
  row.attributes.max_threads_per_block = 1024;
  row.attributes.max_dynamic_shared_bytes = 49152 - static_shared;
  return row;
}

ResourceReport demo_report() {
  ResourceReport report;
  report.device = "Test H100 (device 0, cc 9.0, 132 SMs)";
  report.architecture =
      models::architecture_from_device(models::device_properties(hopper_device()));

  RungResources library;
  library.study = "demo";
  library.label = "ref";
  library.rung = "cudaMemcpy";
  library.is_reference = true;
  report.rows.push_back(library);

  // 256 threads, 32 registers, 4 KB: 8 blocks by warps (64 / 8), registers 8, shared 46.
  RungResources agreeing = kernel_row("tiled", 256, 32, 4096, 0);
  agreeing.label = "1";
  apply_model(agreeing, report.architecture);
  agreeing.api_blocks_per_sm = agreeing.model->active_blocks_per_sm;
  report.rows.push_back(agreeing);

  // 128 threads, 64 registers, 64 KB dynamic (opted in): shared memory limits to 3.
  RungResources large = kernel_row("big_tile", 128, 64, 0, 65536);
  large.label = "2";
  large.opted_in = true;
  apply_model(large, report.architecture);
  large.api_blocks_per_sm = large.model->active_blocks_per_sm;
  report.rows.push_back(large);

  RungResources disagreeing = kernel_row("odd_one", 1024, 16, 0, 0);
  disagreeing.label = "3";
  apply_model(disagreeing, report.architecture);
  disagreeing.api_blocks_per_sm = disagreeing.model->active_blocks_per_sm + 1;
  report.rows.push_back(disagreeing);

  RungResources failed = kernel_row("not_built_for_this_gpu", 256, 0, 0, 0);
  failed.label = "4";
  failed.attributes = {};
  failed.error = "cudaFuncGetAttributes: cudaErrorInvalidDeviceFunction (invalid device function)";
  report.rows.push_back(failed);
  return report;
}

TEST(Resources, ModelColumnUsesRegistersAndStaticPlusDynamicSharedMemory) {
  const auto arch = models::architecture_from_device(models::device_properties(hopper_device()));
  RungResources row = kernel_row("r", 128, 64, 1024, 65536);
  apply_model(row, arch);
  ASSERT_TRUE(row.model.has_value()) << row.error;
  const auto expected = models::occupancy(arch, {128, 64, 1024 + 65536});
  EXPECT_EQ(row.model->active_blocks_per_sm, expected.active_blocks_per_sm);
  // (65536 + 1024 + 1024 reserve) = 67584 per block; 233472 / 67584 = 3.
  EXPECT_EQ(row.model->active_blocks_per_sm, 3);
  EXPECT_EQ(row.model->limiters.front(), models::OccupancyLimiter::shared_memory);
  EXPECT_TRUE(row.error.empty());

  RungResources library; // no kernel: no model
  apply_model(library, arch);
  EXPECT_FALSE(library.model.has_value());

  RungResources too_big = kernel_row("too_big", 2048, 32, 0, 0);
  apply_model(too_big, arch);
  EXPECT_FALSE(too_big.model.has_value());
  EXPECT_TRUE(contains(too_big.error, "model: threads_per_block")) << too_big.error;
}

TEST(Resources, ApiOccupancyIsResidentWarpsOverTheSmsWarps) {
  const auto arch = models::architecture_from_device(models::device_properties(hopper_device()));
  RungResources row = kernel_row("r", 256, 32, 0, 0);
  EXPECT_FALSE(api_occupancy(row, arch).has_value()) << "no API answer yet";
  row.api_blocks_per_sm = 8;
  EXPECT_DOUBLE_EQ(*api_occupancy(row, arch), 1.0); // 8 x 8 warps / 64
  row.block_threads = 96;                           // 3 warps
  row.api_blocks_per_sm = 5;
  EXPECT_DOUBLE_EQ(*api_occupancy(row, arch), 15.0 / 64.0);
  row.block_threads = 33; // a partial warp counts as a warp
  row.api_blocks_per_sm = 32;
  EXPECT_DOUBLE_EQ(*api_occupancy(row, arch), 1.0);
}

TEST(Resources, AgreementCountsOnlyRowsWithBothAnswers) {
  const ResourceReport report = demo_report();
  const AgreementCount count = count_agreement(report);
  EXPECT_EQ(count.kernels, 4);  // the library row is not a kernel
  EXPECT_EQ(count.compared, 3); // the failed row has neither answer
  EXPECT_EQ(count.agreeing, 2);
  EXPECT_EQ(count.errors, 1);
  EXPECT_TRUE(model_agrees(report.rows[1]));
  EXPECT_FALSE(model_agrees(report.rows[3]));
  EXPECT_FALSE(model_agrees(report.rows[0]));
}

TEST(Resources, TextTableShowsEveryRowAndNamesDisagreements) {
  const std::string text = format_resources(demo_report());
  for (const char* part : {"Test H100",
                           "cudaFuncGetAttributes",
                           "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                           "regs",
                           "smem static",
                           "smem dyn",
                           "API blocks/SM",
                           "model blocks/SM",
                           "limited by",
                           "cudaMemcpy",
                           "tiled",
                           "big_tile",
                           "65536*",
                           "odd_one",
                           "not_built_for_this_gpu",
                           "2 of 3 kernels compared",
                           "DISAGREE demo/odd_one",
                           "error demo/not_built_for_this_gpu",
                           "invalid device function",
                           "*: more dynamic shared memory",
                           "-: no single kernel of ours",
                           "shared memory",
                           "NO",
                           "yes"}) {
    EXPECT_TRUE(contains(text, part)) << "missing '" << part << "' in\n" << text;
  }
  // The library row: a dash in every resource column.
  std::istringstream lines(text);
  std::string line;
  bool found = false;
  while (std::getline(lines, line)) {
    if (contains(line, "cudaMemcpy") && contains(line, "ref")) {
      found = true;
      std::istringstream cells(line);
      std::string cell;
      int dashes = 0;
      while (cells >> cell)
        dashes += cell == "-" ? 1 : 0;
      EXPECT_EQ(dashes, 11) << line; // threads .. agree
      EXPECT_FALSE(contains(line, "yes")) << line;
    }
  }
  EXPECT_TRUE(found) << text;
  // 256 threads x 32 registers x 4 KB on sm_90: 8 blocks, 100%, warps and registers limit.
  EXPECT_TRUE(contains(text, "100%")) << text;
}

TEST(Resources, JsonCarriesAttributesApiModelAndSummary) {
  const ResourceReport report = demo_report();
  const auto json = resources_json(report);
  EXPECT_EQ(json["device"], report.device);
  EXPECT_EQ(json["architecture"]["max_warps_per_sm"], 64);
  EXPECT_EQ(json["architecture"]["reserved_shared_memory_per_block"], 1024);
  ASSERT_EQ(json["rungs"].size(), report.rows.size());

  const auto& library = json["rungs"][0];
  EXPECT_EQ(library["rung"], "cudaMemcpy");
  EXPECT_FALSE(library["has_kernel"].get<bool>());
  EXPECT_FALSE(library.contains("api"));
  EXPECT_FALSE(library.contains("model"));

  const auto& tiled = json["rungs"][1];
  EXPECT_EQ(tiled["threads_per_block"], 256);
  EXPECT_EQ(tiled["attributes"]["registers_per_thread"], 32);
  EXPECT_EQ(tiled["attributes"]["static_shared_bytes"], 4096);
  EXPECT_EQ(tiled["api"]["active_blocks_per_sm"], tiled["model"]["active_blocks_per_sm"]);
  EXPECT_TRUE(tiled["agree"].get<bool>());
  EXPECT_TRUE(tiled["model"]["blocks_limited_by"].contains("registers"));

  EXPECT_TRUE(json["rungs"][2]["opted_in"].get<bool>());
  EXPECT_FALSE(json["rungs"][3]["agree"].get<bool>());
  EXPECT_TRUE(json["rungs"][4].contains("error"));
  EXPECT_FALSE(json["rungs"][4].contains("attributes"));

  EXPECT_EQ(json["summary"]["kernels"], 4);
  EXPECT_EQ(json["summary"]["compared"], 3);
  EXPECT_EQ(json["summary"]["agreeing"], 2);
  EXPECT_EQ(json["summary"]["errors"], 1);
}

// ---- the command
// ---------------------------------------------------------------------------------

using test::invoke;
using test::Result;

TEST(ListResources, JsonNeedsResources) {
  const auto r = invoke({"list", "--json", "x.json"});
  EXPECT_EQ(r.code, exit_usage);
  EXPECT_TRUE(contains(r.err, "--resources")) << r.err;
}

TEST(ListResources, HelpNamesTheOption) {
  const auto r = invoke({"list", "--help"});
  EXPECT_EQ(r.code, exit_ok);
  EXPECT_TRUE(contains(r.out, "--resources")) << r.out;
}

TEST(ListResources, WithoutDeviceExitsThreeAndPlainListStillWorks) {
  if (device_count() > 0)
    GTEST_SKIP() << "a CUDA device is present; this test is about machines without one";
  const std::string path = testing::TempDir() + "ladder_resources_no_device.json";
  std::remove(path.c_str());
  const auto r = invoke({"list", "--resources", "--json", path});
  EXPECT_EQ(r.code, exit_no_device);
  EXPECT_TRUE(contains(r.err, "no CUDA device")) << r.err;
  EXPECT_TRUE(contains(r.err, "list --resources")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(std::ifstream(path).good()) << "nothing written without a device";
  EXPECT_EQ(invoke({"list"}).code, exit_ok);
}

// On a GPU machine (host tests run there too): the command end to end. Agreement itself is the
// GPU test's assertion; here, that every rung appears and the JSON is written.
TEST(ListResources, OnADeviceListsEveryRungAndWritesJson) {
  if (device_count() == 0)
    GTEST_SKIP() << "no CUDA device";
  const std::string path = testing::TempDir() + "ladder_resources.json";
  const auto r = invoke({"list", "--resources", "--json", path});
  EXPECT_EQ(r.code, exit_ok) << r.err << r.out;
  EXPECT_TRUE(contains(r.out, "Agreement:")) << r.out;
  std::size_t rungs = 0;
  for (const auto& study : lab::studies()) {
    for (const auto& rung : study.rungs()) {
      ++rungs;
      EXPECT_TRUE(contains(r.out, std::string(rung.name))) << rung.name;
    }
  }
  std::ifstream file(path);
  ASSERT_TRUE(file.good());
  const auto json = nlohmann::json::parse(file);
  EXPECT_EQ(json["rungs"].size(), rungs);
}

} // namespace
} // namespace ladder::cli
