// Tensor-core MMAs issued beside FP32 FMAs: does an SM run both at once? The float 7 x 7 lead of
// docs/convolution.md ("What 7 x 7 costs"): a convolution whose FMAs alone fill too many issue
// slots could move some mask rows to TF32 MMAs (three each, for FP32 accuracy) if the tensor pipe
// runs beside the FP32 pipe. Each kernel loops over F FFMAs (8 independent chains a thread) and M
// mma.sync.m16n8k8 TF32 MMAs (4 independent accumulators a warp) an iteration, on every SM with
// 8 blocks of 256 threads; the time of F alone, M alone and both together says whether they
// overlap (both ~ the longer) or share (both ~ the sum).
//
// Build: cmake -DLADDER_BUILD_TUNING=ON, target ladder_tensor_beside_fma (or nvcc -std=c++17 -O3
// -arch=sm_90a bench/tuning/tensor_beside_fma.cu; the wgmma rows need sm_90a).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);       \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

template <int F, int M>
__global__ void __launch_bounds__(256) mix(float* out, int iters, float x, float y) {
  float f[8];
#pragma unroll
  for (int c = 0; c < 8; ++c)
    f[c] = threadIdx.x * 0.001f + c;
  float d[4][4] = {};
  unsigned a[4], b[2];
#pragma unroll
  for (int i = 0; i < 4; ++i)
    a[i] = __float_as_uint(1.0f + threadIdx.x * 1e-3f + i);
  b[0] = __float_as_uint(0.5f), b[1] = __float_as_uint(0.25f);
  constexpr int steps = (F / 8 > M ? F / 8 : M);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < steps; ++k) { // the FMAs and MMAs interleaved evenly
      if (k * (F / 8) / steps != (k + 1) * (F / 8) / steps)
#pragma unroll
        for (int c = 0; c < 8; ++c)
          f[c] = __fmaf_rn(f[c], x, y);
      if (k * M / steps != (k + 1) * M / steps)
        mma_tf32(d[k % 4], a, b);
    }
  }
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < 8; ++c)
    s += f[c];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      s += d[i][j];
  out[blockIdx.x * 256 + threadIdx.x] = s;
}

// The same with the warpgroup's asynchronous MMA (sm_90a): M wgmma.mma_async m64n8k8 TF32 an
// iteration (A and B from shared memory by descriptors, no swizzle), committed, then the F FFMAs,
// then a wait for the MMAs: the FFMAs are issued while the tensor cores work.
__device__ __forceinline__ std::uint64_t smem_descriptor(const void* p, unsigned lbo, unsigned sbo) {
  const auto a = static_cast<std::uint64_t>(__cvta_generic_to_shared(p));
  return ((a & 0x3FFFF) >> 4) | (std::uint64_t{lbo >> 4} << 16) | (std::uint64_t{sbo >> 4} << 32);
}

// One wgmma.mma_async m64nNk8 TF32 (N = 8, 16 or 32: 4, 8 or 16 accumulators a thread).
template <int N> __device__ __forceinline__ void wgmma_tf32(float (&d)[N / 2], std::uint64_t da, std::uint64_t db) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (N == 8)
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %6, 0;\n"
                 " wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%0, %1, %2, %3}, %4, %5, p, 1, 1;\n}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "l"(da), "l"(db), "r"(1));
  else if constexpr (N == 16)
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %10, 0;\n"
                 " wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1;\n}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "l"(da), "l"(db), "r"(1));
  else
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %18, 0;\n"
                 " wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
                 "%11, %12, %13, %14, %15}, %16, %17, p, 1, 1;\n}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(da), "l"(db), "r"(1));
#endif
}

// InFlight: the groups of MMAs left in flight at the end of an iteration (0: each iteration waits
// for its own; 1: for the previous iteration's, as a pipelined main loop would).
template <int F, int M, int N, int InFlight>
__global__ void __launch_bounds__(256) mix_wgmma(float* out, int iters, float x, float y) {
  __shared__ alignas(128) float stage[1024]; // A: 64 x 8 TF32 (2 KiB), then B: 8 x N (at most 1 KiB)
  for (int i = threadIdx.x; i < 1024; i += 256)
    stage[i] = 1.0f + i * 1e-4f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  // K-major, no swizzle: core matrices of 8 rows x 16 bytes, 128 bytes apart along M or N (SBO);
  // along K (LBO) 1024 bytes (A) or N / 8 x 128 (B).
  const std::uint64_t da = smem_descriptor(stage, 1024, 128);
  const std::uint64_t db = smem_descriptor(stage + 512, N / 8 * 128, 128);
  float f[8];
#pragma unroll
  for (int c = 0; c < 8; ++c)
    f[c] = threadIdx.x * 0.001f + c;
  float d[N / 2] = {};
  for (int it = 0; it < iters; ++it) {
    if constexpr (M > 0) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int m = 0; m < M; ++m)
        wgmma_tf32<N>(d, da, db);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
    }
#pragma unroll
    for (int k = 0; k < F / 8; ++k)
#pragma unroll
      for (int c = 0; c < 8; ++c)
        f[c] = __fmaf_rn(f[c], x, y);
    if constexpr (M > 0) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
      asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(InFlight) : "memory");
#endif
    }
  }
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (M > 0)
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#endif
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < 8; ++c)
    s += f[c];
#pragma unroll
  for (int i = 0; i < N / 2; ++i)
    s += d[i];
  out[blockIdx.x * 256 + threadIdx.x] = s;
}

// 1 where this build has the wgmma rows (sm_90a), else 0: the rows are skipped.
__global__ void wgmma_built(int* flag) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  *flag = 1;
#else
  *flag = 0;
#endif
}

// Warp-level MMAs (mma.sync, 1024 multiply-adds a warp each) or warpgroup MMAs (wgmma, 4096 a
// warpgroup, so again 1024 a warp each): rates a scheduler a cycle at 1980 MHz.
// Wg: the wgmma rows, m64nNk8 with InFlight groups left in flight.
template <int F, int M, bool Wg = false, int N = 8, int InFlight = 0> void run(float* out, int sms, int iters) {
  const int blocks = sms * 8;
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  const auto launch = [&] {
    if constexpr (Wg)
      mix_wgmma<F, M, N, InFlight><<<blocks, 256>>>(out, iters, 0.999f, 0.001f);
    else
      mix<F, M><<<blocks, 256>>>(out, iters, 0.999f, 0.001f);
  };
  launch();
  CHECK(cudaGetLastError());
  std::vector<float> t;
  for (int r = 0; r < 7; ++r) {
    CHECK(cudaEventRecord(e0));
    launch();
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  const double us = t[t.size() / 2];
  const double warps = double(blocks) * 8; // warps launched
  const double sched_cycles = us * 1e-6 * 1.98e9; // each scheduler's cycles at 1980 MHz
  const double per_sched = warps / (sms * 4.0);   // warps each scheduler runs
  const double ffma_rate = F * per_sched * iters / sched_cycles; // warp FFMAs a scheduler a cycle
  const double mma_cycles = M > 0 ? sched_cycles / (M * per_sched * iters) : 0; // cycles an MMA
  char kind[64];
  if (Wg)
    std::snprintf(kind, sizeof kind, "wgmma m64n%dk8, %d group%s in flight", N, InFlight, InFlight == 1 ? "" : "s");
  else
    std::snprintf(kind, sizeof kind, "mma.sync m16n8k8");
  // An MMA here is one warp's instruction: 1024 (mma.sync) or 128 N (its share of a wgmma)
  // multiply-adds.
  std::printf("%-32s F %3d FFMA + M %2d MMA an iteration: %8.1f us   FFMA %.3f a scheduler a cycle   %s%.2f cycles a scheduler an MMA\n",
              kind, F, M, us, ffma_rate, M > 0 ? "" : "(no MMA) ", mma_cycles);
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp p{};
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("%s, %d SMs (rates below assume a 1980 MHz SM clock)\n", p.name, sms);
  const int iters = argc > 1 ? std::atoi(argv[1]) : 4000;
  float* out;
  CHECK(cudaMalloc(&out, std::size_t(sms) * 8 * 256 * 4));
  run<64, 0>(out, sms, iters);
  run<128, 0>(out, sms, iters);
  run<0, 2>(out, sms, iters);
  run<0, 4>(out, sms, iters);
  run<0, 8>(out, sms, iters);
  run<64, 2>(out, sms, iters);
  run<64, 4>(out, sms, iters);
  run<64, 8>(out, sms, iters);
  run<64, 16>(out, sms, iters);
  run<128, 4>(out, sms, iters);
  run<128, 8>(out, sms, iters);
  run<128, 16>(out, sms, iters);
  run<32, 8>(out, sms, iters);
  int* flag;
  CHECK(cudaMallocManaged(&flag, sizeof(int)));
  wgmma_built<<<1, 1>>>(flag);
  CHECK(cudaDeviceSynchronize());
  if (!*flag) {
    std::printf("wgmma rows skipped: built without sm_90a\n");
    return 0;
  }
  run<64, 0, true>(out, sms, iters);
  run<0, 2, true>(out, sms, iters);
  run<0, 4, true>(out, sms, iters);
  run<0, 8, true>(out, sms, iters);
  run<64, 2, true>(out, sms, iters);
  run<64, 4, true>(out, sms, iters);
  run<64, 8, true>(out, sms, iters);
  run<128, 4, true>(out, sms, iters);
  run<128, 8, true>(out, sms, iters);
  run<128, 16, true>(out, sms, iters);
  run<0, 4, true, 8, 1>(out, sms, iters);
  run<64, 2, true, 8, 1>(out, sms, iters);
  run<64, 4, true, 8, 1>(out, sms, iters);
  run<128, 4, true, 8, 1>(out, sms, iters);
  run<128, 8, true, 8, 1>(out, sms, iters);
  run<0, 4, true, 16, 1>(out, sms, iters);
  run<64, 2, true, 16, 1>(out, sms, iters);
  run<128, 4, true, 16, 1>(out, sms, iters);
  run<0, 4, true, 32, 1>(out, sms, iters);
  run<64, 2, true, 32, 1>(out, sms, iters);
  run<128, 4, true, 32, 1>(out, sms, iters);
  CHECK(cudaFree(out));
}
