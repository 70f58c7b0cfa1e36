// How ladder::copy_to_device / copy_to_host split a pageable copy into chunks for the pinned ring,
// and the entry points that let the study and the tests choose the staging shape. The planning is
// plain C++ so that the host tests check it on a machine without a GPU.
#pragma once

#include "ladder/transfer.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h> // SSE2: _mm_stream_si128, _mm_sfence
#define LADDER_HAVE_STREAMING_STORES 1
#endif

namespace ladder::transfers {

// Where a copy goes.
enum class Path { none, direct, pinned, staged, parameters };

// The staging shape of one call. Zeros mean the library's defaults (but for ahead_per_thread,
// whose default is 1 and whose 0 means none ahead).
struct StagingConfig {
  std::size_t chunk_bytes = 0; // bytes per chunk (0: from the size and the threads, see plan)
  int threads = 0;             // host threads filling / draining at once (0: the whole pool)
  int slots = 0;               // ring slots in use (0: as many chunks as the ring holds)
  // Chunks handed to the pool beyond one per thread, per thread: with 1, up to 2 x threads tasks
  // are posted at once, so a worker that finishes a chunk takes the next from the queue instead
  // of sleeping until the calling thread wakes and posts it (two wake-ups a chunk, which a
  // virtual machine's CPUs make slow). 1: the library's default. In five `ladder tune transfers`
  // runs on three H100 hosts (20 pairs of 1 GiB and 256 MiB copies each way), 1 ahead beat none
  // in 14 and lost 6 by at most 3%, and its worst ratio to a pinned copy was 0.71
  // where none ahead fell to 0.64 (the tuning row staged_1M_16t_ahead0 times none;
  // docs/transfers.md).
  int ahead_per_thread = 1;
  std::size_t direct_max_bytes = transfer_direct_max_bytes; // pageable copies up to this go direct
  // Pageable copies to the device of up to this many bytes (at most parameter_copy_max_bytes) ride
  // in a kernel's parameters: the launch carries the bytes, a kernel writes them to the
  // destination, and no staging copy or separate wait is involved. 0: never (the library's
  // default until the GPU measurements choose a limit).
  std::size_t parameter_max_bytes = 0;
  // The host threads' copies store with non-temporal (streaming) stores, which go to memory
  // without first reading the destination's lines into the CPU's caches or leaving them dirty
  // there, where the copy engine would have to fetch them from. Off: memcpy (the library's
  // default until the GPU measurements choose; a tuning row times it).
  bool streaming_stores = false;
  // Tests only: throw ladder::CudaError once this many chunks are on the stream, as a CUDA failure
  // half-way would, so that the clean-up path is exercised (-1: never).
  std::int64_t fail_after_chunks = -1;
};

inline constexpr std::size_t kib = 1024;
inline constexpr std::size_t mib = 1024 * 1024;
// Smallest automatic chunk: below it the per-chunk cost (a cudaMemcpyAsync, an event, a worker
// wake-up: a few microseconds) outweighs the copy itself.
inline constexpr std::size_t min_auto_chunk = 256 * kib;
// Largest automatic chunk: 1 MiB keeps 32 chunks in the 32 MiB ring, so that all 16 workers fill
// while as many filled chunks wait for the copy engine.
inline constexpr std::size_t max_auto_chunk = 1 * mib;
inline constexpr int max_slots = 128; // events per call and the ring's slot count, at most
// The most bytes one launch carries in its parameters: CUDA 12.1 and later take up to 32764 bytes
// of kernel parameters on Volta and newer; the payload leaves room for the destination and the
// count, in whole 16-byte words.
inline constexpr std::size_t parameter_copy_max_bytes = 32 * kib - 64;

struct ChunkPlan {
  std::size_t chunk_bytes = 0;
  std::int64_t chunks = 0;
  int slots = 0;       // ring slots used (each chunk_bytes long)
  int threads = 0;     // host copies at once at most
  int max_pending = 0; // tasks handed to the pool and not finished, at most: threads x (1 + ahead)
};

// The pool's size for a machine with `hardware_threads` (0 when unknown): every hardware thread up
// to transfer_max_threads, and at least 2 so that filling overlaps even on a small machine.
constexpr int pool_threads(unsigned hardware_threads) {
  const int hw = hardware_threads == 0 ? 2 : static_cast<int>(std::min(hardware_threads, 1024u));
  return std::clamp(hw, 2, transfer_max_threads);
}

// Splits `bytes` (> 0) for a pool of `pool` threads. Chunks are as large as possible while every
// thread gets about two (so that all fill while the link drains), rounded up to 64 KiB, between
// min_auto_chunk and max_auto_chunk; a config's explicit values win (chunk at least 4 KiB, at most
// the ring). Chunk i covers [i x chunk_bytes, min(bytes, (i + 1) x chunk_bytes)).
inline ChunkPlan plan_chunks(std::size_t bytes, int pool, const StagingConfig& config,
                             std::size_t ring_bytes = transfer_ring_bytes) {
  ChunkPlan plan;
  plan.threads = std::clamp(config.threads > 0 ? config.threads : pool, 1, std::max(pool, 1));
  plan.max_pending = plan.threads * (1 + std::clamp(config.ahead_per_thread, 0, 3));
  std::size_t chunk = config.chunk_bytes;
  if (chunk == 0) {
    const std::size_t share = (bytes + 2 * static_cast<std::size_t>(plan.threads) - 1) /
                              (2 * static_cast<std::size_t>(plan.threads));
    chunk = (share + 64 * kib - 1) / (64 * kib) * (64 * kib);
    chunk = std::clamp(chunk, min_auto_chunk, max_auto_chunk);
  }
  chunk = std::clamp(chunk, 4 * kib, ring_bytes);
  plan.chunk_bytes = chunk;
  plan.chunks = static_cast<std::int64_t>((bytes + chunk - 1) / chunk);
  const auto ring_slots = static_cast<int>(std::min<std::size_t>(ring_bytes / chunk, max_slots));
  plan.slots = config.slots > 0 ? std::min(config.slots, ring_slots) : ring_slots;
  // No more slots than chunks (a small copy needs no more events than it has chunks).
  plan.slots = static_cast<int>(std::min<std::int64_t>(plan.slots, plan.chunks));
  plan.slots = std::max(plan.slots, 1);
  return plan;
}

// memcpy with streaming stores where the CPU has them (x86-64: 16-byte non-temporal stores
// between a head and a tail that memcpy copies), plain memcpy elsewhere. The fence orders the
// streaming stores before whatever the caller does next (here: the copy engine reading the ring).
inline void copy_streaming(std::byte* dst, const std::byte* src, std::size_t bytes) {
#ifdef LADDER_HAVE_STREAMING_STORES
  const std::size_t head =
      std::min(bytes, (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  std::size_t i = head;
  for (; i + 16 <= bytes; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  std::memcpy(dst + i, src + i, bytes - i);
  _mm_sfence();
#else
  std::memcpy(dst, src, bytes);
#endif
}

// The chunk's byte range.
inline std::size_t chunk_offset(const ChunkPlan& plan, std::int64_t i) {
  return static_cast<std::size_t>(i) * plan.chunk_bytes;
}
inline std::size_t chunk_length(const ChunkPlan& plan, std::size_t bytes, std::int64_t i) {
  return std::min(plan.chunk_bytes, bytes - chunk_offset(plan, i));
}

// What a host pointer is, from cudaPointerGetAttributes. partly_pinned: a range that starts in
// pinned (registered) memory and runs past it, which cudaMemcpyAsync refuses (invalid value).
enum class HostMemory { pageable, pinned, managed, device, partly_pinned };

// The path a copy of `bytes` takes from host memory of kind `host` (`to_device`: the direction).
constexpr Path choose_path(std::size_t bytes, HostMemory host, const StagingConfig& config,
                           bool to_device = false) {
  if (bytes == 0)
    return Path::none;
  if (host == HostMemory::pinned || host == HostMemory::managed)
    return Path::pinned;
  if (host == HostMemory::partly_pinned)
    return Path::staged;
  if (to_device && bytes <= std::min(config.parameter_max_bytes, parameter_copy_max_bytes))
    return Path::parameters;
  return bytes <= config.direct_max_bytes ? Path::direct : Path::staged;
}

// ladder::copy_to_device / copy_to_host with an explicit staging shape (the study's tuning rows and
// the tests that force the staged path on small copies). Same checks and semantics; returns the
// path taken.
Path copy_to_device_with(void* dst_device, const void* src_host, std::size_t bytes,
                         cudaStream_t stream, const StagingConfig& config);
Path copy_to_host_with(void* dst_host, const void* src_device, std::size_t bytes,
                       cudaStream_t stream, const StagingConfig& config);

// The worker pool's size on this machine (starts nothing).
int staging_pool_threads();

} // namespace ladder::transfers
