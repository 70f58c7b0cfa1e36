#include "core/peaks.hpp"

#include "core/buffer.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ladder::lab {

namespace {

// Bytes that each bandwidth peak moves: far larger than any L2 (16 x), at least 1 GiB.
std::size_t peak_bytes(const DeviceInfo& device, bool small) {
  const std::size_t floor = small ? (64u << 20) : (1u << 30);
  return std::max<std::size_t>(floor, static_cast<std::size_t>(device.l2_bytes) * 16);
}

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Streams `n` 16-byte words with four loads in flight per thread. The xor of everything is written
// only if it equals a value random data essentially never gives, so no load can be dropped.
__global__ void read_kernel(const uint4* in, std::int64_t n, unsigned* sink) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      v[k] = __ldcs(in + i + k * stride);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  for (; i < n; i += stride) {
    const uint4 v = __ldcs(in + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u)
    *sink = acc;
}

constexpr int fma_chains = 8; // independent chains per thread: FMA latency hidden within a warp

// `iterations` x fma_chains dependent FMAs per thread on values the compiler cannot fold.
__global__ void fma_kernel(float* sink, int iterations, float multiplier, float addend) {
  float v[fma_chains];
#pragma unroll
  for (int k = 0; k < fma_chains; ++k)
    v[k] = static_cast<float>(threadIdx.x + k);
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int k = 0; k < fma_chains; ++k)
      v[k] = fmaf(v[k], multiplier, addend);
  float total = 0;
#pragma unroll
  for (int k = 0; k < fma_chains; ++k)
    total += v[k];
  if (total == 1234.5f)
    *sink = total;
}

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  std::string text;
  std::getline(file, text);
  return text;
}

} // namespace

int fp32_lanes_per_sm(int major, int minor) {
  switch (major) {
  case 5:
    return 128;
  case 6:
    return minor == 0 ? 64 : 128;
  case 7:
    return 64;
  case 8:
    return minor == 0 ? 64 : 128;
  case 9:
  case 10:
  case 11:
  case 12:
    return 128;
  default:
    return 0;
  }
}

double pcie_bytes_per_second(const PcieLink& link) {
  const double encoding = link.gigatransfers >= 8.0 ? 128.0 / 130.0 : 0.8;
  return link.gigatransfers * 1e9 * link.width * encoding / 8.0;
}

std::optional<PcieLink> read_pcie_link(const std::string& pci_bus_id,
                                       const std::string& sysfs_root) {
  if (pci_bus_id.empty())
    return std::nullopt;
  std::string id = pci_bus_id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  // The driver prints an 8-digit domain ("00000000:19:00.0"); sysfs uses 4.
  if (id.size() > 12 && id.find(':') == 8)
    id = id.substr(4);
  const std::string dir = sysfs_root + "/" + id + "/";
  PcieLink link;
  std::istringstream speed(read_text(dir + "current_link_speed")); // "32.0 GT/s PCIe"
  std::istringstream width(read_text(dir + "current_link_width")); // "16"
  if (!(speed >> link.gigatransfers) || !(width >> link.width) || link.gigatransfers <= 0 ||
      link.width <= 0)
    return std::nullopt;
  return link;
}

Peak theoretical_peak(Bound bound, const DeviceInfo& device) {
  Peak p;
  p.bound = bound;
  switch (bound) {
  case Bound::dram_copy:
  case Bound::dram_read:
    p.theoretical = device.theoretical_bandwidth_gbs() * 1e9;
    p.theoretical_from = "memory clock x bus width x 2";
    break;
  case Bound::fp32_fma: {
    const int lanes = fp32_lanes_per_sm(device.compute_major, device.compute_minor);
    p.theoretical =
        static_cast<double>(device.sm_clock_khz) * 1e3 * device.multiprocessors * lanes * 2.0;
    p.theoretical_from = "SM clock x " + std::to_string(device.multiprocessors) + " SMs x " +
                         std::to_string(lanes) + " FP32 lanes x 2";
    break;
  }
  case Bound::host_link:
    if (const auto link = read_pcie_link(device.pci_bus_id)) {
      p.theoretical = pcie_bytes_per_second(*link);
      std::ostringstream from;
      from << "PCIe " << link->gigatransfers << " GT/s x" << link->width << ", one direction";
      p.theoretical_from = from.str();
    } else {
      p.theoretical_from = "link speed not readable";
    }
    break;
  case Bound::instruction:
    p.theoretical_from = "per instruction, from the programming guide's table";
    break;
  }
  return p;
}

Peak measure_peak(Bound bound, const DeviceInfo& device, const TimingOptions& timing, bool small) {
  Peak p = theoretical_peak(bound, device);
  Stream stream;
  switch (bound) {
  case Bound::dram_copy: {
    const std::size_t bytes = peak_bytes(device, small);
    DeviceBuffer<std::uint32_t> src(bytes / 4), dst(bytes / 4);
    fill_random<std::uint32_t>(src.data(), static_cast<std::int64_t>(bytes / 4), fresh_seed(), 1,
                               1u << 30, stream);
    const Measurement m = time_launches(
        [&](cudaStream_t s) {
          LADDER_CUDA(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, s));
        },
        stream, timing);
    p.measured = per_second(2.0 * static_cast<double>(bytes), m.median_ms);
    p.measured_by = "device-to-device cudaMemcpy of " + mib(bytes) + ", read + write";
    break;
  }
  case Bound::dram_read: {
    const std::size_t bytes = peak_bytes(device, small);
    DeviceBuffer<std::uint32_t> src(bytes / 4);
    DeviceBuffer<unsigned> sink(1);
    fill_random<std::uint32_t>(src.data(), static_cast<std::int64_t>(bytes / 4), fresh_seed(), 1,
                               1u << 30, stream);
    const int blocks =
        device.multiprocessors * std::max(1, device.max_threads_per_multiprocessor / 256);
    const Measurement m = time_launches(
        [&](cudaStream_t s) {
          read_kernel<<<blocks, 256, 0, s>>>(reinterpret_cast<const uint4*>(src.data()),
                                             static_cast<std::int64_t>(bytes / 16), sink.data());
        },
        stream, timing);
    p.measured = per_second(static_cast<double>(bytes), m.median_ms);
    p.measured_by = "a streaming read kernel over " + mib(bytes);
    break;
  }
  case Bound::fp32_fma: {
    DeviceBuffer<float> sink(1);
    const int threads = 256;
    const int blocks =
        device.multiprocessors * std::max(1, device.max_threads_per_multiprocessor / threads);
    const int iterations = small ? 256 : 4096;
    const Measurement m = time_launches(
        [&](cudaStream_t s) {
          fma_kernel<<<blocks, threads, 0, s>>>(sink.data(), iterations, 0.9999f, 0.5f);
        },
        stream, timing);
    p.measured = per_second(2.0 * fma_chains * iterations * static_cast<double>(blocks) * threads,
                            m.median_ms);
    p.measured_by =
        "an FMA kernel, " + std::to_string(fma_chains) + " independent chains per thread";
    break;
  }
  case Bound::host_link: {
    const std::size_t bytes = small ? (32u << 20) : (256u << 20);
    PinnedBuffer<std::uint8_t> host(bytes);
    DeviceBuffer<std::uint8_t> dst(bytes);
    std::fill(host.begin(), host.end(), std::uint8_t{0x5A});
    const Measurement m = time_launches(
        [&](cudaStream_t s) {
          LADDER_CUDA(cudaMemcpyAsync(dst.data(), host.data(), bytes, cudaMemcpyHostToDevice, s));
        },
        stream, timing);
    p.measured = per_second(static_cast<double>(bytes), m.median_ms);
    p.measured_by = "pinned host-to-device cudaMemcpy of " + mib(bytes);
    break;
  }
  case Bound::instruction:
    break; // each instruction's table carries its own peak
  }
  return p;
}

} // namespace ladder::lab
