// Which 2D access shapes stream at cudaMemcpy's rate (the convolution study's lead to its
// lane-halo kernel): an 8192^2 float image copied by tiles of TW x TH (256 threads, RY rows a
// thread, every load issued before the first store), with HALO extra rows read above and below
// and added in (a 3 x 3 convolution's vertical halo), against cudaMemcpy and linear copies.
// Build: cmake -DLADDER_BUILD_TUNING=ON, target ladder_copy_shapes (no arguments).
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
constexpr int N = 8192;
__global__ void linear_copy(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}
template <int TW, int RY, int HALO>
__global__ void __launch_bounds__(256) tile_copy(const float* __restrict__ in, float* __restrict__ out) {
  constexpr int cols = TW / 4, groups = 256 / cols, TH = groups * RY;
  const int c = threadIdx.x % cols, g = threadIdx.x / cols;
  const int x = blockIdx.x * TW + 4 * c;
  const int y0 = blockIdx.y * TH + g * RY;
  float4 v[RY + 2 * HALO];
#pragma unroll
  for (int r = 0; r < RY + 2 * HALO; ++r) {
    int y = y0 + r - HALO;
    y = y < 0 ? 0 : y >= N ? N - 1 : y;
    v[r] = *reinterpret_cast<const float4*>(in + (size_t)y * N + x);
  }
#pragma unroll
  for (int r = 0; r < RY; ++r) {
    float4 o = v[r + HALO];
    if (HALO) { o.x += v[r].x + v[r + 2].x; o.y += v[r].y + v[r + 2].y; o.z += v[r].z + v[r + 2].z; o.w += v[r].w + v[r + 2].w; }
    *reinterpret_cast<float4*>(out + (size_t)(y0 + r) * N + x) = o;
  }
}
template <class F> float time_it(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int i = 0; i < 3; ++i) f();
  for (int i = 0; i < 25; ++i) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
template <int TW, int RY, int HALO> void shape(const float* in, float* out, float copy) {
  constexpr int cols = TW / 4, TH = 256 / cols * RY;
  dim3 grid(N / TW, N / TH);
  float us = time_it([&] { tile_copy<TW, RY, HALO><<<grid, 256>>>(in, out); });
  printf("tile %5d x %3d (ry %2d) halo %d: %8.1f us  x copy %.3f\n", TW, TH, RY, HALO, us, us / copy);
}
int main() {
  size_t bytes = (size_t)N * N * 4;
  float *in, *out; cudaMalloc(&in, bytes); cudaMalloc(&out, bytes); cudaMemset(in, 0, bytes); cudaMemset(out, 0, bytes);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float copy = time_it([&] { cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice); });
  printf("cudaMemcpy: %.1f us (%.0f GB/s)\n", copy, 2.0 * bytes / copy / 1e3);
  for (int bps : {4, 8, 16, 64}) {
    float us = time_it([&] { linear_copy<<<sms * bps, 256>>>((const float4*)in, (float4*)out, bytes / 16); });
    printf("linear grid-stride (%d blocks/SM): %.1f us  x copy %.3f\n", bps, us, us / copy);
  }
  float us = time_it([&] { linear_copy<<<bytes / 16 / 256, 256>>>((const float4*)in, (float4*)out, bytes / 16); });
  printf("linear one float4 a thread: %.1f us  x copy %.3f\n", us, us / copy);
  shape<128, 4, 0>(in, out, copy); shape<128, 4, 1>(in, out, copy);
  shape<128, 8, 0>(in, out, copy); shape<128, 8, 1>(in, out, copy);
  shape<256, 8, 0>(in, out, copy); shape<256, 8, 1>(in, out, copy);
  shape<512, 8, 0>(in, out, copy); shape<512, 8, 1>(in, out, copy);
  shape<1024, 4, 0>(in, out, copy); shape<1024, 4, 1>(in, out, copy);
  shape<1024, 8, 0>(in, out, copy); shape<1024, 8, 1>(in, out, copy);
  shape<1024, 16, 0>(in, out, copy); shape<1024, 16, 1>(in, out, copy);
  shape<1024, 32, 1>(in, out, copy);
  cudaError_t e = cudaDeviceSynchronize();
  printf("status: %s\n", cudaGetErrorString(e));
}
