// The CUDA occupancy calculator ("Optimizing CUDA" (NVIDIA), "Occupancy Calculator").
//
// A block is resident on an SM only when the SM has room for all of its warps, registers and
// shared memory at once, and the SM holds at most max_blocks_per_sm blocks. The number of resident
// blocks is the smallest of the four limits; occupancy = resident warps / maximum warps.
//
// 1.x (the course's spreadsheet, v1.1): a block's warps are rounded up to the warp allocation
// granularity (2) and its registers to the register allocation unit, as one piece per block.
// sm_70+ (cuda_occupancy.h): registers are allocated per warp (rounded to 256) inside one of 4
// sub-partitions that each hold a quarter of the register file; shared memory includes the
// driver's per-block reserve and the SM runs with the smallest carveout configuration that holds
// the preference (or, when a block needs more, one block).
#include "ladder/models.hpp"

#include "arguments.hpp"

#include <algorithm>

namespace ladder::models {
namespace {

using detail::bad_argument;
using detail::divide_round_up;
using detail::round_up;

void check_block(const ArchitectureLimits& arch, const BlockResources& block) {
  if (block.threads_per_block < 1 || block.threads_per_block > arch.max_threads_per_block) {
    bad_argument("threads_per_block", "must be 1.." + std::to_string(arch.max_threads_per_block) +
                                          " on " + std::string(arch.name) + ", got " +
                                          std::to_string(block.threads_per_block));
  }
  if (block.registers_per_thread < 0 ||
      block.registers_per_thread > arch.max_registers_per_thread) {
    bad_argument("registers_per_thread", "must be 0.." +
                                             std::to_string(arch.max_registers_per_thread) +
                                             " on " + std::string(arch.name) + ", got " +
                                             std::to_string(block.registers_per_thread));
  }
  if (block.shared_memory_per_block < 0 ||
      block.shared_memory_per_block > arch.shared_memory_per_block_optin) {
    bad_argument("shared_memory_per_block", "must be 0.." +
                                                std::to_string(arch.shared_memory_per_block_optin) +
                                                " bytes on " + std::string(arch.name) + ", got " +
                                                std::to_string(block.shared_memory_per_block));
  }
}

// The smallest shared-memory configuration holding `bytes`; the largest size when the table has
// no configuration that large (a device newer than the table).
std::int64_t configuration_holding(const ArchitectureLimits& arch, std::int64_t bytes) {
  const auto& configurations = arch.shared_memory_configurations;
  const auto it = std::ranges::lower_bound(configurations, bytes);
  return it != configurations.end() ? *it : arch.shared_memory_per_sm;
}

int registers_limit(const ArchitectureLimits& arch, int warps_per_block, int registers_per_thread,
                    OccupancyResult& result) {
  if (arch.register_granularity == RegisterGranularity::per_block) {
    const int warps = round_up(warps_per_block, arch.warp_allocation_granularity);
    result.registers_per_block = round_up(warps * arch.threads_per_warp * registers_per_thread,
                                          arch.register_allocation_unit);
    if (result.registers_per_block == 0) {
      return unlimited_blocks;
    }
    if (result.registers_per_block > arch.max_registers_per_block) {
      return 0;
    }
    return arch.registers_per_sm / result.registers_per_block;
  }
  const int registers_per_warp =
      round_up(registers_per_thread * arch.threads_per_warp, arch.register_allocation_unit);
  result.registers_per_block = registers_per_warp * warps_per_block;
  if (registers_per_warp == 0) {
    return unlimited_blocks;
  }
  // The launch check assumes the block's warps are spread over all sub-partitions at once.
  const int registers_assumed =
      registers_per_warp * round_up(warps_per_block, arch.warp_allocation_granularity);
  if (registers_assumed > arch.max_registers_per_block ||
      result.registers_per_block > arch.max_registers_per_block) {
    return 0;
  }
  const int sub_partitions = arch.warp_allocation_granularity;
  const int warps_per_sub_partition = arch.registers_per_sm / sub_partitions / registers_per_warp;
  return warps_per_sub_partition * sub_partitions / warps_per_block;
}

int shared_memory_limit(const ArchitectureLimits& arch, std::int64_t shared_memory_per_block,
                        const OccupancyOptions& options, OccupancyResult& result) {
  result.shared_memory_per_block =
      round_up(shared_memory_per_block + arch.reserved_shared_memory_per_block,
               static_cast<std::int64_t>(arch.shared_memory_allocation_unit));
  result.needs_shared_memory_opt_in = shared_memory_per_block > arch.shared_memory_per_block;
  if (arch.shared_memory_configurations.empty()) {
    result.shared_memory_per_sm = arch.shared_memory_per_sm;
  } else {
    const std::int64_t preferred =
        options.shared_memory_carveout_percent
            ? *options.shared_memory_carveout_percent * arch.shared_memory_per_sm / 100
            : arch.shared_memory_per_sm;
    const std::int64_t preferred_configuration = configuration_holding(arch, preferred);
    // A preference too small for one block is overridden: the driver picks the smallest
    // configuration that runs the block.
    result.shared_memory_per_sm = preferred_configuration >= result.shared_memory_per_block
                                      ? preferred_configuration
                                      : configuration_holding(arch, result.shared_memory_per_block);
  }
  if (result.shared_memory_per_block == 0) {
    return unlimited_blocks;
  }
  return static_cast<int>(result.shared_memory_per_sm / result.shared_memory_per_block);
}

} // namespace

std::string_view to_string(OccupancyLimiter limiter) {
  switch (limiter) {
  case OccupancyLimiter::warps:
    return "warps";
  case OccupancyLimiter::registers:
    return "registers";
  case OccupancyLimiter::shared_memory:
    return "shared memory";
  case OccupancyLimiter::blocks_per_sm:
    return "blocks per SM";
  }
  return "?";
}

std::string_view to_string(SweepVariable variable) {
  switch (variable) {
  case SweepVariable::threads_per_block:
    return "threads per block";
  case SweepVariable::registers_per_thread:
    return "registers per thread";
  case SweepVariable::shared_memory_per_block:
    return "shared memory per block";
  }
  return "?";
}

OccupancyResult occupancy(const ArchitectureLimits& arch, const BlockResources& block,
                          const OccupancyOptions& options) {
  check_block(arch, block);
  if (options.shared_memory_carveout_percent) {
    const int percent = *options.shared_memory_carveout_percent;
    if (percent < 0 || percent > 100) {
      bad_argument("shared_memory_carveout_percent",
                   "must be 0..100, got " + std::to_string(percent));
    }
    if (arch.shared_memory_configurations.empty()) {
      bad_argument("shared_memory_carveout_percent",
                   "shared memory is not configurable on " + std::string(arch.name));
    }
  }

  OccupancyResult result;
  result.warps_per_block = divide_round_up(block.threads_per_block, arch.threads_per_warp);
  result.blocks_limited_by_warps = arch.max_warps_per_sm / result.warps_per_block;
  result.blocks_limited_by_registers =
      registers_limit(arch, result.warps_per_block, block.registers_per_thread, result);
  result.blocks_limited_by_shared_memory =
      shared_memory_limit(arch, block.shared_memory_per_block, options, result);
  result.blocks_limited_by_sm = arch.max_blocks_per_sm;

  result.active_blocks_per_sm =
      std::min({result.blocks_limited_by_warps, result.blocks_limited_by_registers,
                result.blocks_limited_by_shared_memory, result.blocks_limited_by_sm});
  const std::pair<OccupancyLimiter, int> limits[] = {
      {OccupancyLimiter::warps, result.blocks_limited_by_warps},
      {OccupancyLimiter::registers, result.blocks_limited_by_registers},
      {OccupancyLimiter::shared_memory, result.blocks_limited_by_shared_memory},
      {OccupancyLimiter::blocks_per_sm, result.blocks_limited_by_sm}};
  for (const auto& [limiter, limit] : limits) {
    if (limit == result.active_blocks_per_sm) {
      result.limiters.push_back(limiter);
    }
  }
  result.active_warps_per_sm = result.active_blocks_per_sm * result.warps_per_block;
  result.active_threads_per_sm = result.active_blocks_per_sm * block.threads_per_block;
  result.occupancy =
      static_cast<double>(result.active_warps_per_sm) / static_cast<double>(arch.max_warps_per_sm);
  return result;
}

std::vector<OccupancySweepPoint> occupancy_sweep(const ArchitectureLimits& arch,
                                                 const BlockResources& base, SweepVariable variable,
                                                 const OccupancyOptions& options,
                                                 std::int64_t step) {
  detail::require_non_negative("step", step);
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::int64_t default_step = 1;
  switch (variable) {
  case SweepVariable::threads_per_block:
    first = default_step = arch.threads_per_warp;
    last = arch.max_threads_per_block;
    break;
  case SweepVariable::registers_per_thread:
    first = 1;
    last = arch.max_registers_per_thread;
    break;
  case SweepVariable::shared_memory_per_block:
    first = 0;
    default_step = arch.shared_memory_allocation_unit;
    last = arch.shared_memory_per_block_optin;
    break;
  }
  if (step == 0) {
    step = default_step;
  }
  if (variable == SweepVariable::threads_per_block && first > step) {
    first = step; // a step below the warp size starts at the step (e.g. 16, 32, 48, ...)
  }

  std::vector<OccupancySweepPoint> points;
  // value + step would overflow for a huge step: stop once the next value passes `last`.
  for (std::int64_t value = first; value <= last;
       value = last - value < step ? last + 1 : value + step) {
    BlockResources block = base;
    switch (variable) {
    case SweepVariable::threads_per_block:
      block.threads_per_block = static_cast<int>(value);
      break;
    case SweepVariable::registers_per_thread:
      block.registers_per_thread = static_cast<int>(value);
      break;
    case SweepVariable::shared_memory_per_block:
      block.shared_memory_per_block = value;
      break;
    }
    points.push_back({block, occupancy(arch, block, options)});
  }
  return points;
}

} // namespace ladder::models
