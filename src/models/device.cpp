// The bridge from what the CUDA runtime reports about a device (ladder::DeviceInfo, filled by
// cudaGetDeviceProperties in src/core/device_info.cu) to the occupancy model's DeviceProperties.
// Host-only: a DeviceInfo filled by hand (tests) works the same.
#include "ladder/models.hpp"

namespace ladder::models {

DeviceProperties device_properties(const DeviceInfo& info) {
  DeviceProperties properties;
  properties.compute_major = info.compute_major;
  properties.compute_minor = info.compute_minor;
  properties.warp_size = info.warp_size;
  properties.max_threads_per_block = info.max_threads_per_block;
  properties.max_threads_per_sm = info.max_threads_per_multiprocessor;
  properties.max_blocks_per_sm = info.max_blocks_per_multiprocessor;
  properties.registers_per_block = info.registers_per_block;
  properties.registers_per_sm = info.registers_per_multiprocessor;
  properties.shared_memory_per_block = info.shared_memory_per_block;
  properties.shared_memory_per_sm = info.shared_memory_per_multiprocessor;
  properties.shared_memory_per_block_optin = info.shared_memory_per_block_optin;
  // Both use -1 for "not known": architecture_from_device then takes the table's reserve. Every
  // other field left at 0 (a DeviceInfo filled by hand) is taken from the table too.
  properties.reserved_shared_memory_per_block = info.reserved_shared_memory_per_block;
  return properties;
}

} // namespace ladder::models
