// The scan ladder's registry: every rung in ladder order, then the reference rows. The CLI, the
// GPU tests and the benchmark all iterate scan_variants(), so a new rung is one entry. Every rung
// computes the exclusive sum (the seed's "prescan") of int32 or float.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <string_view>

namespace ladder::lab {

template <class T> using ScanLaunch = void (*)(const T* in, T* out, std::int64_t n, cudaStream_t stream);

struct ScanVariant {
  std::string_view name;
  std::string_view idea;
  std::string_view seed; // the seed slide it reproduces; "" beyond the seed
  bool is_reference;     // vendor rows (CUB, cudaMemcpy)
  bool on_cpu;           // rung 1: runs on the host, timed with std::chrono
  bool computes_scan;    // false for cudaMemcpy (a copy of the same bytes: the ceiling)
  // Elements per tile on the rung's look-back (or block-sum) chain, for the float error bound;
  // 0 when the rung has no chain (one block, or the CPU).
  std::int64_t chain_tile;
  // nullptr when the rung handles n, else why not (shown in the table). Rungs that are not the
  // library call assume cudaMalloc'd (256-byte aligned) pointers, as the study and tests give.
  const char* (*unsupported)(std::int64_t n);
  ScanLaunch<std::int32_t> launch_i32; // null for the CPU rung
  ScanLaunch<float> launch_f32;
  const void* kernel; // for the resource report; null for library calls
  int block_threads;
  std::size_t dynamic_shared_bytes = 0; // of the int32 kernel's launch, for the resource report
};

std::span<const ScanVariant> scan_variants();

// Stream compaction rows (keep x > 0 of int32): ladder::compact and cub::DeviceSelect::If. The
// count of kept elements is written to device memory (no host round trip in the timed call).
struct CompactVariant {
  std::string_view name;
  std::string_view idea;
  bool is_reference;
  void (*launch)(const std::int32_t* in, std::int32_t* out, std::int64_t n, std::int64_t* count,
                 cudaStream_t stream);
};

std::span<const CompactVariant> compact_variants();

// The predicate of the compaction rows, as the CPU reference applies it.
inline bool compact_keeps(std::int32_t x) { return x > 0; }

} // namespace ladder::lab
