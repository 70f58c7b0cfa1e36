// What `ladder info` and `ladder run` share: how the device and the time are described.
#pragma once

#include "ladder/device.hpp"

#include <string>

namespace ladder::cli {

std::string describe_device(const DeviceInfo& info);

// UTC time as 2026-11-21T20:51:45Z.
std::string utc_timestamp();

} // namespace ladder::cli
