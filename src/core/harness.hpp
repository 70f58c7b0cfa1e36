// The timing harness: fresh random inputs, poisoned outputs, CUDA-event timing with warm-ups and
// the median of a time budget (min and max kept), host timing for CPU rows. core/protocol.hpp puts
// these in the one order every rung follows.
#pragma once

#include "core/buffer.hpp"
#include "core/measurement.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace ladder::lab {

struct TimingOptions {
  int warmups = 3;
  // 0: choose the count from a time budget (at least min_samples, at most max_samples).
  int repetitions = 0;
  int min_samples = 20;
  int max_samples = 200;
  double budget_ms = 400.0;
  // Overwrite an L2-sized scratch buffer before every timed launch (nvbench's "cold" mode).
  bool flush_l2 = false;
};

// Times `launch` (which enqueues work on the given stream) with a pair of CUDA events per sample.
// `ops_per_launch` divides each sample (a kernel that loops nreps times inside counts as nreps).
Measurement time_launches(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream,
                          const TimingOptions& options, int ops_per_launch = 1);

// Median, min and max of per-sample times (in ms); the one place that defines "the median".
Measurement summarize_samples(std::vector<double> ms);

// The median of repeated runs of `body` on the host (std::chrono, warm caches; one warm-up run
// first): at least 3 runs, then until 300 ms or 51 runs.
Measurement time_on_host(const std::function<void()>& body);

// The same for several bodies compared with each other, in rounds: each round runs every body
// once, the order rotating from round to round, so that a slow phase of the host (a clock change,
// another process, an interrupt storm) falls on all of them alike rather than on whichever was
// timed then. One warm-up round, then at least 3 rounds, then until each body has had about
// 300 ms or 51 runs. One median per body, in order.
std::vector<Measurement> time_on_host_interleaved(const std::vector<std::function<void()>>& bodies);

// Fills `data` with pseudo-random non-zero values derived from (seed, index): floats uniform in
// [lo, hi) with zero excluded, integers uniform in [lo, hi] with zero excluded when lo < 0 < hi
// permits. The same (seed, n) always gives the same values, so a failure can be replayed.
template <class T>
void fill_random(T* data, std::int64_t n, std::uint64_t seed, double lo, double hi,
                 cudaStream_t stream);

// Writes 0xFF to every byte: NaN for floating types, -1 / max for integers. A kernel that skips
// an element leaves a value the CPU reference never produces.
void poison(void* data, std::size_t bytes, cudaStream_t stream);

// Launch-error check after every launch: throws CudaError naming the kernel.
void check_launch(const char* what);

// A fresh seed for one run (random_device), printed with the results so a run can be replayed.
std::uint64_t fresh_seed();

} // namespace ladder::lab
