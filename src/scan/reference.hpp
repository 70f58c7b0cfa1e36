// CPU references for the scan ladder: rung 1 (the sequential scan, timed against the GPU as the
// seed's table does) and the checks every GPU rung must pass. Host-only, so the host tests check
// them without a GPU.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

namespace ladder::lab::scan {

// The seed's sequential exclusive scan: out[0] = 0, out[j] = out[j - 1] + in[j - 1]. Integers
// wrap around modulo 2^bits (computed in the unsigned type, so the wrap is defined behaviour and
// matches what the GPU's adders do). in and out may be the same array.
template <class T> void cpu_exclusive_scan(std::span<const T> in, std::span<T> out);
template <class T> void cpu_inclusive_scan(std::span<const T> in, std::span<T> out);

// Exact comparison (integers, and floats where bits must match); "" when equal, else the first
// mismatch and how many elements differ.
template <class T> std::string compare_exact(std::span<const T> got, std::span<const T> expected);

// Floating-point sums against a double reference. The GPU associates the additions differently
// from the sequential loop, so each output may differ from the exact prefix by rounding. For a
// sum of k terms evaluated in any order whose additions nest at most `depth` deep, the error is
// at most depth x eps x (the sum of |x| over the prefix) (Higham, "Accuracy and Stability of
// Numerical Algorithms", 4.2). The bound therefore scales with each element's own prefix of |x|,
// not with n or with the final total: early elements must be nearly exact. `depth` is the
// algorithm's: log-depth trees inside a block plus one addition per tile on the look-back chain.
// Also fails on NaN and on any unwritten (poisoned) element.
template <class T>
std::string compare_prefix_sums(std::span<const T> got, std::span<const T> in, bool inclusive,
                                double depth);

// The depth bound used by the checks for a scan of n elements in tiles of at least
// `min_tile` elements: 2 log2(n) for the trees and shuffles, plus n / min_tile for the chain.
double scan_error_depth(std::int64_t n, std::int64_t min_tile);

} // namespace ladder::lab::scan
