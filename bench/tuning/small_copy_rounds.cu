// Small pageable host-to-device copies, 4 KiB .. 1 MiB: ladder::copy_to_device against cudaMemcpy
// and the cudaMemcpyAsync calls it could make (a non-blocking stream, the legacy stream, a blocking
// stream; stream or event waits), and a pinned cudaMemcpy. Each round times one call of every
// method in rotating order, as the lab's size sweep does, so that the host's slow phases fall on
// all of them alike; medians and the 10th and 90th percentiles in microseconds, host clock, call to
// copy done. Usage: ladder_small_copy_rounds [ROUNDS]. Results:
// bench/results/transfers-small-copy-rounds-*.txt.
#include <ladder/transfer.hpp>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
// The first error any timed call returned (a failed copy must not pass as a fast one).
static cudaError_t first_error = cudaSuccess;
static void note(cudaError_t e) {
  if (first_error == cudaSuccess) first_error = e;
}
int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 400;
  if (rounds < 1) { std::printf("usage: ladder_small_copy_rounds [ROUNDS >= 1]\n"); return 1; }
  std::vector<size_t> sizes = {4096, 16384, 32768, 49152, 65536, 65540, 98304, 131072, 262144, 1 << 20};
  const size_t maxb = 1 << 20;
  std::vector<unsigned char> pageable(maxb, 7);
  unsigned char* pinned; CK(cudaMallocHost(&pinned, maxb));
  std::memset(pinned, 7, maxb);
  unsigned char* dst; CK(cudaMalloc(&dst, maxb));
  cudaStream_t nb, bl; CK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking)); CK(cudaStreamCreate(&bl));
  const char* names[] = {"ladder nb", "cudaMemcpy", "Async nb", "Async legacy", "Async blocking", "pinned cudaMemcpy", "Async nb, event wait"};
  const int methods = 7;
  for (size_t n : sizes) {
    std::vector<std::function<void()>> ops = {
      [&] { ladder::copy_to_device(dst, pageable.data(), n, nb); note(cudaStreamSynchronize(nb)); },
      [&] { note(cudaMemcpy(dst, pageable.data(), n, cudaMemcpyHostToDevice)); note(cudaStreamSynchronize(cudaStreamLegacy)); },
      [&] { note(cudaMemcpyAsync(dst, pageable.data(), n, cudaMemcpyHostToDevice, nb)); note(cudaStreamSynchronize(nb)); },
      [&] { note(cudaMemcpyAsync(dst, pageable.data(), n, cudaMemcpyHostToDevice, cudaStreamLegacy)); note(cudaStreamSynchronize(cudaStreamLegacy)); },
      [&] { note(cudaMemcpyAsync(dst, pageable.data(), n, cudaMemcpyHostToDevice, bl)); note(cudaStreamSynchronize(bl)); },
      [&] { note(cudaMemcpy(dst, pinned, n, cudaMemcpyHostToDevice)); note(cudaStreamSynchronize(cudaStreamLegacy)); },
      [&] { cudaEvent_t e; note(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); note(cudaMemcpyAsync(dst, pageable.data(), n, cudaMemcpyHostToDevice, nb)); note(cudaEventRecord(e, nb)); note(cudaEventSynchronize(e)); note(cudaEventDestroy(e)); },
    };
    std::vector<std::vector<double>> t(methods);
    for (int w = 0; w < 20; ++w) for (auto& op : ops) op();
    for (int r = 0; r < rounds; ++r)
      for (int i = 0; i < methods; ++i) {
        const int m = (i + r) % methods;
        auto t0 = std::chrono::steady_clock::now();
        ops[m]();
        t[m].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      }
    std::printf("%8zu B:", n);
    for (int m = 0; m < methods; ++m) {
      auto& v = t[m]; std::sort(v.begin(), v.end());
      std::printf("  %s %.2f [%.2f %.2f]", names[m], v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]);
    }
    std::printf("\n");
  }
  CK(first_error);
  CK(cudaGetLastError());
  return 0;
}
