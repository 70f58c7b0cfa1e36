// How ladder::gemm cuts a product into launches, as plain host arithmetic (the host tests check
// it without a GPU): which tile shape, and over how many blocks k is split.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace ladder::gemm_detail {

enum class Tile { huge, large, wide, tall, wide_two, tall_two, small, wide_eight_warps };

struct TileShape {
  Tile tile;
  int bm, bn;
  int blocks_per_sm; // resident blocks per SM (the policy's __launch_bounds__ minimum)
  // Throughput of an SM full of this tile's blocks, relative to the reference rate of
  // large_tile_flops_per_sm_clock (gemm_packing.hpp): `rate` with 16-byte loads, `scalar_rate`
  // with element loads (rows not 16-byte aligned).
  double rate, scalar_rate;
  // The fraction of that throughput an SM reaches with one block of this tile alone (the last
  // wave's SMs, or a product of fewer tiles than SMs): one block has fewer warps to hide
  // latency with. 1 for a tile of one block per SM.
  double solo;
  // k a block's pipeline costs besides its k-loop (fill, drain, epilogue), in k units: the
  // huge tile's three stages of 256 x 8 and 8 x 128 cost more on short k (8192 x 8192 x 128:
  // 528.8 us against the large tile's 434.3, `ladder tune matmul`, H200, 2026-11-26-r2).
  double k_overhead = 104;
};

// The library's policies (gemm_policies.cuh), their shapes and measured rates (`ladder tune
// matmul`, H200, bench/results/matmul-tune-h200-2026-11-26*.md):
//   rate: 4096^3 with 16-byte loads, untransposed (the large tile is the reference: 2.858 ms;
//     huge 2.736, wide 2.906, tall 3.029, wide_two 2.971, tall_two 3.226, small 3.376 ms);
//   scalar_rate: 4097 x 4095 x 4093 on element loads, untransposed (-r4: huge 3.674, large
//     3.497, wide 3.028, tall 3.235, wide_two 3.146, tall_two 3.304, small 3.712 ms), the rate
//     that plan()'s estimate puts on each measured time: with edge tiles as fast as the others,
//     element loads cost the cp.async tiles little (0.96 to 1.03 of their 16-byte rate) and the
//     large tile, which loads through registers, 0.86;
//   solo: 1000^3 (-r4), where 128 tiles of 64 x 128 or 128 x 64 (64 of 128 x 128) run one
//     block to an SM (256 of 64 x 64, two): the fraction that puts plan()'s estimate on each
//     time (wide 61.76 us, tall 64.5, wide_two 62.18, tall_two 64.26, small 63.94, large 146.9).
//   wide_eight_warps: the 64 x 128 tile in 8 warps (8 x 4 per thread, 4 buffers of k 16),
//     for products whose only wave holds one block per SM: 1000^3 in 58.66 us against the wide
//     tile's 59.94 (H100, `ladder tune matmul -s 1000`, 2026-11-26), so rate x solo = 0.864
//     against the wide tile's 0.845. Its rate, from 4096^3 on the same kind of GPU: 3.188 ms
//     against the wide tile's 2.871 (H100, `ladder tune matmul -s 4096`, 2026-11-26), 0.885;
//     its scalar_rate is not measured and is set to the same, below every other tile's but the
//     small one's, so that it is chosen where one block per SM runs and nowhere else. With B
//     k-contiguous (B^T) it was slower than the wide tile (1000^3: 73.5 against 71.2 us) until
//     the turned copy's bank conflicts at k-steps of 16 were removed (gemm_kernel.cuh,
//     AsyncTileCopier); since, 64.37 against 71.36 us (H100, matmul-tune-h100-2026-11-26-r11.md),
//     so it is chosen there too.
inline constexpr std::array<TileShape, 8> tile_shapes = {{
    {Tile::huge, 256, 128, 1, 1.045, 1.042, 1.0, 160},
    {Tile::large, 128, 128, 2, 1.00, 0.86, 0.685, 96},
    {Tile::wide, 64, 128, 3, 0.983, 1.0, 0.86},
    {Tile::tall, 128, 64, 3, 0.944, 0.945, 0.855},
    {Tile::wide_two, 64, 128, 2, 0.962, 0.961, 0.87},
    {Tile::tall_two, 128, 64, 2, 0.886, 0.915, 0.915},
    {Tile::small, 64, 64, 4, 0.847, 0.813, 0.48, 96},
    {Tile::wide_eight_warps, 64, 128, 2, 0.885, 0.885, 0.976},
}};

struct Plan {
  Tile tile = Tile::large;
  std::int64_t splits = 1;
  double score = 0; // estimated fraction of the reference rate over the whole GPU
};

// Whether 16-byte loads apply to an operand: its base 16-byte aligned and every row starting on
// a 16-byte boundary.
inline bool vector_ok(const void* p, std::int64_t ld) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0;
}

// Each candidate (tile shape x split count) is scored by the reference-rate fraction its waves
// reach, the fraction of its tiles' area inside C, and how much of a block's time its k-loop is
// (k per block / (k per block + the tile's k_overhead): the pipeline's fill and the epilogue
// weigh on short k); a split costs a little more (C scaled first, atomic adds) and needs at
// least min_split_k of k per block. The waves: every wave but the last fills all SMs
// (blocks_per_sm each) at the tile's rate; the last one's busiest SM holds r blocks and runs at
// min(1, r x solo) of that rate, so a last wave of one block per SM takes 1 / solo of a full
// wave's time per block, not a full wave's time. `vector_loads`: the operands allow 16-byte
// loads. (The first version charged every partial wave a full wave's time; once edge tiles ran
// as fast as the rest, 1000^3 measured 61.76 us on 128 unsplit 64 x 128 tiles against 69.1 us
// for the split it chose.)
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
      const std::int64_t full_waves = (blocks - 1) / slots;
      const std::int64_t last = (blocks - full_waves * slots + sms - 1) / sms; // busiest SM
      // Time in units of one block's work at the reference rate on one SM.
      const double time = static_cast<double>(full_waves * t.blocks_per_sm) / rate +
                          static_cast<double>(last) /
                              (rate * std::min(1.0, static_cast<double>(last) * t.solo));
      const double waves = static_cast<double>(blocks) / static_cast<double>(sms) / time;
      const double k_block = static_cast<double>((k + splits - 1) / splits);
      const double k_share = k_block / (k_block + t.k_overhead);
      const double score = waves * inside * k_share * (splits > 1 ? split_cost : 1.0);
      if (score > best.score + 1e-9)
        best = {t.tile, splits, score};
    }
  }
  return best;
}

} // namespace ladder::gemm_detail
