// How many blocks of a kernel fit on the device at once: the grid of every persistent or
// grid-stride kernel (the reduction's single-pass and ring kernels, the persistent transpose, the
// pipelined and reduce-ahead scans). One query and one cache scheme for all of them, used by the
// library calls and the lab alike.
#pragma once

#include "ladder/error.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ladder::core {

// A value per device, computed on first use and then read without a lock: launch paths of
// microsecond calls cannot afford a mutex or a map lookup. Ordinals past the table are computed
// every time rather than cached in a wrong slot. Keep one per kernel launch shape, as a
// function-local static of the (template) function that launches it.
class PerDevice {
public:
  PerDevice() {
    for (auto& v : values_)
      v.store(-1, std::memory_order_relaxed);
  }
  template <class Compute> int get(int device, Compute compute) {
    if (device < 0 || device >= static_cast<int>(values_.size()))
      return compute();
    int value = values_[device].load(std::memory_order_relaxed);
    if (value < 0) {
      value = compute(); // racing first calls compute the same value; either store is right
      values_[device].store(value, std::memory_order_relaxed);
    }
    return value;
  }

private:
  std::array<std::atomic<int>, 64> values_;
};

inline int current_device() {
  int device = 0;
  LADDER_CUDA(cudaGetDevice(&device));
  return device;
}

inline int multiprocessors(int device) {
  static PerDevice cache;
  return cache.get(device, [&] {
    int count = 0;
    LADDER_CUDA(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
  });
}

// Blocks of `kernel` per SM with `threads` per block and `dynamic_shared` bytes (0 when it does not
// fit at all), asked once per device through `cache`. A kernel with dynamic shared memory is
// first allowed that much: with its static shared memory the total can pass the 48 KiB default
// even when the dynamic part alone does not (the opt-in the launch needs anyway).
inline int resident_blocks_per_sm(PerDevice& cache, const void* kernel, int threads,
                                  std::size_t dynamic_shared, int device) {
  return cache.get(device, [&] {
    if (dynamic_shared > 0)
      LADDER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(dynamic_shared)));
    int per_sm = 0;
    LADDER_CUDA(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_shared));
    return per_sm;
  });
}

// The resident grid: blocks per SM (at least 1, so a grid is never empty) x SMs on the current
// device.
inline std::int64_t resident_blocks(PerDevice& cache, const void* kernel, int threads,
                                    std::size_t dynamic_shared = 0) {
  const int device = current_device();
  const int per_sm = resident_blocks_per_sm(cache, kernel, threads, dynamic_shared, device);
  return static_cast<std::int64_t>(std::max(per_sm, 1)) * multiprocessors(device);
}

// The grid a cooperative launch may use: every block resident at once, or 0 where the device has
// no cooperative launch or the kernel does not fit.
inline std::int64_t cooperative_blocks(PerDevice& cache, const void* kernel, int threads,
                                       std::size_t dynamic_shared = 0) {
  const int device = current_device();
  static PerDevice cooperative;
  const bool supported = cooperative.get(device, [&] {
    int value = 0;
    LADDER_CUDA(cudaDeviceGetAttribute(&value, cudaDevAttrCooperativeLaunch, device));
    return value;
  }) != 0;
  if (!supported)
    return 0;
  return static_cast<std::int64_t>(
             resident_blocks_per_sm(cache, kernel, threads, dynamic_shared, device)) *
         multiprocessors(device);
}

} // namespace ladder::core
