// Where the microseconds of a small pageable copy go: cudaMemcpy against cudaMemcpyAsync plus a
// stream synchronize (what an asynchronous call on a stream costs a caller who then waits), and
// each runtime call ladder::copy_to_device makes before its copy (pointer attributes, capture
// status). Host clock, medians of 2000 calls. Results: bench/results/transfers-small-copy-*.txt.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>
using clk = std::chrono::steady_clock;
template <class F> double med_us(F f, int reps = 2000) {
  std::vector<double> t(reps);
  for (int i = 0; i < 50; ++i) f();
  for (int i = 0; i < reps; ++i) { auto a = clk::now(); f(); t[i] = std::chrono::duration<double, std::micro>(clk::now() - a).count(); }
  std::sort(t.begin(), t.end()); return t[reps / 2];
}
int main() {
  cudaFree(0);
  cudaStream_t s; cudaStreamCreate(&s);
  cudaStream_t nb; cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
  for (size_t bytes : {size_t(4), size_t(4096), size_t(16384), size_t(65536)}) {
    std::vector<char> h(bytes, 1), back(bytes);
    void* d; cudaMalloc(&d, bytes);
    printf("%zu B H2D\n", bytes);
    printf("  cudaMemcpy                         %.2f us\n", med_us([&]{ cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice); }));
    printf("  cudaMemcpyAsync(s)+sync(s)         %.2f us\n", med_us([&]{ cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, s); cudaStreamSynchronize(s); }));
    printf("  cudaMemcpyAsync(nb)+sync(nb)       %.2f us\n", med_us([&]{ cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, nb); cudaStreamSynchronize(nb); }));
    printf("  cudaMemcpyAsync(0)+sync(0)         %.2f us\n", med_us([&]{ cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, 0); cudaStreamSynchronize(0); }));
    printf("  cudaMemcpyAsync(s) alone           %.2f us\n", med_us([&]{ cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, s); }));
    cudaStreamSynchronize(s);
    printf("  cudaMemcpy D2H                     %.2f us\n", med_us([&]{ cudaMemcpy(back.data(), d, bytes, cudaMemcpyDeviceToHost); }));
    printf("  cudaMemcpyAsync(s) D2H + sync      %.2f us\n", med_us([&]{ cudaMemcpyAsync(back.data(), d, bytes, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); }));
    cudaFree(d);
  }
  std::vector<char> h(4096); void* d; cudaMalloc(&d, 4096);
  cudaPointerAttributes a;
  printf("cudaPointerGetAttributes(pageable)   %.3f us\n", med_us([&]{ cudaPointerGetAttributes(&a, h.data()); }));
  printf("cudaPointerGetAttributes(device)     %.3f us\n", med_us([&]{ cudaPointerGetAttributes(&a, d); }));
  cudaStreamCaptureStatus c;
  printf("cudaStreamIsCapturing                %.3f us\n", med_us([&]{ cudaStreamIsCapturing(s, &c); }));
  cudaEvent_t e; 
  printf("event create+record+sync+destroy     %.3f us\n", med_us([&]{ cudaEventCreateWithFlags(&e, cudaEventDisableTiming); cudaEventRecord(e, s); cudaEventSynchronize(e); cudaEventDestroy(e); }));
  printf("cudaGetDevice                        %.3f us\n", med_us([&]{ int dv; cudaGetDevice(&dv); }));
}
