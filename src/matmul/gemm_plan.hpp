// How ladder::gemm cuts a product into launches, as plain host arithmetic (the host tests check
// it without a GPU): which tile shape, and over how many blocks k is split.
#pragma once

#include <array>
#include <cstdint>

namespace ladder::gemm_detail {

enum class Tile { huge, large, wide, tall, wide_two, tall_two, small };

struct TileShape {
  Tile tile;
  int bm, bn;
  int blocks_per_sm; // resident blocks per SM (the policy's __launch_bounds__ minimum)
  // Throughput of one full GPU relative to the large tile's with 16-byte loads: `rate` with
  // 16-byte loads, `scalar_rate` with element loads (rows not 16-byte aligned). Measured with
  // `ladder tune matmul` on an H200 (2026-11-25): 4096^3 for `rate` (large 2.858 ms, wide
  // 2.975, tall 3.14, wide_two 3.273, tall_two 3.237, small 3.374), 4097 x 4095 x 4093 for
  // `scalar_rate` relative to large there (3.798 ms; tall 3.485, wide 3.598, wide_two 3.681,
  // small 3.755, tall_two 3.816): tiles of 3 blocks per SM hide element loads best.
  double rate, scalar_rate;
  // k a block's pipeline costs besides its k-loop (fill, drain, epilogue), in k units: three
  // cp.async stages of the huge tile cost more on short k (8192 x 8192 x 128: 535.7 us against
  // the large tile's 437.2).
  double k_overhead = 96;
};

// The library's policies (gemm_policies.cuh), their shapes and relative rates.
// huge: the matmul ladder's async_copies rung, 4096^3 in 2.735 ms (0.98x cuBLAS) against the
// large tile's 2.859; 4097 x 4095 x 4093 in 3.761 ms (ladder run matmul, H200, 2026-11-25).
// wide and tall: their cp.async tiles (WideAsync3, TallAsync3), from `ladder tune matmul` (H200,
// 2026-11-25; the large tile 2.879 ms at 4096^3 and 3.839 ms at 4097 x 4095 x 4093): wide 2.907
// and 3.274 ms, tall 3.031 and 3.248 ms; a little more k overhead than the large tile's (three
// stages to fill), so that short k (8192 x 8192 x 128) keeps the large tile. wide_two and
// tall_two: their cp.async tiles too (WideTwoAsync3, TallTwoAsync3), at the rates measured for
// the tiles they replaced; where both were timed the cp.async ones were as fast or faster
// (64 x 65536 x 4096: 744.4 against 830.7 us; 65536 x 64 x 4096: 820.4 against 884.5 us).
inline constexpr std::array<TileShape, 7> tile_shapes = {{
    {Tile::huge, 256, 128, 1, 1.045, 1.01, 160},
    {Tile::large, 128, 128, 2, 1.00, 1.00},
    {Tile::wide, 64, 128, 3, 0.99, 1.17, 104},
    {Tile::tall, 128, 64, 3, 0.95, 1.18, 104},
    {Tile::wide_two, 64, 128, 2, 0.87, 1.03},
    {Tile::tall_two, 128, 64, 2, 0.88, 0.995},
    {Tile::small, 64, 64, 4, 0.85, 1.01},
}};

struct Plan {
  Tile tile = Tile::large;
  std::int64_t splits = 1;
  double score = 0; // estimated fraction of the large tile's full-GPU rate
};

// Each candidate (tile shape x split count) is scored by the fraction of the GPU's block slots
// its last wave fills, the fraction of its tiles' area inside C, the tile's rate, and how much
// of a block's time its k-loop is (k per block / (k per block + the tile's k_overhead): the
// pipeline's fill and the epilogue weigh on short k); a split costs a little more (C scaled first, atomic
// adds) and needs at least min_split_k of k per block. `vector_loads`: the operands allow
// 16-byte loads.
// Whether 16-byte loads apply to an operand: its base 16-byte aligned and every row starting on
// a 16-byte boundary.
inline bool vector_ok(const void* p, std::int64_t ld) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0;
}

inline Plan plan(std::int64_t m, std::int64_t n, std::int64_t k, int sms,
                 bool vector_loads = true) {
  constexpr std::int64_t min_split_k = 256, max_splits = 64;
  constexpr double split_cost = 0.90;
  Plan best;
  best.score = -1;
  for (const TileShape& t : tile_shapes) {
    const std::int64_t tiles = ((m + t.bm - 1) / t.bm) * ((n + t.bn - 1) / t.bn);
    const double inside = static_cast<double>(m) * static_cast<double>(n) /
                          (static_cast<double>(tiles) * t.bm * t.bn);
    const std::int64_t slots = static_cast<std::int64_t>(sms) * t.blocks_per_sm;
    const double rate = vector_loads ? t.rate : t.scalar_rate;
    for (std::int64_t splits = 1; splits <= max_splits; ++splits) {
      if (splits > 1 && k / splits < min_split_k)
        break;
      const std::int64_t blocks = tiles * splits;
      const std::int64_t waves = (blocks + slots - 1) / slots;
      const double fill = static_cast<double>(blocks) / static_cast<double>(waves * slots);
      const double k_block = static_cast<double>((k + splits - 1) / splits);
      const double k_share = k_block / (k_block + t.k_overhead);
      const double score =
          fill * inside * rate * k_share * (splits > 1 ? split_cost : 1.0);
      if (score > best.score + 1e-9)
        best = {t.tile, splits, score};
    }
  }
  return best;
}

} // namespace ladder::gemm_detail
