// The transpose ladder's registry: every rung in ladder order, then the reference rows. The CLI,
// the GPU tests and the benchmark all iterate transpose_variants(), so a new rung is one entry.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <string_view>

namespace ladder::lab {

struct Shape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

// What a variant's output must equal. The seeds' diagnostic kernels are not transposes: the
// fine-grained one transposes each tile in place, the coarse-grained one moves whole tiles.
enum class TransposeResult { copy, transpose, tile_local_transpose, tiles_moved };

struct TransposeVariant {
  std::string_view name;
  std::string_view idea;
  std::string_view seed; // the seed table row it reproduces; "" beyond the seeds
  bool is_reference;     // vendor rows (cudaMemcpy, cuBLAS)
  TransposeResult result;
  // nullptr when the variant handles `shape`, else the reason it does not (shown in the table).
  const char* (*unsupported)(Shape shape);
  // Whether `launch` honours nreps > 1 by looping inside the kernel (the seeds' second mode).
  bool loops_in_kernel;
  void (*launch)(const float* in, float* out, Shape shape, int nreps, cudaStream_t stream);
  const void* kernel; // for the resource report; null for library calls
  int block_threads;
};

std::span<const TransposeVariant> transpose_variants();

// The seeds' tile: 32 x 32 elements moved by 32 x 8 threads (each thread 4 elements).
inline constexpr int seed_tile = 32;
inline constexpr int seed_block_rows = 8;

} // namespace ladder::lab
