// The launch shape behind ladder::reduce, chosen from the ladder's measured rungs (see
// docs/reduction.md and bench/results/reduce-*.md): rung `single_pass_1024`, the tiled kernel
// with 1024 threads, 4 independent 16-byte loads per thread per round, the grid-stride split, and
// a grid of (resident blocks per SM from the occupancy API) x SMs. H200, 2^28 int32, one run:
// 1024 threads 0.2360 ms, 256 threads 0.2372 ms, CUB 0.2400 ms; even share 0.2506 ms; the
// L2::256B hint 0.2584 ms.
#pragma once

#include "reduce/kernels.cuh"

namespace ladder::reduce_detail {

struct library_config {
  static constexpr int threads = 1024;
  static constexpr int unroll = 4;
  static constexpr LoadPolicy load = LoadPolicy::ldg;
  static constexpr Split split = Split::grid_stride;
};

} // namespace ladder::reduce_detail
