// ladder/primes.hpp: count and list the primes up to n on the GPU (a segmented sieve of
// Eratosthenes).
//
//   std::uint64_t pi = ladder::count_primes(10'000'000'000);           // 455052511
//   std::uint64_t k = ladder::generate_primes(n, d_out, capacity, stream);
//
// count_primes: pi(n), the number of primes <= n, for any n < 2^64 (the time grows like n: about
// n / 2.3e11 seconds on an H200 for n around 1e10; see docs/exercises.md).
// generate_primes: writes the primes <= n in increasing order to `out` (device memory, room for
// `capacity` elements; out[0] = 2) and returns how many there are, for any n < 2^32.
//
// Both return a host value, so both wait for `stream` before they return: they are not
// asynchronous and cannot be captured into a CUDA graph (called on a capturing stream they throw
// std::invalid_argument before anything is enqueued). n = 0 and n = 1 return 0 touching no GPU.
// Calls from several host threads and streams at once are safe: nothing is shared between calls.
//
// Scratch: the sieving primes <= sqrt(n) (4 bytes each: 109 KiB for n = 1e11), 7 KiB of
// pre-sieve patterns and a counter, plus for generate_primes 8 bytes per 2^20 numbers (at most
// 32 KiB): allocated per call on `stream` (ladder's private pool, ladder/detail/scratch.hpp) and
// freed before the call returns. The sieving primes are found on the host (a sieve up to
// sqrt(n): below a millisecond up to n = 1e12).
//
// generate_primes checks `capacity` before it writes anything: when it is at least Dusart's upper
// bound on pi(n) the primes are written in one pass; otherwise pi(n) is counted first and a
// capacity below it throws std::invalid_argument (nothing written).
//
// Errors: std::invalid_argument (n >= 2^32 or a null `out` with pi(n) > 0 for generate_primes, a
// capacity below pi(n), a capturing stream) before anything is launched; ladder::CudaError if CUDA
// fails.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ladder {

// pi(n). Waits for `stream`.
std::uint64_t count_primes(std::uint64_t n, cudaStream_t stream = nullptr);

// The primes <= n (n < 2^32) as uint32_t, ascending, into out[0, pi(n)); returns pi(n). Waits
// for `stream`.
std::uint64_t generate_primes(std::uint64_t n, std::uint32_t* out, std::uint64_t capacity,
                              cudaStream_t stream = nullptr);

} // namespace ladder
