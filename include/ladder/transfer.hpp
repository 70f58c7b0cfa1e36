// ladder/transfer.hpp: host <-> device copies at pinned speed from any host memory.
//
//   ladder::copy_to_device(d_data, host_vector.data(), bytes, stream);
//   ladder::copy_to_host(host_vector.data(), d_result, bytes, stream);
//
// `src_host` / `dst_host` may be any host memory: pageable (new, malloc, std::vector, mmap),
// pinned (cudaMallocHost, cudaHostAlloc) or registered (cudaHostRegister). Pinned and registered
// memory (detected with cudaPointerGetAttributes on the first and the last byte) and managed
// memory go straight to the copy engine. Pageable copies of up to 4 MiB also go straight to
// cudaMemcpyAsync (its latency is the floor there). Larger pageable copies are staged through a
// pinned ring owned by the library: host threads copy chunks into the ring while the copy engine
// drains the chunks filled before, so the host copy and the link run at the same time (see
// docs/transfers.md for the figures and when the host's own memory bandwidth is the limit).
//
// Semantics are cudaMemcpy's, ordered on `stream`: the copy runs after the work enqueued on
// `stream` before it, and later work on `stream` sees its data. copy_to_device returns once
// `src_host` may be reused (pinned and staged copies have landed by then; a small pageable one may
// still be on its way from the driver's own staging buffer, as with cudaMemcpy); copy_to_host
// returns once `dst_host` holds the data. Both may wait for `stream`'s earlier work, and both
// refuse a stream that is being captured into a CUDA graph (std::invalid_argument): a graph cannot
// wait on the host. Any size (0 is a no-op that touches no GPU; 1, odd, > 4 GiB), any alignment.
//
// Several host threads may call at once. The resources are fixed, whatever the number of callers:
//   - pinned staging memory: two rings of 32 MiB (one per direction, 64 MiB in all), allocated
//     with cudaHostAlloc on the first staged copy in that direction and kept until exit;
//   - host threads: one pool of min(hardware threads, 16) workers (at least 2), started on the
//     first staged copy and kept until exit; the calling thread issues the copies;
//   - one staged copy per direction at a time (a host-to-device and a device-to-host copy run
//     together, on both copy engines); other callers of the same direction wait their turn.
//   - CUDA events: one per ring slot in use (at most 128 per direction), created on first use for
//     the current device and kept (remade when a staged copy runs with another current device).
//
// Errors: std::invalid_argument (a null pointer with bytes > 0; a device pointer where host memory
// is expected, or host memory where a device pointer is expected; a capturing stream) before
// anything is enqueued; ladder::CudaError if CUDA fails. A call that throws leaves nothing behind:
// its staging slots are released only once the copies that read or write them have finished.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace ladder {

void copy_to_device(void* dst_device, const void* src_host, std::size_t bytes,
                    cudaStream_t stream = nullptr);
void copy_to_host(void* dst_host, const void* src_device, std::size_t bytes,
                  cudaStream_t stream = nullptr);

// The fixed resources described above, for users who budget pinned memory and threads.
inline constexpr std::size_t transfer_ring_bytes = std::size_t{32} << 20; // per direction
inline constexpr int transfer_max_threads = 16;
// Where staging starts to pay: on an H200 host (PCIe 5.0, 2026-11-25) a staged 1 MiB copy took
// 1.6x (to the device) and 1.5x (to the host) the direct one, a 4 MiB copy 1.19x and 0.89x, and
// from 16 MiB on staging won (0.65x and 0.38x).
inline constexpr std::size_t transfer_direct_max_bytes = std::size_t{4} << 20;

} // namespace ladder
