// Bandwidth reduction of tiled convolution (seed 003, "A simple way to calculate tiling
// benefit" .. "Bandwidth Reduction for 2D").
//
// A tile of O outputs with a mask of width M loads O + M - 1 inputs once into shared memory and
// then serves O * M reads from there; the ratio is the factor by which global loads drop.
#include "ladder/models.hpp"

#include "arguments.hpp"

#include <algorithm>
#include <cstdlib>

namespace ladder::models {
namespace {

void check_tile(int output_tile, int mask_width) {
  detail::require_positive("output_tile", output_tile);
  detail::require_positive("mask_width", mask_width);
}

// Global loads of the basic kernel along one axis: output i reads input i - M/2 + j for each tap
// j that lands inside [0, width). Counted per tap: tap j is in range for width - |M/2 - j| outputs.
std::int64_t untiled_loads_along(std::int64_t width, int mask_width) {
  const std::int64_t halo = mask_width / 2;
  std::int64_t loads = 0;
  for (std::int64_t tap = 0; tap < mask_width; ++tap) {
    loads += std::max<std::int64_t>(0, width - std::llabs(halo - tap));
  }
  return loads;
}

// Global loads of the tiled kernel along one axis: tile k loads inputs
// [k * O - M/2, k * O - M/2 + O + M - 2], except the ghost cells outside [0, width).
std::int64_t tiled_loads_along(std::int64_t width, int output_tile, int mask_width) {
  const std::int64_t halo = mask_width / 2;
  std::int64_t loads = 0;
  for (std::int64_t start = 0; start < width; start += output_tile) {
    const std::int64_t first = std::max<std::int64_t>(0, start - halo);
    const std::int64_t last =
        std::min<std::int64_t>(width - 1, start - halo + output_tile + mask_width - 2);
    loads += std::max<std::int64_t>(0, last - first + 1);
  }
  return loads;
}

} // namespace

double convolution_tiling_reduction_1d(int output_tile, int mask_width) {
  check_tile(output_tile, mask_width);
  return static_cast<double>(output_tile) * mask_width / (output_tile + mask_width - 1);
}

double convolution_tiling_reduction_2d(int output_tile, int mask_width) {
  const double one_axis = convolution_tiling_reduction_1d(output_tile, mask_width);
  return one_axis * one_axis;
}

std::vector<int> convolution_input_reuse_1d(int output_tile, int mask_width) {
  check_tile(output_tile, mask_width);
  std::vector<int> uses;
  for (int input = 0; input < output_tile + mask_width - 1; ++input) {
    // Output o reads inputs o .. o + M - 1 of the tile.
    const int first_output = std::max(0, input - mask_width + 1);
    const int last_output = std::min(input, output_tile - 1);
    uses.push_back(last_output - first_output + 1);
  }
  return uses;
}

TilingTraffic convolution_tiling_traffic_1d(std::int64_t width, int output_tile, int mask_width) {
  detail::require_positive("width", width);
  check_tile(output_tile, mask_width);
  TilingTraffic traffic;
  traffic.untiled_loads = untiled_loads_along(width, mask_width);
  traffic.tiled_loads = tiled_loads_along(width, output_tile, mask_width);
  traffic.reduction =
      static_cast<double>(traffic.untiled_loads) / static_cast<double>(traffic.tiled_loads);
  return traffic;
}

TilingTraffic convolution_tiling_traffic_2d(std::int64_t width, std::int64_t height,
                                            int output_tile, int mask_width) {
  detail::require_positive("width", width);
  detail::require_positive("height", height);
  check_tile(output_tile, mask_width);
  // Both the in-range taps and the in-range tile elements factor into a row and a column part.
  TilingTraffic traffic;
  traffic.untiled_loads =
      untiled_loads_along(width, mask_width) * untiled_loads_along(height, mask_width);
  traffic.tiled_loads = tiled_loads_along(width, output_tile, mask_width) *
                        tiled_loads_along(height, output_tile, mask_width);
  traffic.reduction =
      static_cast<double>(traffic.untiled_loads) / static_cast<double>(traffic.tiled_loads);
  return traffic;
}

} // namespace ladder::models
