#include "reduce/reference.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace ladder::lab::reduce {

namespace {

template <class T> T combine(T a, T b, Op op) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
    case Op::sum: return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    case Op::product: return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    case Op::min: return b < a ? b : a;
    case Op::max: return a < b ? b : a;
    case Op::bit_and: return a & b;
    case Op::bit_or: return a | b;
    }
  } else {
    switch (op) {
    case Op::min: return std::fmin(a, b);
    case Op::max: return std::fmax(a, b);
    default: break;
    }
  }
  throw std::invalid_argument("cpu_reduce: unsupported operator for this type");
}

} // namespace

template <class T> T cpu_reduce(std::span<const T> in, Op op) {
  T acc = ladder::reduce_identity<T>(op); // throws for a bitwise op on a floating type
  if constexpr (std::is_floating_point_v<T>) {
    if (op == Op::sum) {
      long double s = 0;
      for (T x : in)
        s += x;
      return static_cast<T>(s);
    }
    if (op == Op::product) {
      long double p = 1;
      for (T x : in)
        p *= x;
      return static_cast<T>(p);
    }
  }
  for (T x : in)
    acc = combine(acc, x, op);
  return acc;
}

template <class T> long double cpu_sum_abs(std::span<const T> in) {
  long double s = 0;
  for (T x : in)
    s += std::fabs(static_cast<long double>(x));
  return s;
}

std::int64_t rounding_depth_bound(std::int64_t n, std::int64_t min_threads) {
  if (n <= 1)
    return 0;
  if (min_threads < 1)
    throw std::invalid_argument("rounding_depth_bound: min_threads must be >= 1");
  std::int64_t log2n = 0;
  while ((std::int64_t{1} << log2n) < n)
    ++log2n;
  return (n + min_threads - 1) / min_threads + 32 + 2 * log2n + 8;
}

template <class T> long double sum_tolerance(std::int64_t n, long double sum_abs) {
  const long double u = std::numeric_limits<T>::epsilon() / 2;
  const long double du = static_cast<long double>(rounding_depth_bound(n)) * u;
  if (du >= 1)
    return std::numeric_limits<long double>::infinity();
  return du / (1 - du) * sum_abs + std::numeric_limits<T>::denorm_min();
}

template <class T> long double product_relative_tolerance(std::int64_t n) {
  // Every one of the n - 1 multiplications scales the whole final product by its (1 + delta), so
  // the tree's depth does not help: the bound is gamma_{n-1} in any order. Not a loose bound in
  // practice: in float a pairwise tree over 2^20 values in [0.999, 1.001] drifts by ~1e-3.
  const long double u = std::numeric_limits<T>::epsilon() / 2;
  const long double du = static_cast<long double>(n > 1 ? n - 1 : 0) * u;
  return du >= 1 ? std::numeric_limits<long double>::infinity() : du / (1 - du);
}

BrentFigures brent(std::int64_t n, double processors) {
  if (n < 1 || !(processors >= 1))
    throw std::invalid_argument("brent: needs n >= 1 and processors >= 1");
  BrentFigures f;
  f.n = n;
  f.processors = processors;
  f.work = static_cast<double>(n - 1);
  f.depth = n > 1 ? std::ceil(std::log2(static_cast<double>(n))) : 0;
  f.steps = f.depth + (f.work - f.depth) / processors;
  f.cost = processors * f.steps;
  f.cost_over_work = f.work > 0 ? f.cost / f.work : 0;
  return f;
}

std::string brent_notes() {
  std::ostringstream out;
  out << "  Brent's theorem (the reduction slides, Hui Liu): W = n - 1 additions, t = ceil(log2 n) steps, with p\n"
         "  processors t_p <= t + (W - t) / p, cost = p x t_p (cost-optimal when cost / W = O(1)).\n";
  char line[200];
  std::snprintf(line, sizeof line, "  %-44s %8s %12s %10s %12s %8s\n", "launch shape", "n",
                "p (threads)", "t_p bound", "cost", "cost/W");
  out << line;
  struct Shape {
    const char* name;
    double (*p)(double n);
  };
  const Shape shapes[] = {
      {"rungs 1-3: one thread per element", [](double n) { return n; }},
      {"rungs 4-6: one thread per two elements", [](double n) { return n / 2; }},
      {"rung 7: 256 blocks x 128 threads (seed)", [](double) { return 256.0 * 128; }},
      {"Brent-optimal: n / log2 n threads", [](double n) { return n / std::log2(n); }},
      {"ladder::reduce: 132 SMs x 8 x 256 threads", [](double) { return 132.0 * 8 * 256; }},
  };
  for (const std::int64_t n : {std::int64_t{1} << 22, std::int64_t{1} << 28})
    for (const Shape& s : shapes) {
      const BrentFigures f = brent(n, s.p(static_cast<double>(n)));
      std::snprintf(line, sizeof line, "  %-44s %8s %12.0f %10.0f %12.4g %8.2f\n", s.name,
                    n == (std::int64_t{1} << 22) ? "2^22" : "2^28", f.processors, f.steps, f.cost,
                    f.cost_over_work);
      out << line;
    }
  out << "  (the hardware runs ~270k threads at once on 132 SMs, so p beyond that is time-sliced:\n"
         "  the one-thread-per-element rungs pay the log n cost factor in instructions, rung 7 and\n"
         "  later pay ~1.)\n";
  return out.str();
}

#define LADDER_INSTANTIATE(T)                                                                      \
  template T cpu_reduce<T>(std::span<const T>, Op);                                                \
  template long double cpu_sum_abs<T>(std::span<const T>);
LADDER_INSTANTIATE(std::int32_t)
LADDER_INSTANTIATE(std::uint32_t)
LADDER_INSTANTIATE(std::int64_t)
LADDER_INSTANTIATE(std::uint64_t)
LADDER_INSTANTIATE(float)
LADDER_INSTANTIATE(double)
#undef LADDER_INSTANTIATE
template long double sum_tolerance<float>(std::int64_t, long double);
template long double sum_tolerance<double>(std::int64_t, long double);
template long double product_relative_tolerance<float>(std::int64_t);
template long double product_relative_tolerance<double>(std::int64_t);

} // namespace ladder::lab::reduce
