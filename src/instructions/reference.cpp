#include "instructions/reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>

namespace ladder::lab::instructions {

namespace {

// The CUDA C++ Programming Guide, "Arithmetic Instructions", table "Throughput of Native
// Arithmetic Instructions (Number of Results per Clock Cycle per Multiprocessor)". Columns: 7.x,
// 8.0, 8.6, 8.9, 9.0. Rows the guide gives as "multiple instructions" (24-bit multiply, integer
// divide and modulo, the library functions) are absent on purpose.
constexpr std::array<GuideRow, 10> table = {{
    {"fp16", "16-bit floating-point add, multiply, multiply-add", 128, 256, 256, 128, 256},
    {"fp32", "32-bit floating-point add, multiply, multiply-add", 64, 64, 128, 128, 128},
    {"fp64", "64-bit floating-point add, multiply, multiply-add", 32, 32, 2, 2, 64},
    {"sfu",
     "32-bit floating-point reciprocal, reciprocal square root, base-2 logarithm, base-2 "
     "exponential, sine, cosine",
     16, 16, 16, 16, 16},
    {"int_add", "32-bit integer add, extended-precision add, subtract", 64, 64, 64, 64, 64},
    {"int_mul", "32-bit integer multiply, multiply-add, extended-precision multiply-add", 64, 64,
     64, 64, 64},
    {"int_shift", "32-bit integer shift", 64, 64, 64, 64, 64},
    {"int_bitwise", "32-bit bitwise AND, OR, XOR", 64, 64, 64, 64, 64},
    {"popc", "population count", 16, 16, 16, 16, 16},
    {"conversion", "all other type conversions (float <-> 32-bit integer)", 16, 16, 16, 16, 16},
}};

} // namespace

std::span<const GuideRow> guide_table() { return table; }

std::optional<int> guide_rate(std::string_view key, int major, int minor) {
  for (const GuideRow& row : table) {
    if (row.key != key)
      continue;
    if (major == 7)
      return row.cc70;
    if (major == 8 && minor == 0)
      return row.cc80;
    if (major == 8 && minor == 6)
      return row.cc86;
    if (major == 8 && minor == 9)
      return row.cc89;
    if (major == 9 && minor == 0)
      return row.cc90;
    return std::nullopt;
  }
  return std::nullopt;
}

std::string_view guide_operation(std::string_view key) {
  for (const GuideRow& row : table)
    if (row.key == key)
      return row.operation;
  return "multiple instructions";
}

double clock_hz(long long cycles, unsigned long long nanoseconds) {
  if (cycles <= 0 || nanoseconds == 0)
    return 0;
  return static_cast<double>(cycles) / (static_cast<double>(nanoseconds) * 1e-9);
}

double per_clock_per_sm(double operations, double seconds, double clock, int multiprocessors) {
  if (seconds <= 0 || clock <= 0 || multiprocessors <= 0)
    return 0;
  return operations / (seconds * clock * multiprocessors);
}

double cycles_per_step(long long cycles, int steps) {
  return steps > 0 ? static_cast<double>(cycles) / steps : 0;
}

double float_ulp(double reference) {
  const double a = std::fabs(reference);
  if (!(a >= static_cast<double>(std::numeric_limits<float>::min())))
    return std::ldexp(1.0, -149);
  int exponent = 0;
  std::frexp(a, &exponent); // a = m x 2^exponent, m in [0.5, 1)
  if (exponent > 128)       // beyond float's range: the largest binade's spacing
    exponent = 128;
  return std::ldexp(1.0, exponent - 24);
}

double ulp_error(float got, double reference) {
  if (std::isnan(reference))
    return std::isnan(got) ? 0.0 : std::numeric_limits<double>::infinity();
  if (std::isinf(reference) && std::isinf(got) && std::signbit(reference) == std::signbit(got))
    return 0.0;
  if (!std::isfinite(got))
    return std::numeric_limits<double>::infinity();
  return std::fabs(static_cast<double>(got) - reference) / float_ulp(reference);
}

void UlpStats::add(double ulp, double argument) {
  if (count == 0 || ulp > max) {
    max = ulp;
    worst_argument = argument;
  }
  mean += ulp;
  ++count;
}

void UlpStats::finish() {
  if (count > 0)
    mean /= static_cast<double>(count);
}

double reference_value(MathFunctionId f, double x) {
  switch (f) {
  case MathFunctionId::sin:
    return std::sin(x);
  case MathFunctionId::cos:
    return std::cos(x);
  case MathFunctionId::tan:
    return std::tan(x);
  case MathFunctionId::exp:
    return std::exp(x);
  case MathFunctionId::log:
    return std::log(x);
  case MathFunctionId::pow:
    return std::pow(x, 1.5);
  case MathFunctionId::div:
    return static_cast<double>(1.7f) / x;
  }
  return 0;
}

std::string_view function_name(MathFunctionId f, bool intrinsic) {
  switch (f) {
  case MathFunctionId::sin:
    return intrinsic ? "__sinf(x)" : "sinf(x)";
  case MathFunctionId::cos:
    return intrinsic ? "__cosf(x)" : "cosf(x)";
  case MathFunctionId::tan:
    return intrinsic ? "__tanf(x)" : "tanf(x)";
  case MathFunctionId::exp:
    return intrinsic ? "__expf(x)" : "expf(x)";
  case MathFunctionId::log:
    return intrinsic ? "__logf(x)" : "logf(x)";
  case MathFunctionId::pow:
    return intrinsic ? "__powf(x, 1.5f)" : "powf(x, 1.5f)";
  case MathFunctionId::div:
    return intrinsic ? "__fdividef(1.7f, x)" : "1.7f / x";
  }
  return "?";
}

double library_ulp_bound(MathFunctionId f) {
  switch (f) {
  case MathFunctionId::sin:
  case MathFunctionId::cos:
  case MathFunctionId::exp:
    return 2;
  case MathFunctionId::tan:
  case MathFunctionId::pow:
    return 4;
  case MathFunctionId::log:
    return 1;
  case MathFunctionId::div:
    return 0.5; // correctly rounded: within half an ULP of the exact quotient
  }
  return 0;
}

bool within_intrinsic_bound(MathFunctionId f, double x, float got) {
  const double truth = reference_value(f, x);
  const double abs_error = std::fabs(static_cast<double>(got) - truth);
  const double small = std::exp2(-21.41);
  switch (f) {
  case MathFunctionId::sin:
  case MathFunctionId::cos:
    return std::fabs(x) > std::numbers::pi || abs_error <= small;
  case MathFunctionId::exp:
    return ulp_error(got, truth) <= 2.0 + std::floor(std::fabs(1.173 * x));
  case MathFunctionId::log:
    return (x >= 0.5 && x <= 2.0) ? abs_error <= small : ulp_error(got, truth) <= 3.0;
  case MathFunctionId::div:
    return !(std::fabs(x) >= std::ldexp(1.0, -126) && std::fabs(x) <= std::ldexp(1.0, 126)) ||
           ulp_error(got, truth) <= 2.0;
  case MathFunctionId::tan:
  case MathFunctionId::pow:
    return true; // the guide derives them from other intrinsics and states no bound
  }
  return true;
}

std::vector<float> exact_inputs(std::int64_t n, std::uint64_t seed) {
  if (n < 0)
    throw std::invalid_argument("exact_inputs: n must be non-negative");
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> k(1, (1u << 24) - 1);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v)
    x = std::ldexp(static_cast<float>(k(rng)), -24);
  return v;
}

double exact_sum(std::span<const float> values) {
  // Each value is k x 2^-24 with k < 2^24: summing the integers k is exact below 2^63.
  std::int64_t total = 0;
  for (float v : values) {
    const double scaled = std::ldexp(static_cast<double>(v), 24);
    if (scaled != std::floor(scaled) || scaled < 0 || scaled >= 16777216.0)
      throw std::invalid_argument("exact_sum: values must be k x 2^-24 with 0 <= k < 2^24");
    total += static_cast<std::int64_t>(scaled);
  }
  return std::ldexp(static_cast<double>(total), -24);
}

float sequential_sum(std::span<const float> values) {
  float s = 0;
  for (float v : values)
    s += v;
  return s;
}

float pairwise_sum(std::span<const float> values) {
  const std::size_t n = values.size();
  if (n == 0)
    return 0;
  if ((n & (n - 1)) != 0)
    throw std::invalid_argument("pairwise_sum: the size must be a power of two");
  std::vector<float> level(values.begin(), values.end());
  for (std::size_t half = n / 2; half >= 1; half /= 2) {
    for (std::size_t i = 0; i < half; ++i)
      level[i] = level[2 * i] + level[2 * i + 1];
    if (half == 1)
      break;
  }
  return level[0];
}

models::DivergenceCount branch_divergence(int block_threads,
                                          const std::function<bool(int)>& taken) {
  if (block_threads < 1)
    throw std::invalid_argument("branch_divergence: block_threads must be positive");
  models::DivergenceCount count;
  for (int warp = 0; warp * 32 < block_threads; ++warp) {
    const int first = warp * 32, last = std::min(block_threads, first + 32);
    bool any = false, all = true;
    for (int t = first; t < last; ++t) {
      const bool a = taken(t);
      any = any || a;
      all = all && a;
    }
    ++count.total;
    count.divergent += any && !all;
  }
  return count;
}

double predicted_slowdown(const models::DivergenceCount& count) { return 1.0 + count.fraction(); }

double warps_to_hide(double latency_cycles, double warp_instructions_per_clock, double ilp) {
  if (latency_cycles <= 0 || warp_instructions_per_clock <= 0 || ilp <= 0)
    throw std::invalid_argument("warps_to_hide: every argument must be positive");
  return latency_cycles * warp_instructions_per_clock / ilp;
}

double warps_for_bandwidth(double bytes_per_second, int multiprocessors, double latency_seconds,
                           double bytes_in_flight_per_warp) {
  if (bytes_per_second <= 0 || multiprocessors <= 0 || latency_seconds <= 0 ||
      bytes_in_flight_per_warp <= 0)
    throw std::invalid_argument("warps_for_bandwidth: every argument must be positive");
  return bytes_per_second / multiprocessors * latency_seconds / bytes_in_flight_per_warp;
}

std::vector<std::uint32_t> chase_cycle(std::uint32_t lines, std::uint32_t stride_words,
                                       std::uint64_t seed) {
  if (lines < 1 || stride_words < 1)
    throw std::invalid_argument("chase_cycle: lines and stride_words must be positive");
  if (static_cast<std::uint64_t>(lines) * stride_words > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("chase_cycle: lines x stride_words must fit 32 bits");
  std::vector<std::uint32_t> order(lines);
  for (std::uint32_t i = 0; i < lines; ++i)
    order[i] = i;
  std::mt19937_64 rng(seed);
  // Sattolo's algorithm: a uniformly random permutation with one cycle through every slot.
  for (std::uint32_t i = lines - 1; i > 0; --i) {
    std::uniform_int_distribution<std::uint32_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  std::vector<std::uint32_t> chase(static_cast<std::size_t>(lines) * stride_words, 0);
  for (std::uint32_t i = 0; i < lines; ++i)
    chase[static_cast<std::size_t>(i) * stride_words] = order[i] * stride_words;
  return chase;
}

} // namespace ladder::lab::instructions
