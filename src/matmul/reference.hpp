// CPU reference of the matrix multiplication ladder: C in double precision, blocked and spread
// over the host's cores so the check does not dominate a run, with sum |a| |b| per element (the
// scale of the rounding error); and the comparison every rung must pass. Host-only: the host tests
// check it without a GPU.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ladder::lab::matmul {

struct Expected {
  std::vector<double> c;       // m x n
  std::vector<double> abs_sum; // m x n: sum over k of |a| |b|
};

// A (m x k) and B (k x n), row-major floats.
Expected cpu_matmul(std::span<const float> a, std::span<const float> b, std::int64_t m,
                    std::int64_t n, std::int64_t k);

// "" when every element of `got` is within the bound, else the first offender and the count. A
// float dot product of k terms in any order errs by at most gamma_k = k u / (1 - k u) times
// sum |a| |b| (Higham, "Accuracy and Stability of Numerical Algorithms", 3.1), u = 2^-24; inputs
// rounded before the products (TF32) add 2 x input_rounding per product. NaN and poisoned
// (unwritten) elements always fail.
std::string compare_within_bound(std::span<const float> got, const Expected& expected,
                                 std::int64_t n, std::int64_t k, double input_rounding);

} // namespace ladder::lab::matmul
