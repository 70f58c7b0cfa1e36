// The GPU table, the bandwidth model and the occupancy calculator (ladder/models.hpp).
//
// Course figures: "Optimizing CUDA" (NVIDIA), and the reduction slides of "Optimizing CUDA code"
// (Moreno Maza) and Hui Liu; each test names the slide it reproduces.
#include "invalid_argument.hpp"
#include "ladder/models.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>

#if __has_include(<cuda_occupancy.h>)
#include <cuda_occupancy.h>
#define LADDER_HAVE_CUDA_OCCUPANCY_H 1
#endif

namespace ladder::models {
namespace {

// Runs `body` and returns the std::invalid_argument message it throws ("" when it does not).
using test::invalid_argument_message;

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

double round_to_tenths(double value) { return std::round(value * 10.0) / 10.0; }

// ---- GPU table ----------------------------------------------------------------------------------

TEST(GpuTable, G80MatchesTheSeedCalculatorsPhysicalLimits) {
  // 002, "Occupancy Calculator": "Physical Limits for GPU: G80".
  const auto& g80 = find_gpu("g80");
  const auto& arch = architecture_of(g80);
  EXPECT_EQ(g80.multiprocessors, 16);
  EXPECT_EQ(arch.threads_per_warp, 32);
  EXPECT_EQ(arch.max_warps_per_sm, 24);
  EXPECT_EQ(arch.max_threads_per_sm(), 768);
  EXPECT_EQ(arch.max_blocks_per_sm, 8);
  EXPECT_EQ(arch.registers_per_sm, 8192);
  EXPECT_EQ(arch.shared_memory_per_sm, 16384);
}

TEST(GpuTable, ModernLimitsMatchTheProgrammingGuide) {
  // CUDA C++ programming guide, "Technical Specifications per Compute Capability": resident warps
  // and blocks per SM, shared memory per SM and per block (opt-in), in KB.
  struct Expected {
    const char* name;
    int warps, blocks, shared_kb, optin_kb, reserved;
  };
  for (const Expected& e :
       {Expected{"sm_70", 64, 32, 96, 96, 0}, Expected{"sm_75", 32, 16, 64, 64, 0},
        Expected{"sm_80", 64, 32, 164, 163, 1024}, Expected{"sm_86", 48, 16, 100, 99, 1024},
        Expected{"sm_89", 48, 24, 100, 99, 1024}, Expected{"sm_90", 64, 32, 228, 227, 1024}}) {
    SCOPED_TRACE(e.name);
    const auto& arch = find_architecture(e.name);
    EXPECT_EQ(arch.max_warps_per_sm, e.warps);
    EXPECT_EQ(arch.max_blocks_per_sm, e.blocks);
    EXPECT_EQ(arch.shared_memory_per_sm, e.shared_kb * 1024);
    EXPECT_EQ(arch.shared_memory_per_block_optin, e.optin_kb * 1024);
    EXPECT_EQ(arch.reserved_shared_memory_per_block, e.reserved);
    EXPECT_EQ(arch.registers_per_sm, 65536);
    EXPECT_EQ(arch.max_registers_per_thread, 255);
    EXPECT_EQ(arch.max_threads_per_block, 1024);
  }
}

TEST(GpuTable, EveryEntryIsConsistent) {
  std::set<std::string> names;
  for (const auto& arch : architectures()) {
    SCOPED_TRACE(std::string(arch.name));
    EXPECT_TRUE(names.insert(std::string(arch.name)).second) << "duplicate name";
    EXPECT_EQ(&architecture_for_compute_capability(arch.compute_major, arch.compute_minor), &arch);
    EXPECT_GT(arch.max_warps_per_sm, 0);
    EXPECT_LE(arch.max_threads_per_block, arch.max_threads_per_sm());
    EXPECT_LE(arch.shared_memory_per_block, arch.shared_memory_per_block_optin);
    EXPECT_LE(arch.shared_memory_per_block_optin + arch.reserved_shared_memory_per_block,
              arch.shared_memory_per_sm);
    EXPECT_EQ(arch.shared_memory_banks, arch.compute_major == 1 ? 16 : 32);
    const auto& configurations = arch.shared_memory_configurations;
    EXPECT_TRUE(std::is_sorted(configurations.begin(), configurations.end()));
    if (!configurations.empty()) {
      EXPECT_EQ(configurations.back(), arch.shared_memory_per_sm);
    }
  }
  std::set<std::string> keys;
  for (const auto& gpu : gpus()) {
    SCOPED_TRACE(std::string(gpu.key));
    EXPECT_TRUE(keys.insert(std::string(gpu.key)).second) << "duplicate key";
    EXPECT_NO_THROW(architecture_of(gpu));
    EXPECT_GT(gpu.multiprocessors, 0);
  }
}

TEST(GpuTable, HopperPresetsAsTheirDriversReportThem) {
  // cudaGetDeviceProperties / cudaDeviceGetAttribute on an H100 SXM5 80GB and an H200 SXM 141GB:
  // 132 SMs each, 2619 MHz x 5120 bits and 3201 MHz x 6016 bits, sm_90 limits (2048 threads,
  // 32 blocks, 64K registers, 228 KB shared memory per SM, 227 KB per block opted in).
  const auto& h100 = find_gpu("h100");
  const auto& h200 = find_gpu("h200");
  for (const auto* gpu : {&h100, &h200}) {
    SCOPED_TRACE(std::string(gpu->key));
    EXPECT_EQ(gpu->multiprocessors, 132);
    const auto& arch = architecture_of(*gpu);
    EXPECT_EQ(arch.name, "sm_90");
    EXPECT_EQ(arch.max_threads_per_sm(), 2048);
    EXPECT_EQ(arch.max_blocks_per_sm, 32);
    EXPECT_EQ(arch.registers_per_sm, 65536);
    EXPECT_EQ(arch.shared_memory_per_sm, 233472);
    EXPECT_EQ(arch.shared_memory_per_block_optin, 232448);
  }
  EXPECT_EQ(h100.memory.clock_mhz, 2619);
  EXPECT_EQ(h100.memory.bus_width_bits, 5120);
  EXPECT_EQ(h200.memory.clock_mhz, 3201);
  EXPECT_EQ(h200.memory.bus_width_bits, 6016);
}

TEST(GpuTable, LookupsIgnoreCaseAndNameTheArgument) {
  EXPECT_EQ(find_architecture("SM_90").name, "sm_90");
  EXPECT_EQ(find_gpu("GTX280").key, "gtx280");
  const std::string gpu_error = invalid_argument_message([] { find_gpu("gtx9999"); });
  EXPECT_TRUE(starts_with(gpu_error, "gpu:")) << gpu_error;
  EXPECT_NE(gpu_error.find("g80"), std::string::npos) << "lists the known GPUs: " << gpu_error;
  EXPECT_TRUE(
      starts_with(invalid_argument_message([] { find_architecture("sm_99"); }), "architecture:"));
  EXPECT_TRUE(
      starts_with(invalid_argument_message([] { architecture_for_compute_capability(5, 0); }),
                  "compute capability:"));
}

TEST(GpuTable, DevicePropertiesOverrideTheTableAndFillTheRest) {
  DeviceProperties h100; // what cudaGetDeviceProperties reports on an H100, partly
  h100.compute_major = 9;
  h100.compute_minor = 0;
  h100.max_threads_per_sm = 2048;
  h100.registers_per_sm = 65536;
  h100.shared_memory_per_sm = 233472;
  h100.shared_memory_per_block_optin = 232448;
  const auto limits = architecture_from_device(h100);
  const auto& sm_90 = find_architecture("sm_90");
  EXPECT_EQ(limits.name, "sm_90");
  EXPECT_EQ(limits.max_blocks_per_sm, sm_90.max_blocks_per_sm);
  EXPECT_EQ(limits.reserved_shared_memory_per_block, 1024);
  EXPECT_EQ(limits.shared_memory_configurations.size(), sm_90.shared_memory_configurations.size());

  DeviceProperties newer = h100; // a compute capability the table does not have
  newer.compute_major = 10;
  newer.compute_minor = 3;
  newer.max_threads_per_sm = 1536;
  newer.shared_memory_per_sm = 150 * 1024;
  const auto borrowed = architecture_from_device(newer);
  EXPECT_EQ(borrowed.name, "unknown");
  EXPECT_EQ(borrowed.max_warps_per_sm, 48);
  EXPECT_EQ(borrowed.shared_memory_allocation_unit, 128);
  EXPECT_EQ(borrowed.shared_memory_configurations.back(), 132 * 1024)
      << "configurations above the device's shared memory are dropped";
  EXPECT_EQ(occupancy(borrowed, {64, 32, 140 * 1024}).shared_memory_per_sm, 150 * 1024)
      << "a block larger than every kept configuration runs with the device's maximum";

  DeviceProperties too_old;
  too_old.compute_major = 0;
  EXPECT_TRUE(starts_with(invalid_argument_message([&] { architecture_from_device(too_old); }),
                          "compute_major:"));
}

// ---- bandwidth ----------------------------------------------------------------------------------

TEST(Bandwidth, Gtx280FromTheSeedsTheoreticalBandwidthSlide) {
  // 002, "Theoretical Bandwidth": 1107e6 * (512 / 8) * 2 / 1024^3 = 131.9 GB/s; "Specs report
  // 141 GB/s" with 1e9. The slide truncates 131.96 to 131.9.
  const auto bandwidth = theoretical_bandwidth({1107, 512, 2});
  EXPECT_DOUBLE_EQ(round_to_tenths(bandwidth.gb_per_second), 141.7);
  EXPECT_DOUBLE_EQ(std::trunc(bandwidth.gib_per_second * 10.0) / 10.0, 131.9);
  EXPECT_DOUBLE_EQ(theoretical_bandwidth(find_gpu("gtx280").memory).bytes_per_second,
                   bandwidth.bytes_per_second);
}

TEST(Bandwidth, G80FromTheReductionSlides) {
  // 000, "Parallel reduction: what is our goal?": 384-bit, 1800 MHz, 384 * 1800 / 8 = 86.4 GB/s;
  // 1800 MHz is the effective (double data) rate of the 900 MHz GDDR3 in the table.
  EXPECT_DOUBLE_EQ(round_to_tenths(theoretical_bandwidth({1800, 384, 1}).gb_per_second), 86.4);
  EXPECT_DOUBLE_EQ(round_to_tenths(theoretical_bandwidth(find_gpu("g80").memory).gb_per_second),
                   86.4);
}

TEST(Bandwidth, OverclockedGtx280FromTheReductionSlides) {
  // 001, "Optimization Goals Cont.": ASUS ENGTX280 OC, 512 / 8 * 1.14 * 2 = 145.92 GB/s.
  EXPECT_NEAR(theoretical_bandwidth({1140, 512, 2}).gb_per_second, 145.92, 1e-9);
  EXPECT_NEAR(theoretical_bandwidth(find_gpu("gtx280-oc").memory).gb_per_second, 145.92, 1e-9);
}

TEST(Bandwidth, TeslaC1060FromTheTransfersSlide) {
  // 002, "Host-Device Data Transfers": "102 GB/s peak (Tesla C1060)".
  EXPECT_EQ(std::floor(theoretical_bandwidth(find_gpu("tesla-c1060").memory).gb_per_second), 102.0);
}

TEST(Bandwidth, ModernEntriesGiveTheirDatasheetBandwidth) {
  struct Datasheet {
    const char* key;
    double gb_per_second;
  };
  for (const auto& [key, datasheet] :
       {Datasheet{"v100", 900}, Datasheet{"t4", 320}, Datasheet{"a100", 1555},
        Datasheet{"rtx3090", 936}, Datasheet{"rtx4090", 1008}, Datasheet{"h100", 3350},
        Datasheet{"h100-pcie", 2039}, Datasheet{"h200", 4800}}) {
    SCOPED_TRACE(key);
    EXPECT_NEAR(theoretical_bandwidth(find_gpu(key).memory).gb_per_second, datasheet,
                datasheet * 0.005);
  }
}

TEST(Bandwidth, RejectsNonPositiveInputsByName) {
  EXPECT_TRUE(starts_with(invalid_argument_message([] {
                            theoretical_bandwidth({0, 384, 2});
                          }),
                          "clock_mhz:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([] {
                            theoretical_bandwidth({900, 0, 2});
                          }),
                          "bus_width_bits:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([] {
                            theoretical_bandwidth({900, 384, 0});
                          }),
                          "transfers_per_clock:"));
  const auto infinite = invalid_argument_message([] {
    theoretical_bandwidth({std::numeric_limits<double>::infinity(), 384, 2});
  });
  EXPECT_TRUE(starts_with(infinite, "clock_mhz:")) << infinite;
}

// ---- occupancy ----------------------------------------------------------------------------------

TEST(Occupancy, ReproducesTheSeedCalculatorExample) {
  // 002, "Occupancy Calculator": G80, 192 threads, 20 registers, 68 bytes of shared memory.
  const auto& g80 = find_gpu("g80");
  const auto result = occupancy(architecture_of(g80), {192, 20, 68});
  EXPECT_EQ(result.active_threads_per_sm, 384);
  EXPECT_EQ(result.active_warps_per_sm, 12);
  EXPECT_EQ(result.active_blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(result.occupancy, 0.5);
  EXPECT_EQ(result.active_blocks_per_sm * g80.multiprocessors, 32); // "per GPU"
  // "Allocation Per Thread Block"
  EXPECT_EQ(result.warps_per_block, 6);
  EXPECT_EQ(result.registers_per_block, 3840);
  EXPECT_EQ(result.shared_memory_per_block, 512);
  // "Maximum Thread Blocks Per Multiprocessor"
  EXPECT_EQ(result.blocks_limited_by_warps, 4);
  EXPECT_EQ(result.blocks_limited_by_registers, 2);
  EXPECT_EQ(result.blocks_limited_by_shared_memory, 32);
  EXPECT_EQ(result.limiters, std::vector<OccupancyLimiter>{OccupancyLimiter::registers});
}

TEST(Occupancy, EachResourceLimitsInTurn) {
  const auto& g80 = find_architecture("sm_10");
  // 8 warps per block: 24 / 8 = 3 blocks; registers allow 8192 / 2048 = 4.
  const auto warps = occupancy(g80, {256, 8, 0});
  EXPECT_EQ(warps.active_blocks_per_sm, 3);
  EXPECT_EQ(warps.limiters, std::vector<OccupancyLimiter>{OccupancyLimiter::warps});
  // 8000 B rounds to 8192: 2 blocks, while warps allow 12 and registers 16.
  const auto shared = occupancy(g80, {64, 8, 8000});
  EXPECT_EQ(shared.active_blocks_per_sm, 2);
  EXPECT_EQ(shared.limiters, std::vector<OccupancyLimiter>{OccupancyLimiter::shared_memory});
  // One-warp blocks on sm_90: warps allow 64 and registers 128, the SM holds only 32 blocks.
  const auto blocks = occupancy(find_architecture("sm_90"), {32, 16, 0});
  EXPECT_EQ(blocks.active_blocks_per_sm, 32);
  EXPECT_EQ(blocks.limiters, std::vector<OccupancyLimiter>{OccupancyLimiter::blocks_per_sm});
  EXPECT_DOUBLE_EQ(blocks.occupancy, 0.5);
}

TEST(Occupancy, Compute1xRoundsWarpsToPairsBeforeCountingRegisters) {
  // One warp of 20 registers is charged as two warps: 2 * 32 * 20 = 1280 registers, so 6 blocks
  // fit in 8192 (without the rounding, 640 per block would allow the SM's 8).
  const auto result = occupancy(find_architecture("sm_10"), {32, 20, 0});
  EXPECT_EQ(result.registers_per_block, 1280);
  EXPECT_EQ(result.active_blocks_per_sm, 6);
}

TEST(Occupancy, RegisterAllocationUnitRounding) {
  // GT200 allocates 512 registers at a time: 4 warps * 32 * 17 = 2176 -> 2560, 6 blocks (not 7).
  const auto gt200 = occupancy(find_architecture("sm_13"), {128, 17, 0});
  EXPECT_EQ(gt200.registers_per_block, 2560);
  EXPECT_EQ(gt200.blocks_limited_by_registers, 6);
  // sm_90 rounds a warp's registers to 256: 32 registers fill the SM, 33 cost as much as 40.
  const auto& sm_90 = find_architecture("sm_90");
  EXPECT_DOUBLE_EQ(occupancy(sm_90, {256, 32, 0}).occupancy, 1.0);
  const auto rounded = occupancy(sm_90, {256, 33, 0});
  EXPECT_EQ(rounded.registers_per_block, 8 * 1280);
  EXPECT_DOUBLE_EQ(rounded.occupancy, 0.75);
}

TEST(Occupancy, RegistersAreSplitOverFourSubPartitions) {
  // 40 registers = 1280 per warp: a sub-partition (16384 registers) holds 12 warps, the SM 48, so
  // 2-warp blocks fit 24 times; dividing the whole register file (51 warps) would say 25.
  EXPECT_EQ(occupancy(find_architecture("sm_90"), {64, 40, 0}).blocks_limited_by_registers, 24);
}

TEST(Occupancy, SharedMemoryAllocationUnitAndReserve) {
  EXPECT_EQ(occupancy(find_architecture("sm_10"), {64, 8, 513}).blocks_limited_by_shared_memory,
            16); // 513 B -> 1024 B
  // sm_90: 1 B + the driver's 1 KB reserve -> 1152 B (unit 128); 233472 / 1152 = 202.
  const auto result = occupancy(find_architecture("sm_90"), {64, 8, 1});
  EXPECT_EQ(result.shared_memory_per_block, 1152);
  EXPECT_EQ(result.blocks_limited_by_shared_memory, 202);
}

TEST(Occupancy, ZeroSharedMemory) {
  // 1.x: no shared memory, no limit from it.
  const auto tesla = occupancy(find_architecture("sm_13"), {128, 16, 0});
  EXPECT_EQ(tesla.blocks_limited_by_shared_memory, unlimited_blocks);
  EXPECT_EQ(
      std::count(tesla.limiters.begin(), tesla.limiters.end(), OccupancyLimiter::shared_memory), 0);
  // sm_80+: the driver's reserve still counts: 233472 / 1024 = 228 blocks.
  EXPECT_EQ(occupancy(find_architecture("sm_90"), {128, 16, 0}).blocks_limited_by_shared_memory,
            228);
  // sm_70 reserves nothing.
  EXPECT_EQ(occupancy(find_architecture("sm_70"), {128, 16, 0}).blocks_limited_by_shared_memory,
            unlimited_blocks);
}

TEST(Occupancy, ZeroRegistersImposeNoLimit) {
  EXPECT_EQ(occupancy(find_architecture("sm_90"), {128, 0, 0}).blocks_limited_by_registers,
            unlimited_blocks);
  EXPECT_EQ(occupancy(find_architecture("sm_10"), {128, 0, 0}).blocks_limited_by_registers,
            unlimited_blocks);
}

TEST(Occupancy, MaximumBlockSize) {
  const auto& sm_90 = find_architecture("sm_90");
  const auto fits = occupancy(sm_90, {1024, 64, 0}); // 64 * 1024 = the whole register file
  EXPECT_EQ(fits.active_blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(fits.occupancy, 0.5);
  const auto too_many = occupancy(sm_90, {1024, 65, 0}); // 2304 per warp * 32 warps > 65536
  EXPECT_EQ(too_many.active_blocks_per_sm, 0);
  EXPECT_EQ(too_many.limiters, std::vector<OccupancyLimiter>{OccupancyLimiter::registers});
  EXPECT_EQ(occupancy(find_architecture("sm_10"), {512, 16, 0}).active_blocks_per_sm, 1);
  EXPECT_EQ(occupancy(find_architecture("sm_10"), {512, 17, 0}).active_blocks_per_sm, 0);
}

TEST(Occupancy, MaximumSharedMemoryNeedsOptIn) {
  const auto& sm_90 = find_architecture("sm_90");
  const auto largest = occupancy(sm_90, {128, 32, sm_90.shared_memory_per_block_optin});
  EXPECT_EQ(largest.active_blocks_per_sm, 1);
  EXPECT_TRUE(largest.needs_shared_memory_opt_in);
  EXPECT_FALSE(occupancy(sm_90, {128, 32, 48 * 1024}).needs_shared_memory_opt_in);
}

TEST(Occupancy, CarveoutPreference) {
  const auto& sm_90 = find_architecture("sm_90");
  const BlockResources block{128, 32, 32 * 1024};                        // 33792 B with the reserve
  EXPECT_EQ(occupancy(sm_90, block).blocks_limited_by_shared_memory, 6); // 228 KB
  // 50% of 228 KB = 114 KB, rounded up to the 132 KB configuration: 4 blocks.
  const auto half = occupancy(sm_90, block, {.shared_memory_carveout_percent = 50});
  EXPECT_EQ(half.shared_memory_per_sm, 132 * 1024);
  EXPECT_EQ(half.blocks_limited_by_shared_memory, 4);
  // 0% cannot hold one block: the driver picks the smallest configuration that can (64 KB).
  const auto none = occupancy(sm_90, block, {.shared_memory_carveout_percent = 0});
  EXPECT_EQ(none.shared_memory_per_sm, 64 * 1024);
  EXPECT_EQ(none.blocks_limited_by_shared_memory, 1);
}

TEST(Occupancy, RejectsImpossibleArgumentsByName) {
  const auto& g80 = find_architecture("sm_10");
  const auto& sm_90 = find_architecture("sm_90");
  EXPECT_TRUE(starts_with(invalid_argument_message([&] {
                            occupancy(g80, {0, 20, 0});
                          }),
                          "threads_per_block:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([&] {
                            occupancy(g80, {513, 20, 0});
                          }),
                          "threads_per_block:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([&] {
                            occupancy(sm_90, {1025, 20, 0});
                          }),
                          "threads_per_block:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([&] {
                            occupancy(sm_90, {128, 256, 0});
                          }),
                          "registers_per_thread:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([&] {
                            occupancy(g80, {128, -1, 0});
                          }),
                          "registers_per_thread:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([&] {
                            occupancy(g80, {128, 8, -1});
                          }),
                          "shared_memory_per_block:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([&] {
                            occupancy(g80, {128, 8, 16385});
                          }),
                          "shared_memory_per_block:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([&] {
                            occupancy(sm_90, {128, 8, 0}, {.shared_memory_carveout_percent = 101});
                          }),
                          "shared_memory_carveout_percent:"));
  EXPECT_TRUE(starts_with(invalid_argument_message([&] {
                            occupancy(g80, {128, 8, 0}, {.shared_memory_carveout_percent = 50});
                          }),
                          "shared_memory_carveout_percent:"));
}

TEST(OccupancySweep, BlockSizeCurveOfTheSeedExample) {
  // 002, "Occupancy Calculator", graph "Varying Block Size" for 20 registers and 68 bytes.
  const auto& g80 = find_architecture("sm_10");
  const auto curve = occupancy_sweep(g80, {192, 20, 68}, SweepVariable::threads_per_block);
  ASSERT_EQ(curve.size(), 16u); // 32, 64, ..., 512
  EXPECT_EQ(curve.front().block.threads_per_block, 32);
  EXPECT_EQ(curve.back().block.threads_per_block, 512);
  for (const auto& point : curve) {
    EXPECT_EQ(point.block.registers_per_thread, 20);
    EXPECT_EQ(point.block.shared_memory_per_block, 68);
  }
  EXPECT_EQ(curve[5].result.active_warps_per_sm, 12); // 192 threads: the seed's point
  EXPECT_EQ(curve[0].result.active_warps_per_sm, 6);  // 32 threads: registers for 2 warps, 6 blocks
  EXPECT_EQ(curve[7].result.active_warps_per_sm, 8);  // 256 threads: 5120 registers, 1 block
  EXPECT_EQ(curve[12].result.active_warps_per_sm, 0); // 416 threads: 14 warps * 640 > 8192
}

TEST(OccupancySweep, MoreRegistersOrSharedMemoryNeverRaiseOccupancy) {
  for (const char* name : {"sm_10", "sm_13", "sm_75", "sm_86", "sm_90"}) {
    SCOPED_TRACE(name);
    const auto& arch = find_architecture(name);
    for (const auto variable :
         {SweepVariable::registers_per_thread, SweepVariable::shared_memory_per_block}) {
      const auto curve = occupancy_sweep(arch, {256, 16, 0}, variable);
      ASSERT_GT(curve.size(), 10u);
      for (std::size_t index = 1; index < curve.size(); ++index) {
        EXPECT_LE(curve[index].result.active_warps_per_sm,
                  curve[index - 1].result.active_warps_per_sm)
            << to_string(variable) << " step " << index;
      }
    }
  }
}

TEST(OccupancySweep, CustomStepAndSharedMemoryRange) {
  const auto& sm_90 = find_architecture("sm_90");
  const auto curve =
      occupancy_sweep(sm_90, {128, 32, 0}, SweepVariable::shared_memory_per_block, {}, 4096);
  EXPECT_EQ(curve.front().block.shared_memory_per_block, 0);
  EXPECT_EQ(curve.back().block.shared_memory_per_block,
            sm_90.shared_memory_per_block_optin / 4096 * 4096);
  const auto threads =
      occupancy_sweep(sm_90, {128, 32, 0}, SweepVariable::threads_per_block, {}, 16);
  EXPECT_EQ(threads.front().block.threads_per_block, 16);
  EXPECT_EQ(threads.size(), 64u);
  EXPECT_TRUE(
      starts_with(invalid_argument_message([&] {
                    occupancy_sweep(sm_90, {128, 32, 0}, SweepVariable::threads_per_block, {}, -1);
                  }),
                  "step:"));
  // A step past the whole range gives the first point; value + step used to overflow.
  const auto one = occupancy_sweep(sm_90, {128, 32, 0}, SweepVariable::threads_per_block, {},
                                   std::numeric_limits<std::int64_t>::max());
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one.front().block.threads_per_block, 32);
}

// The CUDA toolkit's own calculator (cuda_occupancy.h, host-only) over a grid of configurations:
// the model must agree on the resident blocks and on each resource's limit. The GPU test does the
// same against cudaOccupancyMaxActiveBlocksPerMultiprocessor on a real device.
TEST(Occupancy, AgreesWithCudaOccupancyHeader) {
#ifndef LADDER_HAVE_CUDA_OCCUPANCY_H
  GTEST_SKIP() << "cuda_occupancy.h is not on the include path";
#else
  int compared = 0;
  for (const auto& arch : architectures()) {
    if (arch.compute_major < 7) {
      continue; // the header dropped compute capability 1.x
    }
    SCOPED_TRACE(std::string(arch.name));
    cudaOccDeviceProp properties;
    properties.computeMajor = arch.compute_major;
    properties.computeMinor = arch.compute_minor;
    properties.maxThreadsPerBlock = arch.max_threads_per_block;
    properties.maxThreadsPerMultiprocessor = arch.max_threads_per_sm();
    properties.regsPerBlock = arch.max_registers_per_block;
    properties.regsPerMultiprocessor = arch.registers_per_sm;
    properties.warpSize = arch.threads_per_warp;
    properties.sharedMemPerBlock = static_cast<size_t>(arch.shared_memory_per_block);
    properties.sharedMemPerMultiprocessor = static_cast<size_t>(arch.shared_memory_per_sm);
    properties.numSms = 1;
    properties.sharedMemPerBlockOptin = static_cast<size_t>(arch.shared_memory_per_block_optin);
    properties.reservedSharedMemPerBlock =
        static_cast<size_t>(arch.reserved_shared_memory_per_block);
    for (const int carveout : {-1, 0, 25, 50, 100}) {
      cudaOccDeviceState state;
      state.carveoutConfig = carveout;
      OccupancyOptions options;
      if (carveout >= 0) {
        options.shared_memory_carveout_percent = carveout;
      }
      for (int threads = 1; threads <= arch.max_threads_per_block; threads += 37) {
        for (int registers = 0; registers <= arch.max_registers_per_thread; registers += 23) {
          for (std::int64_t shared = 0; shared <= arch.shared_memory_per_block_optin;
               shared += 7001) {
            cudaOccFuncAttributes attributes;
            attributes.maxThreadsPerBlock = INT_MAX;
            attributes.numRegs = registers;
            attributes.sharedSizeBytes = 0;
            attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN; // as after cudaFuncSetAttribute
            attributes.maxDynamicSharedSizeBytes =
                static_cast<size_t>(arch.shared_memory_per_block_optin);
            attributes.numBlockBarriers = 1; // __syncthreads(), as every real kernel
            cudaOccResult expected{};
            ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&expected, &properties, &attributes,
                                                              &state, threads,
                                                              static_cast<size_t>(shared)),
                      CUDA_OCC_SUCCESS);
            const auto model = occupancy(arch, {threads, registers, shared}, options);
            ASSERT_EQ(model.active_blocks_per_sm, expected.activeBlocksPerMultiprocessor)
                << threads << " threads, " << registers << " registers, " << shared
                << " B, carveout " << carveout;
            ASSERT_EQ(model.blocks_limited_by_registers, expected.blockLimitRegs);
            ASSERT_EQ(model.blocks_limited_by_shared_memory, expected.blockLimitSharedMem);
            ASSERT_EQ(model.blocks_limited_by_warps, expected.blockLimitWarps);
            ASSERT_EQ(model.blocks_limited_by_sm, expected.blockLimitBlocks);
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 10000);
#endif
}

} // namespace
} // namespace ladder::models
