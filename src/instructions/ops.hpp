// The operations of the throughput table, each as one struct that both the device kernel and the
// CPU reference use: the same initial values, the same update, the same stored results. A thread
// keeps `pairs` (x, y) pairs; one update of a pair does `ops_per_update` counted operations.
//
// Why pairs: a chain the compiler can see through is no measurement. Integer arithmetic is
// associative, so `x += c` repeated n times folds to `x + n * c` (the loop disappears); the integer
// rows therefore use Fibonacci-like pairs (x += y; y += x) that no closed form removes. Floating-
// point rows may use plain chains (x = x * a): IEEE rounding forbids the compiler to regroup them.
// The SASS of every kernel is read on the GPU to confirm the instruction count
// (docs/instructions.md).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#include <cuda_fp16.h>
#define LADDER_HD __host__ __device__
#define LADDER_D __device__
#else
#define LADDER_HD
#endif

namespace ladder::lab::instructions {

// Runtime operands: kernel arguments, so the compiler cannot fold them into the chain.
struct OpArgs {
  float fa = 0.9999f, fb = 0.5f;
  double da = 0.9999, db = 0.5;
  std::uint32_t divisor = 64; // a power of two the compiler cannot see
  std::uint32_t shift = 6;    // log2(divisor)
  std::uint32_t rotate = 5;   // funnel-shift distance
  float big = 1.0e6f;         // pushes sinf onto its slow path (|x| >= 105615)
};

// A reproducible odd 32-bit value per (thread, chain): the same on host and device.
LADDER_HD inline std::uint32_t seed_value(std::uint32_t thread, std::uint32_t chain) {
  std::uint32_t h = thread * 2654435761u ^ (chain + 1u) * 40503u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return h | 1u;
}

// A float in [0.5, 1.5) with 12 significant bits: exact in float, double and half.
LADDER_HD inline float seed_float(std::uint32_t thread, std::uint32_t chain) {
  return 0.5f + static_cast<float>(seed_value(thread, chain) >> 20) * (1.0f / 4096.0f);
}

// ---- Floating-point chains: x and y are independent, each updated once per update. ----------

struct Fp32Add {
  using T = float;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = x + a.fa;
    y = y + a.fa;
  }
};
struct Fp32Mul {
  using T = float;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = x * a.fa;
    y = y * a.fa;
  }
};
struct Fp32Fma {
  using T = float;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = fmaf(x, a.fa, a.fb);
    y = fmaf(y, a.fa, a.fb);
  }
};
struct Fp64Fma {
  using T = double;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = fma(x, a.da, a.db);
    y = fma(y, a.da, a.db);
  }
};

// ---- Integer pairs: x += y; y += x and the like (no closed form for the compiler). ----------

struct Int32Add {
  using T = std::uint32_t;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
    x = x + y;
    y = y + x;
  }
};
struct Int32Mul {
  using T = std::uint32_t;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
    x = x * y; // odd x odd stays odd: the chain never collapses to 0
    y = y * x;
  }
};
LADDER_HD inline std::uint32_t umul24(std::uint32_t x, std::uint32_t y) {
#ifdef __CUDA_ARCH__
  return __umul24(x, y);
#else
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(x & 0xFFFFFFu) * (y & 0xFFFFFFu));
#endif
}
struct Mul24 {
  using T = std::uint32_t;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
    x = umul24(x, y);
    y = umul24(y, x);
  }
};
struct UdivVariable {
  using T = std::uint32_t;
  static constexpr int ops_per_update = 2; // divisions (the adds ride along)
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = x / a.divisor + y;
    y = y / a.divisor + x;
  }
};
struct UdivLiteral {
  using T = std::uint32_t;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
    x = x / 64u + y;
    y = y / 64u + x;
  }
};
struct UdivShift { // the deck's "be explicit": x >> log2(n) with n known to be a power of two
  using T = std::uint32_t;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = (x >> a.shift) + y;
    y = (y >> a.shift) + x;
  }
};
struct UmodVariable {
  using T = std::uint32_t;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = x % a.divisor + y;
    y = y % a.divisor + x;
  }
};
struct UmodLiteral {
  using T = std::uint32_t;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
    x = x % 64u + y;
    y = y % 64u + x;
  }
};
struct UmodMask { // the deck's trick: foo % n == foo & (n - 1) for a power of two n
  using T = std::uint32_t;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = (x & (a.divisor - 1u)) + y;
    y = (y & (a.divisor - 1u)) + x;
  }
};
LADDER_HD inline std::uint32_t funnel_left(std::uint32_t lo, std::uint32_t hi, std::uint32_t s) {
#ifdef __CUDA_ARCH__
  return __funnelshift_l(lo, hi, s);
#else
  s &= 31u;
  return s == 0 ? hi : (hi << s) | (lo >> (32u - s));
#endif
}
struct Shift {
  using T = std::uint32_t;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = funnel_left(y, x, a.rotate);
    y = funnel_left(x, y, a.rotate);
  }
};
LADDER_HD inline std::uint32_t popcount(std::uint32_t v) {
#ifdef __CUDA_ARCH__
  return static_cast<std::uint32_t>(__popc(v));
#else
  return static_cast<std::uint32_t>(std::popcount(v));
#endif
}
struct Popc {
  using T = std::uint32_t;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
    x = popcount(x) + y;
    y = popcount(y) + x;
  }
};

// Float -> int and back: two conversions per chain step (F2I and I2F are both "other type
// conversions" in the guide's table). The values stay integers in float's exact range.
LADDER_HD inline int float_to_int_rn(float v) {
#ifdef __CUDA_ARCH__
  return __float2int_rn(v);
#else
  const float r = std::nearbyint(v);
  return r >= 2147483648.0f   ? 2147483647
         : r < -2147483648.0f ? (-2147483647 - 1)
                              : static_cast<int>(r);
#endif
}
struct FloatToInt {
  using T = std::uint32_t;
  static constexpr int ops_per_update = 4;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = static_cast<T>(float_to_int_rn(static_cast<float>(x & 0xFFFFFu) * a.fa)) + y;
    y = static_cast<T>(float_to_int_rn(static_cast<float>(y & 0xFFFFFu) * a.fa)) + x;
  }
};

// ---- Special functions: results differ between GPU and CPU by a few ULP, so these rows are
// checked against the CPU with a tolerance (Op::tolerance, absolute, after few updates). -------

struct SinIntrinsic {
  using T = float;
  static constexpr int ops_per_update = 2;
  static constexpr double tolerance = 1e-5;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
#ifdef __CUDA_ARCH__
    x = __sinf(x);
    y = __sinf(y);
#else
    x = static_cast<float>(std::sin(static_cast<double>(x)));
    y = static_cast<float>(std::sin(static_cast<double>(y)));
#endif
  }
};
struct ExpIntrinsic { // x = exp(-x) stays in (0, 1]
  using T = float;
  static constexpr int ops_per_update = 2;
  static constexpr double tolerance = 1e-5;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
#ifdef __CUDA_ARCH__
    x = __expf(-x);
    y = __expf(-y);
#else
    x = static_cast<float>(std::exp(-static_cast<double>(x)));
    y = static_cast<float>(std::exp(-static_cast<double>(y)));
#endif
  }
};
struct LogIntrinsic { // x = log(x) + 2 stays positive (fixed point near 3.15)
  using T = float;
  static constexpr int ops_per_update = 2;
  static constexpr double tolerance = 1e-5;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
#ifdef __CUDA_ARCH__
    x = __logf(x) + 2.0f;
    y = __logf(y) + 2.0f;
#else
    x = static_cast<float>(std::log(static_cast<double>(x)) + 2.0);
    y = static_cast<float>(std::log(static_cast<double>(y)) + 2.0);
#endif
  }
};
struct Rsqrt {
  using T = float;
  static constexpr int ops_per_update = 2;
  static constexpr double tolerance = 1e-5;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
#ifdef __CUDA_ARCH__
    x = rsqrtf(x);
    y = rsqrtf(y);
#else
    x = static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
    y = static_cast<float>(1.0 / std::sqrt(static_cast<double>(y)));
#endif
  }
};
struct RcpRn { // correctly rounded: bit-identical to the CPU's 1.0f / x
  using T = float;
  static constexpr int ops_per_update = 2;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
#ifdef __CUDA_ARCH__
    x = __frcp_rn(x);
    y = __frcp_rn(y);
#else
    x = 1.0f / x;
    y = 1.0f / y;
#endif
  }
};
struct DivFast { // __fdividef(a, x): the deck's "y / x == rcp(x) * y"
  using T = float;
  static constexpr int ops_per_update = 2;
  static constexpr double tolerance = 1e-5;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
#ifdef __CUDA_ARCH__
    x = __fdividef(a.fb, x) + a.fb;
    y = __fdividef(a.fb, y) + a.fb;
#else
    x = static_cast<float>(static_cast<double>(a.fb) / x + a.fb);
    y = static_cast<float>(static_cast<double>(a.fb) / y + a.fb);
#endif
  }
};
// `/` and the library functions: IEEE division and sinf/expf without -use_fast_math are exact
// or within 2 ULP; the same structs compiled in the -use_fast_math file become the intrinsics.
struct DivIeee {
  using T = float;
  static constexpr int ops_per_update = 2;
  static constexpr double tolerance = 1e-5;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = a.fb / x + a.fb;
    y = a.fb / y + a.fb;
  }
};
struct SinLibrary {
  using T = float;
  static constexpr int ops_per_update = 2;
  static constexpr double tolerance = 1e-5;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
    x = sinf(x);
    y = sinf(y);
  }
};
struct SinLibrarySlowPath { // arguments near 1e6: the Payne-Hanek reduction
  using T = float;
  static constexpr int ops_per_update = 2;
  static constexpr double tolerance = 1e-4;
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
    x = sinf(x + a.big);
    y = sinf(y + a.big);
  }
};
struct ExpLibrary {
  using T = float;
  static constexpr int ops_per_update = 2;
  static constexpr double tolerance = 1e-5;
  LADDER_HD static void update(T& x, T& y, const OpArgs&) {
    x = expf(-x);
    y = expf(-y);
  }
};

// ---- FP16x2: two half results per HFMA2. State: the two halves packed in 32 bits, so host and
// device hold the same bits; the host rounds the exact double a * x + b once to half (RNE). ----

// Bits of the half nearest to v (ties to even); v must be 0 or a normal half (|v| in [2^-14,
// 65504]), which the chains below never leave.
LADDER_HD inline std::uint16_t half_bits(double v) {
  if (v == 0)
    return 0;
  const std::uint16_t sign = v < 0 ? 0x8000u : 0u;
  double m = v < 0 ? -v : v;
  int e = 0;
  while (m >= 2.0) {
    m *= 0.5;
    ++e;
  }
  while (m < 1.0) {
    m *= 2.0;
    --e;
  }
  const double scaled = (m - 1.0) * 1024.0; // 10 fraction bits
  double fraction = std::floor(scaled);
  const double rest = scaled - fraction;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(fraction, 2.0) == 1.0))
    fraction += 1.0;
  if (fraction == 1024.0) {
    fraction = 0;
    ++e;
  }
  return static_cast<std::uint16_t>(sign | ((e + 15) << 10) | static_cast<int>(fraction));
}
LADDER_HD inline double half_value(std::uint16_t bits) {
  const int e = (bits >> 10) & 0x1F;
  const double fraction = bits & 0x3FF;
  const double magnitude = e == 0 ? fraction * std::ldexp(1.0, -24)
                                  : (1.0 + fraction / 1024.0) * std::ldexp(1.0, e - 15);
  return (bits & 0x8000u) ? -magnitude : magnitude;
}
struct Fp16x2Fma {
  using T = std::uint32_t; // two halves
  static constexpr int ops_per_update = 4;
  LADDER_HD static void seed(std::uint32_t t, std::uint32_t k, T& x, T& y) {
    auto pack = [&](std::uint32_t c) {
      const auto lo = half_bits(0.5 + (seed_value(t, c) >> 22) / 1024.0);
      const auto hi = half_bits(0.5 + ((seed_value(t, c) >> 12) & 0x3FFu) / 1024.0);
      return static_cast<T>(lo) | (static_cast<T>(hi) << 16);
    };
    x = pack(2 * k);
    y = pack(2 * k + 1);
  }
  LADDER_HD static void update(T& x, T& y, const OpArgs& a) {
#ifdef __CUDA_ARCH__
    const __half2 m = __float2half2_rn(a.fb), c = __float2half2_rn(0.5f * a.fb);
    auto step = [&](T v) {
      __half2 h;
      memcpy(&h, &v, 4);
      h = __hfma2(h, m, c);
      memcpy(&v, &h, 4);
      return v;
    };
    x = step(x);
    y = step(y);
#else
    // x -> 0.5 x + 0.25 (fb = 0.5): contracts to 0.5, never leaves the normal range.
    const double m = half_value(half_bits(a.fb)), c = half_value(half_bits(0.5 * a.fb));
    auto step = [&](T v) {
      const auto lo = half_bits(half_value(static_cast<std::uint16_t>(v)) * m + c);
      const auto hi = half_bits(half_value(static_cast<std::uint16_t>(v >> 16)) * m + c);
      return static_cast<T>(lo) | (static_cast<T>(hi) << 16);
    };
    x = step(x);
    y = step(y);
#endif
  }
};

// Tolerance of an op's check: 0 (bit-exact) unless the op declares one.
template <class Op> constexpr double tolerance_of() {
  if constexpr (requires { Op::tolerance; })
    return Op::tolerance;
  else
    return 0.0;
}

// Initial pair of chain `k` of thread `t`.
template <class Op, class T = typename Op::T>
LADDER_HD inline void seed_pair(std::uint32_t t, std::uint32_t k, T& x, T& y) {
  if constexpr (requires { Op::seed(t, k, x, y); }) {
    Op::seed(t, k, x, y);
  } else if constexpr (T(0.5) == T(0)) { // integers
    x = static_cast<T>(seed_value(t, 2 * k));
    y = static_cast<T>(seed_value(t, 2 * k + 1));
  } else {
    x = static_cast<T>(seed_float(t, 2 * k));
    y = static_cast<T>(seed_float(t, 2 * k + 1));
  }
}

// The CPU reference of one thread: `updates` updates of `pairs` pairs; writes 2 x pairs values.
template <class Op>
void host_chains(std::uint32_t thread, int pairs, int updates, const OpArgs& args, double* out) {
  using T = typename Op::T;
  for (int k = 0; k < pairs; ++k) {
    T x, y;
    seed_pair<Op>(thread, static_cast<std::uint32_t>(k), x, y);
    for (int i = 0; i < updates; ++i)
      Op::update(x, y, args);
    out[2 * k] = static_cast<double>(x);
    out[2 * k + 1] = static_cast<double>(y);
  }
}

} // namespace ladder::lab::instructions
