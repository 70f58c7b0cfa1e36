// The walked pairs (src/convolution/walk.cuh, the library's float kernel at 7 x 7) launched back to
// back for a few seconds on an 8192^2 float image, or cudaMemcpy of the same bytes, so that
// nvidia-smi can sample the board's power and SM clock while they run (docs/convolution.md, "The
// power cap"). Prints the mean time a launch.
//
//   conv_power walk3|walk5|walk7|copy [seconds]
//   nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,clocks_event_reasons.sw_power_cap \
//              --format=csv -lms 100     (beside it)
#include "convolution/walk.cuh"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cd = ladder::conv_detail;

int main(int argc, char** argv) {
  constexpr int N = 8192;
  const char* what = argc > 1 ? argv[1] : "walk7";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 4.0;
  const bool copy = std::strcmp(what, "copy") == 0;
  const int mw = copy ? 7 : what[std::strlen(what) - 1] - '0';
  if (!copy && (std::strncmp(what, "walk", 4) != 0 || (mw != 3 && mw != 5 && mw != 7))) {
    std::fprintf(stderr, "usage: conv_power walk3|walk5|walk7|copy [seconds]\n");
    return 2;
  }
  const std::size_t bytes = std::size_t{N} * N * sizeof(float);
  float *in = nullptr, *out = nullptr;
  LADDER_CUDA(cudaMalloc(&in, bytes));
  LADDER_CUDA(cudaMalloc(&out, bytes));
  std::vector<float> host(std::size_t{N} * N);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
  LADDER_CUDA(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
  cd::ImageArgs a;
  a.in = reinterpret_cast<const unsigned char*>(in);
  a.out = reinterpret_cast<unsigned char*>(out);
  a.in_pitch = a.out_pitch = std::int64_t{N} * 4;
  a.width = a.height = N;
  a.border = ladder::Border::zero;
  cd::MaskParam mask{};
  for (int i = 0; i < mw * mw; ++i)
    mask.w[i] = 0.02f * static_cast<float>(i % 7) - 0.05f;
  mask.width = mask.height = mw;
  const auto launch = [&] {
    if (copy)
      return cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess;
    return mw == 3 ? cd::try_launch_walk_shape<3>(a, mask, nullptr)
           : mw == 5 ? cd::try_launch_walk_shape<5>(a, mask, nullptr)
                     : cd::try_launch_walk_shape<7>(a, mask, nullptr);
  };
  cudaEvent_t start, stop;
  LADDER_CUDA(cudaEventCreate(&start));
  LADDER_CUDA(cudaEventCreate(&stop));
  const auto t0 = std::chrono::steady_clock::now();
  long launches = 0;
  double total_ms = 0;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
    LADDER_CUDA(cudaEventRecord(start));
    for (int k = 0; k < 200; ++k)
      if (!launch()) {
        std::fprintf(stderr, "%s: not launched\n", what);
        return 1;
      }
    LADDER_CUDA(cudaEventRecord(stop));
    LADDER_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    LADDER_CUDA(cudaEventElapsedTime(&ms, start, stop));
    total_ms += ms;
    launches += 200;
  }
  std::printf("%s: %ld launches back to back, mean %.1f us a launch\n", copy ? "cudaMemcpy" : what, launches,
              1000.0 * total_ms / static_cast<double>(launches));
  return 0;
}
