// Host-side truth for the instructions study: the programming guide's throughput table, clock
// conversions, ULP distances against a double reference with the guide's documented error
// bounds, exact sums, divergence and latency-hiding predictions. Host-only, so the host tests
// check every formula without a GPU.
#pragma once

#include "ladder/models.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::lab::instructions {

// ---- The CUDA C++ Programming Guide's table -----------------------------------------------
// "Throughput of Native Arithmetic Instructions (Number of Results per Clock Cycle per
// Multiprocessor)", section "Arithmetic Instructions" of the CUDA C++ Programming Guide (CUDA 12.x
// and 13.0 editions), for the compute capabilities ladder runs on. A row the guide marks
// "multiple instructions" is not in the table.
struct GuideRow {
  std::string_view key;       // "fp32"
  std::string_view operation; // the guide's wording
  int cc70, cc80, cc86, cc89, cc90;
};
std::span<const GuideRow> guide_table();
// Results per clock per SM of `key` at compute capability major.minor; nullopt when the key is
// unknown or the capability has no column here.
std::optional<int> guide_rate(std::string_view key, int major, int minor);
std::string_view guide_operation(std::string_view key);

// ---- Clocks ---------------------------------------------------------------------------------
// The SM clock a kernel ran at: clock64 cycles over %globaltimer nanoseconds.
double clock_hz(long long cycles, unsigned long long nanoseconds);
// Operations per clock per SM from operations, seconds, the clock and the SM count.
double per_clock_per_sm(double operations, double seconds, double clock_hz, int multiprocessors);
// Cycles per step of a dependent chain.
double cycles_per_step(long long cycles, int steps);

// ---- ULP -----------------------------------------------------------------------------------
// The spacing of floats at |reference| (2^-149 for subnormals); the unit of every ULP figure.
double float_ulp(double reference);
// |got - reference| in ULPs of the float nearest the reference; +inf for a NaN or an infinite got
// where the reference is finite, 0 where both are the same infinity.
double ulp_error(float got, double reference);

struct UlpStats {
  double max = 0, mean = 0;
  double worst_argument = 0;
  std::int64_t count = 0;
  void add(double ulp, double argument);
  void finish();
};

// The double-precision truth of each function the accuracy table sweeps.
enum class MathFunctionId { sin, cos, tan, exp, log, pow, div };
double reference_value(MathFunctionId f, double x);
std::string_view function_name(MathFunctionId f, bool intrinsic);
// The guide's documented bound for the library function ("Mathematical Functions" appendix):
// max ULP (sinf, cosf 2; tanf 4; expf 2; logf 1; powf 4; x / y 0 with -prec-div=true).
double library_ulp_bound(MathFunctionId f);
// The guide's bound for the intrinsic at `x` ("Intrinsic Functions" appendix) as an absolute or
// ULP error; true when `got` is within it. __sinf/__cosf: 2^-21.41 absolute on [-pi, pi], larger
// outside; __expf: 2 + floor(|1.173 x|) ULP; __logf: 2^-21.41 absolute on [0.5, 2], else 3 ULP;
// __fdividef: 2 ULP for |y| in [2^-126, 2^126]. Arguments outside the documented ranges have no
// bound (returns true).
bool within_intrinsic_bound(MathFunctionId f, double x, float got);

// ---- Summation ----------------------------------------------------------------------------
// Values k x 2^-24 with integer k in [1, 2^24): every input exact, so the exact sum is the
// integer sum of k (below 2^48) times 2^-24.
std::vector<float> exact_inputs(std::int64_t n, std::uint64_t seed);
double exact_sum(std::span<const float> values); // exact for exact_inputs
float sequential_sum(std::span<const float> values);
float pairwise_sum(std::span<const float> values); // adjacent pairs, level by level (n = 2^k)

// ---- Divergence ---------------------------------------------------------------------------
// Warps of a `block_threads`-thread block whose threads disagree on `taken(thread)`.
models::DivergenceCount branch_divergence(int block_threads, const std::function<bool(int)>& taken);
// Time relative to no divergence when both paths cost the same and each warp issues its own
// instructions back to back: 1 + the fraction of warps that run both paths.
double predicted_slowdown(const models::DivergenceCount& count);

// ---- Latency hiding -----------------------------------------------------------------------
// Warps per SM that keep a pipe busy: latency (cycles) x the pipe's warp instructions per clock
// per SM / independent instructions per warp (the deck: ~24 cycles x 1/4 per clock = 6 warps).
double warps_to_hide(double latency_cycles, double warp_instructions_per_clock, double ilp);
// Little's law for memory: bytes in flight an SM needs (bandwidth per SM x latency) over the bytes
// one warp keeps in flight.
double warps_for_bandwidth(double bytes_per_second, int multiprocessors, double latency_seconds,
                           double bytes_in_flight_per_warp);

// A random cyclic permutation over `lines` slots spaced `stride_words` apart (Sattolo):
// chase[i * stride] = next slot's index; the walk visits every slot once per cycle.
std::vector<std::uint32_t> chase_cycle(std::uint32_t lines, std::uint32_t stride_words,
                                       std::uint64_t seed);

} // namespace ladder::lab::instructions
