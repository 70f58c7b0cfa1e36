// Each ladder call beside its vendor call, from a program that knows ladder only through its
// installed package: the figure a user sees. For every case both calls are checked against each
// other first (bit for bit on integers and on transposes), then timed with CUDA events in both
// orders (ladder first, then vendor first; a warm-up of each before), and the medians compared.
//   outside_benchmark [--reps N]
// Exits 77 without a GPU, 1 when any pair disagrees.
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
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

int reps = 50;
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

// Both orders, a warm-up of each first; prints one line.
void compare(const std::string& what, const std::string& vendor, const std::function<void()>& ours,
             const std::function<void()>& theirs, bool agree, cudaStream_t stream) {
  all_agree = all_agree && agree;
  ours();
  theirs();
  const double ours_first = median_ms(ours, stream), theirs_second = median_ms(theirs, stream);
  const double theirs_first = median_ms(theirs, stream), ours_second = median_ms(ours, stream);
  const double ladder_ms = std::min(ours_first, ours_second),
               vendor_ms = std::min(theirs_first, theirs_second);
  std::printf("%-44s %-28s %10.4f %10.4f %7.3f %s\n", what.c_str(), vendor.c_str(), ladder_ms,
              vendor_ms, vendor_ms / ladder_ms, agree ? "ok" : "DISAGREE");
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
                    cudaStream_t stream) {
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
              std::to_string(rows) + " x " + std::to_string(cols),
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

} // namespace

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--reps") == 0)
      reps = std::max(1, std::atoi(argv[i + 1]));
  if (ladder::device_count() == 0) {
    std::puts("outside_benchmark: no CUDA device");
    return 77;
  }
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cublasHandle_t blas = nullptr;
  check(cublasCreate(&blas), "cublasCreate");
  std::printf("%-44s %-28s %10s %10s %7s\n", "call", "vendor", "ladder ms", "vendor ms", "x vend");
  transpose_case<float>(blas, 16384, 16384, stream);
  transpose_case<double>(blas, 8192, 16384, stream);
  for (std::int64_t n : {std::int64_t{1} << 20, std::int64_t{1} << 28})
    reduce_case(n, stream);
  for (std::int64_t n : {std::int64_t{1} << 20, std::int64_t{1} << 28}) {
    scan_case(n, 0, stream);
    scan_case(n, 1, stream);
  }
  compact_case(std::int64_t{1} << 28, stream);
  std::puts("median of each order, the faster order kept; x vend = vendor ms / ladder ms (above 1: "
            "ladder faster)");
  cublasDestroy(blas);
  cudaStreamDestroy(stream);
  return all_agree ? 0 : 1;
}
