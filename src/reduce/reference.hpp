// CPU references for the reduction ladder and the library call, the error bound the checks
// allow for floating sums, and the Brent's-theorem figures of the reduction slides (Hui Liu). Host-only: the host tests
// check all of it without a GPU.
#pragma once

#include "ladder/reduce.hpp"

#include <cstdint>
#include <span>
#include <string>

namespace ladder::lab::reduce {

// The exact reduction for integers (sum and product wrap modulo 2^bits, as on the GPU); for
// float and double the value computed in long double (64-bit significand) and rounded once.
template <class T> T cpu_reduce(std::span<const T> in, Op op);

// Sum of |x_i| in long double: the scale of a floating sum's rounding error.
template <class T> long double cpu_sum_abs(std::span<const T> in);

// The longest chain of roundings any of our reduction orders puts one element through, for n
// elements, valid when the first level runs at least `min_threads` threads: each thread folds at
// most ceil(n / min_threads) elements (plus up to 2 x 16 from vector/unroll groups) in sequence,
// then the trees of warps, blocks and levels add at most 2 x ceil(log2 n) + 8 more.
std::int64_t rounding_depth_bound(std::int64_t n, std::int64_t min_threads = 16384);

// Allowed |gpu - exact| for a floating sum: d u / (1 - d u) x sum |x_i| (Higham's bound for any
// summation tree of depth d, u = unit roundoff of T).
template <class T> long double sum_tolerance(std::int64_t n, long double sum_abs);

// Allowed relative error of a floating product in any order: gamma_{n-1} = (n-1) u / (1 - (n-1) u)
// (each multiplication's rounding scales the whole product, so depth does not enter).
template <class T> long double product_relative_tolerance(std::int64_t n);

// Brent's theorem (the reduction slides, Hui Liu): with work W operations and depth t steps, p processors need at most
// t_p <= t + (W - t) / p steps; cost = p x t_p. For a reduction of n elements W = n - 1 and
// t = ceil(log2 n).
struct BrentFigures {
  std::int64_t n = 0;
  double processors = 0;
  double work = 0;     // W
  double depth = 0;    // t
  double steps = 0;    // the bound on t_p
  double cost = 0;     // p x t_p
  double cost_over_work = 0;
};
BrentFigures brent(std::int64_t n, double processors);

// A human-readable block of Brent figures for `ladder list`.
std::string brent_notes();

} // namespace ladder::lab::reduce
