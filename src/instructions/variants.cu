// The instructions study's kernels, in the order of the deck's "Instruction Optimizations" and
// "Execution Configuration Optimizations" slides: throughput per operation, latency of dependent
// chains, accuracy of the intrinsics, summation order, divergence, launch configuration.
#include "instructions/accuracy.cuh"
#include "instructions/throughput.cuh"

#include "core/harness.hpp"

#include <algorithm>

namespace ladder::lab::instructions {

// ---- Throughput ------------------------------------------------------------------------------
// One row per operation of the deck's slides and the guide's table. `sass` is what ptxas emits
// for one operation on sm_90 (CUDA 13), as cuobjdump shows it; docs/instructions.md has the
// counts per kernel.

const std::vector<ThroughputRung>& throughput_registry() {
  static const std::vector<ThroughputRung> rungs = [] {
    std::vector<ThroughputRung> r = {
        throughput_rung<Fp32Add, 16>({"fp32_add", "x = x + a, 8 independent chains per thread",
                                      "float add: 4 cycles per warp"},
                                     "fp32", "FADD", 1),
        throughput_rung<Fp32Mul, 16>({"fp32_mul", "x = x * a, 8 independent chains per thread",
                                      "float mul: 4 cycles per warp"},
                                     "fp32", "FMUL", 1),
        throughput_rung<Fp32Fma, 16>({"fp32_fma",
                                      "x = fmaf(x, a, b), 8 independent chains per thread",
                                      "float mad: 4 cycles per warp"},
                                     "fp32", "FFMA", 1),
        throughput_rung<Fp64Fma, 16>(
            {"fp64_fma", "x = fma(x, a, b) in double, 8 chains per thread", {}, Role::beyond},
            "fp64", "DFMA", 2),
        throughput_rung<Fp16x2Fma, 16>(
            {"fp16x2_fma", "__hfma2 on packed halves: 2 results per instruction", {}, Role::beyond},
            "fp16", "HFMA2", 1),
        throughput_rung<Int32Add, 16>(
            {"int32_add", "x += y; y += x (no closed form to fold)", "int add: 4 cycles per warp"},
            "int_add", "IMAD.IADD + IADD3", 1),
        throughput_rung<Int32Mul, 16>({"int32_mul", "x *= y; y *= x",
                                       "int multiply (*) is by default 32-bit: multiple cycles"},
                                      "int_mul", "IMAD", 2),
        throughput_rung<Mul24, 16>({"umul24", "x = __umul24(x, y): the deck's faster multiply",
                                    "__mul24 / __umul24: 4-cycle 24-bit int multiply"},
                                   "", "multiple", 2),
        throughput_rung<UdivVariable, 4>({"udiv_variable", "x = x / d + y, d a kernel argument",
                                          "integer divide and modulo are more expensive"},
                                         "", "multiple", 20),
        throughput_rung<UdivLiteral, 16>(
            {"udiv_literal_pow2", "x = x / 64 + y: the compiler turns it into a shift",
             "compiler will convert literal power-of-2 divides to shifts"},
            "int_shift", "SHF / LEA.HI", 1),
        throughput_rung<UdivShift, 16>(
            {"udiv_explicit_shift", "x = (x >> log2(d)) + y: the deck's 'be explicit'",
             "be explicit where the compiler can't tell that the divisor is a power of 2"},
            "int_shift", "SHF", 1),
        throughput_rung<UmodVariable, 4>({"umod_variable", "x = x % d + y, d a kernel argument",
                                          "integer divide and modulo are more expensive"},
                                         "", "multiple", 20),
        throughput_rung<UmodLiteral, 16>({"umod_literal_pow2",
                                          "x = x % 64 + y: the compiler turns it into an AND",
                                          {},
                                          Role::seed},
                                         "int_bitwise", "LOP3", 1),
        throughput_rung<UmodMask, 16>({"umod_explicit_mask",
                                       "x = (x & (d - 1)) + y: the deck's trick",
                                       "foo % n == foo & (n - 1) if n is a power of 2"},
                                      "int_bitwise", "LOP3", 1),
        throughput_rung<Shift, 16>({"shift",
                                    "x = __funnelshift_l(y, x, s): one shift per operation",
                                    "int shift: 4 cycles per warp"},
                                   "int_shift", "SHF.L", 1),
        throughput_rung<Popc, 16>({"popc", "x = __popc(x) + y", {}, Role::beyond}, "popc", "POPC",
                                  2),
        throughput_rung<SinIntrinsic, 8>(
            {"sin_intrinsic", "x = __sinf(x)", "__sin(): 16 cycles per warp"}, "sfu",
            "FMUL.RZ + MUFU.SIN", 2),
        throughput_rung<ExpIntrinsic, 8>(
            {"exp_intrinsic", "x = __expf(-x)", "__exp(): 16 cycles per warp"}, "sfu",
            "FMUL + MUFU.EX2", 2),
        throughput_rung<LogIntrinsic, 8>(
            {"log_intrinsic", "x = __logf(x) + 2", "log: 16 cycles per warp"}, "sfu",
            "MUFU.LG2 + FFMA", 2),
        throughput_rung<Rsqrt, 8>(
            {"rsqrtf", "x = rsqrtf(x)", "reciprocal square root: 16 cycles per warp"}, "sfu",
            "MUFU.RSQ", 2),
        throughput_rung<RcpRn, 8>({"frcp_rn", "x = __frcp_rn(x): correctly rounded reciprocal",
                                   "__rcp(): 16 cycles per warp"},
                                  "", "MUFU.RCP + FFMA refinement", 4),
        throughput_rung<DivFast, 8>({"fdividef", "x = __fdividef(a, x) + a",
                                     "y / x == rcp(x) * y takes 20 cycles per warp"},
                                    "", "MUFU.RCP + FMUL", 3),
        throughput_rung<DivIeee, 8>(
            {"fdiv", "x = a / x + a, IEEE division (-prec-div=true)", {}, Role::beyond}, "",
            "multiple (MUFU.RCP, FFMA, slow-path call)", 8),
        throughput_rung<SinLibrary, 8>({"sinf", "x = sinf(x): |x| < 105615, fast path",
                                        "func(): compiles to multiple instructions"},
                                       "", "multiple (FFMA polynomial)", 20),
        throughput_rung<SinLibrarySlowPath, 1>({"sinf_slow_path",
                                                "x = sinf(x + 1e6): Payne-Hanek argument reduction",
                                                {},
                                                Role::beyond},
                                               "", "multiple (local-memory table walk)", 200),
        throughput_rung<ExpLibrary, 8>(
            {"expf", "x = expf(-x)", "func(): compiles to multiple instructions"}, "",
            "multiple (FFMA + MUFU.EX2)", 4),
        throughput_rung<FloatToInt, 16>(
            {"float_to_int",
             "x = __float2int_rn(float(x) * a) + y: I2F and F2I per step",
             {},
             Role::beyond},
            "conversion", "I2FP + F2I", 2),
    };
    for (auto& f : fast_math_throughput_rungs())
      r.push_back(f);
    return r;
  }();
  return rungs;
}

namespace {

// Chain k starts at 1 + k / 64 + (t mod 1024) / 2^20: exact in float, distinct per chain.
__host__ __device__ inline float chain_seed(std::uint32_t t, int k) {
  return 1.0f + static_cast<float>(k) * (1.0f / 64.0f) +
         static_cast<float>(t % 1024u) * (1.0f / 1048576.0f);
}

template <int Chains>
__global__ void __launch_bounds__(1024)
    fma_chains(float* out, int iterations, float a, float b, ClockSample* clock) {
  const auto t = static_cast<std::uint32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  float v[Chains];
#pragma unroll
  for (int k = 0; k < Chains; ++k)
    v[k] = chain_seed(t, k);
  long long c0 = 0;
  unsigned long long n0 = 0;
  if (t == 0)
    read_clock(c0, n0);
  // 16 / Chains trips unrolled: at least 16 FMAs per loop trip for every chain count.
  constexpr int unroll = Chains >= 16 ? 1 : 16 / Chains;
  for (int i = 0; i < iterations; i += unroll)
#pragma unroll
    for (int u = 0; u < unroll; ++u)
#pragma unroll
      for (int k = 0; k < Chains; ++k)
        v[k] = fmaf(v[k], a, b);
#pragma unroll
  for (int k = 0; k < Chains; ++k)
    out[static_cast<std::size_t>(t) * Chains + k] = v[k];
  if (t == 0) {
    long long c1;
    unsigned long long n1;
    read_clock(c1, n1);
    *clock = {c0, c1, n0, n1};
  }
}

template <int Chains>
void launch_fma_chains_as(float* out, int blocks, int threads, int iterations, float a, float b,
                          ClockSample* clock, cudaStream_t stream) {
  fma_chains<Chains><<<blocks, threads, 0, stream>>>(out, iterations, a, b, clock);
  check_launch("instructions::fma_chains");
}

} // namespace

float fma_chain_seed(std::uint32_t thread, int chain) { return chain_seed(thread, chain); }

void launch_fma_chains(int chains, float* out, int blocks, int threads, int iterations, float a,
                       float b, ClockSample* clock, cudaStream_t stream) {
  switch (chains) {
  case 1:
    return launch_fma_chains_as<1>(out, blocks, threads, iterations, a, b, clock, stream);
  case 2:
    return launch_fma_chains_as<2>(out, blocks, threads, iterations, a, b, clock, stream);
  case 4:
    return launch_fma_chains_as<4>(out, blocks, threads, iterations, a, b, clock, stream);
  case 8:
    return launch_fma_chains_as<8>(out, blocks, threads, iterations, a, b, clock, stream);
  case 16:
    return launch_fma_chains_as<16>(out, blocks, threads, iterations, a, b, clock, stream);
  default:
    throw std::invalid_argument("launch_fma_chains: chains must be 1, 2, 4, 8 or 16");
  }
}

const void* fma_chains_kernel(int chains) {
  switch (chains) {
  case 1:
    return reinterpret_cast<const void*>(&fma_chains<1>);
  case 2:
    return reinterpret_cast<const void*>(&fma_chains<2>);
  case 4:
    return reinterpret_cast<const void*>(&fma_chains<4>);
  case 8:
    return reinterpret_cast<const void*>(&fma_chains<8>);
  case 16:
    return reinterpret_cast<const void*>(&fma_chains<16>);
  default:
    throw std::invalid_argument("fma_chains_kernel: chains must be 1, 2, 4, 8 or 16");
  }
}

// ---- Latency ---------------------------------------------------------------------------------
// One thread, one dependent chain, clock64 around the timed steps. The chain's last value is
// stored before the second clock read; in-order issue makes that store wait for the last step.

namespace {

constexpr int latency_unroll = 32;

__device__ __forceinline__ long long clock_now() {
  long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

__global__ void latency_kernel(LatencyKind kind, const std::uint32_t* chase,
                               std::uint32_t chase_length, int warm_steps, int steps, OpArgs args,
                               long long* cycles, std::uint32_t* sink) {
  __shared__ std::uint32_t table[max_shared_chase];
  if (kind == LatencyKind::fp32_add || kind == LatencyKind::fp32_fma) {
    float v = args.fb + static_cast<float>(threadIdx.x);
    const long long c0 = clock_now();
    if (kind == LatencyKind::fp32_add) {
      for (int i = 0; i < steps; i += latency_unroll)
#pragma unroll
        for (int u = 0; u < latency_unroll; ++u)
          v = v + args.fa;
    } else {
      for (int i = 0; i < steps; i += latency_unroll)
#pragma unroll
        for (int u = 0; u < latency_unroll; ++u)
          v = fmaf(v, args.fa, args.fb);
    }
    *reinterpret_cast<volatile float*>(sink) = v;
    const long long c1 = clock_now();
    *cycles = c1 - c0;
    return;
  }
  const std::uint32_t* source = chase;
  if (kind == LatencyKind::shared_load) {
    for (std::uint32_t i = 0; i < chase_length; ++i)
      table[i] = chase[i];
    __syncwarp();
    source = table;
  }
  std::uint32_t p = 0;
  for (int i = 0; i < warm_steps; ++i)
    p = source[p];
  const long long c0 = clock_now();
  for (int i = 0; i < steps; i += latency_unroll)
#pragma unroll
    for (int u = 0; u < latency_unroll; ++u)
      p = source[p];
  *reinterpret_cast<volatile std::uint32_t*>(sink) = p;
  const long long c1 = clock_now();
  *cycles = c1 - c0;
}

} // namespace

void launch_latency(const LatencyLaunch& l, cudaStream_t stream) {
  if (l.steps % latency_unroll != 0)
    throw std::invalid_argument("launch_latency: steps must be a multiple of 32");
  if (l.kind == LatencyKind::shared_load && l.chase_length > max_shared_chase)
    throw std::invalid_argument("launch_latency: chase_length above 4096");
  latency_kernel<<<1, 1, 0, stream>>>(l.kind, l.chase, l.chase_length, l.warm_steps, l.steps,
                                      l.args, l.cycles, l.sink);
  check_launch("instructions::latency_kernel");
}

// ---- Accuracy --------------------------------------------------------------------------------

void launch_accuracy(MathFunction f, Flavor flavor, const float* x, float* y, int n,
                     cudaStream_t stream) {
  switch (flavor) {
  case Flavor::library:
    return launch_accuracy_as<false>(f, x, y, n, stream);
  case Flavor::intrinsic:
    return launch_accuracy_as<true>(f, x, y, n, stream);
  case Flavor::library_fast_math:
    return launch_accuracy_fast_math(f, x, y, n, stream);
  }
}

// ---- Summation order ---------------------------------------------------------------------------

namespace {

__global__ void associativity_kernel(const float* v, float* out) {
  out[0] = (v[0] + v[1]) + v[2];
  out[1] = v[0] + (v[1] + v[2]);
}

__global__ void sequential_sum_kernel(const float* in, std::int64_t n, float* out) {
  float s = 0;
  for (std::int64_t i = 0; i < n; ++i)
    s += in[i];
  *out = s;
}

__global__ void pair_level_kernel(const float* in, std::int64_t half, float* out) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < half)
    out[i] = in[2 * i] + in[2 * i + 1];
}

} // namespace

void launch_associativity(const float* v, float* out, cudaStream_t stream) {
  associativity_kernel<<<1, 1, 0, stream>>>(v, out);
  check_launch("instructions::associativity_kernel");
}

void launch_sequential_sum(const float* in, std::int64_t n, float* out, cudaStream_t stream) {
  sequential_sum_kernel<<<1, 1, 0, stream>>>(in, n, out);
  check_launch("instructions::sequential_sum_kernel");
}

void launch_pairwise_sum(const float* in, std::int64_t n, float* scratch, float* out,
                         cudaStream_t stream) {
  if (n < 1 || (n & (n - 1)) != 0)
    throw std::invalid_argument("launch_pairwise_sum: n must be a power of two");
  if (n == 1) {
    LADDER_CUDA(cudaMemcpyAsync(out, in, sizeof(float), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  // Levels ping-pong between scratch[0, n / 2) and scratch[n / 2, 3n / 4) (see pairwise_scratch).
  const float* src = in;
  float* bufs[2] = {scratch, scratch + n / 2};
  int which = 0;
  for (std::int64_t half = n / 2; half >= 1; half /= 2) {
    float* dst = half == 1 ? out : bufs[which];
    const int threads = 256;
    const auto blocks = static_cast<unsigned>((half + threads - 1) / threads);
    pair_level_kernel<<<blocks, threads, 0, stream>>>(src, half, dst);
    check_launch("instructions::pair_level_kernel");
    src = dst;
    which ^= 1;
  }
}

// ---- Divergence -----------------------------------------------------------------------------

__host__ __device__ inline bool path_a(Branch branch, int granularity, int thread) {
  switch (branch) {
  case Branch::granularity:
    return ((thread / granularity) & 1) == 0;
  case Branch::deck_thread:
    return thread > 2;
  case Branch::deck_warp:
    return thread / 32 > 2;
  case Branch::none:
    return true;
  }
  return true;
}

bool takes_path_a(Branch branch, int granularity, int thread_in_block) {
  return path_a(branch, granularity, thread_in_block);
}

namespace {

// Path A: `steps` dependent FMAs; path B: `steps` dependent adds. Different opcodes, so the
// compiler cannot merge the two paths into one with selected operands: a divergent warp runs both.
__global__ void divergence_kernel(Branch branch, int granularity, float* out, int steps, float a,
                                  float b) {
  float v = 1.0f + static_cast<float>(threadIdx.x % 64) * (1.0f / 128.0f);
  if (path_a(branch, granularity, static_cast<int>(threadIdx.x))) {
    for (int i = 0; i < steps; i += 16)
#pragma unroll
      for (int u = 0; u < 16; ++u)
        v = fmaf(v, a, b);
  } else {
    for (int i = 0; i < steps; i += 16)
#pragma unroll
      for (int u = 0; u < 16; ++u)
        v = v + b;
  }
  out[blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x] = v;
}

__global__ void vector_add_kernel(const float* a, const float* b, float* c, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

__global__ void count_divergent_warps_kernel(std::int64_t n, unsigned long long* counts) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const unsigned active = __activemask(); // a partial last warp of a block has fewer lanes
  const unsigned inside = __ballot_sync(active, i < n);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&counts[0], 1ull);
    if (inside != 0 && inside != active)
      atomicAdd(&counts[1], 1ull);
  }
}

} // namespace

void launch_divergence(Branch branch, int granularity, float* out, int blocks, int threads,
                       int steps, float a, float b, cudaStream_t stream) {
  if (steps % 16 != 0)
    throw std::invalid_argument("launch_divergence: steps must be a multiple of 16");
  if (granularity < 1)
    throw std::invalid_argument("launch_divergence: granularity must be positive");
  divergence_kernel<<<blocks, threads, 0, stream>>>(branch, granularity, out, steps, a, b);
  check_launch("instructions::divergence_kernel");
}

void launch_vector_add(const float* a, const float* b, float* c, std::int64_t n, int threads,
                       cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  vector_add_kernel<<<blocks, threads, 0, stream>>>(a, b, c, n);
  check_launch("instructions::vector_add_kernel");
}

void launch_count_divergent_warps(std::int64_t n, int threads, unsigned long long* counts,
                                  cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  count_divergent_warps_kernel<<<blocks, threads, 0, stream>>>(n, counts);
  check_launch("instructions::count_divergent_warps_kernel");
}

// ---- Launch configuration --------------------------------------------------------------------

namespace {

__global__ void copy_kernel_impl(const float* in, float* out, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

// The copy with a register allocation about Extra larger: a branch that never runs (`hold` is 0
// at every launch, which the compiler cannot know) holds Extra values at once, loaded and then
// stored through volatile accesses, whose order the compiler keeps, so all Extra are live together.
// Registers are allocated for the kernel as a whole, so the copy that does run pays the occupancy
// of the larger allocation with none of the extra work. (Values pinned by empty asm statements
// do not survive: the compiler drops the asm and folds the arithmetic.)
template <int Extra>
__global__ void copy_registers_impl(const float* in, float* out, std::int64_t n, unsigned* sink,
                                    int hold) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  out[i] = in[i];
  if constexpr (Extra > 0) {
    if (hold) {
      volatile unsigned* cell = sink;
      unsigned pad[Extra];
#pragma unroll
      for (int k = 0; k < Extra; ++k)
        pad[k] = cell[k];
#pragma unroll
      for (int k = 0; k < Extra; ++k)
        cell[k] = pad[k] * 3u + 1u;
    }
  }
}

__global__ void copy_grid_stride_kernel(const float* in, float* out, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride)
    out[i] = in[i];
}

template <int Extra> const void* registers_kernel_of() {
  return reinterpret_cast<const void*>(&copy_registers_impl<Extra>);
}

template <int... Extras>
const void* pick_registers_kernel(int extra, std::integer_sequence<int, Extras...>) {
  const void* k = nullptr;
  ((extra == Extras ? (k = registers_kernel_of<Extras>(), 0) : 0), ...);
  return k;
}

using ExtraList = std::integer_sequence<int, 0, 16, 32, 48, 64, 96, 128, 192>;

} // namespace

void launch_copy(const float* in, float* out, std::int64_t n, int threads, int dynamic_shared,
                 cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  copy_kernel_impl<<<blocks, threads, dynamic_shared, stream>>>(in, out, n);
  check_launch("instructions::copy_kernel");
}

const void* copy_kernel() { return reinterpret_cast<const void*>(&copy_kernel_impl); }

const void* copy_registers_kernel(int extra) {
  const void* k = pick_registers_kernel(extra, ExtraList{});
  if (!k)
    throw std::invalid_argument("copy_registers_kernel: extra must be one of "
                                "extra_register_counts");
  return k;
}

void launch_copy_registers(int extra, const float* in, float* out, std::int64_t n, int threads,
                           unsigned* sink, cudaStream_t stream) {
  using Kernel = void (*)(const float*, float*, std::int64_t, unsigned*, int);
  const auto kernel = reinterpret_cast<Kernel>(const_cast<void*>(copy_registers_kernel(extra)));
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  kernel<<<blocks, threads, 0, stream>>>(in, out, n, sink, /*hold=*/0);
  check_launch("instructions::copy_registers_kernel");
}

void launch_copy_grid_stride(const float* in, float* out, std::int64_t n, int blocks, int threads,
                             cudaStream_t stream) {
  copy_grid_stride_kernel<<<blocks, threads, 0, stream>>>(in, out, n);
  check_launch("instructions::copy_grid_stride_kernel");
}

} // namespace ladder::lab::instructions
