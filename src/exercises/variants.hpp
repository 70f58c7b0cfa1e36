// The exercises' registries: one per exercise of the course (increment, vector add, array
// reversal, the sieve of Eratosthenes), each in ladder order: the slides' kernels, the rungs past
// them, the library call, then the reference rows. The CLI, the GPU tests and the benchmark all
// iterate these lists, so a new rung is one entry.
#pragma once

#include "core/rung.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <vector>

namespace ladder::lab::exercises {

// --- increment: a[i] += 1 in place -------------------------------------------------------------
struct IncrementRung {
  RungInfo info;
  const char* (*unsupported)(std::int64_t n) = nullptr; // null when the rung handles n
  // Reference rows (the copy) take `copy_to` as the destination of the same bytes.
  void (*launch)(float* a, float* copy_to, std::int64_t n, cudaStream_t stream) = nullptr;
  bool is_copy = false; // the bound: copies n floats, leaves `a` alone
};
std::span<const IncrementRung> increment_registry();

// --- vector add: c = a + b -----------------------------------------------------------------------
struct AddRung {
  RungInfo info;
  const char* (*unsupported)(std::int64_t n) = nullptr;
  // `a` and `b` are the two halves of one 2n buffer; `c` holds 3n / 2 elements so that the copy
  // row can move the same bytes as the add (reads 1.5 n floats of a|b, writes them to c).
  void (*launch)(const float* a, const float* b, float* c, std::int64_t n,
                 cudaStream_t stream) = nullptr;
  bool is_copy = false;
};
std::span<const AddRung> add_registry();

// The boundary check `if (i < n)` of the slides' vector add, counted on the device: each warp
// ballots the check before the branch; a warp whose ballot is neither empty nor full diverges.
struct DivergenceProbe {
  std::int64_t warps = 0;
  std::int64_t divergent = 0;
};
DivergenceProbe probe_add_divergence(const float* a, const float* b, float* c, std::int64_t n,
                                     int block_threads, cudaStream_t stream);
inline constexpr int slides_add_threads = 256; // the lecture's block size for its n = 1000 example

// --- array reversal: out[n - 1 - i] = in[i] -----------------------------------------------------
struct ReverseRung {
  RungInfo info;
  const char* (*unsupported)(std::int64_t n) = nullptr;
  void (*launch)(const std::int32_t* in, std::int32_t* out, std::int64_t n,
                 cudaStream_t stream) = nullptr;
  bool is_copy = false;
  // The slides' kernels and launch, which need n % 256 == 0: wrong elsewhere, as taught.
  bool drops_tail_of_awkward_n = false;
};
std::span<const ReverseRung> reverse_registry();

// --- sieve of Eratosthenes ----------------------------------------------------------------------
// What a sieve rung leaves in its output.
enum class SieveOutput {
  flags,  // int per number 0..n, non-zero = composite (the slides' layout; 0 and 1 unspecified)
  count,  // one unsigned long long: pi(n)
  primes, // the primes <= n ascending, uint32
  host,   // a CPU row (primesieve): the study times it on the host
};

// The device-side inputs every segmented rung reads, prepared once per n: the pre-sieve patterns
// and the odd primes <= sqrt(n).
struct SievePlan {
  std::uint64_t n = 0;
  std::vector<std::uint32_t> host_primes; // odd primes <= sqrt(n)
  std::uint32_t* table = nullptr;         // device: patterns, then the primes
  std::size_t prime_word = 0;             // where the primes start in `table`
  std::uint32_t first_pattern_free = 0;   // index of the first prime above 37
};

struct SieveRung {
  RungInfo info;
  SieveOutput output = SieveOutput::count;
  const char* (*unsupported)(std::uint64_t n) = nullptr;
  // flags: `out` holds n + 1 ints; count: one unsigned long long (zeroed by the launch); primes:
  // `capacity` uint32. `scratch` holds scratch_words(n) 8-byte words (look-back status).
  void (*launch)(const SievePlan& plan, void* out, std::uint64_t capacity,
                 unsigned long long* scratch, cudaStream_t stream) = nullptr;
  // host rows: pi(n) on `threads` host threads (0: all); nullopt-like UINT64_MAX when absent.
  int host_threads = 0;
};
std::span<const SieveRung> sieve_registry();
// Look-back words the primes rungs need for n.
std::uint64_t sieve_scratch_words(std::uint64_t n);

} // namespace ladder::lab::exercises
