// The GPU table behind the occupancy and bandwidth models, and the bandwidth model itself.
//
// Sources, so that each number can be checked:
// - 1.x: the CUDA Occupancy Calculator's "GPU Data" sheet (warps, blocks, register file, register
//   allocation unit 256 / 512 per block, warp allocation granularity 2, shared memory unit 512)
//   and the CUDA C Programming Guide 3.x technical specifications (512 threads per block, 128
//   registers per thread, 16 banks). The course's calculator screenshot ("Optimizing CUDA", "Occupancy
//   Calculator") shows the G80 column: 24 warps, 768 threads, 8 blocks, 8192 registers, 16384 B.
// - sm_70 and later: the CUDA programming guide's compute-capability table (warps, blocks and
//   shared memory per SM, opt-in shared memory per block) and cuda_occupancy.h of CUDA 13
//   (register unit 256 per warp, 4 sub-partitions, shared memory unit 256 before sm_80 and 128
//   from sm_80, 1 KB reserved per block from sm_80, the carveout configurations).
#include "ladder/models.hpp"

#include "arguments.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace ladder::models {
namespace {

constexpr std::int64_t KiB = 1024;

constexpr std::array<std::int64_t, 6> volta_configurations{0,        8 * KiB,  16 * KiB,
                                                           32 * KiB, 64 * KiB, 96 * KiB};
constexpr std::array<std::int64_t, 2> turing_configurations{32 * KiB, 64 * KiB};
constexpr std::array<std::int64_t, 8> a100_configurations{
    0, 8 * KiB, 16 * KiB, 32 * KiB, 64 * KiB, 100 * KiB, 132 * KiB, 164 * KiB};
constexpr std::array<std::int64_t, 6> ga10x_configurations{0,        8 * KiB,  16 * KiB,
                                                           32 * KiB, 64 * KiB, 100 * KiB};
constexpr std::array<std::int64_t, 10> hopper_configurations{
    0,         8 * KiB,   16 * KiB,  32 * KiB,  64 * KiB,
    100 * KiB, 132 * KiB, 164 * KiB, 196 * KiB, 228 * KiB};

// Compute capability 1.x: registers per block, no configurable shared memory, 16 banks.
constexpr ArchitectureLimits tesla_1x(std::string_view name, std::string_view family, int minor,
                                      int max_warps, int registers, int register_unit) {
  return ArchitectureLimits{
      .name = name,
      .family = family,
      .compute_major = 1,
      .compute_minor = minor,
      .threads_per_warp = 32,
      .max_warps_per_sm = max_warps,
      .max_blocks_per_sm = 8,
      .max_threads_per_block = 512,
      .registers_per_sm = registers,
      .max_registers_per_block = registers,
      .max_registers_per_thread = 128,
      .register_allocation_unit = register_unit,
      .register_granularity = RegisterGranularity::per_block,
      .warp_allocation_granularity = 2,
      .shared_memory_per_sm = 16 * KiB,
      .shared_memory_per_block = 16 * KiB,
      .shared_memory_per_block_optin = 16 * KiB,
      .reserved_shared_memory_per_block = 0,
      .shared_memory_allocation_unit = 512,
      .shared_memory_configurations = {},
      .shared_memory_banks = 16,
  };
}

// sm_70 and later: 64K registers per SM and per block, 255 per thread, allocated per warp in
// units of 256 within 4 sub-partitions, 32 banks.
constexpr ArchitectureLimits modern(std::string_view name, std::string_view family, int major,
                                    int minor, int max_warps, int max_blocks,
                                    std::int64_t shared_per_sm, std::int64_t shared_optin,
                                    std::int64_t reserved, int shared_unit,
                                    View<std::int64_t> configurations) {
  return ArchitectureLimits{
      .name = name,
      .family = family,
      .compute_major = major,
      .compute_minor = minor,
      .threads_per_warp = 32,
      .max_warps_per_sm = max_warps,
      .max_blocks_per_sm = max_blocks,
      .max_threads_per_block = 1024,
      .registers_per_sm = 65536,
      .max_registers_per_block = 65536,
      .max_registers_per_thread = 255,
      .register_allocation_unit = 256,
      .register_granularity = RegisterGranularity::per_warp,
      .warp_allocation_granularity = 4,
      .shared_memory_per_sm = shared_per_sm,
      .shared_memory_per_block = 48 * KiB,
      .shared_memory_per_block_optin = shared_optin,
      .reserved_shared_memory_per_block = reserved,
      .shared_memory_allocation_unit = shared_unit,
      .shared_memory_configurations = configurations,
      .shared_memory_banks = 32,
  };
}

const std::array<ArchitectureLimits, 12> architecture_table{
    tesla_1x("sm_10", "Tesla (G80)", 0, 24, 8192, 256),
    tesla_1x("sm_11", "Tesla (G8x/G9x)", 1, 24, 8192, 256),
    tesla_1x("sm_12", "Tesla (GT21x)", 2, 32, 16384, 512),
    tesla_1x("sm_13", "Tesla (GT200)", 3, 32, 16384, 512),
    modern("sm_70", "Volta", 7, 0, 64, 32, 96 * KiB, 96 * KiB, 0, 256, volta_configurations),
    modern("sm_75", "Turing", 7, 5, 32, 16, 64 * KiB, 64 * KiB, 0, 256, turing_configurations),
    modern("sm_80", "Ampere (GA100)", 8, 0, 64, 32, 164 * KiB, 163 * KiB, KiB, 128,
           a100_configurations),
    modern("sm_86", "Ampere (GA10x)", 8, 6, 48, 16, 100 * KiB, 99 * KiB, KiB, 128,
           ga10x_configurations),
    modern("sm_89", "Ada Lovelace", 8, 9, 48, 24, 100 * KiB, 99 * KiB, KiB, 128,
           ga10x_configurations),
    modern("sm_90", "Hopper", 9, 0, 64, 32, 228 * KiB, 227 * KiB, KiB, 128, hopper_configurations),
    modern("sm_100", "Blackwell (GB100)", 10, 0, 64, 32, 228 * KiB, 227 * KiB, KiB, 128,
           hopper_configurations),
    modern("sm_120", "Blackwell (GB20x)", 12, 0, 48, 24, 100 * KiB, 99 * KiB, KiB, 128,
           ga10x_configurations),
};

// Memory clocks: the course's own figures for the old GPUs; for the others the clock the CUDA driver
// reports (HBM: the real clock; GDDR6/6X: half the data rate per pin), which with DDR gives the
// datasheet bandwidth. H100 and H200: cudaDevAttrMemoryClockRate and
// cudaDevAttrGlobalMemoryBusWidth as read on the GPUs themselves (the H200 reports 6016 bits, not
// the 6144 of six full stacks: 4.81 TB/s, the datasheet's 4.8).
const std::array<GpuSpec, 12> gpu_table{{
    {"g80",
     "GeForce 8800 GTX (G80)",
     "sm_10",
     16,
     {900, 384, 2},
     "'Optimizing CUDA code' (Moreno Maza) (reduction, 'G80 ... 384-bit memory interface, 1800 MHz') and 'Optimizing CUDA' (NVIDIA) (calculator, 16 "
     "multiprocessors)"},
    {"gtx280",
     "GeForce GTX 280 (GT200)",
     "sm_13",
     30,
     {1107, 512, 2},
     "'Optimizing CUDA' (NVIDIA) ('Theoretical Bandwidth': 1107 MHz, 512-bit, DDR; '30 multiprocessors')"},
    {"gtx280-oc",
     "ASUS ENGTX280 OC (GT200)",
     "sm_13",
     30,
     {1140, 512, 2},
     "the reduction slides (Hui Liu) ('512-bit interface, 1.14GHz DDR3')"},
    {"tesla-c1060",
     "Tesla C1060 (GT200)",
     "sm_13",
     30,
     {800, 512, 2},
     "'Optimizing CUDA' (NVIDIA) ('102 GB/s peak (Tesla C1060)'); 800 MHz GDDR3"},
    {"v100", "Tesla V100-SXM2 (GV100)", "sm_70", 80, {877, 4096, 2}, "datasheet: 900 GB/s HBM2"},
    {"t4", "Tesla T4 (TU104)", "sm_75", 40, {5001, 256, 2}, "datasheet: 320 GB/s GDDR6"},
    {"a100", "A100-SXM4-40GB (GA100)", "sm_80", 108, {1215, 5120, 2}, "datasheet: 1555 GB/s HBM2"},
    {"rtx3090",
     "GeForce RTX 3090 (GA102)",
     "sm_86",
     82,
     {9751, 384, 2},
     "datasheet: 936 GB/s GDDR6X"},
    {"rtx4090",
     "GeForce RTX 4090 (AD102)",
     "sm_89",
     128,
     {10501, 384, 2},
     "datasheet: 1008 GB/s GDDR6X"},
    {"h100",
     "H100 SXM5 80GB (GH100)",
     "sm_90",
     132,
     {2619, 5120, 2},
     "datasheet: 3.35 TB/s HBM3, 50 MB L2; the driver reports 132 SMs, 2619 MHz, 5120-bit"},
    {"h200",
     "H200 SXM 141GB (GH100)",
     "sm_90",
     132,
     {3201, 6016, 2},
     "datasheet: 4.8 TB/s HBM3e, 141 GB; the driver reports 132 SMs, 60 MB L2, 3201 MHz, "
     "6016-bit"},
    {"h100-pcie",
     "H100 PCIe 80GB (GH100)",
     "sm_90",
     114,
     {1593, 5120, 2},
     "datasheet: 2.0 TB/s HBM2e"},
}};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

template <class Range, class Key> std::string known_names(const Range& range, Key key) {
  std::string names;
  for (const auto& entry : range) {
    names += names.empty() ? "" : ", ";
    names += key(entry);
  }
  return names;
}

} // namespace

View<ArchitectureLimits> architectures() { return architecture_table; }

View<GpuSpec> gpus() { return gpu_table; }

const ArchitectureLimits& find_architecture(std::string_view name) {
  for (const auto& arch : architecture_table) {
    if (equal_ignoring_case(arch.name, name)) {
      return arch;
    }
  }
  detail::bad_argument("architecture",
                       "unknown '" + std::string(name) + "' (known: " +
                           known_names(architecture_table, [](const auto& a) { return a.name; }) +
                           ")");
}

const GpuSpec& find_gpu(std::string_view key) {
  for (const auto& gpu : gpu_table) {
    if (equal_ignoring_case(gpu.key, key)) {
      return gpu;
    }
  }
  detail::bad_argument(
      "gpu", "unknown '" + std::string(key) +
                 "' (known: " + known_names(gpu_table, [](const auto& g) { return g.key; }) + ")");
}

const ArchitectureLimits& architecture_of(const GpuSpec& gpu) {
  return find_architecture(gpu.architecture);
}

const ArchitectureLimits& architecture_for_compute_capability(int major, int minor) {
  for (const auto& arch : architecture_table) {
    if (arch.compute_major == major && arch.compute_minor == minor) {
      return arch;
    }
  }
  detail::bad_argument("compute capability",
                       "no table entry for " + std::to_string(major) + "." + std::to_string(minor));
}

ArchitectureLimits architecture_from_device(const DeviceProperties& device) {
  detail::require_positive("compute_major", device.compute_major);
  detail::require_non_negative("compute_minor", device.compute_minor);
  // The exact entry, else the newest entry at or below this compute capability: granularities
  // change rarely, and the device's own limits below replace the table's.
  const ArchitectureLimits* base = nullptr;
  bool exact = false;
  for (const auto& arch : architecture_table) {
    const bool not_newer =
        arch.compute_major < device.compute_major ||
        (arch.compute_major == device.compute_major && arch.compute_minor <= device.compute_minor);
    if (not_newer) {
      base = &arch;
      exact =
          arch.compute_major == device.compute_major && arch.compute_minor == device.compute_minor;
    }
  }
  if (base == nullptr) {
    detail::bad_argument("compute capability", "no table entry at or below " +
                                                   std::to_string(device.compute_major) + "." +
                                                   std::to_string(device.compute_minor));
  }
  ArchitectureLimits limits = *base;
  limits.name = exact ? base->name : "unknown";
  limits.family =
      exact ? base->family : "not in the table: granularities of the closest older entry";
  limits.compute_major = device.compute_major;
  limits.compute_minor = device.compute_minor;
  auto take = [](auto& field, auto value) {
    if (value > 0) {
      field = value;
    }
  };
  take(limits.threads_per_warp, device.warp_size);
  if (device.max_threads_per_sm > 0) {
    limits.max_warps_per_sm = device.max_threads_per_sm / limits.threads_per_warp;
  }
  take(limits.max_blocks_per_sm, device.max_blocks_per_sm);
  take(limits.max_threads_per_block, device.max_threads_per_block);
  take(limits.registers_per_sm, device.registers_per_sm);
  take(limits.max_registers_per_block, device.registers_per_block);
  take(limits.shared_memory_per_sm, device.shared_memory_per_sm);
  take(limits.shared_memory_per_block, device.shared_memory_per_block);
  take(limits.shared_memory_per_block_optin, device.shared_memory_per_block_optin);
  if (device.reserved_shared_memory_per_block >= 0) {
    limits.reserved_shared_memory_per_block = device.reserved_shared_memory_per_block;
  }
  // A device whose largest shared-memory size is not among the table's configurations (a newer
  // chip) keeps only the configurations below it; the occupancy model then falls back to the
  // device's largest size.
  const auto& configurations = limits.shared_memory_configurations;
  if (!configurations.empty() && configurations.back() != limits.shared_memory_per_sm) {
    const auto fits = std::ranges::upper_bound(configurations, limits.shared_memory_per_sm);
    limits.shared_memory_configurations =
        View<std::int64_t>(configurations.data(), static_cast<std::size_t>(fits - configurations.begin()));
  }
  return limits;
}

Bandwidth theoretical_bandwidth(const MemoryInterface& memory) {
  // Not just > 0: "inf" and "nan" parse as numbers too, and would print as a bandwidth.
  if (!(memory.clock_mhz > 0) || !std::isfinite(memory.clock_mhz)) {
    detail::bad_argument("clock_mhz",
                         "must be a positive number, got " + std::to_string(memory.clock_mhz));
  }
  detail::require_positive("bus_width_bits", memory.bus_width_bits);
  detail::require_positive("transfers_per_clock", memory.transfers_per_clock);
  Bandwidth bandwidth;
  bandwidth.bytes_per_second = memory.clock_mhz * 1e6 * memory.transfers_per_clock *
                               (static_cast<double>(memory.bus_width_bits) / 8.0);
  bandwidth.gb_per_second = bandwidth.bytes_per_second / 1e9;
  bandwidth.gib_per_second = bandwidth.bytes_per_second / (1024.0 * 1024.0 * 1024.0);
  return bandwidth;
}

} // namespace ladder::models
