// The occupancy model (ladder/models.hpp) against the CUDA occupancy API on the current GPU.
//
// Both sides get the same inputs: the kernel's registers and static shared memory from
// cudaFuncGetAttributes, the block size and the dynamic shared memory of the launch; the model
// takes the device's limits from cudaGetDeviceProperties (models::device_properties) and only the
// allocation granularities from its table. Agreement means the same resident blocks per SM,
// exactly. Nothing here is a hard-coded result: the registry's rungs, a sweep of synthetic kernels
// and whatever GPU runs the test decide the expected numbers.
#include "gpu_test.hpp"

#include "core/study.hpp"
#include "ladder/device.hpp"
#include "ladder/models.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ladder::test {
namespace {

namespace models = ladder::models;

// ---- synthetic kernels
// --------------------------------------------------------------------------- Never timed; launched
// once each (LargestOptedInConfigurationLaunches) to show that what the API calls resident can run.
// Every access is masked into a buffer of buffer_elements floats.

constexpr int buffer_elements = 1 << 16;
constexpr int buffer_mask = buffer_elements - 1;

// Keeps `Live` values in registers at once: a ring of dependent FMAs over all of them, so the
// register count grows with Live until ptxas caps it (255) or a bound forces spills.
template <int Live> __device__ void keep_live(const float* in, float* out, float extra) {
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  float v[Live];
#pragma unroll
  for (int i = 0; i < Live; ++i)
    v[i] = in[(t * Live + i) & buffer_mask];
#pragma unroll
  for (int round = 0; round < 3; ++round) {
#pragma unroll
    for (int i = 0; i < Live; ++i)
      v[i] = fmaf(v[i], v[(i + 1) % Live], v[(i + Live / 2) % Live]);
  }
  float sum = extra;
#pragma unroll
  for (int i = 0; i < Live; ++i)
    sum = fmaf(sum, 0.5f, v[i]);
  out[t & buffer_mask] = sum;
}

template <int Live> __global__ void pressure(const float* in, float* out) {
  keep_live<Live>(in, out, 0.0f);
}

// Launch bounds cap the registers (spilling to local memory) and the block size.
template <int Live, int MaxThreads, int MinBlocks>
__global__ void __launch_bounds__(MaxThreads, MinBlocks) bounded(const float* in, float* out) {
  keep_live<Live>(in, out, 0.0f);
}

// __maxnreg__ (CUDA 12.4+): an odd register count, to exercise the per-warp rounding.
__global__ void __maxnreg__(37) capped_37(const float* in, float* out) {
  keep_live<64>(in, out, 0.0f);
}

// Static shared memory of StaticBytes (a multiple of 4), plus any dynamic shared memory.
template <int StaticBytes, int Live> __global__ void with_shared(const float* in, float* out) {
  constexpr int words = StaticBytes / 4;
  __shared__ float tile[words];
  extern __shared__ float dynamic_tile[];
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  for (int i = static_cast<int>(threadIdx.x); i < words; i += static_cast<int>(blockDim.x))
    tile[i] = in[(t + i) & buffer_mask];
  __syncthreads();
  const float staged = tile[(threadIdx.x * 7) % words];
  keep_live<Live>(in, out, staged + (t < 0 ? dynamic_tile[0] : 0.0f));
}

// Only dynamic shared memory; touches all of it so the launch check covers the largest size.
template <int Live> __global__ void dynamic_only(const float* in, float* out, int dynamic_words) {
  extern __shared__ float dynamic_tile[];
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  for (int i = static_cast<int>(threadIdx.x); i < dynamic_words; i += static_cast<int>(blockDim.x))
    dynamic_tile[i] = in[(t + i) & buffer_mask];
  __syncthreads();
  const float staged = dynamic_words > 0 ? dynamic_tile[(threadIdx.x * 5) % dynamic_words] : 0.0f;
  keep_live<Live>(in, out, staged);
}

struct SyntheticKernel {
  const char* name;
  const void* function; // takes (in, out) or, dynamic_only, (in, out, dynamic_words)
};

// The sweep and the launch test opt these in to the largest dynamic shared memory. Function
// attributes (opt-in, carveout) are process-wide, so the no-opt-in and the carveout tests use
// kernels of their own.
std::vector<SyntheticKernel> sweep_kernels() {
  return {
      {"pressure<2>", reinterpret_cast<const void*>(&pressure<2>)},
      {"pressure<24>", reinterpret_cast<const void*>(&pressure<24>)},
      {"pressure<48>", reinterpret_cast<const void*>(&pressure<48>)},
      {"pressure<80>", reinterpret_cast<const void*>(&pressure<80>)},
      {"pressure<128>", reinterpret_cast<const void*>(&pressure<128>)},
      {"pressure<220>", reinterpret_cast<const void*>(&pressure<220>)},
      {"bounded<120,1024,1>", reinterpret_cast<const void*>(&bounded<120, 1024, 1>)},
      {"bounded<80,256,4>", reinterpret_cast<const void*>(&bounded<80, 256, 4>)},
      {"bounded<40,128,8>", reinterpret_cast<const void*>(&bounded<40, 128, 8>)},
      {"capped_37", reinterpret_cast<const void*>(&capped_37)},
      {"with_shared<4,8>", reinterpret_cast<const void*>(&with_shared<4, 8>)},
      {"with_shared<1000,16>", reinterpret_cast<const void*>(&with_shared<1000, 16>)},
      {"with_shared<12288,32>", reinterpret_cast<const void*>(&with_shared<12288, 32>)},
      {"with_shared<40000,64>", reinterpret_cast<const void*>(&with_shared<40000, 64>)},
      {"with_shared<49152,24>", reinterpret_cast<const void*>(&with_shared<49152, 24>)},
      {"dynamic_only<8>", reinterpret_cast<const void*>(&dynamic_only<8>)},
      {"dynamic_only<96>", reinterpret_cast<const void*>(&dynamic_only<96>)},
  };
}

// ---- the comparison
// ------------------------------------------------------------------------------

models::ArchitectureLimits device_architecture() {
  return models::architecture_from_device(models::device_properties(current_device_info()));
}

std::string device_label() {
  const DeviceInfo info = current_device_info();
  return info.name + " (cc " + std::to_string(info.compute_major) + "." +
         std::to_string(info.compute_minor) + ")";
}

cudaFuncAttributes attributes_of(const void* function) {
  cudaFuncAttributes attributes{};
  const cudaError_t error = cudaFuncGetAttributes(&attributes, function);
  EXPECT_EQ(error, cudaSuccess) << cudaGetErrorString(error);
  return attributes;
}

std::optional<int> api_blocks(const void* function, int threads, std::int64_t dynamic_bytes) {
  int blocks = -1;
  const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, function, threads, static_cast<std::size_t>(dynamic_bytes));
  if (error != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return blocks;
}

// Collects disagreements and tells which limits the compared points exercised, so that one
// failure message shows the pattern rather than thousands of lines.
class Agreement {
public:
  explicit Agreement(models::ArchitectureLimits arch) : arch_(std::move(arch)) {}

  void compare(const std::string& what, const void* function, const cudaFuncAttributes& attributes,
               int threads, std::int64_t dynamic_bytes,
               const models::OccupancyOptions& options = {}) {
    ++compared_;
    const auto api = api_blocks(function, threads, dynamic_bytes);
    const models::BlockResources block{threads, attributes.numRegs,
                                       static_cast<std::int64_t>(attributes.sharedSizeBytes) +
                                           dynamic_bytes};
    std::ostringstream where;
    where << what << ": " << threads << " threads, " << attributes.numRegs << " registers, "
          << attributes.sharedSizeBytes << " B static + " << dynamic_bytes << " B dynamic";
    if (options.shared_memory_carveout_percent)
      where << ", model carveout " << *options.shared_memory_carveout_percent << "%";
    where << " (kernel's carveout preference " << attributes.preferredShmemCarveout << ")";
    if (!api) {
      failures_.push_back(where.str() + ": cudaOccupancyMaxActiveBlocksPerMultiprocessor failed");
      return;
    }
    models::OccupancyResult model;
    try {
      model = models::occupancy(arch_, block, options);
    } catch (const std::invalid_argument& error) {
      failures_.push_back(where.str() + ": the model refused it: " + error.what() +
                          " (API: " + std::to_string(*api) + " blocks)");
      return;
    }
    if (model.active_blocks_per_sm != *api) {
      std::string limits;
      for (const auto limiter : model.limiters)
        limits += (limits.empty() ? "" : ", ") + std::string(models::to_string(limiter));
      failures_.push_back(where.str() + ": API " + std::to_string(*api) + " blocks/SM, model " +
                          std::to_string(model.active_blocks_per_sm) + " (model limited by " +
                          limits + "; smem per SM " + std::to_string(model.shared_memory_per_sm) +
                          ")");
      return;
    }
    for (const auto limiter : model.limiters)
      exercised_.insert(std::string(models::to_string(limiter)));
    if (*api == 0)
      ++zero_blocks_;
  }

  int compared() const { return compared_; }
  std::size_t disagreements() const { return failures_.size(); }
  const std::set<std::string>& exercised() const { return exercised_; }

  // Fails the test with the first disagreements (unless told not to); prints the count either way.
  void report(const std::string& title, bool fail_on_disagreement = true) const {
    std::cout << "[ occupancy ] " << title << " on " << device_label() << ": " << compared_
              << " configurations, " << compared_ - static_cast<int>(failures_.size()) << " agree ("
              << zero_blocks_ << " with 0 blocks); limits exercised:";
    for (const auto& limiter : exercised_)
      std::cout << " [" << limiter << "]";
    std::cout << "\n";
    if (failures_.empty() || !fail_on_disagreement)
      return;
    std::ostringstream message;
    message << failures_.size() << " of " << compared_ << " configurations disagree; the first:\n";
    for (std::size_t i = 0; i < failures_.size() && i < 25; ++i)
      message << "  " << failures_[i] << "\n";
    ADD_FAILURE() << message.str();
  }

private:
  models::ArchitectureLimits arch_;
  int compared_ = 0;
  int zero_blocks_ = 0;
  std::vector<std::string> failures_;
  std::set<std::string> exercised_;
};

void skip_in_small_mode() {
  // Occupancy queries launch nothing the sanitizers could check, and a tool may change a
  // kernel's registers (cudaFuncAttributes::numRegs says so), which would make the comparison
  // about the tool. The full run checks everything.
  if (small_mode())
    GTEST_SKIP() << "--small (sanitizer runs): occupancy agreement runs in the full GPU test run";
}

std::vector<int> block_sizes() {
  std::vector<int> sizes = {1, 7, 31, 33, 65, 100, 129, 200, 257, 500, 513, 1000};
  for (int threads = 32; threads <= 1024; threads += 32)
    sizes.push_back(threads);
  return sizes;
}

// Dynamic shared memory sizes up to `most` bytes: small and unaligned ones, the 48 KB default
// limit on either side, and the opt-in range up to the largest.
std::vector<std::int64_t> dynamic_sizes(std::int64_t static_bytes, std::int64_t most) {
  const std::int64_t default_limit = 48 * 1024 - static_bytes;
  std::vector<std::int64_t> candidates = {0,      1,      127,    128,    129,    1000,     2048,
                                          4096,   6000,   8192,   12288,  16384,  20000,    24576,
                                          32768,  40000,  65536,  70000,  81920,  100000,   102400,
                                          116736, 131072, 150000, 168000, 200000, most - 1, most};
  candidates.push_back(default_limit);
  candidates.push_back(default_limit + 1);
  std::vector<std::int64_t> sizes;
  for (const auto size : candidates)
    if (size >= 0 && size <= most)
      sizes.push_back(size);
  return sizes;
}

// ---- the registry
// --------------------------------------------------------------------------------

TEST(OccupancyAgreement, EveryRegisteredRungMatchesTheOccupancyApi) {
  skip_in_small_mode();
  Agreement agreement(device_architecture());
  int kernels = 0;
  for (const lab::Study& study : lab::studies()) {
    for (const lab::RungInfo& rung : study.rungs()) {
      if (rung.kernel == nullptr)
        continue; // a library call: nothing of ours to inspect
      ++kernels;
      const std::string what = std::string(study.name) + "/" + std::string(rung.name);
      SCOPED_TRACE(what);
      const cudaFuncAttributes attributes = attributes_of(rung.kernel);
      ASSERT_GT(rung.block_threads, 0) << what << ": a kernel needs its launch's block size";
      EXPECT_LE(rung.block_threads, attributes.maxThreadsPerBlock)
          << what << ": the registry's block size exceeds what this kernel can launch";
      const auto dynamic_bytes = static_cast<std::int64_t>(rung.dynamic_shared_bytes);
      if (dynamic_bytes > attributes.maxDynamicSharedSizeBytes) {
        // What the rung's launch does before it runs; the API answers 0 without it.
        ASSERT_EQ(cudaFuncSetAttribute(rung.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(dynamic_bytes)),
                  cudaSuccess)
            << what;
      }
      // No rung sets a carveout preference (the model, like the API by default, assumes none);
      // a failure message shows the kernel's, should one appear.
      agreement.compare(what, rung.kernel, attributes, rung.block_threads, dynamic_bytes);
    }
  }
  EXPECT_GT(kernels, 0) << "no registered rung has a kernel";
  agreement.report("registered rungs (" + std::to_string(kernels) + " kernels)");
}

// ---- synthetic configurations
// ---------------------------------------------------------------------

TEST(OccupancyAgreement, SyntheticKernelsOverBlockSizesAndSharedMemory) {
  skip_in_small_mode();
  const DeviceInfo info = current_device_info();
  const auto arch = device_architecture();
  Agreement agreement(arch);
  std::set<int> registers_seen;
  for (const SyntheticKernel& kernel : sweep_kernels()) {
    SCOPED_TRACE(kernel.name);
    cudaFuncAttributes attributes = attributes_of(kernel.function);
    const auto static_bytes = static_cast<std::int64_t>(attributes.sharedSizeBytes);
    const std::int64_t most_dynamic = info.shared_memory_per_block_optin - static_bytes;
    ASSERT_GE(most_dynamic, 0) << kernel.name;
    // Opt in to every byte a block may have, as a kernel that uses it must before launching.
    ASSERT_EQ(cudaFuncSetAttribute(kernel.function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(most_dynamic)),
              cudaSuccess)
        << kernel.name;
    attributes = attributes_of(kernel.function);
    ASSERT_EQ(attributes.maxDynamicSharedSizeBytes, most_dynamic) << kernel.name;
    registers_seen.insert(attributes.numRegs);
    for (const int threads : block_sizes()) {
      // A block above the kernel's own maximum (launch bounds, or registers x threads above the
      // per-block register file) cannot launch; the model sees only the second reason.
      if (threads > attributes.maxThreadsPerBlock)
        continue;
      for (const std::int64_t dynamic_bytes : dynamic_sizes(static_bytes, most_dynamic))
        agreement.compare(kernel.name, kernel.function, attributes, threads, dynamic_bytes);
    }
  }
  agreement.report("synthetic kernels x block sizes x dynamic shared memory");
  // The sweep means something only if it reached every limit and several register counts.
  for (const char* limiter : {"warps", "registers", "shared memory", "blocks per SM"})
    EXPECT_EQ(agreement.exercised().count(limiter), 1u)
        << "no agreeing configuration was limited by " << limiter;
  EXPECT_GE(registers_seen.size(), 6u) << "the synthetic kernels should span register counts";
  EXPECT_GT(agreement.compared(), 5000);
}

TEST(OccupancyAgreement, WithoutOptInTheApiRefusesWhatTheModelFlags) {
  // A kernel never opted in: up to the default per-block limit both agree; above it the API gives
  // no block (or an error) and the model says the launch needs the opt-in.
  skip_in_small_mode();
  const auto arch = device_architecture();
  const void* function = reinterpret_cast<const void*>(&with_shared<2048, 12>);
  const cudaFuncAttributes attributes = attributes_of(function);
  const auto static_bytes = static_cast<std::int64_t>(attributes.sharedSizeBytes);
  Agreement agreement(arch);
  for (const int threads : {32, 128, 256, 1024}) {
    for (const std::int64_t dynamic_bytes :
         dynamic_sizes(static_bytes, attributes.maxDynamicSharedSizeBytes))
      agreement.compare("with_shared<2048,12> (no opt-in)", function, attributes, threads,
                        dynamic_bytes);
    const std::int64_t over = attributes.maxDynamicSharedSizeBytes + 1024;
    const auto api = api_blocks(function, threads, over);
    EXPECT_TRUE(!api || *api == 0) << threads << " threads, " << over
                                   << " B dynamic without opt-in: API says " << api.value_or(-1);
    const auto model = models::occupancy(arch, {threads, attributes.numRegs, static_bytes + over});
    EXPECT_TRUE(model.needs_shared_memory_opt_in);
  }
  agreement.report("no opt-in, up to the default limit");
}

TEST(OccupancyAgreement, SharedMemoryCarveoutPreference) {
  // cudaFuncAttributePreferredSharedMemoryCarveout against OccupancyOptions's carveout: the SM's
  // shared memory configuration follows the preference unless one block needs more.
  skip_in_small_mode();
  const DeviceInfo info = current_device_info();
  const auto arch = device_architecture();
  if (arch.shared_memory_configurations.empty())
    GTEST_SKIP() << "this GPU has no configurable carveout in the model's table";
  const void* function = reinterpret_cast<const void*>(&dynamic_only<4>);
  const cudaFuncAttributes before = attributes_of(function);
  const std::int64_t most_dynamic =
      info.shared_memory_per_block_optin - static_cast<std::int64_t>(before.sharedSizeBytes);
  ASSERT_EQ(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(most_dynamic)),
            cudaSuccess);
  // Two readings of each answer: the model with the preference, and without it (in case the
  // API does not look at the attribute at all, which the documentation leaves open).
  Agreement with_preference(arch);
  Agreement without_preference(arch);
  for (const int percent : {0, 1, 10, 25, 33, 50, 60, 75, 90, 100}) {
    ASSERT_EQ(
        cudaFuncSetAttribute(function, cudaFuncAttributePreferredSharedMemoryCarveout, percent),
        cudaSuccess);
    const cudaFuncAttributes attributes = attributes_of(function);
    for (const int threads : {32, 64, 128, 256, 512}) {
      for (const std::int64_t dynamic_bytes :
           {std::int64_t{0}, std::int64_t{1024}, std::int64_t{4096}, std::int64_t{10000},
            std::int64_t{20480}, std::int64_t{40000}, std::int64_t{70000}, most_dynamic}) {
        const std::string what = "dynamic_only<4>, preference " + std::to_string(percent) + "%";
        with_preference.compare(what, function, attributes, threads, dynamic_bytes,
                                models::OccupancyOptions{percent});
        without_preference.compare(what, function, attributes, threads, dynamic_bytes);
      }
    }
  }
  if (with_preference.disagreements() > 0 && without_preference.disagreements() == 0) {
    without_preference.report("carveout preferences, model without the preference", false);
    GTEST_SKIP() << "the occupancy API ignored cudaFuncAttributePreferredSharedMemoryCarveout on "
                    "this GPU and driver: every answer equals the model without a preference, so "
                    "the model's carveout option cannot be checked against it";
  }
  with_preference.report("carveout preferences");
}

// ---- what the API calls resident can run --------------------------------------------------------

TEST(OccupancyAgreement, LargestOptedInConfigurationLaunches) {
  // Every synthetic kernel once, with its largest block and all the shared memory it opted in to
  // (SyntheticKernelsOverBlockSizesAndSharedMemory opts them in; do it again here so the order
  // of tests does not matter).
  skip_in_small_mode();
  const DeviceInfo info = current_device_info();
  float* in = nullptr;
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&in, buffer_elements * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, buffer_elements * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemset(in, 0, buffer_elements * sizeof(float)), cudaSuccess);
  for (const SyntheticKernel& kernel : sweep_kernels()) {
    SCOPED_TRACE(kernel.name);
    cudaFuncAttributes attributes = attributes_of(kernel.function);
    const std::int64_t dynamic_bytes =
        info.shared_memory_per_block_optin - static_cast<std::int64_t>(attributes.sharedSizeBytes);
    ASSERT_EQ(cudaFuncSetAttribute(kernel.function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(dynamic_bytes)),
              cudaSuccess);
    // The largest block (a whole number of warps) the API calls resident with this much shared
    // memory; the kernel's maxThreadsPerBlock unless the API knows better.
    int threads = attributes.maxThreadsPerBlock / 32 * 32;
    while (threads > 32 && api_blocks(kernel.function, threads, dynamic_bytes).value_or(0) < 1)
      threads -= 32;
    const auto api = api_blocks(kernel.function, threads, dynamic_bytes);
    ASSERT_TRUE(api.has_value());
    ASSERT_GE(*api, 1) << "the API says no block of this kernel can be resident with "
                       << dynamic_bytes << " B of dynamic shared memory";
    int dynamic_words = static_cast<int>(dynamic_bytes / 4);
    void* arguments[] = {&in, &out, &dynamic_words};
    ASSERT_EQ(cudaLaunchKernel(kernel.function, dim3(2), dim3(static_cast<unsigned>(threads)),
                               arguments, static_cast<std::size_t>(dynamic_bytes), nullptr),
              cudaSuccess);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  cudaFree(in);
  cudaFree(out);
}

} // namespace
} // namespace ladder::test
