// ladder/detail/scratch.hpp: the scratch memory of every ladder call. Internal, but installed:
// ladder/detail/compact.cuh, compiled in the caller's code, uses it. Defined in
// src/core/device_info.cu.
//
// Scratch is allocated per call, stream-ordered, on the call's stream, and freed on that stream
// right after the launch that uses it: nothing outlives the call in stream order and nothing is
// kept per stream, so a process that creates and destroys a stream per request keeps nothing from
// it, and calls on different streams never share scratch.
//
//  - Outside stream capture: cudaMallocFromPoolAsync from a pool private to ladder (one per
//    device, created on first use, never shrunk: memory freed by one call is still mapped for the
//    next, so a call costs no cudaMalloc, and the caller's default pool and its settings are left
//    alone). The pool holds at most the largest amount of scratch that was in flight at once.
//  - Under stream capture (cudaStreamIsCapturing): cudaMallocFromPoolAsync from the device's
//    default pool. Capture records the allocation as a graph memory-allocation node and the
//    cudaFreeAsync as a free node (CUDA runtime reference, cudaMallocAsync and
//    cudaMallocFromPoolAsync: "During stream capture, this function results in the creation of an
//    allocation node. In this case, the allocation is owned by the graph instead of the memory
//    pool."), so every launch of the graph allocates and frees it inside the graph, and the graph
//    holds no allocation between launches. The private pool would be legal there too; the default
//    pool is used so that a first call made under capture never creates a pool, which is not a
//    stream operation. Graph allocations come from the device's graph memory, which CUDA keeps
//    mapped for later launches until cudaDeviceGraphMemTrim. CUDA restricts a graph that holds
//    memory nodes (cuGraphAddMemFreeNode's reference): one instantiation at a time, no cloning, no
//    deleting its nodes, and as a child graph only where its ownership is moved to the parent.
//    Calls small enough to take no scratch (one block or tile) add no memory node.
//
// The memory is not initialized.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

namespace ladder::detail {

// `bytes` of device memory on the current device, stream-ordered on `stream` (nullptr for 0
// bytes). Throws ladder::CudaError if CUDA fails.
void* scratch_alloc(std::size_t bytes, cudaStream_t stream);
// Frees on `stream` (after everything enqueued on it so far). Throws ladder::CudaError if CUDA
// fails; null is a no-op.
void scratch_free(void* pointer, cudaStream_t stream);
// The same without throwing: for unwinding, where a CUDA error is already on its way.
void scratch_free_quietly(void* pointer, cudaStream_t stream) noexcept;

// Throws std::invalid_argument naming `call` and `stream` when `stream` is being captured into a
// CUDA graph: for the overloads that return a host value, which must wait for the stream.
void check_not_capturing(const char* call, cudaStream_t stream);

// One call's scratch: allocated by the constructor, freed by release() after the launch that uses
// it (release throws if the free fails), or by the destructor when the call throws first, so a
// call that fails leaves no scratch behind.
class StreamScratch {
public:
  StreamScratch(std::size_t bytes, cudaStream_t stream)
      : stream_(stream), pointer_(scratch_alloc(bytes, stream)) {}
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  ~StreamScratch() { scratch_free_quietly(pointer_, stream_); }

  void* get() const noexcept { return pointer_; }
  template <class T> T* as() const noexcept { return static_cast<T*>(pointer_); }
  void release() { scratch_free(std::exchange(pointer_, nullptr), stream_); }

private:
  cudaStream_t stream_;
  void* pointer_;
};

} // namespace ladder::detail
