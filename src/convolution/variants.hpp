// The convolution ladder's registries: 1D (float signals) and 2D (float or uint8 images with 1, 3
// or 4 interleaved channels, pitched rows), each the course's rungs in the order the slides build
// them, the rungs past the course, the library call, then the references (the copy of the same
// bytes, NPP, cuDNN). The CLI, the GPU tests and the benchmark all iterate these lists.
#pragma once

#include "core/rung.hpp"
#include "ladder/convolve.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <span>

namespace ladder::lab::convolution {

enum class Element { f32, u8 };

// One 2D problem: the image, its pitch (the same for in and out) and the mask's size.
struct Problem2d {
  Element element = Element::f32;
  int channels = 1;
  std::int64_t width = 0, height = 0;
  std::int64_t pitch = 0; // bytes
  int mask_width = 0, mask_height = 0;
  bool mask_separable = false; // the mask is a column times a row
  std::int64_t row_bytes() const { return width * channels * (element == Element::f32 ? 4 : 1); }
};

// What a 2D rung gets: device images, the mask on the host and on the device.
struct Buffers2d {
  Problem2d problem;
  const void* in = nullptr;
  void* out = nullptr;
  const float* host_mask = nullptr;
  const float* device_mask = nullptr;
  const float* device_mask_reversed = nullptr; // rotated 180 degrees, for libraries that convolve
};

struct Rung2d {
  RungInfo info;
  Border border = Border::zero; // the border policy the rung computes (its check's reference)
  // Sums in the reference's order with fused multiply-adds: float results equal to the rounding,
  // uint8 results exactly. Otherwise (other orders, vendor libraries) float results are checked
  // within float_error_bound and uint8 results within 1.
  bool reference_order = true;
  bool copies = false; // the bound: its output must equal its input
  // The joint bound: each scalar through every tap on its own (cpu_own_taps), exactly.
  bool own_taps = false;
  bool needs_separable_mask = false;
  // nullptr when the rung handles the problem, else why not (shown in the table).
  const char* (*unsupported)(const Problem2d& problem) = nullptr;
  void (*launch)(const Buffers2d& buffers, cudaStream_t stream) = nullptr;
};

struct Problem1d {
  std::int64_t n = 0;
  int mask_width = 0;
};

struct Buffers1d {
  Problem1d problem;
  const float* in = nullptr;
  float* out = nullptr;
  const float* host_mask = nullptr;
  const float* device_mask = nullptr;
};

struct Rung1d {
  RungInfo info;
  Border border = Border::zero;
  bool reference_order = true;
  bool copies = false;
  const char* (*unsupported)(const Problem1d& problem) = nullptr;
  void (*launch)(const Buffers1d& buffers, cudaStream_t stream) = nullptr;
};

std::span<const Rung2d> registry_2d();
std::span<const Rung1d> registry_1d();

// Whether this build found NPP and cuDNN (their rows say why they are skipped otherwise).
bool have_npp();
bool have_cudnn();

} // namespace ladder::lab::convolution
