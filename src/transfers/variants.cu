// The transfers ladder, in the order of NVIDIA's "Optimizing CUDA" deck (its host-device transfer
// slides: page-locked memory, asynchronous copies, streams, overlapping kernels and copies), then
// the rungs past it, the library call and its staging shapes. The copies themselves are CUDA
// runtime calls; the kernels here are the zero-copy copy and the pipeline's compute stage.
#include "transfers/variants.hpp"

#include "core/harness.hpp"

#include <algorithm>
#include <array>

namespace ladder::lab::transfers {

namespace {

// 16-byte words when both pointers are 16-byte aligned (mapped host memory and cudaMalloc are),
// so that each PCIe read request carries as much as the SM can ask for at once.
__global__ void sm_copy_vector_kernel(uint4* dst, const uint4* src, std::int64_t words) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < words;
       i += stride)
    dst[i] = src[i];
}

__global__ void sm_copy_bytes_kernel(unsigned char* dst, const unsigned char* src,
                                     std::int64_t bytes) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < bytes;
       i += stride)
    dst[i] = src[i];
}

__global__ void pipeline_kernel(const float* in, float* out, std::int64_t n, int iterations,
                                float multiplier, float addend) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    float x = in[i];
    for (int k = 0; k < iterations; ++k)
      x = fmaf(x, multiplier, addend);
    out[i] = x;
  }
}

unsigned grid_for(std::int64_t items, int threads) {
  // Enough blocks to fill any current GPU several times over; grid-stride beyond that.
  return static_cast<unsigned>(std::clamp<std::int64_t>((items + threads - 1) / threads, 1, 8192));
}

constexpr StagingConfig shape(std::size_t chunk_bytes, int threads) {
  StagingConfig c;
  c.chunk_bytes = chunk_bytes;
  c.threads = threads;
  return c;
}

constexpr StagingConfig streaming(StagingConfig c) {
  c.streaming_stores = true;
  return c;
}

constexpr StagingConfig ahead(StagingConfig c, int per_thread) {
  c.ahead_per_thread = per_thread;
  return c;
}

constexpr std::size_t KiB = 1024, MiB = 1024 * 1024;

const std::array rungs = {
    Rung{.info = {.name = "pageable_cudaMemcpy",
                  .idea = "cudaMemcpy from pageable memory: the driver copies it through its own "
                          "small pinned buffer, one piece at a time",
                  .role = Role::seed,
                  .course_row =
                      "\"Device to host memory bandwidth much lower than device to device "
                      "bandwidth\": 4 GB/s peak on PCIe x16 Gen 1"},
         .method = Method::pageable},
    Rung{.info = {.name = "pinned_cudaMallocHost",
                  .idea = "page-locked memory from cudaMallocHost: the copy engine reads or writes "
                          "it directly, no staging",
                  .role = Role::seed,
                  .course_row = "cudaMallocHost: 3.2 GB/s on PCIe x16 Gen 1, 5.2 GB/s on Gen 2"},
         .method = Method::pinned},
    Rung{.info = {.name = "cudaHostRegister",
                  .idea = "pin an existing pageable buffer in place; the copy then runs at pinned "
                          "speed, the registration costs host time per GiB",
                  .role = Role::seed,
                  .course_row = "page-locked memory (registration of existing memory came later)"},
         .method = Method::registered},
    Rung{.info = {.name = "write_combined",
                  .idea = "cudaHostAllocWriteCombined: pinned, not cached by the CPU; no snoops on "
                          "the link, but CPU reads from it crawl",
                  .role = Role::seed,
                  .course_row = "page-locked memory, write-combined flavour"},
         .method = Method::write_combined},
    Rung{.info = {.name = "mapped_zero_copy",
                  .idea = "a kernel reads or writes mapped pinned host memory directly over the "
                          "link, no cudaMemcpy at all",
                  .role = Role::seed,
                  .course_row = "zero-copy: kernels access host memory directly"},
         .method = Method::mapped},
    Rung{.info = {.name = "bidirectional_async",
                  .idea = "cudaMemcpyAsync to and from the device at once on two streams: the two "
                          "copy engines use both directions of the link",
                  .role = Role::seed,
                  .course_row = "cudaMemcpyAsync(dst, src, size, dir, stream): requires pinned "
                                "memory"},
         .method = Method::bidirectional},
    Rung{
        .info = {.name = "overlap_pipeline",
                 .idea = "copy in / kernel / copy out in N chunks on N streams: chunk k's kernel "
                         "runs while chunk k+1 comes in and chunk k-1 goes out; then a stream "
                         "per stage, chained by events, so each engine takes the chunks in order",
                 .role = Role::seed,
                 .course_row = "overlapping kernel and data transfer: different, non-zero streams"},
        .method = Method::pipeline},
    Rung{.info = {.name = "pipeline_from_pageable",
                  .idea = "the same pipeline from pageable memory: one host thread per chunk "
                          "calling ladder::copy_to_device / copy_to_host",
                  .role = Role::beyond},
         .method = Method::pipeline_library},
    Rung{.info = {.name = "ladder::copy_to_*",
                  .idea = "pageable memory staged through a pinned ring: host threads fill chunks "
                          "while the copy engine drains the ones filled before",
                  .role = Role::library},
         .method = Method::library},
    // Staging shapes (`ladder run transfers --all`, `ladder tune transfers`): chunk size and the
    // host threads copying at once. The library's defaults: chunks of up to 1 MiB, every thread.
    Rung{.info = {.name = "staged_256K_16t",
                  .idea = "256 KiB chunks, 16 threads",
                  .role = Role::variant,
                  .variant_of = "ladder::copy_to_*",
                  .params = {{{"chunk_kib", 256}, {"threads", 16}}}},
         .method = Method::library,
         .staging = shape(256 * KiB, 16)},
    Rung{.info = {.name = "staged_512K_16t",
                  .idea = "512 KiB chunks, 16 threads",
                  .role = Role::variant,
                  .variant_of = "ladder::copy_to_*",
                  .params = {{{"chunk_kib", 512}, {"threads", 16}}}},
         .method = Method::library,
         .staging = shape(512 * KiB, 16)},
    Rung{.info = {.name = "staged_2M_16t",
                  .idea = "2 MiB chunks, 16 threads (16 slots)",
                  .role = Role::variant,
                  .variant_of = "ladder::copy_to_*",
                  .params = {{{"chunk_kib", 2048}, {"threads", 16}}}},
         .method = Method::library,
         .staging = shape(2 * MiB, 16)},
    Rung{.info = {.name = "staged_4M_8t",
                  .idea = "4 MiB chunks, 8 threads (8 slots)",
                  .role = Role::variant,
                  .variant_of = "ladder::copy_to_*",
                  .params = {{{"chunk_kib", 4096}, {"threads", 8}}}},
         .method = Method::library,
         .staging = shape(4 * MiB, 8)},
    Rung{.info = {.name = "staged_1M_4t",
                  .idea = "1 MiB chunks, 4 threads",
                  .role = Role::variant,
                  .variant_of = "ladder::copy_to_*",
                  .params = {{{"chunk_kib", 1024}, {"threads", 4}}}},
         .method = Method::library,
         .staging = shape(1 * MiB, 4)},
    Rung{.info = {.name = "staged_1M_8t",
                  .idea = "1 MiB chunks, 8 threads",
                  .role = Role::variant,
                  .variant_of = "ladder::copy_to_*",
                  .params = {{{"chunk_kib", 1024}, {"threads", 8}}}},
         .method = Method::library,
         .staging = shape(1 * MiB, 8)},
    Rung{.info = {.name = "staged_1M_16t_streaming",
                  .idea = "1 MiB chunks, 16 threads, the host copies with streaming stores",
                  .role = Role::variant,
                  .variant_of = "ladder::copy_to_*",
                  .params = {{{"chunk_kib", 1024}, {"threads", 16}, {"streaming_stores", 1}}}},
         .method = Method::library,
         .staging = streaming(shape(1 * MiB, 16))},
    Rung{.info = {.name = "staged_1M_12t",
                  .idea = "1 MiB chunks, 12 threads",
                  .role = Role::variant,
                  .variant_of = "ladder::copy_to_*",
                  .params = {{{"chunk_kib", 1024}, {"threads", 12}}}},
         .method = Method::library,
         .staging = shape(1 * MiB, 12)},
    Rung{.info = {.name = "staged_1M_16t_ahead0",
                  .idea = "1 MiB chunks, 16 threads, no chunk queued beyond one per thread (the "
                          "library's shape before one ahead): a worker that finishes waits for "
                          "the calling thread to post its next",
                  .role = Role::variant,
                  .variant_of = "ladder::copy_to_*",
                  .params = {{{"chunk_kib", 1024}, {"threads", 16}, {"ahead_per_thread", 0}}}},
         .method = Method::library,
         .staging = ahead(shape(1 * MiB, 16), 0)},
};

} // namespace

std::span<const Rung> registry() { return rungs; }

void launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0)
    return;
  constexpr int threads = 256;
  const auto both = reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src);
  if (both % 16 == 0 && bytes % 16 == 0) {
    const auto words = static_cast<std::int64_t>(bytes / 16);
    sm_copy_vector_kernel<<<grid_for(words, threads), threads, 0, stream>>>(
        static_cast<uint4*>(dst), static_cast<const uint4*>(src), words);
    check_launch("sm_copy_vector_kernel");
  } else {
    const auto n = static_cast<std::int64_t>(bytes);
    sm_copy_bytes_kernel<<<grid_for(n, threads), threads, 0, stream>>>(
        static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), n);
    check_launch("sm_copy_bytes_kernel");
  }
}

void launch_pipeline_kernel(const float* in, float* out, std::int64_t n, int iterations,
                            cudaStream_t stream) {
  if (n == 0)
    return;
  constexpr int threads = 256;
  // One element per thread: the stage is arithmetic, and a chunk's grid must scale with its size
  // so that N chunks take N times less each.
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  pipeline_kernel<<<blocks, threads, 0, stream>>>(in, out, n, iterations, pipeline_multiplier,
                                                  pipeline_addend);
  check_launch("pipeline_kernel");
}

} // namespace ladder::lab::transfers
