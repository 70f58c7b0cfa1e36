#include "scan/reference.hpp"

#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

namespace ladder::lab::scan {

namespace {

template <class T> T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

} // namespace

template <class T> void cpu_exclusive_scan(std::span<const T> in, std::span<T> out) {
  T running = T(0);
  for (std::size_t j = 0; j < in.size(); ++j) {
    const T x = in[j]; // read before the write: in and out may alias
    out[j] = running;
    running = add(running, x);
  }
}

template <class T> void cpu_inclusive_scan(std::span<const T> in, std::span<T> out) {
  T running = T(0);
  for (std::size_t j = 0; j < in.size(); ++j) {
    running = add(running, in[j]);
    out[j] = running;
  }
}

template <class T> std::string compare_exact(std::span<const T> got, std::span<const T> expected) {
  if (got.size() != expected.size())
    return "size " + std::to_string(got.size()) + " != expected " + std::to_string(expected.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool same = std::is_floating_point_v<T>
                          ? std::memcmp(&got[i], &expected[i], sizeof(T)) == 0
                          : got[i] == expected[i];
    if (!same && bad++ == 0)
      first = i;
  }
  if (bad == 0)
    return "";
  std::ostringstream out;
  out << bad << " of " << got.size() << " elements differ; first at " << first << ": got "
      << +got[first] << ", expected " << +expected[first];
  return out.str();
}

template <class T>
std::string compare_prefix_sums(std::span<const T> got, std::span<const T> in, bool inclusive,
                                double depth) {
  if (got.size() != in.size())
    return "size mismatch";
  const double eps = std::numeric_limits<T>::epsilon();
  double exact = 0, magnitude = 0; // prefix sum and prefix sum of |x|, in double
  std::size_t bad = 0, first = 0;
  double first_got = 0, first_ref = 0, first_tol = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (inclusive) {
      exact += static_cast<double>(in[i]);
      magnitude += std::fabs(static_cast<double>(in[i]));
    }
    // The double reference itself is off by at most i x eps_double x magnitude: negligible.
    const double tolerance = depth * eps * magnitude + std::numeric_limits<T>::denorm_min();
    const double value = static_cast<double>(got[i]);
    if (!(std::fabs(value - exact) <= tolerance)) { // NaN fails
      if (bad++ == 0) {
        first = i;
        first_got = value;
        first_ref = exact;
        first_tol = tolerance;
      }
    }
    if (!inclusive) {
      exact += static_cast<double>(in[i]);
      magnitude += std::fabs(static_cast<double>(in[i]));
    }
  }
  if (bad == 0)
    return "";
  std::ostringstream out;
  out.precision(9);
  out << bad << " of " << got.size() << " elements outside the rounding bound; first at " << first
      << ": got " << first_got << ", exact " << first_ref << ", bound " << first_tol;
  return out.str();
}

double scan_error_depth(std::int64_t n, std::int64_t min_tile) {
  const double levels = std::ceil(std::log2(static_cast<double>(n) + 1.0));
  return 2.0 * levels + std::ceil(static_cast<double>(n) / static_cast<double>(min_tile)) + 4.0;
}

#define LADDER_INSTANTIATE(T)                                                                      \
  template void cpu_exclusive_scan<T>(std::span<const T>, std::span<T>);                           \
  template void cpu_inclusive_scan<T>(std::span<const T>, std::span<T>);                           \
  template std::string compare_exact<T>(std::span<const T>, std::span<const T>);
LADDER_INSTANTIATE(std::int32_t)
LADDER_INSTANTIATE(std::uint32_t)
LADDER_INSTANTIATE(std::int64_t)
LADDER_INSTANTIATE(std::uint64_t)
LADDER_INSTANTIATE(float)
LADDER_INSTANTIATE(double)
#undef LADDER_INSTANTIATE
template std::string compare_prefix_sums<float>(std::span<const float>, std::span<const float>, bool, double);
template std::string compare_prefix_sums<double>(std::span<const double>, std::span<const double>, bool, double);

} // namespace ladder::lab::scan
