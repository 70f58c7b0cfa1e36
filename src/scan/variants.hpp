// The scan ladder's registry: every rung in ladder order, then the reference rows. The CLI, the
// GPU tests and the benchmark all iterate scan::registry(), so a new rung is one entry. Every rung
// computes the exclusive sum (the seed's "prescan") of int32 or float.
#pragma once

#include "core/rung.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <string_view>

namespace ladder::lab::scan {

template <class T>
using ScanLaunch = void (*)(const T* in, T* out, std::int64_t n, cudaStream_t stream);

struct Rung {
  RungInfo info;
  bool on_cpu = false;       // rung 1: runs on the host, timed with std::chrono
  bool computes_scan = true; // false for cudaMemcpy (a copy of the same bytes: the ceiling)
  // Elements per tile on the rung's look-back (or block-sum) chain, for the float error bound;
  // 0 when the rung has no chain (one block, or the CPU).
  std::int64_t chain_tile = 0;
  // nullptr when the rung handles n, else why not (shown in the table). Rungs that are not the
  // library call assume cudaMalloc'd (256-byte aligned) pointers, as the study and tests give.
  const char* (*unsupported)(std::int64_t n) = nullptr;
  ScanLaunch<std::int32_t> launch_i32 = nullptr; // null for the CPU rung
  ScanLaunch<float> launch_f32 = nullptr;
};

std::span<const Rung> registry();

// Stream compaction rows (keep x > 0 of int32): ladder::compact and cub::DeviceSelect::If. The
// count of kept elements is written to device memory (no host round trip in the timed call).
struct CompactRung {
  RungInfo info;
  void (*launch)(const std::int32_t* in, std::int32_t* out, std::int64_t n, std::int64_t* count,
                 cudaStream_t stream) = nullptr;
};

std::span<const CompactRung> compact_registry();

// The predicate of the compaction rows, as the CPU reference applies it.
inline bool compact_keeps(std::int32_t x) { return x > 0; }

} // namespace ladder::lab::scan
