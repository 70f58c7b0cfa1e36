// How ladder::gemm cuts a product into launches, as plain host arithmetic (the host tests check
// it without a GPU): which tile shape, and over how many blocks k is split.
#pragma once

#include <array>
#include <cstdint>

namespace ladder::gemm_detail {

enum class Tile { huge, large, wide, tall, small };

struct TileShape {
  Tile tile;
  int bm, bn;
  int blocks_per_sm; // resident blocks per SM (the policy's __launch_bounds__ minimum)
  double rate;       // throughput of one full SM relative to the large tile
};

// The library's policies (gemm_policies.cuh), their shapes and relative rates.
inline constexpr std::array<TileShape, 5> tile_shapes = {{
    {Tile::huge, 256, 128, 1, 1.08},
    {Tile::large, 128, 128, 2, 1.00},
    {Tile::wide, 64, 128, 3, 0.90},
    {Tile::tall, 128, 64, 3, 0.90},
    {Tile::small, 64, 64, 4, 0.75},
}};

struct Plan {
  Tile tile = Tile::large;
  std::int64_t splits = 1;
  double score = 0; // estimated fraction of the large tile's full-GPU rate
};

// Each candidate (tile shape x split count) is scored by the fraction of the GPU's block slots
// its last wave fills, the fraction of its tiles' area inside C, and the tile's rate; a split
// costs a little more (C scaled first, atomic adds) and needs at least min_split_k of k per
// block.
inline Plan plan(std::int64_t m, std::int64_t n, std::int64_t k, int sms) {
  constexpr std::int64_t min_split_k = 256, max_splits = 64;
  constexpr double split_cost = 0.92;
  Plan best;
  best.score = -1;
  for (const TileShape& t : tile_shapes) {
    const std::int64_t tiles = ((m + t.bm - 1) / t.bm) * ((n + t.bn - 1) / t.bn);
    const double inside = static_cast<double>(m) * static_cast<double>(n) /
                          (static_cast<double>(tiles) * t.bm * t.bn);
    const std::int64_t slots = static_cast<std::int64_t>(sms) * t.blocks_per_sm;
    for (std::int64_t splits = 1; splits <= max_splits; ++splits) {
      if (splits > 1 && k / splits < min_split_k)
        break;
      const std::int64_t blocks = tiles * splits;
      const std::int64_t waves = (blocks + slots - 1) / slots;
      const double fill = static_cast<double>(blocks) / static_cast<double>(waves * slots);
      const double score = fill * inside * t.rate * (splits > 1 ? split_cost : 1.0);
      if (score > best.score + 1e-9)
        best = {t.tile, splits, score};
    }
  }
  return best;
}

} // namespace ladder::gemm_detail
