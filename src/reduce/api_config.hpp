// The launch shapes behind ladder::reduce, chosen from the ladder's measured rungs (see
// docs/reduction.md and bench/results/ladder-h200-*.md). All are the tiled kernel with 4
// independent 16-byte loads per thread per round and the grid-stride split:
//  - up to one round of one block (16 KiB for 256 threads, 64 KiB for 1024): one block, no
//    partials. A 256-thread block where it suffices: it starts and folds faster than 1024 threads.
//  - above, (resident blocks per SM from the occupancy API) x SMs blocks with the polled finish
//    (rungs polled_finish below 2^22 elements, polled_finish_1024 from 2^22): 1024-thread blocks
//    stream the large inputs best (H200 2^28 int32, bench/results/ladder-h200-2026-11-21-r5.md: polled_finish_1024
//    0.2399 ms, polled_finish 0.2420 ms, CUB 0.2435 ms), 4 times as many 256-thread blocks spread a
//    small input over 4 times as many SMs.
#pragma once

#include "reduce/kernels.cuh"

namespace ladder::reduce_detail {

template <int Threads> struct library_shape {
  static constexpr int threads = Threads;
  static constexpr int unroll = 4;
  static constexpr LoadPolicy load = LoadPolicy::ldg;
  static constexpr Split split = Split::grid_stride;
};
using library_large_config = library_shape<1024>;
using library_small_config = library_shape<256>;
// Bytes one block of a shape covers in one round: up to there the library launches one block.
template <class Shape>
inline constexpr std::int64_t library_one_block_bytes = std::int64_t{Shape::threads} * Shape::unroll * 16;
inline constexpr std::int64_t library_large_min = std::int64_t{1} << 22; // elements

} // namespace ladder::reduce_detail
