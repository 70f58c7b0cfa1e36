#include "ladder/device.hpp"
#include "ladder/error.hpp"

#include <cuda_runtime.h>

namespace ladder {

double theoretical_bandwidth_gbs(std::int64_t memory_clock_khz, int bus_width_bits) {
  return static_cast<double>(memory_clock_khz) * 1e3 * bus_width_bits * 2.0 / 8.0 / 1e9;
}

double DeviceInfo::theoretical_bandwidth_gbs() const {
  return ladder::theoretical_bandwidth_gbs(memory_clock_khz, memory_bus_width_bits);
}

int device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError(); // clear the sticky-free error so later calls start clean
    return 0;
  }
  return count;
}

DeviceInfo current_device_info() {
  DeviceInfo info;
  LADDER_CUDA(cudaGetDevice(&info.ordinal));
  cudaDeviceProp prop{};
  LADDER_CUDA(cudaGetDeviceProperties(&prop, info.ordinal));
  auto attribute = [&](cudaDeviceAttr attr) {
    int value = 0;
    LADDER_CUDA(cudaDeviceGetAttribute(&value, attr, info.ordinal));
    return value;
  };
  info.name = prop.name;
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  info.l2_bytes = prop.l2CacheSize;
  info.global_memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  // CUDA 13 removed memoryClockRate from cudaDeviceProp; the attribute is still there.
  info.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate);
  info.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
  info.sm_clock_khz = attribute(cudaDevAttrClockRate);
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, info.ordinal) == cudaSuccess)
    info.pci_bus_id = bus_id;
  else
    cudaGetLastError(); // no bus id (e.g. some virtual devices): the host link stays unknown
  info.warp_size = prop.warpSize;
  info.max_threads_per_multiprocessor = prop.maxThreadsPerMultiProcessor;
  info.max_threads_per_block = prop.maxThreadsPerBlock;
  info.max_blocks_per_multiprocessor = prop.maxBlocksPerMultiProcessor;
  info.registers_per_multiprocessor = prop.regsPerMultiprocessor;
  info.registers_per_block = prop.regsPerBlock;
  info.shared_memory_per_multiprocessor = static_cast<std::int64_t>(prop.sharedMemPerMultiprocessor);
  info.shared_memory_per_block = static_cast<std::int64_t>(prop.sharedMemPerBlock);
  info.shared_memory_per_block_optin = static_cast<std::int64_t>(prop.sharedMemPerBlockOptin);
  info.reserved_shared_memory_per_block =
      static_cast<std::int64_t>(prop.reservedSharedMemPerBlock);
  return info;
}

} // namespace ladder
