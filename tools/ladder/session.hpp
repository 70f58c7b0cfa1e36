// What `ladder info` and `ladder run` share: the device and its measured copy bandwidth.
#pragma once

#include "core/harness.hpp"
#include "ladder/device.hpp"

#include <cstddef>
#include <string>

namespace ladder::cli {

// Bytes of the device-to-device copy that defines the measured peak: far larger than any L2.
inline std::size_t peak_copy_bytes(const DeviceInfo& info, bool small) {
  const std::size_t floor = small ? (64u << 20) : (1u << 30);
  return std::max<std::size_t>(floor, static_cast<std::size_t>(info.l2_bytes) * 16);
}

std::string describe_device(const DeviceInfo& info);

// UTC time as 2026-11-21T20:51:45Z.
std::string utc_timestamp();

} // namespace ladder::cli
