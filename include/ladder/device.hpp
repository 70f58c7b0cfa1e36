// ladder/device.hpp: what the current GPU is and how fast its memory can be.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ladder {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t global_memory_bytes = 0;
  std::int64_t memory_clock_khz = 0; // as the driver reports it
  int memory_bus_width_bits = 0;
  std::int64_t sm_clock_khz = 0; // the SMs' peak clock, as the driver reports it
  std::string pci_bus_id;        // "0000:19:00.0", where the driver reports one
  int warp_size = 0;
  int max_threads_per_multiprocessor = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_multiprocessor = 0; // resident blocks per SM (cudaDeviceProp 11.0+)
  int registers_per_multiprocessor = 0;
  int registers_per_block = 0;
  std::int64_t shared_memory_per_multiprocessor = 0;
  std::int64_t shared_memory_per_block = 0; // without opting in (48 KB)
  // With cudaFuncAttributeMaxDynamicSharedMemorySize (opt-in, sm_70+).
  std::int64_t shared_memory_per_block_optin = 0;
  // Shared memory the driver keeps for itself in every block (sm_80+: 1 KB); counted against the
  // SM's shared memory but not against the per-block limits above. -1 until read from a device
  // (0 is a real value: nothing is reserved before sm_80).
  std::int64_t reserved_shared_memory_per_block = -1;

  // Theoretical DRAM bandwidth in GB/s (1e9): memory clock x bus width x 2 (double data rate).
  double theoretical_bandwidth_gbs() const;
};

// Number of CUDA devices; 0 when there is none or no usable driver (never throws).
int device_count() noexcept;

// Properties of the current device. Throws CudaError when there is no device.
DeviceInfo current_device_info();

// memory clock (kHz) x bus width (bits) x 2 / 8 bits per byte, in GB/s (1e9 bytes/s).
double theoretical_bandwidth_gbs(std::int64_t memory_clock_khz, int bus_width_bits);

} // namespace ladder
