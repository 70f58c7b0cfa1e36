// Each ladder call beside its vendor call, from a program that knows ladder only through its
// installed package: the figure a user sees. For every case both calls are checked against each
// other first (bit for bit on integers and on transposes), then timed with CUDA events in both
// orders (ladder first, then vendor first; a warm-up of each before); both orders are printed.
//
// The transposes run twice: in the fresh process, and again after a churn that leaves the process
// the way a long-running service is (8 threads, each with its own stream, thousands of
// allocations and frees of assorted sizes with library calls on them, a share of the allocations
// kept alive). Then the stream churn (streams created, used once, destroyed: device memory must
// stay bounded) and a CUDA graph of several library calls captured on a fresh stream and replayed.
//   outside_benchmark [--reps N] [--churn-rounds N]
// Exits 77 without a GPU, 1 when any pair disagrees or a service check fails.
#include <ladder/device.hpp>
#include <ladder/error.hpp>
#include <ladder/reduce.hpp>
#include <ladder/scan.hpp>
#include <ladder/transpose.hpp>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

int reps = 50;
int churn_rounds = 400;
bool all_agree = true;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "outside_benchmark: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(2);
  }
}

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "outside_benchmark: %s: cuBLAS status %d\n", what,
                 static_cast<int>(status));
    std::exit(2);
  }
}

// Median ms of `reps` launches of `call`, each between a pair of events.
double median_ms(const std::function<void()>& call, cudaStream_t stream) {
  std::vector<cudaEvent_t> events(2 * static_cast<std::size_t>(reps));
  for (auto& e : events)
    check(cudaEventCreate(&e), "cudaEventCreate");
  for (int i = 0; i < reps; ++i) {
    check(cudaEventRecord(events[2 * i], stream), "cudaEventRecord");
    call();
    check(cudaEventRecord(events[2 * i + 1], stream), "cudaEventRecord");
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<double> ms(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    float t = 0;
    check(cudaEventElapsedTime(&t, events[2 * i], events[2 * i + 1]), "cudaEventElapsedTime");
    ms[i] = t;
  }
  for (auto& e : events)
    cudaEventDestroy(e);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Both orders, a warm-up of each first; prints one line with both (not the faster one).
void compare(const std::string& what, const std::string& vendor, const std::function<void()>& ours,
             const std::function<void()>& theirs, bool agree, cudaStream_t stream) {
  all_agree = all_agree && agree;
  ours();
  theirs();
  const double ours_first = median_ms(ours, stream), theirs_second = median_ms(theirs, stream);
  const double theirs_first = median_ms(theirs, stream), ours_second = median_ms(ours, stream);
  std::printf("%-50s %-26s %9.4f %9.4f %6.3f | %9.4f %9.4f %6.3f %s\n", what.c_str(),
              vendor.c_str(), ours_first, theirs_second, theirs_second / ours_first, ours_second,
              theirs_first, theirs_first / ours_second, agree ? "ok" : "DISAGREE");
}

template <class T> std::vector<T> download(const T* device, std::size_t n) {
  std::vector<T> host(n);
  check(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
  return host;
}

template <class T> T* device_random(std::size_t n, unsigned seed) {
  std::vector<T> host(n);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& v : host) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    if constexpr (std::is_floating_point_v<T>)
      v = static_cast<T>(static_cast<double>(x % 2000001) / 1000000.0 - 1.0);
    else
      v = static_cast<T>(static_cast<std::int64_t>(x % 2001) - 1000);
  }
  T* device = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&device), (n + 4) * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(device, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
  return device;
}

struct Odd {
  __device__ bool operator()(int x) const { return (x & 1) != 0; }
};

template <class T>
void transpose_case(cublasHandle_t blas, std::int64_t rows, std::int64_t cols,
                    cudaStream_t stream, const char* when) {
  const auto n = static_cast<std::size_t>(rows * cols);
  T* in = device_random<T>(n, 1);
  T *ours = nullptr, *theirs = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&ours), n * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&theirs), n * sizeof(T)), "cudaMalloc");
  const T one = 1, zero = 0;
  check(cublasSetStream(blas, stream), "cublasSetStream");
  const auto geam = [&] {
    if constexpr (std::is_same_v<T, float>)
      check(cublasSgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(rows),
                        static_cast<int>(cols), &one, in, static_cast<int>(cols), &zero, theirs,
                        static_cast<int>(rows), theirs, static_cast<int>(rows)),
            "cublasSgeam");
    else
      check(cublasDgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(rows),
                        static_cast<int>(cols), &one, in, static_cast<int>(cols), &zero, theirs,
                        static_cast<int>(rows), theirs, static_cast<int>(rows)),
            "cublasDgeam");
  };
  const auto lib = [&] { ladder::transpose(in, ours, rows, cols, stream); };
  lib();
  geam();
  check(cudaStreamSynchronize(stream), "transpose");
  const bool agree = download(ours, n) == download(theirs, n);
  compare("transpose<" + std::string(sizeof(T) == 4 ? "float" : "double") + "> " +
              std::to_string(rows) + " x " + std::to_string(cols) + ", " + when,
          sizeof(T) == 4 ? "cublasSgeam" : "cublasDgeam", lib, geam, agree, stream);
  cudaFree(in);
  cudaFree(ours);
  cudaFree(theirs);
}

void reduce_case(std::int64_t n, cudaStream_t stream) {
  int* in = device_random<int>(static_cast<std::size_t>(n), 2);
  int *ours = nullptr, *theirs = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&ours), sizeof(int)), "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&theirs), sizeof(int)), "cudaMalloc");
  std::size_t temp_bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, theirs, n, stream), "cub sizing");
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  const auto lib = [&] { ladder::reduce(in, n, ladder::Op::sum, ours, stream); };
  const auto cub_call = [&] {
    check(cub::DeviceReduce::Sum(temp, temp_bytes, in, theirs, n, stream), "cub");
  };
  lib();
  cub_call();
  check(cudaStreamSynchronize(stream), "reduce");
  compare("reduce<int32> sum n = " + std::to_string(n), "cub::DeviceReduce::Sum", lib, cub_call,
          download(ours, 1) == download(theirs, 1), stream);
  cudaFree(in);
  cudaFree(ours);
  cudaFree(theirs);
  cudaFree(temp);
}

void scan_case(std::int64_t n, int offset, cudaStream_t stream) {
  int* base = device_random<int>(static_cast<std::size_t>(n) + 4, 3);
  int *ours_base = nullptr, *theirs = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&ours_base),
                   (static_cast<std::size_t>(n) + 4) * sizeof(int)),
        "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&theirs), static_cast<std::size_t>(n) * sizeof(int)),
        "cudaMalloc");
  const int* in = base + offset;
  int* ours = ours_base + offset;
  std::size_t temp_bytes = 0;
  check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, theirs, n, stream), "cub sizing");
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  const auto lib = [&] { ladder::exclusive_scan(in, ours, n, stream); };
  const auto cub_call = [&] {
    check(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, theirs, n, stream), "cub");
  };
  lib();
  cub_call();
  check(cudaStreamSynchronize(stream), "scan");
  compare(
      "exclusive_scan<int32> n = " + std::to_string(n) + (offset ? ", pointers + 1 element" : ""),
      "cub::DeviceScan::ExclusiveSum", lib, cub_call,
      download(ours, static_cast<std::size_t>(n)) == download(theirs, static_cast<std::size_t>(n)),
      stream);
  cudaFree(base);
  cudaFree(ours_base);
  cudaFree(theirs);
  cudaFree(temp);
}

void compact_case(std::int64_t n, cudaStream_t stream) {
  int* in = device_random<int>(static_cast<std::size_t>(n), 4);
  int *ours = nullptr, *theirs = nullptr;
  std::int64_t* ours_count = nullptr;
  int* theirs_count = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&ours), static_cast<std::size_t>(n) * sizeof(int)),
        "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&theirs), static_cast<std::size_t>(n) * sizeof(int)),
        "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&ours_count), sizeof(std::int64_t)), "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&theirs_count), sizeof(int)), "cudaMalloc");
  std::size_t temp_bytes = 0;
  check(cub::DeviceSelect::If(nullptr, temp_bytes, in, theirs, theirs_count, n, Odd{}, stream),
        "cub sizing");
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  const auto lib = [&] { ladder::compact_async(in, ours, n, Odd{}, ours_count, stream); };
  const auto cub_call = [&] {
    check(cub::DeviceSelect::If(temp, temp_bytes, in, theirs, theirs_count, n, Odd{}, stream),
          "cub");
  };
  lib();
  cub_call();
  check(cudaStreamSynchronize(stream), "compact");
  const auto kept = download(ours_count, 1)[0];
  const bool agree =
      kept == download(theirs_count, 1)[0] && download(ours, static_cast<std::size_t>(kept)) ==
                                                  download(theirs, static_cast<std::size_t>(kept));
  compare("compact<int32> keep odd n = " + std::to_string(n), "cub::DeviceSelect::If", lib,
          cub_call, agree, stream);
  cudaFree(in);
  cudaFree(ours);
  cudaFree(theirs);
  cudaFree(ours_count);
  cudaFree(theirs_count);
  cudaFree(temp);
}

// A long-running service's history: 8 threads, each with its own stream, allocating and freeing
// buffers of assorted sizes (cudaMalloc and stream-ordered), running library calls on them, and
// keeping about one allocation in eight alive until the end, so later allocations land between
// them. Returns the kept allocations (freed by the caller after the measurements).
std::vector<void*> churn_allocations() {
  constexpr int threads = 8;
  std::vector<std::vector<void*>> kept(threads);
  std::atomic<bool> failed{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([t, &kept, &failed] {
      cudaStream_t stream = nullptr;
      if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        failed = true;
        return;
      }
      std::mt19937_64 rng(1234 + t);
      try {
        for (int i = 0; i < churn_rounds; ++i) {
          // 4 KiB .. 64 MiB, log-uniform.
          const std::size_t bytes = std::size_t{4096} << (rng() % 15);
          const std::size_t floats = bytes / sizeof(float);
          void* a = nullptr;
          void* b = nullptr;
          const bool async = rng() % 2 == 0;
          if (async) {
            check(cudaMallocAsync(&a, bytes, stream), "cudaMallocAsync");
            check(cudaMallocAsync(&b, bytes, stream), "cudaMallocAsync");
          } else {
            check(cudaMalloc(&a, bytes), "cudaMalloc");
            check(cudaMalloc(&b, bytes), "cudaMalloc");
          }
          check(cudaMemsetAsync(a, 0x3c, bytes, stream), "cudaMemsetAsync");
          const auto rows = static_cast<std::int64_t>(1) << (rng() % 6 + 2);
          ladder::transpose(static_cast<const float*>(a), static_cast<float*>(b), rows,
                            static_cast<std::int64_t>(floats) / rows, stream);
          ladder::inclusive_scan(static_cast<const int*>(a), static_cast<int*>(b),
                                 static_cast<std::int64_t>(floats), stream);
          ladder::reduce(static_cast<const int*>(a), static_cast<std::int64_t>(floats),
                         ladder::Op::sum, static_cast<int*>(b), stream);
          if (i % 8 == 3) {
            check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
            kept[t].push_back(async ? nullptr : a); // a stream-ordered one goes back below
            if (async)
              check(cudaFreeAsync(a, stream), "cudaFreeAsync");
          } else if (async) {
            check(cudaFreeAsync(a, stream), "cudaFreeAsync");
          } else {
            check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
            check(cudaFree(a), "cudaFree");
          }
          if (async) {
            check(cudaFreeAsync(b, stream), "cudaFreeAsync");
          } else {
            check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
            check(cudaFree(b), "cudaFree");
          }
        }
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      } catch (const std::exception& e) {
        std::fprintf(stderr, "churn thread %d: %s\n", t, e.what());
        failed = true;
      }
      cudaStreamDestroy(stream);
    });
  for (auto& w : workers)
    w.join();
  if (failed)
    all_agree = false;
  std::vector<void*> all;
  for (auto& k : kept)
    for (void* p : k)
      if (p)
        all.push_back(p);
  return all;
}

std::size_t device_bytes_in_use() {
  std::size_t free = 0, total = 0;
  check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  return total - free;
}

// Streams created, used for one ladder::reduce and one ladder::inclusive_scan, destroyed: what a
// service that makes a stream per request does. Device memory must not grow with the count.
void stream_churn(int streams) {
  constexpr std::int64_t n = std::int64_t{1} << 20;
  int* in = device_random<int>(static_cast<std::size_t>(n), 5);
  int* out = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&out), n * sizeof(int)), "cudaMalloc");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const std::size_t before = device_bytes_in_use();
  for (int i = 0; i < streams; ++i) {
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    ladder::reduce(in, n, ladder::Op::sum, out, s);
    ladder::inclusive_scan(in, out, n, s);
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    check(cudaStreamDestroy(s), "cudaStreamDestroy");
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const std::size_t after = device_bytes_in_use();
  const double grown_mib = (static_cast<double>(after) - static_cast<double>(before)) / (1 << 20);
  const bool bounded = grown_mib < 16;
  all_agree = all_agree && bounded;
  std::printf("stream churn: %d streams, each a reduce and an inclusive scan of 2^20 int32: device "
              "memory in use grew %.1f MiB (%s)\n",
              streams, grown_mib, bounded ? "bounded, ok" : "GROWS");
  cudaFree(in);
  cudaFree(out);
}

// ladder::reduce then ladder::inclusive_scan then ladder::exclusive_scan captured into one graph
// on a fresh stream (its first calls), replayed with fresh inputs, compared with CUB each time.
void captured_graph(int replays) {
  constexpr std::int64_t n = (std::int64_t{1} << 22) + 3;
  int* in = device_random<int>(static_cast<std::size_t>(n), 6);
  int *sum = nullptr, *inclusive = nullptr, *exclusive = nullptr, *expected = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&sum), sizeof(int)), "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&inclusive), n * sizeof(int)), "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&exclusive), n * sizeof(int)), "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&expected), n * sizeof(int)), "cudaMalloc");
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaGraph_t graph = nullptr;
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  ladder::reduce(in, n, ladder::Op::sum, sum, s);
  ladder::inclusive_scan(in, inclusive, n, s);
  ladder::exclusive_scan(in, exclusive, n, s);
  check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  std::size_t temp_bytes = 0;
  check(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, expected, n, s), "cub sizing");
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  bool ok = true;
  for (int r = 0; r < replays; ++r) {
    int* fresh = device_random<int>(static_cast<std::size_t>(n), 100 + r);
    check(cudaMemcpyAsync(in, fresh, n * sizeof(int), cudaMemcpyDeviceToDevice, s), "copy");
    check(cudaGraphLaunch(exec, s), "cudaGraphLaunch");
    check(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, expected, n, s), "cub");
    check(cudaStreamSynchronize(s), "replay");
    const auto want = download(expected, static_cast<std::size_t>(n));
    const auto got_inclusive = download(inclusive, static_cast<std::size_t>(n));
    const auto got_exclusive = download(exclusive, static_cast<std::size_t>(n));
    ok = ok && got_inclusive == want && download(sum, 1)[0] == want.back() &&
         got_exclusive[0] == 0 &&
         std::equal(want.begin(), want.end() - 1, got_exclusive.begin() + 1);
    cudaFree(fresh);
  }
  all_agree = all_agree && ok;
  std::printf("graph: reduce + inclusive_scan + exclusive_scan of %lld int32 captured on a fresh "
              "stream, %d replays with fresh inputs against CUB: %s\n",
              static_cast<long long>(n), replays, ok ? "ok" : "WRONG");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  for (void* p : {static_cast<void*>(in), static_cast<void*>(sum), static_cast<void*>(inclusive),
                  static_cast<void*>(exclusive), static_cast<void*>(expected), temp})
    cudaFree(p);
}

} // namespace

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0)
      reps = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--churn-rounds") == 0)
      churn_rounds = std::max(0, std::atoi(argv[i + 1]));
  }
  if (ladder::device_count() == 0) {
    std::puts("outside_benchmark: no CUDA device");
    return 77;
  }
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cublasHandle_t blas = nullptr;
  check(cublasCreate(&blas), "cublasCreate");
  std::printf("%-50s %-26s %29s | %29s\n", "", "", "ladder first, then vendor",
              "vendor first, then ladder");
  std::printf("%-50s %-26s %9s %9s %6s | %9s %9s %6s\n", "call", "vendor", "ladder ms",
              "vendor ms", "x vend", "ladder ms", "vendor ms", "x vend");
  transpose_case<float>(blas, 16384, 16384, stream, "fresh process");
  transpose_case<double>(blas, 8192, 16384, stream, "fresh process");
  const std::vector<void*> kept = churn_allocations();
  transpose_case<float>(blas, 16384, 16384, stream, "after the churn");
  transpose_case<double>(blas, 8192, 16384, stream, "after the churn");
  for (std::int64_t n : {std::int64_t{1} << 20, std::int64_t{1} << 28})
    reduce_case(n, stream);
  for (std::int64_t n : {std::int64_t{1} << 20, std::int64_t{1} << 28}) {
    scan_case(n, 0, stream);
    scan_case(n, 1, stream);
  }
  compact_case(std::int64_t{1} << 28, stream);
  for (void* p : kept)
    cudaFree(p);
  std::printf("medians of %d launches in each order; x vend = vendor ms / ladder ms (above 1: "
              "ladder faster); the churn: 8 threads x %d rounds of allocations and library calls\n",
              reps, churn_rounds);
  stream_churn(4000);
  captured_graph(5);
  cublasDestroy(blas);
  cudaStreamDestroy(stream);
  return all_agree ? 0 : 1;
}
