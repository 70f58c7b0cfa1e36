#include "exercises/reference.hpp"

#include "exercises/sieve_host.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <thread>
#include <utility>

#ifdef LADDER_HAVE_PRIMESIEVE
#include <primesieve.hpp>
#endif

namespace ladder::lab::exercises {

namespace {

template <class T> std::string compare_exact(std::span<const T> got, std::span<const T> expected) {
  if (got.size() != expected.size())
    return "size " + std::to_string(got.size()) + ", expected " + std::to_string(expected.size());
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == expected[i]) && wrong++ == 0)
      first = i;
  if (wrong == 0)
    return "";
  return std::to_string(wrong) + " of " + std::to_string(got.size()) + " elements wrong; first at " +
         std::to_string(first) + ": got " + std::to_string(got[first]) + ", expected " +
         std::to_string(expected[first]);
}

} // namespace

std::string compare_floats_exact(std::span<const float> got, std::span<const float> expected) {
  return compare_exact(got, expected);
}
std::string compare_ints_exact(std::span<const std::int32_t> got,
                               std::span<const std::int32_t> expected) {
  return compare_exact(got, expected);
}

void cpu_increment(std::span<const float> in, std::span<float> out) {
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = in[i] + 1.0f;
}
void cpu_add(std::span<const float> a, std::span<const float> b, std::span<float> c) {
  for (std::size_t i = 0; i < a.size(); ++i)
    c[i] = a[i] + b[i];
}
void cpu_reverse(std::span<const std::int32_t> in, std::span<std::int32_t> out) {
  const std::size_t n = in.size();
  for (std::size_t i = 0; i < n; ++i)
    out[n - 1 - i] = in[i];
}

std::vector<std::uint8_t> cpu_composite(std::uint64_t n) {
  std::vector<std::uint8_t> composite(n + 1, 0);
  composite[0] = 1;
  if (n >= 1)
    composite[1] = 1;
  for (std::uint64_t k = 2; k * k <= n; ++k)
    if (!composite[k])
      for (std::uint64_t j = k * k; j <= n; j += k)
        composite[j] = 1;
  return composite;
}

std::uint64_t cpu_count_primes(std::uint64_t n) {
  const auto composite = cpu_composite(n);
  return static_cast<std::uint64_t>(std::count(composite.begin(), composite.end(), 0));
}

std::vector<std::uint32_t> cpu_primes(std::uint64_t n) {
  const auto composite = cpu_composite(n);
  std::vector<std::uint32_t> out;
  for (std::uint64_t i = 2; i <= n; ++i)
    if (!composite[i])
      out.push_back(static_cast<std::uint32_t>(i));
  return out;
}

std::string compare_flags(std::span<const std::int32_t> flags,
                          std::span<const std::uint8_t> composite) {
  if (flags.size() != composite.size())
    return "size " + std::to_string(flags.size()) + ", expected " + std::to_string(composite.size());
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 2; i < flags.size(); ++i)
    if ((flags[i] != 0) != (composite[i] != 0) && wrong++ == 0)
      first = i;
  if (wrong == 0)
    return "";
  return std::to_string(wrong) + " numbers marked wrongly; first " + std::to_string(first) +
         (composite[first] ? " (composite) left unmarked" : " (prime) marked composite");
}

std::optional<std::uint64_t> known_prime_count(std::uint64_t n) {
  static constexpr std::array<std::uint64_t, 13> powers_of_ten = {
      0, 4, 25, 168, 1229, 9592, 78498, 664579, 5761455, 50847534, 455052511, 4118054813ull,
      37607912018ull};
  static constexpr std::array<std::uint64_t, 33> powers_of_two = {
      0,      1,      2,       4,       6,       11,      18,       31,       54,
      97,     172,    309,     564,     1028,    1900,    3512,     6542,     12251,
      23000,  43390,  82025,   155611,  295947,  564163,  1077871,  2063689,  3957809,
      7603553, 14630843, 28192750, 54400028, 105097565, 203280221};
  std::uint64_t p = 1;
  for (std::uint64_t count : powers_of_ten) {
    if (p == n)
      return count;
    p *= 10;
  }
  for (std::size_t k = 0; k < powers_of_two.size(); ++k)
    if ((1ull << k) == n)
      return powers_of_two[k];
  return std::nullopt;
}

int host_threads() {
  const unsigned t = std::thread::hardware_concurrency();
  return t == 0 ? 1 : static_cast<int>(t);
}

#ifdef LADDER_HAVE_PRIMESIEVE
bool have_primesieve() { return true; }
std::string primesieve_absent_reason() { return ""; }
std::string primesieve_version() { return primesieve::primesieve_version(); }
std::uint64_t primesieve_count(std::uint64_t n, int threads) {
  primesieve::set_num_threads(threads <= 0 ? host_threads() : threads);
  return primesieve::count_primes(0, n);
}
std::vector<std::uint32_t> primesieve_primes(std::uint64_t n) {
  std::vector<std::uint32_t> out;
  primesieve::generate_primes(0, n, &out);
  return out;
}
#else
bool have_primesieve() { return false; }
std::string primesieve_absent_reason() {
  return "primesieve not found at build time (Debian: libprimesieve-dev; CMake: primesieve_DIR)";
}
std::string primesieve_version() { return ""; }
std::uint64_t primesieve_count(std::uint64_t, int) {
  throw std::logic_error(primesieve_absent_reason());
}
std::vector<std::uint32_t> primesieve_primes(std::uint64_t) {
  throw std::logic_error(primesieve_absent_reason());
}
#endif

} // namespace ladder::lab::exercises
