// The device queries behind ladder/device.hpp, and the scratch allocator every library call uses
// (ladder/detail/scratch.hpp: why per call, stream-ordered, and which pool under capture).
#include "ladder/detail/scratch.hpp"
#include "ladder/device.hpp"
#include "ladder/error.hpp"

#include <cuda_runtime.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>

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
  info.shared_memory_per_multiprocessor =
      static_cast<std::int64_t>(prop.sharedMemPerMultiprocessor);
  info.shared_memory_per_block = static_cast<std::int64_t>(prop.sharedMemPerBlock);
  info.shared_memory_per_block_optin = static_cast<std::int64_t>(prop.sharedMemPerBlockOptin);
  info.reserved_shared_memory_per_block = static_cast<std::int64_t>(prop.reservedSharedMemPerBlock);
  return info;
}

// --- scratch -------------------------------------------------------------------------------------

namespace detail {

namespace {

// One private pool per device, created on first use and read without a lock afterwards (a call
// of a few microseconds cannot afford a mutex per allocation). Never destroyed: destroying a pool
// from a static destructor races with the runtime's own teardown; the driver reclaims it at exit.
constexpr int pooled_devices = 64;
std::array<std::atomic<cudaMemPool_t>, pooled_devices> private_pools{};
std::mutex private_pools_mutex;

cudaMemPool_t create_private_pool(int device) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  LADDER_CUDA(cudaMemPoolCreate(&pool, &props));
  // Release threshold "never": freed scratch stays mapped for the next call.
  std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
  const cudaError_t set = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  if (set != cudaSuccess) {
    cudaMemPoolDestroy(pool);
    LADDER_CUDA(set);
  }
  return pool;
}

cudaMemPool_t private_pool(int device) {
  if (device < 0 || device >= pooled_devices) { // beyond the table: the device's default pool
    cudaMemPool_t pool = nullptr;
    LADDER_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
    return pool;
  }
  auto& slot = private_pools[static_cast<std::size_t>(device)];
  if (cudaMemPool_t pool = slot.load(std::memory_order_acquire))
    return pool;
  std::lock_guard lock(private_pools_mutex);
  cudaMemPool_t pool = slot.load(std::memory_order_relaxed);
  if (!pool) {
    pool = create_private_pool(device);
    slot.store(pool, std::memory_order_release);
  }
  return pool;
}

bool is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  LADDER_CUDA(cudaStreamIsCapturing(stream, &capture));
  return capture != cudaStreamCaptureStatusNone;
}

} // namespace

void* scratch_alloc(std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0)
    return nullptr;
  int device = 0;
  LADDER_CUDA(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  if (is_capturing(stream))
    LADDER_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  else
    pool = private_pool(device);
  void* pointer = nullptr;
  LADDER_CUDA(cudaMallocFromPoolAsync(&pointer, bytes, pool, stream));
  return pointer;
}

void scratch_free(void* pointer, cudaStream_t stream) {
  if (pointer)
    LADDER_CUDA(cudaFreeAsync(pointer, stream));
}

void scratch_free_quietly(void* pointer, cudaStream_t stream) noexcept {
  if (pointer && cudaFreeAsync(pointer, stream) != cudaSuccess)
    (void)cudaGetLastError(); // not sticky: the error already on its way is the one to report
}

void check_not_capturing(const char* call, cudaStream_t stream) {
  if (is_capturing(stream))
    throw std::invalid_argument(
        std::string(call) +
        ": stream is being captured into a CUDA graph, and this overload returns a host value, "
        "so it must wait for the stream, which capture forbids; use the overload that leaves the "
        "result in device memory");
}

} // namespace detail

} // namespace ladder
