// The launch shape behind ladder::reduce, chosen from the ladder's measured rungs (see
// docs/reduction.md and bench/results/reduce-*.md): rung `single_pass`, the tiled kernel with
// 256 threads, 4 independent 16-byte loads per thread per round, the grid-stride split, and a
// grid of (resident blocks per SM from the occupancy API) x SMs. H200, 2^28 int32: even share
// 0.2499 ms, grid stride 0.2372 ms (CUB 0.2400 ms) in one run; the L2::256B hint was slower.
#pragma once

#include "reduce/kernels.cuh"

namespace ladder::reduce_detail {

struct library_config {
  static constexpr int threads = 256;
  static constexpr int unroll = 4;
  static constexpr LoadPolicy load = LoadPolicy::ldg;
  static constexpr Split split = Split::grid_stride;
};

} // namespace ladder::reduce_detail
