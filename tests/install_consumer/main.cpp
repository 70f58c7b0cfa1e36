// Transposes a 3 x 5 matrix through the installed library from a plain C++ file (every public header
// that needs no nvcc included); exits 77 without a GPU.
#include <ladder/device.hpp>
#include <ladder/error.hpp>
#include <ladder/models.hpp>
#include <ladder/reduce.hpp>
#include <ladder/scan.hpp>
#include <ladder/transpose.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

int main() {
  if (ladder::device_count() == 0) {
    std::puts("consumer: built and linked; no CUDA device to run on");
    return 77;
  }
  const int rows = 3, cols = 5;
  std::vector<float> in(rows * cols), out(rows * cols);
  for (int i = 0; i < rows * cols; ++i)
    in[i] = static_cast<float>(i + 1);
  float *d_in = nullptr, *d_out = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&d_in), in.size() * sizeof(float));
  cudaMalloc(reinterpret_cast<void**>(&d_out), out.size() * sizeof(float));
  cudaMemcpy(d_in, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice);
  ladder::transpose(d_in, d_out, rows, cols);
  cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (out[c * rows + r] != in[r * cols + c]) {
        std::printf("consumer: wrong element at (%d, %d)\n", c, r);
        return 1;
      }
  std::puts("consumer: ladder::transpose through find_package(ladder) works");
  return 0;
}
