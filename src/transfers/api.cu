// ladder::copy_to_device / copy_to_host: argument checks, then the pinned path (straight to the
// copy engine), the direct path (small pageable copies: cudaMemcpyAsync stages them itself), or
// the staged path: a pool of host threads copies chunks between the pageable buffer and a pinned
// ring while the calling thread feeds the copy engine, so that the host copy and the link overlap.
//
// Why a pool of threads: one thread's memcpy (about 8.5 GB/s on the H200 machine's host) is far
// slower than the link (54.7 GB/s pinned), so the fill must run on many cores at once; the
// calling thread only issues cudaMemcpyAsync and polls events, so the worker that would have been
// idle waiting is never the one copying.
#include "transfers/staging.hpp"

#include "ladder/error.hpp"
#include "ladder/transfer.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ladder::transfers {

namespace {

// --- the worker pool ----------------------------------------------------------------------------

struct Job;
void run_task(Job* job, std::int64_t chunk) noexcept;

// Persistent host threads, started on first use, joined at exit. Tasks are (job, chunk) pairs; a
// job never posts more tasks than its plan's `max_pending` (a few per thread), so the queue stays
// short.
class WorkerPool {
public:
  explicit WorkerPool(int threads) {
    workers_.reserve(static_cast<std::size_t>(threads));
    try {
      for (int i = 0; i < threads; ++i)
        workers_.emplace_back([this] { work(); });
    } catch (...) {
      stop_and_join();
      throw;
    }
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool() { stop_and_join(); }

  int size() const { return static_cast<int>(workers_.size()); }

  void post(Job* job, std::int64_t chunk) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back({job, chunk});
    }
    ready_.notify_one();
  }

private:
  struct Task {
    Job* job;
    std::int64_t chunk;
  };

  void work() {
    for (;;) {
      Task task{};
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty())
          return; // stopping, and nothing left
        task = queue_.front();
        queue_.pop_front();
      }
      run_task(task.job, task.chunk);
    }
  }

  void stop_and_join() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : workers_)
      if (t.joinable())
        t.join();
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Task> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// --- one staged copy ----------------------------------------------------------------------------

// What the workers of one staged copy share with its calling thread. Lives on the caller's stack;
// the caller returns only once `pending` is back to zero, so no worker touches it afterwards.
struct Job {
  bool to_device = true;
  std::byte* host = nullptr; // the user's pageable buffer: source (to device) or destination
  std::byte* ring = nullptr; // the direction's pinned ring
  std::size_t bytes = 0;
  ChunkPlan plan;
  std::int64_t fail_after_chunks = -1;
  bool streaming_stores = false;

  std::mutex mutex;
  std::condition_variable changed;
  std::int64_t pending = 0;       // tasks posted and not finished
  std::int64_t completed = 0;     // tasks finished, ever (the caller waits for it to move)
  std::vector<std::int64_t> done; // per slot: the last chunk whose host copy finished there
  bool abandon = false;           // set on failure: tasks still queued skip their copy

  std::byte* slot(std::int64_t chunk) const {
    return ring + static_cast<std::size_t>(chunk % plan.slots) * plan.chunk_bytes;
  }
};

void run_task(Job* job, std::int64_t chunk) noexcept {
  bool skip = false;
  {
    std::lock_guard lock(job->mutex);
    skip = job->abandon;
  }
  if (!skip) {
    const std::size_t offset = chunk_offset(job->plan, chunk);
    const std::size_t length = chunk_length(job->plan, job->bytes, chunk);
    std::byte* const dst = job->to_device ? job->slot(chunk) : job->host + offset;
    const std::byte* const src = job->to_device ? job->host + offset : job->slot(chunk);
    if (job->streaming_stores)
      copy_streaming(dst, src, length);
    else
      std::memcpy(dst, src, length);
  }
  // Notified under the lock: once the caller sees pending == 0 it may destroy the job.
  std::lock_guard lock(job->mutex);
  job->done[static_cast<std::size_t>(chunk % job->plan.slots)] = chunk;
  --job->pending;
  ++job->completed;
  job->changed.notify_all();
}

// A direction's events, indexed by slot.
struct SlotEvents {
  const cudaEvent_t* events;
  cudaEvent_t operator[](std::int64_t slot) const { return events[slot]; }
};

// True when the event has completed; throws CudaError on an error other than "not ready".
bool event_done(cudaEvent_t event) {
  const cudaError_t status = cudaEventQuery(event);
  if (status == cudaErrorNotReady)
    return false;
  LADDER_CUDA(status);
  return true;
}

// One direction's staging resources, made on first use and kept until exit (fixed sizes): the
// pinned ring, and one event per slot (timing off: they only order) for the current device,
// remade when a copy runs with another current device. Creating them per call would cost a few
// microseconds each, as much as a 4 MiB copy's whole budget.
struct Direction {
  std::mutex busy; // one staged copy per direction at a time
  std::byte* ring = nullptr;
  int events_device = -1;
  std::vector<cudaEvent_t> events;

  ~Direction() {
    // At exit the runtime may be gone already: nothing to report.
    destroy_events();
    if (ring)
      cudaFreeHost(ring);
  }
  void destroy_events() noexcept {
    for (auto e : events)
      cudaEventDestroy(e);
    events.clear();
  }
  std::byte* get_ring() {
    if (!ring) {
      void* p = nullptr;
      // Portable: pinned for every device's context, so any current device may use the ring.
      LADDER_CUDA(cudaHostAlloc(&p, transfer_ring_bytes, cudaHostAllocPortable));
      ring = static_cast<std::byte*>(p);
    }
    return ring;
  }
  // At least `count` events of the current device.
  const std::vector<cudaEvent_t>& get_events(int count) {
    int device = 0;
    LADDER_CUDA(cudaGetDevice(&device));
    if (device != events_device) {
      destroy_events();
      events_device = device;
    }
    events.reserve(static_cast<std::size_t>(max_slots));
    while (static_cast<int>(events.size()) < count) {
      cudaEvent_t e = nullptr;
      LADDER_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      events.push_back(e);
    }
    return events;
  }
};

class Engine {
public:
  Engine() : pool_(pool_threads(std::thread::hardware_concurrency())) {}

  void copy(bool to_device, std::byte* device, std::byte* host, std::size_t bytes,
            cudaStream_t stream, const StagingConfig& config) {
    Direction& direction = to_device ? to_device_ : to_host_;
    std::lock_guard busy(direction.busy);
    Job job;
    job.to_device = to_device;
    job.host = host;
    job.ring = direction.get_ring();
    job.bytes = bytes;
    job.plan = plan_chunks(bytes, pool_.size(), config);
    job.done.assign(static_cast<std::size_t>(job.plan.slots), -1);
    job.fail_after_chunks = config.fail_after_chunks;
    job.streaming_stores = config.streaming_stores;
    const SlotEvents events{direction.get_events(job.plan.slots).data()};
    try {
      if (to_device)
        fill_and_send(job, device, stream, events);
      else
        receive_and_drain(job, device, stream, events);
    } catch (...) {
      abandon(job, stream);
      throw;
    }
  }

private:
  // Host to device. Workers copy chunk i into slot i % slots; this thread sends the filled chunks
  // in order and reuses a slot once the event recorded after its send has completed.
  void fill_and_send(Job& job, std::byte* device, cudaStream_t stream, const SlotEvents& events) {
    const ChunkPlan& plan = job.plan;
    const auto slots = static_cast<std::int64_t>(plan.slots);
    std::vector<char> sending(static_cast<std::size_t>(slots), 0); // a send not yet seen done
    std::int64_t posted = 0, sent = 0;
    while (sent < plan.chunks) {
      bool progress = false;
      // 1. Send every chunk that is filled, in order.
      std::int64_t filled = sent;
      std::int64_t pending = 0, completed = 0;
      {
        std::lock_guard lock(job.mutex);
        while (filled < posted && job.done[static_cast<std::size_t>(filled % slots)] == filled)
          ++filled;
        pending = job.pending;
        completed = job.completed;
      }
      for (; sent < filled; ++sent) {
        const std::size_t offset = chunk_offset(plan, sent);
        LADDER_CUDA(cudaMemcpyAsync(device + offset, job.slot(sent),
                                    chunk_length(plan, job.bytes, sent), cudaMemcpyHostToDevice,
                                    stream));
        LADDER_CUDA(cudaEventRecord(events[sent % slots], stream));
        sending[static_cast<std::size_t>(sent % slots)] = 1;
        progress = true;
        inject_failure(job, sent + 1);
      }
      // 2. Give the workers every chunk whose slot is free, up to `max_pending` in flight.
      while (posted < plan.chunks && pending < plan.max_pending) {
        if (posted >= slots) {
          if (posted - slots >= sent)
            break; // the slot's previous chunk is still being filled or waits to be sent
          auto& busy = sending[static_cast<std::size_t>(posted % slots)];
          if (busy && !event_done(events[posted % slots]))
            break;
          busy = 0;
        }
        post(job, posted++);
        ++pending;
        progress = true;
      }
      if (progress)
        continue;
      // 3. Nothing to do: wait for a worker if one is filling, else for the oldest send.
      // (`completed` is the count seen with `pending`: a task that finished since is not missed.)
      if (pending > 0) {
        std::unique_lock lock(job.mutex);
        job.changed.wait(lock, [&] { return job.completed != completed; });
      } else {
        LADDER_CUDA(cudaEventSynchronize(events[posted % slots]));
        sending[static_cast<std::size_t>(posted % slots)] = 0;
      }
    }
    // cudaMemcpy's semantics, and the ring's next user: every send has landed.
    LADDER_CUDA(cudaEventSynchronize(events[(plan.chunks - 1) % slots]));
  }

  // Device to host. This thread has chunk i copied into slot i % slots once the slot's previous
  // chunk has been drained; workers drain each chunk into the user's buffer once its copy is done.
  void receive_and_drain(Job& job, std::byte* device, cudaStream_t stream,
                         const SlotEvents& events) {
    const ChunkPlan& plan = job.plan;
    const auto slots = static_cast<std::int64_t>(plan.slots);
    std::int64_t received = 0, posted = 0; // copies enqueued; chunks handed to workers
    for (;;) {
      bool progress = false;
      // 1. Enqueue the copy of every chunk whose slot has been drained.
      std::int64_t free_until = received;
      std::int64_t pending = 0, completed = 0;
      {
        std::lock_guard lock(job.mutex);
        while (free_until < plan.chunks &&
               (free_until < slots ||
                job.done[static_cast<std::size_t>(free_until % slots)] == free_until - slots))
          ++free_until;
        pending = job.pending;
        completed = job.completed;
      }
      for (; received < free_until; ++received) {
        LADDER_CUDA(cudaMemcpyAsync(job.slot(received), device + chunk_offset(plan, received),
                                    chunk_length(plan, job.bytes, received), cudaMemcpyDeviceToHost,
                                    stream));
        LADDER_CUDA(cudaEventRecord(events[received % slots], stream));
        progress = true;
        inject_failure(job, received + 1);
      }
      // 2. Hand the workers every chunk that has arrived, in order, up to `max_pending` in flight.
      while (posted < received && pending < plan.max_pending &&
             event_done(events[posted % slots])) {
        post(job, posted++);
        ++pending;
        progress = true;
      }
      if (posted == plan.chunks)
        break;
      if (progress)
        continue;
      // 3. Wait for the next arrival if a worker could take it, else for a worker.
      if (posted < received && pending < plan.max_pending) {
        LADDER_CUDA(cudaEventSynchronize(events[posted % slots]));
      } else {
        std::unique_lock lock(job.mutex);
        job.changed.wait(lock, [&] { return job.completed != completed; });
      }
    }
    std::unique_lock lock(job.mutex);
    job.changed.wait(lock, [&] { return job.pending == 0; });
  }

  static void inject_failure(const Job& job, std::int64_t chunks_on_stream) {
    if (chunks_on_stream == job.fail_after_chunks)
      throw CudaError(static_cast<int>(cudaErrorUnknown), "injected failure (tests)",
                      "after " + std::to_string(chunks_on_stream) + " chunks");
  }

  void post(Job& job, std::int64_t chunk) {
    {
      std::lock_guard lock(job.mutex);
      ++job.pending;
    }
    pool_.post(&job, chunk);
  }

  // After a failure: queued tasks skip their copy, running ones finish, and the copies already
  // enqueued on the stream (which read or write the ring) finish or fail before the ring is free.
  static void abandon(Job& job, cudaStream_t stream) noexcept {
    std::unique_lock lock(job.mutex);
    job.abandon = true;
    job.changed.wait(lock, [&] { return job.pending == 0; });
    lock.unlock();
    if (cudaStreamSynchronize(stream) != cudaSuccess)
      (void)cudaGetLastError(); // the error being thrown is the one to report
  }

  WorkerPool pool_;
  Direction to_device_, to_host_;
};

Engine& engine() {
  static Engine instance; // started on the first staged copy, joined and freed at exit
  return instance;
}

// --- small copies to the device in a kernel's parameters ----------------------------------------

// The bytes of one launch, in 16-byte words so that the kernel reads them 16 at a time.
template <std::size_t Bytes> struct alignas(16) Payload {
  static_assert(Bytes % 16 == 0, "whole 16-byte words");
  unsigned char bytes[Bytes];
};

// __grid_constant__: the kernel reads the parameter where the launch put it (constant memory),
// without a per-thread copy, however it is indexed.
template <std::size_t Bytes>
__global__ void parameter_copy_kernel(std::byte* dst, std::size_t count,
                                      const __grid_constant__ Payload<Bytes> payload) {
  const std::size_t word = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t first = word * 16;
  if (first >= count)
    return;
  const uint4 v = reinterpret_cast<const uint4*>(payload.bytes)[word];
  if (first + 16 <= count && reinterpret_cast<std::uintptr_t>(dst + first) % 16 == 0) {
    *reinterpret_cast<uint4*>(dst + first) = v;
    return;
  }
  unsigned char part[16];
  std::memcpy(part, &v, 16);
  for (std::size_t i = 0; first + i < count && i < 16; ++i)
    dst[first + i] = static_cast<std::byte>(part[i]);
}

// Launches the kernel of the smallest payload that holds `bytes` (<= parameter_copy_max_bytes):
// the launch copies the parameters, so `src` may be reused as soon as this returns. False, with
// nothing launched and no error left behind, where the device or driver refuses the launch (large
// parameters need CUDA 12.1 and Volta or newer): the caller copies another way.
template <std::size_t Bytes>
bool launch_parameter_copy(std::byte* dst, const void* src, std::size_t bytes,
                           cudaStream_t stream) {
  // On the heap for the launch's duration (up to 32 KB: too much for some threads' stacks, and
  // thread-local storage would keep it in every thread).
  const std::unique_ptr<Payload<Bytes>> payload(new Payload<Bytes>); // not zeroed: bytes only
  std::memcpy(payload->bytes, src, bytes);
  constexpr unsigned threads = 256;
  const auto words = static_cast<unsigned>((bytes + 15) / 16);
  parameter_copy_kernel<Bytes><<<(words + threads - 1) / threads, threads, 0, stream>>>(
      dst, bytes, *payload);
  const cudaError_t e = cudaGetLastError();
  if (e == cudaErrorInvalidValue || e == cudaErrorNotSupported)
    return false;
  LADDER_CUDA(e);
  return true;
}

bool parameter_copy(std::byte* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes <= 256)
    return launch_parameter_copy<256>(dst, src, bytes, stream);
  if (bytes <= 1024)
    return launch_parameter_copy<1024>(dst, src, bytes, stream);
  if (bytes <= 4096)
    return launch_parameter_copy<4096>(dst, src, bytes, stream);
  if (bytes <= 16384)
    return launch_parameter_copy<16384>(dst, src, bytes, stream);
  return launch_parameter_copy<parameter_copy_max_bytes>(dst, src, bytes, stream);
}

// --- checks -------------------------------------------------------------------------------------

cudaMemoryType memory_type(const void* p) {
  cudaPointerAttributes attributes{};
  LADDER_CUDA(cudaPointerGetAttributes(&attributes, p));
  return attributes.type;
}

HostMemory classify(const void* first, std::size_t bytes) {
  const auto type_of = [](cudaMemoryType t) {
    switch (t) {
    case cudaMemoryTypeHost:
      return HostMemory::pinned;
    case cudaMemoryTypeDevice:
      return HostMemory::device;
    case cudaMemoryTypeManaged:
      return HostMemory::managed;
    default:
      return HostMemory::pageable;
    }
  };
  const HostMemory head = type_of(memory_type(first));
  if (bytes == 1 || head == HostMemory::pageable)
    return head;
  // A range that begins in pinned memory may end past the pinned allocation (a partly registered
  // buffer): only a range pinned at both ends goes straight to the copy engine.
  const HostMemory tail = type_of(memory_type(static_cast<const std::byte*>(first) + bytes - 1));
  return tail == head ? head : HostMemory::partly_pinned;
}

void check_stream(const char* call, cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  LADDER_CUDA(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone)
    throw std::invalid_argument(std::string(call) +
                                ": stream is being captured into a CUDA graph; this call waits "
                                "for its copy as cudaMemcpy does, which capture forbids (capture "
                                "cudaMemcpyAsync from pinned memory instead)");
}

// Blocks until the work enqueued on `stream` so far (our copy last) is done.
void wait_for(cudaStream_t stream) {
  cudaEvent_t event = nullptr;
  LADDER_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  const cudaError_t recorded = cudaEventRecord(event, stream);
  const cudaError_t waited = recorded == cudaSuccess ? cudaEventSynchronize(event) : recorded;
  cudaEventDestroy(event);
  LADDER_CUDA(waited);
}

Path copy(bool to_device, void* dst, const void* src, std::size_t bytes, cudaStream_t stream,
          const StagingConfig& config) {
  const char* call = to_device ? "ladder::copy_to_device" : "ladder::copy_to_host";
  if (bytes == 0)
    return Path::none;
  const char* dst_name = to_device ? "dst_device" : "dst_host";
  const char* src_name = to_device ? "src_host" : "src_device";
  if (dst == nullptr)
    throw std::invalid_argument(std::string(call) + ": " + dst_name +
                                " is null with bytes = " + std::to_string(bytes));
  if (src == nullptr)
    throw std::invalid_argument(std::string(call) + ": " + src_name +
                                " is null with bytes = " + std::to_string(bytes));
  const void* host = to_device ? src : dst;
  const void* device = to_device ? dst : src;
  const char* host_name = to_device ? src_name : dst_name;
  const char* device_name = to_device ? dst_name : src_name;
  const HostMemory host_kind = classify(host, bytes);
  if (host_kind == HostMemory::device)
    throw std::invalid_argument(std::string(call) + ": " + host_name +
                                " is device memory; it must be host memory (for a copy between "
                                "two device buffers use cudaMemcpyAsync)");
  const cudaMemoryType device_kind = memory_type(device);
  if (device_kind != cudaMemoryTypeDevice && device_kind != cudaMemoryTypeManaged)
    throw std::invalid_argument(std::string(call) + ": " + device_name +
                                " is host memory; it must be device memory (from cudaMalloc, "
                                "cudaMallocAsync or cudaMallocManaged)");
  check_stream(call, stream);

  Path path = choose_path(bytes, host_kind, config, to_device);
  const cudaMemcpyKind kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  switch (path) {
  case Path::none:
    break;
  case Path::pinned:
    // The copy engine reads or writes the host memory directly; wait so that the caller may
    // reuse or read it.
    LADDER_CUDA(cudaMemcpyAsync(
        dst, src, bytes, host_kind == HostMemory::managed ? cudaMemcpyDefault : kind, stream));
    wait_for(stream);
    break;
  case Path::direct:
    // Pageable: the driver stages it. From the host it returns once the source is in the
    // driver's staging buffer (so it may be reused), to the host once the copy is done (CUDA's
    // "API synchronization behavior"): cudaMemcpy's semantics with no wait of ours on top.
    // The head was pageable; a range that runs on into registered memory is refused by the driver
    // (invalid value, nothing enqueued): stage it instead of checking the tail of every copy.
    if (const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, stream);
        e == cudaErrorInvalidValue) {
      (void)cudaGetLastError();
      engine().copy(to_device, static_cast<std::byte*>(const_cast<void*>(device)),
                    static_cast<std::byte*>(const_cast<void*>(host)), bytes, stream, config);
      path = Path::staged;
    } else {
      LADDER_CUDA(e);
    }
    break;
  case Path::staged:
    engine().copy(to_device, static_cast<std::byte*>(const_cast<void*>(device)),
                  static_cast<std::byte*>(const_cast<void*>(host)), bytes, stream, config);
    break;
  case Path::parameters:
    // The launch carries the bytes (the source may be reused once it returns) and the kernel is
    // ordered on the stream: cudaMemcpy's semantics without its staging copy and wait. Refused
    // (an old device or driver): the direct path.
    if (!parameter_copy(static_cast<std::byte*>(dst), src, bytes, stream)) {
      LADDER_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, stream));
      path = Path::direct;
    }
    break;
  }
  return path;
}

} // namespace

Path copy_to_device_with(void* dst_device, const void* src_host, std::size_t bytes,
                         cudaStream_t stream, const StagingConfig& config) {
  return copy(true, dst_device, src_host, bytes, stream, config);
}

Path copy_to_host_with(void* dst_host, const void* src_device, std::size_t bytes,
                       cudaStream_t stream, const StagingConfig& config) {
  return copy(false, dst_host, src_device, bytes, stream, config);
}

int staging_pool_threads() { return pool_threads(std::thread::hardware_concurrency()); }

} // namespace ladder::transfers

namespace ladder {

void copy_to_device(void* dst_device, const void* src_host, std::size_t bytes,
                    cudaStream_t stream) {
  transfers::copy_to_device_with(dst_device, src_host, bytes, stream, {});
}

void copy_to_host(void* dst_host, const void* src_device, std::size_t bytes, cudaStream_t stream) {
  transfers::copy_to_host_with(dst_host, src_device, bytes, stream, {});
}

} // namespace ladder
