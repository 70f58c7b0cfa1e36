// The exercises' CPU references: the element-wise results of increment, add and reversal, a plain
// sieve of Eratosthenes for the sieve's small n, the known prime counts pi(10^k) and pi(2^k), and
// primesieve (Kim Walisch's CPU sieve) where the build found it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ladder::lab::exercises {

// "" when `got` equals `expected` element for element, else the first mismatch and how many.
std::string compare_floats_exact(std::span<const float> got, std::span<const float> expected);
std::string compare_ints_exact(std::span<const std::int32_t> got,
                               std::span<const std::int32_t> expected);

void cpu_increment(std::span<const float> in, std::span<float> out); // out[i] = in[i] + 1
void cpu_add(std::span<const float> a, std::span<const float> b, std::span<float> c);
void cpu_reverse(std::span<const std::int32_t> in, std::span<std::int32_t> out);

// The plain sieve: composite[i] for 0 <= i <= n (0 and 1 count as not prime). A byte per number.
std::vector<std::uint8_t> cpu_composite(std::uint64_t n);
// pi(n) by the plain sieve (n up to a few 10^9 in memory).
std::uint64_t cpu_count_primes(std::uint64_t n);
// The primes <= n by the plain sieve.
std::vector<std::uint32_t> cpu_primes(std::uint64_t n);
// "" when the slides' flag array (int per number, non-zero = composite) marks exactly the
// composites of 2..n; else the first mismatch.
std::string compare_flags(std::span<const std::int32_t> flags, std::span<const std::uint8_t> composite);

// pi(10^k) for k = 0..12 and pi(2^k) for k = 0..32: the published values (OEIS A006880, A007053).
std::optional<std::uint64_t> known_prime_count(std::uint64_t n);

// primesieve, when the build found it (CMake option; skipped rows say why otherwise).
bool have_primesieve();
std::string primesieve_absent_reason();
std::string primesieve_version();
// pi(n) by primesieve on `threads` host threads (0: all of them).
std::uint64_t primesieve_count(std::uint64_t n, int threads);
// The primes <= n (n < 2^32) by primesieve's iterator, for checking long lists.
std::vector<std::uint32_t> primesieve_primes(std::uint64_t n);
int host_threads();

} // namespace ladder::lab::exercises
