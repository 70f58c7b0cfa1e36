// Bandwidth reduction of tiled convolution (UCAS lecture 3, "A simple way to calculate tiling
// benefit" .. "Bandwidth Reduction for 2D").
//
// A tile of O outputs with a mask of width M loads O + M - 1 inputs once into shared memory and
// then serves O * M reads from there; the ratio is the factor by which global loads drop.
#include "ladder/models.hpp"

#include "arguments.hpp"

#include <algorithm>
#include <string_view>

namespace ladder::models {
namespace {

void check_tile(int output_tile, int mask_width) {
  detail::require_positive("output_tile", output_tile);
  detail::require_positive("mask_width", mask_width);
}

// Global loads of the basic kernel along one axis: output i reads input i - M/2 + j for each tap
// j that lands inside [0, width). Tap j is in range for width - |M/2 - j| outputs; summed in
// closed form over the taps on each side of the centre (distances 0..M/2 and 0..M-1-M/2, the
// centre counted twice), so that any width and mask cost the same few operations.
// `axis` names the argument an overflow is blamed on.
std::int64_t untiled_loads_along(std::string_view axis, std::int64_t width, int mask_width) {
  const std::int64_t halo = mask_width / 2;
  // Sum over d = 0..reach of max(0, width - d).
  auto side = [axis, width](std::int64_t reach) {
    const std::int64_t last = std::min(reach, width - 1);
    return detail::checked_mul(axis, last + 1, width) -
           detail::checked_mul(axis, last, last + 1) / 2;
  };
  return detail::checked_add(axis, side(halo), side(mask_width - 1 - halo)) - width;
}

// Global loads of the tiled kernel along one axis: tile k of K = ceil(width / O) loads inputs
// [k * O - M/2, k * O - M/2 + O + M - 2], except the ghost cells outside [0, width). Every tile
// overlaps [0, width) (it contains input k * O), so the loads are K full tiles less the ghost cells
// cut off on the left (the first tiles) and on the right (the last tiles), each an arithmetic
// series: closed form, so a huge width costs no loop over its tiles.
std::int64_t tiled_loads_along(std::string_view axis, std::int64_t width, int output_tile,
                               int mask_width) {
  const std::int64_t tile = output_tile;
  const std::int64_t halo = mask_width / 2;
  const std::int64_t input_tile = tile + mask_width - 1;
  const std::int64_t tiles = detail::divide_round_up(width, tile);
  // Sum over m = 0.. of max(0, first - m * tile), for at most `tiles` tiles.
  auto cut = [axis, tiles, tile](std::int64_t first) -> std::int64_t {
    if (first <= 0) {
      return 0;
    }
    const std::int64_t count = std::min(tiles, detail::divide_round_up(first, tile));
    return detail::checked_mul(axis, count, first) -
           detail::checked_mul(axis, tile, detail::checked_mul(axis, count, count - 1) / 2);
  };
  const std::int64_t left = cut(halo); // tile k cuts halo - k * O cells below 0
  // The last tile ends at (K - 1) * O - M/2 + O + M - 2 ((K - 1) * O < width: no overflow);
  // each earlier one ends O sooner.
  const std::int64_t last_end = (tiles - 1) * tile - halo + input_tile - 1;
  const std::int64_t right = cut(last_end - (width - 1));
  return detail::checked_mul(axis, tiles, input_tile) - left - right;
}

} // namespace

double convolution_tiling_reduction_1d(int output_tile, int mask_width) {
  check_tile(output_tile, mask_width);
  // In double: O + M - 1 overflows int for the largest tiles and masks.
  return static_cast<double>(output_tile) * mask_width /
         (static_cast<double>(output_tile) + mask_width - 1);
}

double convolution_tiling_reduction_2d(int output_tile, int mask_width) {
  const double one_axis = convolution_tiling_reduction_1d(output_tile, mask_width);
  return one_axis * one_axis;
}

std::vector<int> convolution_input_reuse_1d(int output_tile, int mask_width) {
  check_tile(output_tile, mask_width);
  std::vector<int> uses;
  const std::int64_t inputs = std::int64_t{output_tile} + mask_width - 1; // overflows int
  for (std::int64_t input = 0; input < inputs; ++input) {
    // Output o reads inputs o .. o + M - 1 of the tile.
    const std::int64_t first_output = std::max<std::int64_t>(0, input - mask_width + 1);
    const std::int64_t last_output = std::min<std::int64_t>(input, output_tile - 1);
    uses.push_back(static_cast<int>(last_output - first_output + 1));
  }
  return uses;
}

TilingTraffic convolution_tiling_traffic_1d(std::int64_t width, int output_tile, int mask_width) {
  detail::require_positive("width", width);
  check_tile(output_tile, mask_width);
  TilingTraffic traffic;
  traffic.untiled_loads = untiled_loads_along("width", width, mask_width);
  traffic.tiled_loads = tiled_loads_along("width", width, output_tile, mask_width);
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
      detail::checked_mul("width and height", untiled_loads_along("width", width, mask_width),
                          untiled_loads_along("height", height, mask_width));
  traffic.tiled_loads = detail::checked_mul(
      "width and height", tiled_loads_along("width", width, output_tile, mask_width),
      tiled_loads_along("height", height, output_tile, mask_width));
  traffic.reduction =
      static_cast<double>(traffic.untiled_loads) / static_cast<double>(traffic.tiled_loads);
  return traffic;
}

std::vector<MatmulTraffic> matmul_traffic(std::int64_t m, std::int64_t n, std::int64_t k, int tile,
                                          int coarse_factor) {
  detail::require_positive("m", m);
  detail::require_positive("n", n);
  detail::require_positive("k", k);
  detail::require_positive("tile", tile);
  detail::require_positive("coarse_factor", coarse_factor);
  const std::int64_t mk = detail::checked_mul("m and k", m, k);
  const std::int64_t kn = detail::checked_mul("k and n", k, n);
  const std::int64_t mn = detail::checked_mul("m and n", m, n);
  const std::int64_t block_cols = detail::divide_round_up<std::int64_t>(n, tile);
  const std::int64_t block_rows = detail::divide_round_up<std::int64_t>(m, tile);
  const std::int64_t coarse_cols =
      detail::divide_round_up<std::int64_t>(n, detail::checked_mul("tile and coarse_factor", tile, coarse_factor));
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const auto level = [&](std::string_view kernel, std::int64_t loads_a, std::int64_t loads_b) {
    MatmulTraffic t{kernel, loads_a, loads_b, mn, 0, flops, 0};
    t.bytes = 4.0 * (static_cast<double>(loads_a) + static_cast<double>(loads_b) + static_cast<double>(mn));
    t.intensity = flops / t.bytes;
    return t;
  };
  const std::int64_t basic = detail::checked_mul("m, n and k", mn, k);
  return {level("basic", basic, basic),
          level("tiled", detail::checked_mul("m, k and n / tile", mk, block_cols),
                detail::checked_mul("k, n and m / tile", kn, block_rows)),
          level("coarse", detail::checked_mul("m, k and n / (tile x coarse_factor)", mk, coarse_cols),
                detail::checked_mul("k, n and m / tile", kn, block_rows))};
}

} // namespace ladder::models
