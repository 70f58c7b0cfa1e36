// The transpose ladder's registry: the course's rungs in the order of its table, the rungs beyond
// it, the library call, then the reference rows. The CLI, the GPU tests and the benchmark all
// iterate transpose::registry(), so a new rung is one entry.
#pragma once

#include "core/rung.hpp"
#include "core/sizes.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <span>

namespace ladder::lab::transpose {

using Shape = Extent2d;

// What a rung's output must equal. The course's diagnostic kernels are not transposes: the
// fine-grained one transposes each tile in place, the coarse-grained one moves whole tiles.
enum class Result { copy, transpose, tile_local_transpose, tiles_moved };

struct Rung {
  RungInfo info;
  Result result = Result::transpose;
  // nullptr when the rung handles `shape`, else the reason it does not (shown in the table).
  const char* (*unsupported)(Shape shape) = nullptr;
  // Whether `launch` honours nreps > 1 by looping inside the kernel (the course's second mode).
  bool loops_in_kernel = false;
  void (*launch)(const float* in, float* out, Shape shape, int nreps,
                 cudaStream_t stream) = nullptr;
};

std::span<const Rung> registry();

// The element-size rows: ladder::transpose and its tuning shapes for elements of 1, 2, 4, 8 and
// 16 bytes, beside a cudaMemcpy of the same bytes (the bound) and cuBLAS geam where cuBLAS has
// one (S 4 bytes, D 8, Z 16). Elements are raw bytes: a transpose never looks at the values.
inline constexpr int element_sizes[] = {1, 2, 4, 8, 16};

struct ElementRung {
  RungInfo info;
  Result result = Result::transpose;
  // nullptr when the rung handles `shape` of `element_bytes`-byte elements, else why not.
  const char* (*unsupported)(Shape shape, int element_bytes) = nullptr;
  void (*launch)(const void* in, void* out, Shape shape, int element_bytes,
                 cudaStream_t stream) = nullptr;
};

std::span<const ElementRung> element_registry();

// The course's tile: 32 x 32 elements moved by 32 x 8 threads (each thread 4 elements).
inline constexpr int seed_tile = 32;
inline constexpr int seed_block_rows = 8;

} // namespace ladder::lab::transpose
