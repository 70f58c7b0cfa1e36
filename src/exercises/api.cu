// ladder::count_primes and ladder::generate_primes: the sieving primes on the host, then the
// segmented GPU sieve of exercises/sieve.cuh in its tuned shape.
#include "exercises/sieve.cuh"
#include "exercises/sieve_host.hpp"

#include "ladder/detail/scratch.hpp"
#include "ladder/error.hpp"
#include "ladder/primes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace ladder::detail::primes {

std::uint64_t isqrt(std::uint64_t n) {
  auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(n)));
  // The double square root can be off by one either way near 2^64: step to the exact floor.
  while (r > 0 && (r > 0xffffffffull || r * r > n))
    --r;
  while (r + 1 <= 0xffffffffull && (r + 1) * (r + 1) <= n)
    ++r;
  return r;
}

std::vector<std::uint32_t> odd_primes_up_to(std::uint64_t m) {
  if (m >= (1ull << 32))
    throw std::invalid_argument("odd_primes_up_to: m must be < 2^32");
  std::vector<std::uint32_t> out;
  if (m < 3)
    return out;
  // The base primes up to sqrt(m) (<= 65535) by a plain odd-only byte sieve.
  const std::uint64_t root = isqrt(m);
  std::vector<std::uint8_t> small(root / 2 + 1, 1); // small[i]: 2i + 1
  std::vector<std::uint32_t> base;
  for (std::uint64_t i = 1; i < small.size(); ++i) {
    if (!small[i])
      continue;
    const std::uint64_t p = 2 * i + 1;
    base.push_back(static_cast<std::uint32_t>(p));
    for (std::uint64_t j = (p * p) / 2; j < small.size(); j += p)
      small[j] = 0;
  }
  out.reserve(static_cast<std::size_t>(1.3 * static_cast<double>(m) / std::log(double(m)) + 16));
  // Then m's odd numbers in segments of 2^18 bytes (L2-sized), each crossed off by the base primes.
  constexpr std::uint64_t chunk = 1u << 18;
  std::vector<std::uint8_t> seg(chunk);
  const std::uint64_t last = (m - 1) / 2; // bit of the largest odd <= m
  for (std::uint64_t lo = 1; lo <= last; lo += chunk) { // from bit 1: the number 3
    const std::uint64_t hi = std::min(last + 1, lo + chunk);
    std::fill(seg.begin(), seg.begin() + static_cast<std::ptrdiff_t>(hi - lo), 1);
    for (std::uint32_t p : base) {
      std::uint64_t j = (static_cast<std::uint64_t>(p) * p) / 2;
      if (j >= hi)
        break;
      if (j < lo) {
        const std::uint64_t r = (lo - (p - 1) / 2) % p;
        j = lo + (r == 0 ? 0 : p - r);
      }
      for (; j < hi; j += p)
        seg[j - lo] = 0;
    }
    for (std::uint64_t j = lo; j < hi; ++j)
      if (seg[j - lo])
        out.push_back(static_cast<std::uint32_t>(2 * j + 1));
  }
  return out;
}

std::vector<std::uint32_t> build_pattern_table() {
  std::vector<std::uint32_t> table(pattern_table_words, 0u);
  for (int k = 0; k < pattern_count; ++k) {
    const std::uint32_t period = pattern_periods[k];
    for (std::uint32_t o = 0; o < 32u * pattern_words(period); ++o) {
      const std::uint64_t g = o % period, number = 2 * g + 1;
      bool composite = false;
      for (std::size_t q = 0; q < pattern_primes.size(); ++q)
        if (period % pattern_primes[q] == 0 && number % pattern_primes[q] == 0)
          composite = true;
      if (composite)
        table[pattern_offsets[k] + o / 32] |= 1u << (o % 32);
    }
  }
  return table;
}

std::uint64_t prime_count_upper_bound(std::uint64_t x) {
  if (x < 2)
    return 0;
  if (x < 100)
    return 25; // pi(99) = 25; Dusart's bound needs no care below that
  const double xd = static_cast<double>(x), l = std::log(xd);
  const double bound = xd / l * (1.0 + 1.2762 / l);
  return static_cast<std::uint64_t>(bound * (1.0 + 1e-9)) + 16;
}

namespace {

// The library's shape: 64 KiB segments (three blocks per SM on Hopper), 512 threads, the pattern
// pre-sieve, and one thread per sieving prime: on an H200 (2026-11-25, `ladder run exercises`)
// the warp-wide crossing-off of the primes below 2^14 was slower at every n measured (pi(10^10)
// 8.45 ms against 6.32 ms, pi(10^11) 83.9 ms against 65.3 ms), so the library leaves it off.
constexpr int library_words = 16384;
constexpr int library_threads = 512;
constexpr bool library_warp_small = false;
constexpr std::uint32_t library_warp_limit = 1u << 14; // used when library_warp_small

const std::vector<std::uint32_t>& pattern_table() {
  static const std::vector<std::uint32_t> table = build_pattern_table();
  return table;
}

// The scratch layout of one call: [8-byte counter][patterns][sieving primes][look-back words].
struct Plan {
  std::vector<std::uint32_t> host; // the counter (zero), patterns and primes, uploaded as one
  std::size_t pattern_word = 2, prime_word = 0;
  std::uint32_t prime_count = 0, first_prime = 0, warp_end = 0;
  std::uint64_t segments = 0;
};

Plan plan_for(std::uint64_t n) {
  Plan plan;
  const auto primes = odd_primes_up_to(isqrt(n));
  const auto& patterns = pattern_table();
  plan.host.assign(2, 0u);
  plan.host.insert(plan.host.end(), patterns.begin(), patterns.end());
  plan.prime_word = plan.host.size();
  plan.host.insert(plan.host.end(), primes.begin(), primes.end());
  plan.prime_count = static_cast<std::uint32_t>(primes.size());
  plan.first_prime = static_cast<std::uint32_t>(
      std::upper_bound(primes.begin(), primes.end(), pattern_primes.back()) - primes.begin());
  plan.warp_end = static_cast<std::uint32_t>(
      std::lower_bound(primes.begin(), primes.end(), library_warp_limit) - primes.begin());
  plan.warp_end = std::max(plan.warp_end, plan.first_prime);
  plan.segments = segments_for(n, 32u * library_words);
  return plan;
}

SieveArgs args_for(const Plan& plan, std::uint32_t* device, std::uint64_t n) {
  SieveArgs a;
  a.count = reinterpret_cast<unsigned long long*>(device);
  a.patterns = device + plan.pattern_word;
  a.primes = device + plan.prime_word;
  a.prime_count = plan.prime_count;
  a.first_prime = plan.first_prime;
  a.warp_end = plan.warp_end;
  a.last_bit = (n - 1) / 2;
  return a;
}

} // namespace
} // namespace ladder::detail::primes

namespace ladder {

std::uint64_t count_primes(std::uint64_t n, cudaStream_t stream) {
  using namespace detail::primes;
  if (n < 2)
    return 0;
  detail::check_not_capturing("ladder::count_primes", stream);
  const Plan plan = plan_for(n);
  detail::StreamScratch scratch(plan.host.size() * sizeof(std::uint32_t), stream);
  auto* device = scratch.as<std::uint32_t>();
  LADDER_CUDA(cudaMemcpyAsync(device, plan.host.data(), plan.host.size() * sizeof(std::uint32_t),
                              cudaMemcpyHostToDevice, stream));
  launch_sieve<library_words, library_threads, true, library_warp_small, Output::count>(args_for(plan, device, n),
                                                                          plan.segments, stream);
  unsigned long long pi = 0; // the kernel counts the prime 2 in segment 0
  LADDER_CUDA(cudaMemcpyAsync(&pi, device, sizeof pi, cudaMemcpyDeviceToHost, stream));
  scratch.release();
  LADDER_CUDA(cudaStreamSynchronize(stream));
  return pi;
}

std::uint64_t generate_primes(std::uint64_t n, std::uint32_t* out, std::uint64_t capacity,
                              cudaStream_t stream) {
  using namespace detail::primes;
  if (n >= (1ull << 32))
    throw std::invalid_argument("ladder::generate_primes: n must be < 2^32 (the primes are "
                                "uint32_t), got " +
                                std::to_string(n));
  if (n < 2)
    return 0;
  if (out == nullptr)
    throw std::invalid_argument("ladder::generate_primes: out is null with n >= 2");
  detail::check_not_capturing("ladder::generate_primes", stream);
  if (capacity < prime_count_upper_bound(n)) {
    const std::uint64_t exact = count_primes(n, stream);
    if (capacity < exact)
      throw std::invalid_argument("ladder::generate_primes: capacity " + std::to_string(capacity) +
                                  " is below pi(n) = " + std::to_string(exact));
  }
  const Plan plan = plan_for(n);
  const std::size_t status_offset = (plan.host.size() + 1) / 2 * 2; // 8-byte aligned, in words
  const std::size_t bytes = status_offset * 4 + plan.segments * 8;
  detail::StreamScratch scratch(bytes, stream);
  auto* device = scratch.as<std::uint32_t>();
  LADDER_CUDA(cudaMemcpyAsync(device, plan.host.data(), plan.host.size() * sizeof(std::uint32_t),
                              cudaMemcpyHostToDevice, stream));
  auto* status = reinterpret_cast<unsigned long long*>(device + status_offset);
  LADDER_CUDA(cudaMemsetAsync(status, 0, plan.segments * 8, stream));
  SieveArgs a = args_for(plan, device, n);
  a.status = status;
  a.out = out;
  a.capacity = capacity;
  launch_sieve<library_words, library_threads, true, library_warp_small, Output::primes>(a, plan.segments,
                                                                           stream);
  unsigned long long last = 0;
  LADDER_CUDA(cudaMemcpyAsync(&last, status + plan.segments - 1, sizeof last,
                              cudaMemcpyDeviceToHost, stream));
  scratch.release();
  LADDER_CUDA(cudaStreamSynchronize(stream));
  return (last & status_value_mask) + 1; // and 2
}

} // namespace ladder
