// Host-side pieces of the GPU sieve that the library, the lab and the host tests share: the
// sieving primes up to sqrt(n), the pre-sieve pattern tables and exact integer square roots.
//
// The GPU sieve stores odd numbers only: bit g stands for 2g + 1. An odd prime p divides 2g + 1
// exactly when g = (p - 1) / 2 (mod p), so crossing off p's multiples is a stride of p bits, and
// the bits crossed off by a set of primes repeat with the period of their product.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace ladder::detail::primes {

// floor(sqrt(n)) for any 64-bit n.
std::uint64_t isqrt(std::uint64_t n);

// The odd primes <= m (m < 2^32), ascending: a segmented odd-only sieve, memory O(sqrt(m)) beside
// the result.
std::vector<std::uint32_t> odd_primes_up_to(std::uint64_t m);

// The pre-sieve patterns: the odd primes 3..37 in three groups whose products (the periods, in
// bits) stay small: 3*5*7*11*13 = 15015, 17*19*23 = 7429, 29*31*37 = 33263.
inline constexpr int pattern_count = 3;
inline constexpr std::array<std::uint32_t, pattern_count> pattern_periods = {15015, 7429, 33263};
inline constexpr std::array<std::uint32_t, 11> pattern_primes = {3,  5,  7,  11, 13, 17,
                                                                 19, 23, 29, 31, 37};
// Bit g = (p - 1) / 2 of each pattern prime p (all in word 0): the patterns cross off the primes
// themselves, so segment 0 clears these bits again.
constexpr std::uint32_t pattern_prime_bits() {
  std::uint32_t bits = 0;
  for (std::uint32_t p : pattern_primes)
    bits |= 1u << ((p - 1) / 2);
  return bits;
}
// Words of one pattern: bit o (o < period + 32) is set when 2g + 1 with g = o (mod period) has a
// factor among the group's primes; the 32 bits past the period repeat its start so that any
// 32-bit window [o, o + 32) with o < period reads two consecutive words.
constexpr std::uint32_t pattern_words(std::uint32_t period) { return (period + 32) / 32 + 1; }
// Where each pattern starts in the concatenated table.
inline constexpr std::array<std::uint32_t, pattern_count> pattern_offsets = {
    0, pattern_words(15015), pattern_words(15015) + pattern_words(7429)};
inline constexpr std::uint32_t pattern_table_words =
    pattern_words(15015) + pattern_words(7429) + pattern_words(33263);

// The concatenated table (pattern_table_words words).
std::vector<std::uint32_t> build_pattern_table();

// Dusart (1998): pi(x) <= x / ln x * (1 + 1.2762 / ln x) for x > 1; returned with a margin that
// covers the floating-point error. 0 for x < 2.
std::uint64_t prime_count_upper_bound(std::uint64_t x);

} // namespace ladder::detail::primes
