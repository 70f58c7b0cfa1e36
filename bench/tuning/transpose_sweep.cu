// Tile-shape sweep behind the transpose library's choice (src/transpose/tiled.cuh, LibraryShape).
// Not part of `ladder run`: it measures many configurations of one kernel template, checks each
// once against the CPU, and prints them sorted by time next to cudaMemcpy and cuBLAS geam.
//   build with -DLADDER_BUILD_TUNING=ON; run: ladder_transpose_sweep [rows cols ...]
#include "core/harness.hpp"
#include "transpose/reference.hpp"
#include "transpose/tiled.cuh"

#include <cublas_v2.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace ladder;
using namespace ladder::lab;
using lab::transpose::Shape;
using transpose_detail::Access;
using transpose_detail::TileShape;
using Word = std::uint32_t;

struct Result {
  std::string label;
  double ms;
  bool ok;
};

int main(int argc, char** argv) {
  std::vector<Shape> shapes;
  for (int i = 1; i + 1 < argc; i += 2)
    shapes.push_back({std::stoll(argv[i]), std::stoll(argv[i + 1])});
  if (shapes.empty())
    shapes = {{16384, 16384}, {16383, 16385}};
  Stream stream;
  TimingOptions timing;
  timing.warmups = 2;
  timing.repetitions = 30;
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetStream(handle, stream);

  for (const Shape s : shapes) {
    const auto n = static_cast<std::size_t>(s.rows * s.cols);
    DeviceBuffer<float> in(n), out(n);
    fill_random<float>(in.data(), n, fresh_seed(), -1, 1, stream);
    std::vector<float> host_in(n), expected(n), got(n);
    cudaMemcpyAsync(host_in.data(), in.data(), in.bytes(), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    cpu_transpose<float>(host_in, expected, s.rows, s.cols);
    const double bytes = 2.0 * n * sizeof(float);
    std::vector<Result> results;
    auto measure = [&](const std::string& label, const std::function<void(cudaStream_t)>& launch,
                       bool check) {
      bool ok = true;
      if (check) {
        poison(out.data(), out.bytes(), stream);
        launch(stream);
        cudaMemcpyAsync(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
        ok = compare_exact(got, expected, s.rows).empty();
      }
      const Measurement m = time_launches(launch, stream, timing);
      results.push_back({label, m.median_ms, ok});
    };
    measure("cudaMemcpy", [&](cudaStream_t st) {
      cudaMemcpyAsync(out.data(), in.data(), in.bytes(), cudaMemcpyDeviceToDevice, st);
    }, false);
    const double memcpy_ms = results.back().ms;
    measure("cublas_geam", [&](cudaStream_t) {
      const float one = 1, zero = 0;
      cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_N, s.rows, s.cols, &one, in.data(), s.cols, &zero,
                  out.data(), s.rows, out.data(), s.rows);
    }, true);

    const auto* win = reinterpret_cast<const Word*>(in.data());
    auto* wout = reinterpret_cast<Word*>(out.data());
    const bool vec_ok = transpose_detail::vector_path_applies<Word>(win, wout, s.rows, s.cols);
    auto sweep = [&]<class Cfg, Access A>(const char* name) {
      if (A == Access::aligned_vector && !vec_ok)
        return;
      const char* access = A == Access::aligned_vector ? "v16 " : A == Access::scalar ? "scalar " : "any16 ";
      for (int group : {0, 16}) {
        const std::string label = std::string(access) + name + " g" + std::to_string(group) +
                                  (Cfg::streaming ? " cs" : "") + (Cfg::persistent ? " P" : "");
        measure(label, [&](cudaStream_t st) {
          transpose_detail::launch_tiled<Word, Cfg, A>(win, wout, s.rows, s.cols, 1, st, group);
        }, true);
      }
    };
    // Tile x threads, each with and without the streaming (evict-first) hints.
#define LADDER_SWEEP(R, C, T, ACCESS)                                                               \
  sweep.template operator()<TileShape<R, C, T>, Access::ACCESS>(#R "x" #C " t" #T);                   \
  sweep.template operator()<TileShape<R, C, T, 0, true>, Access::ACCESS>(#R "x" #C " t" #T);
    LADDER_SWEEP(64, 64, 128, aligned_vector)
    LADDER_SWEEP(64, 64, 256, aligned_vector)
    LADDER_SWEEP(128, 64, 256, aligned_vector)
    LADDER_SWEEP(32, 32, 64, aligned_vector)
    LADDER_SWEEP(64, 64, 256, any_alignment_vector)
    LADDER_SWEEP(64, 64, 128, any_alignment_vector)
    LADDER_SWEEP(128, 64, 256, any_alignment_vector)
    LADDER_SWEEP(128, 32, 128, any_alignment_vector)
    LADDER_SWEEP(64, 32, 128, any_alignment_vector)
    LADDER_SWEEP(64, 64, 256, scalar)
#undef LADDER_SWEEP

    std::sort(results.begin(), results.end(), [](auto& a, auto& b) { return a.ms < b.ms; });
    std::printf("\n%lld x %lld float: %.1f GB/s memcpy\n", static_cast<long long>(s.rows),
                static_cast<long long>(s.cols), bytes / memcpy_ms / 1e6);
    for (const auto& r : results)
      std::printf("  %-28s %8.4f ms %8.1f GB/s %6.1f%% of memcpy %s\n", r.label.c_str(), r.ms,
                  bytes / r.ms / 1e6, 100.0 * memcpy_ms / r.ms, r.ok ? "" : "WRONG");
  }
  return 0;
}
