// The segmented GPU sieve of Eratosthenes behind ladder::count_primes / ladder::generate_primes
// and the sieve rungs past the course. One thread block sieves one segment of odd numbers held as
// bits in shared memory (bit g stands for 2g + 1; a set bit is a composite):
//
//   1. fill: with Presieve, each 32-bit word starts as the OR of three periodic patterns that
//      already cross off every multiple of 3..37 (a word-parallel copy, no atomics); without it,
//      zeros;
//   2. cross off: each remaining sieving prime p <= sqrt(n) sets every p-th bit from its first
//      multiple in the segment (at least p^2) with shared-memory atomicOr. With WarpSmall the
//      primes below `warp_limit` (many hits per segment) are each crossed off by a whole warp,
//      lane l taking hits l, l + 32, ...; larger primes take one thread each. A block stops at the
//      first prime whose square lies past its segment (the primes are sorted);
//   3. count (popcount of the zero bits, one 64-bit atomicAdd per block) or write the primes:
//      the block's offset in the output comes from a decoupled look-back over the segments'
//      counts (one pass over the numbers, no second sieve), then each warp writes its words'
//      primes in order.
#pragma once

#include "exercises/sieve_host.hpp"

#include "ladder/error.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace ladder::detail::primes {

enum class Output { count, primes };

struct SieveArgs {
  const std::uint32_t* primes = nullptr; // the odd primes <= sqrt(n), ascending
  std::uint32_t prime_count = 0;
  std::uint32_t first_prime = 0; // index of the first prime to cross off (past the pattern's)
  // Primes [first_prime, warp_end) are crossed off by whole warps; all of them must be < 2^16
  // (the warp loop's 32-bit offsets).
  std::uint32_t warp_end = 0;
  const std::uint32_t* patterns = nullptr; // build_pattern_table() on the device
  std::uint64_t last_bit = 0;              // bit of the largest odd number <= n
  std::uint64_t first_segment = 0;         // segment of blockIdx.x == 0
  unsigned long long* count = nullptr;     // Output::count: += the primes of each segment
  unsigned long long* status = nullptr;    // Output::primes: one look-back word per segment
  std::uint32_t* out = nullptr;            // Output::primes
  std::uint64_t capacity = 0;
};

// Look-back status words: the top two bits say what the low 62 bits hold.
inline constexpr unsigned long long status_aggregate = 1ull << 62; // this segment's count
inline constexpr unsigned long long status_prefix = 2ull << 62;    // count of segments <= this
inline constexpr unsigned long long status_value_mask = (1ull << 62) - 1;

// x mod p for p < 2^32: through double for x < 2^53 (the quotient is then off by at most one),
// 64-bit division beyond.
__device__ __forceinline__ std::uint32_t mod_u64(std::uint64_t x, std::uint32_t p) {
  if (x < (1ull << 53)) {
    const auto q = static_cast<std::uint64_t>(static_cast<double>(x) / static_cast<double>(p));
    auto r = static_cast<std::int64_t>(x - q * p);
    if (r < 0)
      r += p;
    else if (r >= static_cast<std::int64_t>(p))
      r -= p;
    return static_cast<std::uint32_t>(r);
  }
  return static_cast<std::uint32_t>(x % p);
}

// The first bit at or after segment bit `base` that p crosses off (bit index relative to base),
// starting at p^2; >= `bits` when p crosses off nothing in the segment.
__device__ __forceinline__ std::uint64_t first_hit(std::uint64_t base, std::uint32_t p) {
  const std::uint64_t start = (static_cast<std::uint64_t>(p) * p - 1) / 2; // bit of p^2
  if (start >= base)
    return start - base;
  const std::uint32_t r = mod_u64(base - (p - 1) / 2, p);
  return r == 0 ? 0 : p - r;
}

template <std::uint32_t Period>
__device__ __forceinline__ std::uint32_t pattern_word(const std::uint32_t* table,
                                                      std::uint32_t offset_bits) {
  const std::uint32_t word = offset_bits >> 5, shift = offset_bits & 31;
  const std::uint32_t lo = __ldg(table + word), hi = __ldg(table + word + 1);
  return __funnelshift_r(lo, hi, shift);
}

// Bits of word w (of a segment holding `bits` bits) that stand for numbers <= n.
__device__ __forceinline__ std::uint32_t valid_mask(std::uint64_t valid_bits, std::uint32_t w) {
  const std::uint64_t first = 32ull * w;
  if (valid_bits >= first + 32)
    return 0xffffffffu;
  if (valid_bits <= first)
    return 0u;
  return (1u << (valid_bits - first)) - 1u;
}

template <int Words, int Threads, bool Presieve, bool WarpSmall, Output Out>
__global__ void __launch_bounds__(Threads)
    segmented_sieve_kernel(const SieveArgs a) {
  static_assert(Words % (32 * (Threads / 32)) == 0, "each warp owns whole 32-word rows");
  constexpr std::uint32_t bits = 32u * Words;
  constexpr int warps = Threads / 32;
  extern __shared__ std::uint32_t seg[];
  __shared__ unsigned long long block_total[warps + 1];

  const std::uint64_t segment = a.first_segment + blockIdx.x;
  const std::uint64_t base = segment * bits;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  // 1. fill
  if constexpr (Presieve) {
    const std::uint32_t b0 = static_cast<std::uint32_t>(base % pattern_periods[0]);
    const std::uint32_t b1 = static_cast<std::uint32_t>(base % pattern_periods[1]);
    const std::uint32_t b2 = static_cast<std::uint32_t>(base % pattern_periods[2]);
    for (std::uint32_t w = tid; w < Words; w += Threads) {
      const std::uint32_t o = 32u * w;
      seg[w] = pattern_word<pattern_periods[0]>(a.patterns + pattern_offsets[0],
                                                (b0 + o) % pattern_periods[0]) |
               pattern_word<pattern_periods[1]>(a.patterns + pattern_offsets[1],
                                                (b1 + o) % pattern_periods[1]) |
               pattern_word<pattern_periods[2]>(a.patterns + pattern_offsets[2],
                                                (b2 + o) % pattern_periods[2]);
    }
  } else {
    for (std::uint32_t w = tid; w < Words; w += Threads)
      seg[w] = 0u;
  }
  __syncthreads();
  if (segment == 0 && tid == 0) {
    if constexpr (Presieve)
      atomicAnd(&seg[0], ~pattern_prime_bits()); // the pattern primes themselves are primes
    atomicOr(&seg[0], 1u); // 1 is not a prime
  }

  // 2. cross off
  std::uint32_t i = a.first_prime;
  if constexpr (WarpSmall) {
    // Lane l finds the first hit of prime i + l, then the warp crosses off each of the 32 primes
    // together; the modulo work is spread over the lanes too.
    for (std::uint32_t group = a.first_prime + 32u * warp; group < a.warp_end;
         group += 32u * warps) {
      const std::uint32_t mine = group + lane;
      std::uint32_t p = 0;
      std::uint64_t hit = bits;
      if (mine < a.warp_end) {
        p = __ldg(a.primes + mine);
        hit = first_hit(base, p);
      }
      const int live = __popc(__ballot_sync(0xffffffffu, hit < bits));
      const auto hit32 = static_cast<std::uint32_t>(hit < bits ? hit : bits);
      for (int k = 0; k < live; ++k) { // primes ascend, so the live ones come first
        // 32-bit offsets: hit < bits <= 2^20 and p < warp_end's limit (<= 2^16), so no overflow.
        const std::uint32_t pk = __shfl_sync(0xffffffffu, p, k);
        const std::uint32_t step = 32u * pk;
        for (std::uint32_t j = __shfl_sync(0xffffffffu, hit32, k) + lane * pk; j < bits; j += step)
          atomicOr(&seg[j >> 5], 1u << (j & 31));
      }
      if (live < 32)
        break; // every later group starts past this segment as well
    }
    i = a.warp_end;
  }
  for (std::uint32_t k = i + tid; k < a.prime_count; k += Threads) {
    const std::uint32_t p = __ldg(a.primes + k);
    if ((static_cast<std::uint64_t>(p) * p - 1) / 2 >= base + bits)
      break;
    const std::uint64_t hit = first_hit(base, p);
    if (hit >= bits)
      continue;
    if (p >= bits) { // at most one hit (and j + p could pass 2^32 near n = 2^64)
      atomicOr(&seg[hit >> 5], 1u << (hit & 31));
      continue;
    }
    for (std::uint32_t j = static_cast<std::uint32_t>(hit); j < bits; j += p)
      atomicOr(&seg[j >> 5], 1u << (j & 31));
  }
  __syncthreads();

  // 3. count or write
  const std::uint64_t valid_bits = a.last_bit + 1 > base ? a.last_bit + 1 - base : 0;
  if constexpr (Out == Output::count) {
    unsigned long long mine = 0;
    for (std::uint32_t w = tid; w < Words; w += Threads)
      mine += __popc(~seg[w] & valid_mask(valid_bits, w));
    for (int d = 16; d > 0; d >>= 1)
      mine += __shfl_down_sync(0xffffffffu, mine, d);
    if (lane == 0)
      block_total[warp] = mine;
    __syncthreads();
    if (tid == 0) {
      unsigned long long total = segment == 0 ? 1 : 0; // the prime 2 (n >= 2), not in the bits
      for (int w = 0; w < warps; ++w)
        total += block_total[w];
      atomicAdd(a.count, total);
    }
  } else {
    constexpr std::uint32_t warp_words = Words / warps;
    const std::uint32_t w0 = warp * warp_words;
    unsigned long long mine = 0;
    for (std::uint32_t w = w0 + lane; w < w0 + warp_words; w += 32)
      mine += __popc(~seg[w] & valid_mask(valid_bits, w));
    for (int d = 16; d > 0; d >>= 1)
      mine += __shfl_down_sync(0xffffffffu, mine, d);
    if (lane == 0)
      block_total[warp] = mine;
    __syncthreads();
    if (tid == 0) {
      unsigned long long running = 0; // the warps' exclusive prefixes, in place
      for (int w = 0; w < warps; ++w) {
        const unsigned long long t = block_total[w];
        block_total[w] = running;
        running += t;
      }
      const std::uint64_t s = blockIdx.x;
      volatile unsigned long long* status = a.status;
      unsigned long long exclusive = 0;
      if (s == 0) {
        status[0] = status_prefix | running;
      } else {
        status[s] = status_aggregate | running;
        // Look back: blocks are dispatched in index order, so segment s - 1's block is resident
        // or done and this wait always ends.
        for (std::uint64_t k = s - 1;; --k) {
          unsigned long long v;
          while (((v = status[k]) >> 62) == 0)
            __nanosleep(32);
          exclusive += v & status_value_mask;
          if ((v & ~status_value_mask) == status_prefix)
            break;
        }
        status[s] = status_prefix | (exclusive + running);
      }
      block_total[warps] = exclusive + 1; // out[0] holds 2
      if (s == 0 && a.capacity > 0)
        a.out[0] = 2u;
    }
    __syncthreads();
    unsigned long long position = block_total[warps] + block_total[warp];
    for (std::uint32_t w = w0; w < w0 + warp_words; w += 32) { // row of 32 words, one per lane
      std::uint32_t word = ~seg[w + lane] & valid_mask(valid_bits, w + lane);
      const std::uint32_t n = __popc(word);
      std::uint32_t inclusive = n;
      for (int d = 1; d < 32; d <<= 1) {
        const std::uint32_t up = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d)
          inclusive += up;
      }
      unsigned long long at = position + inclusive - n;
      const std::uint64_t g0 = base + 32ull * (w + lane);
      while (word != 0) {
        const int b = __ffs(word) - 1;
        word &= word - 1;
        if (at < a.capacity)
          a.out[at] = static_cast<std::uint32_t>(2 * (g0 + b) + 1);
        ++at;
      }
      position += __shfl_sync(0xffffffffu, inclusive, 31);
    }
  }
}

// One configuration of the sieve: the kernel above with its launch shape.
struct SieveShape {
  int words = 0;
  int threads = 0;
  std::uint32_t bits() const { return 32u * static_cast<std::uint32_t>(words); }
  std::size_t shared_bytes() const { return 4u * static_cast<std::size_t>(words); }
};

template <int Words, int Threads, bool Presieve, bool WarpSmall, Output Out>
const void* sieve_kernel_pointer() {
  return reinterpret_cast<const void*>(&segmented_sieve_kernel<Words, Threads, Presieve, WarpSmall, Out>);
}

// Sieves segments [0, segments) in launches of at most 2^20 blocks. Output::primes is launched as
// one grid (its look-back needs every earlier segment in the same launch; n < 2^32 keeps it small).
template <int Words, int Threads, bool Presieve, bool WarpSmall, Output Out>
void launch_sieve(SieveArgs a, std::uint64_t segments, cudaStream_t stream) {
  auto* kernel = &segmented_sieve_kernel<Words, Threads, Presieve, WarpSmall, Out>;
  constexpr std::size_t shared = 4u * Words;
  LADDER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(shared)));
  constexpr std::uint64_t chunk = Out == Output::primes ? (1ull << 31) - 1 : (1ull << 20);
  for (std::uint64_t first = 0; first < segments; first += chunk) {
    a.first_segment = first;
    const auto blocks = static_cast<unsigned>(segments - first < chunk ? segments - first : chunk);
    kernel<<<blocks, Threads, shared, stream>>>(a);
    LADDER_CUDA(cudaGetLastError());
  }
}

// Segments of `bits` bits covering the odd numbers <= n (n >= 1).
inline std::uint64_t segments_for(std::uint64_t n, std::uint32_t bits) {
  const std::uint64_t last_bit = (n - 1) / 2;
  return last_bit / bits + 1;
}

} // namespace ladder::detail::primes
