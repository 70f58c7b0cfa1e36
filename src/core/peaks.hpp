// The peaks that bound the studies: each theoretical one from the device's properties, each
// measured one by a copy or a kernel in the same run (the figure "% of peak" divides by).
#pragma once

#include "core/harness.hpp"
#include "core/measurement.hpp"
#include "ladder/device.hpp"

#include <optional>
#include <string>

namespace ladder::lab {

// FP32 lanes per SM by compute capability (the CUDA C++ Programming Guide's arithmetic
// instruction throughput table: 64 on 6.0, 7.x and 8.0; 128 on 5.x, 6.1, 8.6, 8.9, 9.0 and
// later); 0 when the capability is not in the table.
int fp32_lanes_per_sm(int major, int minor);

// A PCIe link: transfer rate per lane and lanes, as the OS reports them.
struct PcieLink {
  double gigatransfers = 0; // per lane, GT/s
  int width = 0;            // lanes
};
// Bytes per second in one direction: GT/s x lanes x encoding (8b/10b up to 5 GT/s, 128b/130b
// from 8 GT/s) / 8 bits.
double pcie_bytes_per_second(const PcieLink& link);
// The device's link from Linux sysfs (current_link_speed and current_link_width under
// `sysfs_root`/<bus id>); nullopt when it cannot be read.
std::optional<PcieLink> read_pcie_link(const std::string& pci_bus_id,
                                       const std::string& sysfs_root = "/sys/bus/pci/devices");

// The theoretical peak alone (no device work): what the host tests and `ladder info` use.
Peak theoretical_peak(Bound bound, const DeviceInfo& device);

// The theoretical peak and the measured one (a device-to-device copy, a read kernel, an FMA
// kernel or a pinned host-to-device copy, timed like every rung).
Peak measure_peak(Bound bound, const DeviceInfo& device, const TimingOptions& timing, bool small);

} // namespace ladder::lab
