// The reduction ladder's registry: the course's seven kernels in their order, the rungs beyond them
// (each one measured change, their tuning shapes as variants), the library call, then CUB. The
// CLI, the GPU tests and the benchmark all iterate reduce::registry(), so a new rung is one entry.
#pragma once

#include "core/rung.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ladder::lab::reduce {

// Sum of in[0, n) into *out (device memory), enqueued on `stream`. `scratch` is device memory of
// at least scratch_bytes(n) bytes that was zeroed once when allocated: the single-pass rungs
// keep a counter (and the flagged ones their partial slots) in it and leave them at zero.
template <class T>
using ReduceLaunch = void (*)(const T* in, std::int64_t n, T* out, void* scratch,
                              std::size_t scratch_bytes, cudaStream_t stream);

struct Rung {
  RungInfo info;
  // nullptr when the rung handles n elements, else the reason it does not (shown in tables).
  const char* (*unsupported)(std::int64_t n) = nullptr;
  std::size_t (*scratch_bytes)(std::int64_t n) = nullptr;
  ReduceLaunch<int> launch_int = nullptr;
  ReduceLaunch<float> launch_float = nullptr;
  // Elements read plus written over all launches (the course's multi-level accounting), or null
  // when the rung is one pass over the input (reads n, writes 1) or a library call.
  double (*all_levels_elements)(std::int64_t n) = nullptr;
  // A launch shape the library chooses between by size: timed beside it in `--all`'s shape sweep.
  bool in_shape_sweep = false;
};

std::span<const Rung> registry();

// The seeds' block size for every seed rung.
inline constexpr int seed_block = 128;
// Dynamic shared memory of the seed kernels (one word per thread; at least 64 so the unrolled
// last-warp steps never read past the array). The multi-level seed rungs are exactly the variants
// with all_levels_elements set.
template <class T> constexpr std::size_t seed_shared_bytes() {
  return static_cast<std::size_t>(seed_block > 64 ? seed_block : 64) * sizeof(T);
}
// Rung 7's grid: the top of the seed's "64-256 blocks of 128 threads" on G80.
inline constexpr int seed_cascade_blocks = 256;

} // namespace ladder::lab::reduce
