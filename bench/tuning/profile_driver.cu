// A short program for Nsight Compute: four calls each of ladder::gemm and cublasSgemm at N^3
// (untransposed; N the first argument, 1000 by default), ladder::convolve2d on a 1920 x 1080 uint8 RGB picture (3 x 3, clamp) and on an
// 8192 x 8192 float image (zero border; a mask MW x MW, MW the second argument, 3 by default,
// with taps that are not a column times a row); with a third argument `bulk`, also the lab's
// bulk-staged row reuse (convolution/bulk.cuh, one tile per block, registers for 6 blocks per SM)
// on the same image, at MW 7 or 9: ncu -k regex:convolve_bulk; with `wide` instead, the lab's wide
// register tiles (convolution/wide.cuh) at MW 7, two launches of each shape: 4 x 8 a thread at 3
// blocks per SM without and with the L2 prefetch, 4 x 8 at 4 blocks, 4 x 6 at 4 blocks with the
// prefetch (ncu -k regex:convolve_wide_2d -c 8), then 4 x 8 staged by bulk copies
// (-k regex:convolve_wide_bulk); with `time`, at MW 7 or 9, medians of 30
// event-timed launches (after 5 untimed) of the copy of the image's bytes, ladder::convolve2d,
// the staged kernel the library takes at 9 x 9 and took at 7 x 7 (tiled.cuh, interior_lean,
// ShapeF32Capped) and the wide tile without and with its L2 prefetch and staged by bulk
// copies (wide.cuh, three shapes), each output compared bit for bit with the library's
// (the paths sum in the same order). Profile one launch of a kernel with, e.g.
//   ncu --set full -k regex:gemm_kernel -s 1 -c 1 ladder_profile_driver
// (-s 5 with regex:convolve_tiled reaches the float image). Results:
// bench/results/ncu-*-h200-2026-11-26.txt.
#include <ladder/convolve.hpp>
#include <ladder/gemm.hpp>

#include "convolution/api_dispatch.hpp"
#include "convolution/bulk.cuh"
#include "convolution/tiled.cuh"
#include "convolution/wide.cuh"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class T> T* zeroed(std::size_t count) {
  T* p = nullptr;
  check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc");
  check(cudaMemset(p, 0, count * sizeof(T)), "cudaMemset");
  return p;
}

} // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int mw = argc > 2 ? std::atoi(argv[2]) : 3;
  if (n <= 0 || n > 16384 || mw < 1 || mw > 31 || mw % 2 == 0)
    return std::fprintf(stderr, "usage: ladder_profile_driver [N in 1 .. 16384] [MW odd, 1 .. 31]\n"),
           1;
  const std::size_t nn = std::size_t{static_cast<unsigned>(n)} * static_cast<unsigned>(n);
  float* a = zeroed<float>(nn);
  float* b = zeroed<float>(nn);
  float* c = zeroed<float>(nn);
  // Not zeros: the FMA pipe's power (and so the clock) depends on the data.
  {
    float* h = nullptr;
    check(cudaMallocHost(&h, nn * sizeof(float)), "cudaMallocHost");
    for (std::size_t i = 0; i < nn; ++i)
      h[i] = static_cast<float>(i % 17) * 0.01f - 0.08f;
    check(cudaMemcpy(a, h, nn * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(b, h, nn * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaFreeHost(h), "cudaFreeHost");
  }
  for (int i = 0; i < 4; ++i)
    ladder::gemm<float>(ladder::Trans::none, ladder::Trans::none, n, n, n, 1.0f, a, n, b, n, 0.0f,
                        c, n);
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
    return std::fprintf(stderr, "cublasCreate failed\n"), 1;
  const float one = 1.0f, zero = 0.0f;
  for (int i = 0; i < 4; ++i) // row-major C = A B as column-major C^T = B^T A^T
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);

  const float mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
  constexpr int w = 1920, h = 1080;
  auto* in8 = zeroed<std::uint8_t>(std::size_t{w} * h * 3);
  check(cudaMemset(in8, 7, std::size_t{w} * h * 3), "cudaMemset");
  auto* out8 = zeroed<std::uint8_t>(std::size_t{w} * h * 3);
  for (int i = 0; i < 4; ++i)
    ladder::convolve2d<std::uint8_t>(in8, w * 3, out8, w * 3, w, h, 3, mask, 3, 3,
                                     ladder::Border::clamp);
  constexpr int s = 8192;
  float* in = zeroed<float>(std::size_t{s} * s);
  check(cudaMemset(in, 0x3f, std::size_t{s} * s * sizeof(float)), "cudaMemset"); // 0.747f
  float* out = zeroed<float>(std::size_t{s} * s);
  float taps[31 * 31];
  for (int j = 0; j < mw; ++j)
    for (int i = 0; i < mw; ++i)
      taps[j * mw + i] = static_cast<float>((i * 7 + j * 3 + i * j) % 5) * 0.01f - 0.02f;
  for (int i = 0; i < 4; ++i)
    ladder::convolve2d<float>(in, s * 4, out, s * 4, s, s, 1, taps, mw, mw, ladder::Border::zero);
  namespace cd = ladder::conv_detail;
  cd::ImageArgs args;
  args.in = reinterpret_cast<const unsigned char*>(in);
  args.out = reinterpret_cast<unsigned char*>(out);
  args.in_pitch = args.out_pitch = s * 4;
  args.width = args.height = s;
  const cd::MaskParam param = cd::make_mask_param(taps, mw, mw);
  const std::string_view lab = argc > 3 ? argv[3] : "";
  if (lab == "bulk") {
    using Capped6 = cd::TileShape<32, 8, 4, 4, 6>;
    for (int i = 0; i < 4; ++i) {
      if (mw == 7)
        cd::launch_bulk<7, Capped6, 1>(args, param, nullptr);
      else if (mw == 9)
        cd::launch_bulk<9, Capped6, 1>(args, param, nullptr);
    }
  } else if (lab == "time" && (mw == 7 || mw == 9)) {
    // A varied image (the comparisons below would pass on a constant one whatever the kernels did).
    {
      std::vector<float> h(std::size_t{s} * s);
      for (std::size_t i = 0; i < h.size(); ++i)
        h[i] = static_cast<float>((i * 2654435761u) % 1000u) * 0.001f - 0.5f;
      check(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    const auto median_us = [&](auto&& launch) {
      for (int i = 0; i < 5; ++i)
        launch();
      std::vector<float> ms(30);
      for (float& t : ms) {
        check(cudaEventRecord(start), "cudaEventRecord");
        launch();
        check(cudaEventRecord(stop), "cudaEventRecord");
        check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
      }
      std::nth_element(ms.begin(), ms.begin() + 15, ms.end());
      return ms[15] * 1000.0f;
    };
    const std::size_t bytes = std::size_t{s} * s * sizeof(float);
    std::vector<float> reference(std::size_t{s} * s), got(std::size_t{s} * s);
    const auto same_as_library = [&] {
      check(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
      return std::equal(got.begin(), got.end(), reference.begin(), [](float x, float y) {
        return std::memcmp(&x, &y, sizeof x) == 0;
      });
    };
    const float copy = median_us([&] {
      check(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
    });
    const float library = median_us([&] {
      ladder::convolve2d<float>(in, s * 4, out, s * 4, s, s, 1, taps, mw, mw, ladder::Border::zero);
    });
    check(cudaMemcpy(reference.data(), out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::printf("float %dx%d, mask %d x %d, medians of 30 launches\n", s, s, mw, mw);
    std::printf("cudaMemcpy (device to device, the image's bytes): %.1f us\n", copy);
    std::printf("ladder::convolve2d: %.1f us (%.3fx the copy)\n", library, library / copy);
    // Each kernel below writes over NaN (every output must be written) and is compared with the
    // library's output bit for bit.
    const auto timed = [&](const char* name, auto&& launch) {
      check(cudaMemset(out, 0xff, bytes), "cudaMemset");
      const float us = median_us(launch);
      std::printf("%s: %.1f us (%.3fx the copy), output %s\n", name, us, us / copy,
                  same_as_library() ? "bit for bit the library's" : "DIFFERS");
    };
    timed("staged kernel (interior_lean, capped)", [&] {
      if (mw == 7)
        cd::launch_tiled<float, 1, 7, cd::ShapeF32Capped, cd::Staging::interior_lean, true>(
            args, param, nullptr);
      else
        cd::launch_tiled<float, 1, 9, cd::ShapeF32Capped, cd::Staging::interior_lean, true>(
            args, param, nullptr);
    });
    const auto wide_tiles = [&](auto width) {
      constexpr int MW = decltype(width)::value;
      timed("wide tile without the L2 prefetch",
            [&] { cd::launch_wide_2d<MW, 1, 8, 3, false, false>(args, param, nullptr); });
      timed("wide tile with the L2 prefetch",
            [&] { cd::launch_wide_2d<MW, 1, 8, 3, false, true>(args, param, nullptr); });
      timed("wide tile staged by bulk copies",
            [&] { cd::launch_wide_bulk_2d<MW, 1, 8, 3>(args, param, nullptr); });
      timed("wide tile staged by bulk copies, 4 blocks per SM",
            [&] { cd::launch_wide_bulk_2d<MW, 1, 8, 4>(args, param, nullptr); });
    };
    if (mw == 7)
      wide_tiles(std::integral_constant<int, 7>{});
    else
      wide_tiles(std::integral_constant<int, 9>{});
  } else if (lab == "wide" && mw == 7) {
    for (int i = 0; i < 2; ++i) {
      cd::launch_wide_2d<7, 1, 8, 3, false, false>(args, param, nullptr);
      cd::launch_wide_2d<7, 1, 8, 3, false, true>(args, param, nullptr);
      cd::launch_wide_2d<7, 1, 8, 4, false, false>(args, param, nullptr);
      cd::launch_wide_2d<7, 1, 6, 4, false, true>(args, param, nullptr);
      cd::launch_wide_bulk_2d<7, 1, 8, 3>(args, param, nullptr);
    }
  }
  check(cudaDeviceSynchronize(), "the calls");
  cublasDestroy(handle);
  std::puts("ok");
  return 0;
}
