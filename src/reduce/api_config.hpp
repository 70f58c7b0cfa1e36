// The launch shape behind ladder::reduce, chosen from the ladder's measured rungs (see
// docs/reduction.md and bench/results/reduce-*.md): the single-pass tiled kernel with
// 256 threads, 4 independent 16-byte loads per thread per tile, and a grid of (resident blocks
// per SM from the occupancy API) x SMs.
#pragma once

#include "reduce/kernels.cuh"

namespace ladder::reduce_detail {

struct library_config {
  static constexpr int threads = 256;
  static constexpr int unroll = 4;
  static constexpr LoadPolicy load = LoadPolicy::ldg;
  static constexpr Split split = Split::even_share;
};

} // namespace ladder::reduce_detail
