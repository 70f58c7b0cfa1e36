// A CUDA consumer of the installed package: every public header from a .cu file, and the calls
// that need nvcc (ladder::compact with a device functor) beside the others. Exits 77 without a GPU.
#include <ladder/device.hpp>
#include <ladder/error.hpp>
#include <ladder/models.hpp>
#include <ladder/reduce.hpp>
#include <ladder/scan.hpp>
#include <ladder/transpose.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

struct IsOdd {
  __device__ bool operator()(int x) const { return (x & 1) != 0; }
};

int main() {
  if (ladder::device_count() == 0) {
    std::printf("consumer_cuda (C++%ld): built and linked; no CUDA device to run on\n",
                __cplusplus / 100 % 100);
    return 77;
  }
  const int n = 1000;
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i)
    host[i] = i;
  int *in = nullptr, *out = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&in), n * sizeof(int));
  cudaMalloc(reinterpret_cast<void**>(&out), n * sizeof(int));
  cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  const std::int64_t kept = ladder::compact(in, out, n, IsOdd{});
  std::vector<int> got(static_cast<std::size_t>(kept));
  cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost);
  bool right = kept == n / 2;
  for (std::int64_t i = 0; right && i < kept; ++i)
    right = got[static_cast<std::size_t>(i)] == 2 * i + 1;
  ladder::exclusive_scan(in, out, n);
  std::vector<int> scanned(n);
  cudaMemcpy(scanned.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost);
  right = right && scanned[n - 1] == (n - 1) * (n - 2) / 2;
  right = right && ladder::reduce(in, n, ladder::Op::sum) == n * (n - 1) / 2;
  cudaFree(in);
  cudaFree(out);
  std::printf("consumer_cuda: compact, exclusive_scan and reduce from a .cu file %s\n",
              right ? "work" : "are WRONG");
  return right ? 0 : 1;
}
