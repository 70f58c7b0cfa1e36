#include "core/harness.hpp"

#include "ladder/device.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

namespace ladder::lab {

namespace {

// Scratch buffer written before cold samples; sized from the device's L2 once.
DeviceBuffer<std::uint8_t>& l2_flush_buffer() {
  static DeviceBuffer<std::uint8_t> buffer = [] {
    auto info = current_device_info();
    return DeviceBuffer<std::uint8_t>(
        static_cast<std::size_t>(std::max<std::int64_t>(info.l2_bytes, 1) * 2));
  }();
  return buffer;
}

struct EventPair {
  cudaEvent_t start{}, stop{};
  EventPair() {
    LADDER_CUDA(cudaEventCreate(&start));
    LADDER_CUDA(cudaEventCreate(&stop));
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
};

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
__global__ void fill_random_kernel(T* data, std::int64_t n, std::uint64_t seed, double lo,
                                   double hi) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    const std::uint64_t bits = splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(i)));
    if constexpr (std::is_floating_point_v<T>) {
      // 53 random bits -> [0, 1); zero is replaced by the middle of the range or by hi's side.
      const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;
      T v = static_cast<T>(lo + (hi - lo) * u);
      if (v == T(0))
        v = static_cast<T>(hi > 0 ? hi * 0.5 : lo * 0.5);
      data[i] = v;
    } else {
      const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
      auto v = static_cast<std::int64_t>(lo) + static_cast<std::int64_t>(bits % span);
      if (v == 0)
        v = hi >= 1 ? 1 : -1;
      data[i] = static_cast<T>(v);
    }
  }
}

} // namespace

void check_launch(const char* what) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    detail::throw_on_cuda_error(status, what, __FILE__, __LINE__);
}

Measurement time_launches(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream,
                          const TimingOptions& options, int ops_per_launch) {
  auto flush = [&] {
    if (options.flush_l2) {
      auto& scratch = l2_flush_buffer();
      LADDER_CUDA(cudaMemsetAsync(scratch.data(), 0x5A, scratch.bytes(), stream));
    }
  };
  for (int i = 0; i < options.warmups; ++i) {
    flush();
    launch(stream);
  }
  check_launch("warm-up launch");

  int samples = options.repetitions;
  if (samples <= 0) {
    // Estimate one launch from a single timed probe, then fill the budget.
    EventPair probe;
    flush();
    LADDER_CUDA(cudaEventRecord(probe.start, stream));
    launch(stream);
    LADDER_CUDA(cudaEventRecord(probe.stop, stream));
    LADDER_CUDA(cudaEventSynchronize(probe.stop));
    float ms = 0;
    LADDER_CUDA(cudaEventElapsedTime(&ms, probe.start, probe.stop));
    samples = ms > 0 ? static_cast<int>(options.budget_ms / ms) : options.max_samples;
    samples = std::clamp(samples, options.min_samples, options.max_samples);
  }

  std::vector<EventPair> events(static_cast<std::size_t>(samples));
  for (auto& e : events) {
    flush();
    LADDER_CUDA(cudaEventRecord(e.start, stream));
    launch(stream);
    LADDER_CUDA(cudaEventRecord(e.stop, stream));
  }
  check_launch("timed launch");
  LADDER_CUDA(cudaStreamSynchronize(stream));

  std::vector<double> ms(events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    float t = 0;
    LADDER_CUDA(cudaEventElapsedTime(&t, events[i].start, events[i].stop));
    ms[i] = static_cast<double>(t) / ops_per_launch;
  }
  return summarize_samples(std::move(ms));
}

Measurement summarize_samples(std::vector<double> ms) {
  Measurement m;
  if (ms.empty())
    return m;
  std::sort(ms.begin(), ms.end());
  m.samples = static_cast<int>(ms.size());
  m.min_ms = ms.front();
  m.max_ms = ms.back();
  m.median_ms =
      ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  return m;
}

Measurement time_on_host(const std::function<void()>& body) {
  return time_on_host_interleaved({body}).front(); // one body: rounds of one run
}

std::vector<Measurement>
time_on_host_interleaved(const std::vector<std::function<void()>>& bodies) {
  using clock = std::chrono::steady_clock;
  const std::size_t n = bodies.size();
  for (const auto& body : bodies)
    body();
  std::vector<std::vector<double>> ms(n);
  double total = 0; // all bodies together
  for (std::size_t round = 0;
       round < 3 || (total < 300.0 * static_cast<double>(n) && round < 51); ++round) {
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t b = (j + round) % n;
      const auto start = clock::now();
      bodies[b]();
      const double t = std::chrono::duration<double, std::milli>(clock::now() - start).count();
      ms[b].push_back(t);
      total += t;
    }
  }
  std::vector<Measurement> result;
  result.reserve(n);
  for (auto& samples : ms)
    result.push_back(summarize_samples(std::move(samples)));
  return result;
}

template <class T>
void fill_random(T* data, std::int64_t n, std::uint64_t seed, double lo, double hi,
                 cudaStream_t stream) {
  if (n <= 0)
    return;
  const int threads = 256;
  const auto blocks =
      static_cast<unsigned>(std::min<std::int64_t>((n + threads - 1) / threads, 65536));
  fill_random_kernel<T><<<blocks, threads, 0, stream>>>(data, n, seed, lo, hi);
  check_launch("fill_random_kernel");
}

#define LADDER_INSTANTIATE_FILL(T)                                                                 \
  template void fill_random<T>(T*, std::int64_t, std::uint64_t, double, double, cudaStream_t);
LADDER_INSTANTIATE_FILL(float)
LADDER_INSTANTIATE_FILL(double)
LADDER_INSTANTIATE_FILL(std::int32_t)
LADDER_INSTANTIATE_FILL(std::uint32_t)
LADDER_INSTANTIATE_FILL(std::int64_t)
LADDER_INSTANTIATE_FILL(std::uint64_t)
#undef LADDER_INSTANTIATE_FILL

void poison(void* data, std::size_t bytes, cudaStream_t stream) {
  if (bytes > 0)
    LADDER_CUDA(cudaMemsetAsync(data, 0xFF, bytes, stream));
}

std::uint64_t fresh_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

} // namespace ladder::lab
