// The transfers ladder's registry: the deck's host-link rungs in its order (pageable, pinned,
// registered, write-combined, mapped zero-copy, bidirectional, the overlap pipeline), the pipeline
// from pageable memory through the library call, the library call itself and its staging shapes.
// The CLI, the GPU tests and the benchmark all iterate transfers::registry().
#pragma once

#include "core/rung.hpp"
#include "transfers/staging.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace ladder::lab::transfers {

using ladder::transfers::StagingConfig;

// Which table a rung's rows belong to and how it moves the bytes.
enum class Method {
  pageable,         // cudaMemcpy from / to pageable memory: the driver stages it
  pinned,           // cudaMallocHost, then cudaMemcpy
  registered,       // cudaHostRegister on an existing pageable buffer, then cudaMemcpy
  write_combined,   // cudaHostAlloc(WriteCombined), then cudaMemcpy
  mapped,           // a kernel reading / writing mapped pinned host memory (zero-copy)
  bidirectional,    // cudaMemcpyAsync both ways at once on two streams (pinned)
  pipeline,         // copy in / kernel / copy out in N chunks on N streams (pinned)
  pipeline_library, // the same pipeline from pageable memory through ladder::copy_to_*
  library,          // ladder::copy_to_device / copy_to_host from pageable memory
};

enum class Direction { to_device, to_host };

struct Rung {
  RungInfo info;
  Method method = Method::pageable;
  StagingConfig staging = {}; // library rows: the staging shape (zeros: the library's defaults)
};

std::span<const Rung> registry();

// A grid-stride copy of `bytes` through the SMs: 16-byte words where both pointers allow, bytes
// elsewhere. With one side in mapped host memory it is the zero-copy rung.
void launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);

// The pipeline's compute stage: out[i] = in[i] after `iterations` dependent fmaf(x, a, b); exact
// against the CPU's std::fma (both round once per step). `iterations` sets the stage's length.
inline constexpr float pipeline_multiplier = 0.999f;
inline constexpr float pipeline_addend = 0.001f;
void launch_pipeline_kernel(const float* in, float* out, std::int64_t n, int iterations,
                            cudaStream_t stream);

} // namespace ladder::lab::transfers
