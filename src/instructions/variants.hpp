// The instructions study's kernels: instruction throughput (one registry entry per operation),
// dependent-chain latency, math-function accuracy, summation order, divergence and launch
// configuration. Each launcher enqueues on a stream and writes every result it computes, so the
// compiler can drop nothing and the CPU reference can check everything.
#pragma once

#include "core/rung.hpp"
#include "instructions/ops.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace ladder::lab::instructions {

// Written by thread 0 of block 0 at its start and end: SM cycles (clock64) and nanoseconds
// (%globaltimer), so the study knows the SM clock the kernel actually ran at.
struct ClockSample {
  long long start_cycles = 0, end_cycles = 0;
  unsigned long long start_ns = 0, end_ns = 0;
};

// ---- Throughput ------------------------------------------------------------------------------

struct ThroughputLaunch {
  double* out = nullptr; // 2 x pairs values per thread
  int blocks = 0, threads = 0;
  int iterations = 0; // updates of every pair; a multiple of the rung's unroll
  OpArgs args;
  ClockSample* clock = nullptr;
};

struct ThroughputRung {
  RungInfo info;
  // Key of the programming guide's row (guide_table in reference.hpp); "" where the guide says
  // "multiple instructions".
  std::string_view guide_row;
  std::string_view sass; // what the compiler emits for one operation on sm_90 (read with cuobjdump)
  int ops_per_update = 2;
  int pairs = 4;        // (x, y) pairs per thread
  int unroll = 1;       // updates per loop trip: keeps the loop's own instructions under 2%
  double cost = 1;      // rough instructions per operation: scales the iteration count
  double tolerance = 0; // 0: bit-exact against the CPU
  void (*launch)(const ThroughputLaunch&, cudaStream_t) = nullptr;
  void (*host)(std::uint32_t thread, int pairs, int updates, const OpArgs&, double* out) = nullptr;
};

// In table order; the -use_fast_math rows (compiled in fast_math.cu) at the end.
const std::vector<ThroughputRung>& throughput_registry();
std::vector<ThroughputRung> fast_math_throughput_rungs(); // defined in fast_math.cu

// FP32 FMA with `chains` independent chains per thread (1, 2, 4, 8, 16): the saturation curve.
inline constexpr int fma_chain_counts[] = {1, 2, 4, 8, 16};
void launch_fma_chains(int chains, float* out, int blocks, int threads, int iterations, float a,
                       float b, ClockSample* clock, cudaStream_t stream);
const void* fma_chains_kernel(int chains);
// The CPU reference of one chain (chain k of thread t after `iterations` FMAs).
float fma_chain_seed(std::uint32_t thread, int chain);

// ---- Latency ---------------------------------------------------------------------------------

enum class LatencyKind { fp32_add, fp32_fma, shared_load, global_load };

struct LatencyLaunch {
  LatencyKind kind = LatencyKind::fp32_add;
  const std::uint32_t* chase = nullptr; // loads: next index at chase[index]
  std::uint32_t chase_length = 0;       // shared_load: entries copied to shared memory (<= 4096)
  int warm_steps = 0;                   // untimed steps first (fills the cache being measured)
  int steps = 0;                        // timed dependent steps
  OpArgs args;
  long long* cycles = nullptr;   // clock64 delta over the timed steps
  std::uint32_t* sink = nullptr; // the chain's last value (float bits for arithmetic)
};
inline constexpr std::uint32_t max_shared_chase = 4096;
void launch_latency(const LatencyLaunch& launch, cudaStream_t stream);

// ---- Accuracy --------------------------------------------------------------------------------

enum class MathFunction { sin, cos, tan, exp, log, pow, div };
enum class Flavor { library, intrinsic, library_fast_math };
// y[i] = f(x[i]) (pow: x^1.5; div: 1.7 / x) as the flavour computes it.
void launch_accuracy(MathFunction f, Flavor flavor, const float* x, float* y, int n,
                     cudaStream_t stream);
void launch_accuracy_fast_math(MathFunction f, const float* x, float* y, int n,
                               cudaStream_t stream); // fast_math.cu

// ---- Summation order ---------------------------------------------------------------------------

// out[0] = (v[0] + v[1]) + v[2], out[1] = v[0] + (v[1] + v[2])
void launch_associativity(const float* v, float* out, cudaStream_t stream);
// One thread adds in index order.
void launch_sequential_sum(const float* in, std::int64_t n, float* out, cudaStream_t stream);
// Adjacent pairs, level by level (n a power of two); `scratch` holds pairwise_scratch(n) floats:
// the levels alternate between its first n / 2 and its last n / 4, so that no level writes where
// the level it reads from lies (blocks of one level run in any order).
inline std::int64_t pairwise_scratch(std::int64_t n) { return n / 2 + n / 4 > 0 ? n / 2 + n / 4 : 1; }
void launch_pairwise_sum(const float* in, std::int64_t n, float* scratch, float* out,
                         cudaStream_t stream);

// ---- Divergence -----------------------------------------------------------------------------

// Which threads take path A (a chain of FMAs) rather than path B (a chain of adds).
enum class Branch {
  granularity, // ((threadIdx.x / granularity) & 1) == 0
  deck_thread, // threadIdx.x > 2                (the deck's divergent example)
  deck_warp,   // threadIdx.x / warpSize > 2     (the deck's uniform example)
  none,        // every thread takes path A: the no-divergence baseline
};
bool takes_path_a(Branch branch, int granularity, int thread_in_block);
void launch_divergence(Branch branch, int granularity, float* out, int blocks, int threads,
                       int steps, float a, float b, cudaStream_t stream);

// c[i] = a[i] + b[i] behind `if (i < n)`.
void launch_vector_add(const float* a, const float* b, float* c, std::int64_t n, int threads,
                       cudaStream_t stream);
// counts[0] += warps of the vector add's grid, counts[1] += those whose lanes disagree on i < n.
void launch_count_divergent_warps(std::int64_t n, int threads, unsigned long long* counts,
                                  cudaStream_t stream);

// ---- Launch configuration --------------------------------------------------------------------

// out[i] = in[i], one element per thread, `dynamic_shared` bytes of (unused) shared memory per
// block: the occupancy it costs is the point.
void launch_copy(const float* in, float* out, std::int64_t n, int threads, int dynamic_shared,
                 cudaStream_t stream);
const void* copy_kernel();
// The same copy with about `extra` more registers allocated per thread (held by a branch that
// never runs): register count, and so occupancy, not memory behaviour, is what changes. `sink`
// is never touched at run time (it names the cells that branch would use).
inline constexpr int extra_register_counts[] = {0, 16, 32, 48, 64, 96, 128, 192};
void launch_copy_registers(int extra, const float* in, float* out, std::int64_t n, int threads,
                           unsigned* sink, cudaStream_t stream);
const void* copy_registers_kernel(int extra);
// A grid-stride copy with exactly `blocks` blocks.
void launch_copy_grid_stride(const float* in, float* out, std::int64_t n, int blocks, int threads,
                             cudaStream_t stream);

} // namespace ladder::lab::instructions
