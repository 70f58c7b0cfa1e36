// How many of the walked pairs' last rows of blocks walk fewer rows a warp (walk.cuh: WalkShape's
// tail_rows): a host function of its own, so that host tests reach it.
#pragma once

#include <algorithm>
#include <cstdint>

namespace ladder::conv_detail {

// How many of the last rows of blocks of a grid (blocks_x across, tile_rows down, on a device that
// holds `resident` blocks at once) walk the shape's tail_rows: none in a grid of fewer than two
// waves; else the whole rows of one wave (at least one). The SMs run out of blocks at different
// times, and the last blocks they start then end sooner. On an H200 at float 8192^2 7 x 7 (528
// blocks a wave, 32 a row), the last 16 rows of blocks at 6 rows a warp took 146.6-148.4 us
// against 148.8-152.4 without a tail in the same calls; 8, 12, 20, 24 and 32 rows, or 8 and 12
// rows a warp, measured between the two (bench/results/convolution-walk-tail-h200-2026-11-29.md).
inline std::int64_t walk_tail_rows(std::int64_t blocks_x, std::int64_t tile_rows, std::int64_t resident) {
  if (blocks_x <= 0 || resident <= 0 || tile_rows * blocks_x < 2 * resident)
    return 0;
  return std::max<std::int64_t>(resident / blocks_x, 1);
}

} // namespace ladder::conv_detail
