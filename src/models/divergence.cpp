// Control divergence of boundary checks (UCAS lecture 3, "Analysis for vector size of 1,000 elements"
// and "Analysis of Control Divergence Impact" .. "Overall Impact of Control Divergence").
//
// A warp diverges on a branch when its threads do not all take the same side. Blocks are
// linearized row-major (x fastest) and cut into warps of consecutive threads.
#include "ladder/models.hpp"

#include "arguments.hpp"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <utility>

namespace ladder::models {
namespace {

// The course's tile loads test `index < Width` along one axis of a block and along one axis of the
// phase. How many of a tile's T indices along an axis pass depends only on how far the tile
// reaches: T for every interior tile, Width % T for the last one when Width is not a multiple of
// T. Grouping the tiles by that count keeps the count exact and independent of the matrix size.
struct ValidCount {
  int valid = 0;          // indices inside the matrix, 1..T
  std::int64_t tiles = 0; // tiles with that count
};

std::vector<ValidCount> valid_counts(std::int64_t width, int tile) {
  std::vector<ValidCount> counts;
  if (width / tile > 0) {
    counts.push_back({tile, width / tile});
  }
  if (width % tile != 0) {
    counts.push_back({static_cast<int>(width % tile), 1});
  }
  return counts;
}

// For a tile x tile block testing (ty < rows_valid && tx < cols_valid): which warps diverge.
class WarpDivergence {
public:
  WarpDivergence(int tile, int warp_size) : tile_(tile), warp_size_(warp_size) {}

  int warps() const {
    return static_cast<int>(
        detail::divide_round_up(std::int64_t{tile_} * tile_, std::int64_t{warp_size_}));
  }

  const std::vector<bool>& divergent(int rows_valid, int cols_valid) {
    auto [it, inserted] = cache_.try_emplace({rows_valid, cols_valid});
    if (inserted) {
      const std::int64_t threads = std::int64_t{tile_} * tile_;
      for (std::int64_t first = 0; first < threads; first += warp_size_) {
        const std::int64_t last = std::min(first + warp_size_, threads);
        std::int64_t taken = 0;
        for (std::int64_t thread = first; thread < last; ++thread) {
          const std::int64_t ty = thread / tile_;
          const std::int64_t tx = thread % tile_;
          taken += (ty < rows_valid && tx < cols_valid) ? 1 : 0;
        }
        it->second.push_back(taken != 0 && taken != last - first);
      }
    }
    return it->second;
  }

private:
  int tile_;
  int warp_size_;
  std::map<std::pair<int, int>, std::vector<bool>> cache_;
};

std::int64_t count_true(const std::vector<bool>& flags) { return std::ranges::count(flags, true); }

} // namespace

DivergenceCount boundary_check_divergence(std::int64_t n, int block_size, int warp_size) {
  detail::require_non_negative("n", n);
  detail::require_positive("block_size", block_size);
  detail::require_positive("warp_size", warp_size);
  const std::int64_t blocks = detail::divide_round_up(n, std::int64_t{block_size});
  DivergenceCount count;
  count.total = detail::checked_mul("n", blocks, detail::divide_round_up(block_size, warp_size));
  // i < n is true for a prefix of the grid's threads, so only the warp holding thread n can see
  // both sides, and only when n is not the first thread of its warp.
  const std::int64_t position_in_block = n % block_size;
  count.divergent = (position_in_block != 0 && position_in_block % warp_size != 0) ? 1 : 0;
  return count;
}

TiledMatmulDivergence tiled_matmul_divergence(std::int64_t width, int tile_width, int warp_size) {
  detail::require_positive("width", width);
  detail::require_positive("tile_width", tile_width);
  detail::require_positive("warp_size", warp_size);
  if (tile_width > 1024) {
    detail::bad_argument("tile_width", "must be at most 1024 (a block has at most 1024 x 1024 "
                                       "threads here), got " +
                                           std::to_string(tile_width));
  }
  WarpDivergence warps(tile_width, warp_size);
  const std::int64_t grid = detail::divide_round_up(width, std::int64_t{tile_width});
  const auto counts = valid_counts(width, tile_width);

  // Every count is a product of grid-sized factors: checked, so that a width whose counts do not
  // fit is an error rather than a wrapped total.
  auto product = [](std::initializer_list<std::int64_t> factors) {
    std::int64_t value = 1;
    for (const std::int64_t factor : factors) {
      value = detail::checked_mul("width", value, factor);
    }
    return value;
  };
  auto add = [](std::int64_t& sum, std::int64_t value) {
    sum = detail::checked_add("width", sum, value);
  };

  TiledMatmulDivergence result;
  result.blocks = product({grid, grid});
  result.phases = grid;
  result.warps_per_block = warps.warps();
  const std::int64_t warp_phases_per_block = product({result.phases, result.warps_per_block});

  // M tile: Row < Width depends on the block row, p * TILE + tx < Width on the phase; the block
  // column does not matter (x grid). N tile: p * TILE + ty < Width on the phase, Col < Width on
  // the block column (x grid). A warp-phase counts in `either` when one of the two loads diverges.
  for (const auto& block_rows : counts) {
    DivergenceCount& type =
        block_rows.valid == tile_width ? result.m_tile_type1 : result.m_tile_type2;
    add(type.total, product({block_rows.tiles, grid, warp_phases_per_block}));
    for (const auto& phase : counts) {
      const std::int64_t divergent = count_true(warps.divergent(block_rows.valid, phase.valid));
      add(type.divergent, product({divergent, block_rows.tiles, phase.tiles, grid}));
    }
  }
  result.m_tile = result.m_tile_type1;
  add(result.m_tile.total, result.m_tile_type2.total);
  add(result.m_tile.divergent, result.m_tile_type2.divergent);

  result.n_tile.total = product({result.blocks, warp_phases_per_block});
  result.either.total = result.n_tile.total;
  for (const auto& block_cols : counts) {
    for (const auto& phase : counts) {
      const auto& n_divergent = warps.divergent(phase.valid, block_cols.valid);
      add(result.n_tile.divergent,
          product({count_true(n_divergent), block_cols.tiles, phase.tiles, grid}));
      for (const auto& block_rows : counts) {
        const auto& m_divergent = warps.divergent(block_rows.valid, phase.valid);
        std::int64_t union_count = 0;
        for (std::size_t warp = 0; warp < n_divergent.size(); ++warp) {
          union_count += (n_divergent[warp] || m_divergent[warp]) ? 1 : 0;
        }
        add(result.either.divergent,
            product({union_count, block_cols.tiles, block_rows.tiles, phase.tiles}));
      }
    }
  }
  return result;
}

} // namespace ladder::models
