// What the SM clock and the board's power do while ladder::gemm and cublasSgemm run: for each N
// given (4096 and 8192 by default), phases of back-to-back calls of one of them at N^3
// (untransposed, data not zero), `seconds` long each (2 by default), the two alternating for
// `rounds` rounds (2 by default). A thread samples NVML every 5 ms; each phase prints its median
// time per call (event-timed), the mean and lowest SM clock, the mean and highest power, the
// throttle reasons NVML reported, and the median time in millions of SM cycles at the phase's
// mean clock. A ratio of times that differs from the ratio of cycles means the two ran at
// different clocks.
//   ladder_gemm_clocks [N ...] [--seconds S] [--rounds R]
// NVML is opened at run time (libnvidia-ml.so.1 ships with the driver; the toolkit on a machine
// without a GPU has no header for it), so the program builds anywhere.
#include <ladder/gemm.hpp>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// The few NVML entry points used, by their C signatures (nvml.h).
struct Nvml {
  using Device = void*;
  int (*init)() = nullptr;
  int (*by_pci)(const char*, Device*) = nullptr;
  int (*clock)(Device, int, unsigned*) = nullptr;
  int (*power)(Device, unsigned*) = nullptr;
  int (*reasons)(Device, unsigned long long*) = nullptr;
  int (*temperature)(Device, int, unsigned*) = nullptr;
  Device device = nullptr;

  bool open(int cuda_device) {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (lib == nullptr)
      return false;
    const auto sym = [&](auto& f, const char* name) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, name));
      return f != nullptr;
    };
    if (!sym(init, "nvmlInit_v2") || !sym(by_pci, "nvmlDeviceGetHandleByPciBusId_v2") ||
        !sym(clock, "nvmlDeviceGetClockInfo") || !sym(power, "nvmlDeviceGetPowerUsage") ||
        !sym(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons") ||
        !sym(temperature, "nvmlDeviceGetTemperature"))
      return false;
    char bus[64] = {};
    check(cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_device), "cudaDeviceGetPCIBusId");
    return init() == 0 && by_pci(bus, &device) == 0;
  }
};

struct Sample {
  unsigned sm_mhz = 0, milliwatts = 0, celsius = 0;
  unsigned long long reasons = 0;
};

std::string reason_names(unsigned long long r) {
  static constexpr std::pair<unsigned long long, const char*> names[] = {
      {0x1, "idle"},           {0x2, "app-clocks"},      {0x4, "sw-power-cap"},
      {0x8, "hw-slowdown"},    {0x10, "sync-boost"},     {0x20, "sw-thermal"},
      {0x40, "hw-thermal"},    {0x80, "hw-power-brake"}, {0x100, "display-clocks"}};
  std::string out;
  for (const auto& [bit, name] : names)
    if (r & bit)
      out += (out.empty() ? "" : "+") + std::string(name);
  return out.empty() ? "none" : out;
}

} // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  double seconds = 2;
  int rounds = 2;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
      seconds = std::atof(argv[++i]);
    else if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
      rounds = std::atoi(argv[++i]);
    else
      sizes.push_back(std::atoi(argv[i]));
  }
  if (sizes.empty())
    sizes = {4096, 8192};
  for (int n : sizes)
    if (n <= 0 || n > 16384)
      return std::fprintf(stderr, "N must be 1 .. 16384\n"), 1;
  if (seconds <= 0 || rounds <= 0)
    return std::fprintf(stderr, "--seconds and --rounds must be positive\n"), 1;

  Nvml nvml;
  if (!nvml.open(0))
    return std::fprintf(stderr, "NVML (libnvidia-ml.so.1) could not be opened\n"), 1;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("device: %s\n", prop.name);

  // The sampler: every 5 ms, one sample into the current phase's list.
  std::atomic<int> phase{-1};
  std::atomic<bool> done{false};
  std::vector<std::vector<Sample>> samples(64);
  std::thread sampler([&] {
    while (!done.load()) {
      const int p = phase.load();
      if (p >= 0 && p < static_cast<int>(samples.size())) {
        Sample s;
        nvml.clock(nvml.device, 1 /* NVML_CLOCK_SM */, &s.sm_mhz);
        nvml.power(nvml.device, &s.milliwatts);
        nvml.reasons(nvml.device, &s.reasons);
        nvml.temperature(nvml.device, 0 /* NVML_TEMPERATURE_GPU */, &s.celsius);
        samples[p].push_back(s);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });

  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
    return std::fprintf(stderr, "cublasCreate failed\n"), 1;
  std::printf("| N | contender | round | calls | median ms | mean SM MHz | lowest MHz | mean W | "
              "highest W | highest C | throttle reasons | M cycles a call |\n"
              "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n");
  int next_phase = 0;
  for (int n : sizes) {
    const std::size_t nn = std::size_t{static_cast<unsigned>(n)} * static_cast<unsigned>(n);
    float *a = nullptr, *b = nullptr, *c = nullptr;
    check(cudaMalloc(&a, nn * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&b, nn * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&c, nn * sizeof(float)), "cudaMalloc");
    { // not zeros: the FMA pipe's power (and so the clock) depends on the data
      std::vector<float> h(nn);
      for (std::size_t i = 0; i < nn; ++i)
        h[i] = static_cast<float>(i % 17) * 0.01f - 0.08f;
      check(cudaMemcpy(a, h.data(), nn * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
      check(cudaMemcpy(b, h.data(), nn * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    const float one = 1.0f, zero = 0.0f;
    const auto call = [&](int who) {
      if (who == 0)
        ladder::gemm<float>(ladder::Trans::none, ladder::Trans::none, n, n, n, 1.0f, a, n, b, n,
                            0.0f, c, n);
      else // row-major C = A B as column-major C^T = B^T A^T
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);
    };
    for (int who = 0; who < 2; ++who)
      for (int i = 0; i < 3; ++i)
        call(who);
    check(cudaDeviceSynchronize(), "warm-up");
    for (int r = 0; r < rounds; ++r)
      for (int who = 0; who < 2; ++who) {
        // Calls in batches of 16, each event-timed, until the phase's time is spent.
        std::vector<float> ms;
        std::vector<cudaEvent_t> events(17);
        for (auto& e : events)
          check(cudaEventCreate(&e), "cudaEventCreate");
        samples[next_phase].clear();
        phase = next_phase;
        const auto start = std::chrono::steady_clock::now();
        while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
               seconds) {
          check(cudaEventRecord(events[0]), "cudaEventRecord");
          for (int i = 1; i < 17; ++i) {
            call(who);
            check(cudaEventRecord(events[i]), "cudaEventRecord");
          }
          check(cudaEventSynchronize(events[16]), "cudaEventSynchronize");
          for (int i = 1; i < 17; ++i) {
            float t = 0;
            check(cudaEventElapsedTime(&t, events[i - 1], events[i]), "cudaEventElapsedTime");
            ms.push_back(t);
          }
        }
        phase = -1;
        std::this_thread::sleep_for(std::chrono::milliseconds(20)); // the last sample lands
        for (auto& e : events)
          check(cudaEventDestroy(e), "cudaEventDestroy");
        std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
        const double median = ms[ms.size() / 2];
        const auto& got = samples[next_phase];
        double mhz = 0, watts = 0;
        unsigned low = ~0u, high_mw = 0, high_c = 0;
        unsigned long long reasons = 0;
        for (const Sample& s : got) {
          mhz += s.sm_mhz;
          watts += s.milliwatts / 1000.0;
          low = std::min(low, s.sm_mhz);
          high_mw = std::max(high_mw, s.milliwatts);
          high_c = std::max(high_c, s.celsius);
          reasons |= s.reasons;
        }
        const double count = got.empty() ? 1 : static_cast<double>(got.size());
        mhz /= count;
        watts /= count;
        std::printf("| %d | %s | %d | %zu | %.4f | %.0f | %u | %.0f | %.0f | %u | %s | %.4f |\n", n,
                    who == 0 ? "ladder::gemm" : "cublasSgemm", r + 1, ms.size(), median, mhz,
                    got.empty() ? 0u : low, watts, high_mw / 1000.0, high_c,
                    reason_names(reasons).c_str(), median * mhz / 1000.0);
        std::fflush(stdout);
        if (++next_phase == static_cast<int>(samples.size()))
          next_phase = 0;
      }
    check(cudaFree(a), "cudaFree");
    check(cudaFree(b), "cudaFree");
    check(cudaFree(c), "cudaFree");
  }
  done = true;
  sampler.join();
  cublasDestroy(handle);
  return 0;
}
