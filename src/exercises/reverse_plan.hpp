// How a reversal out[n - 1 - i] = in[i] keeps 16-byte accesses on both sides for every n and
// every 4-byte alignment of the two pointers. Plain constexpr arithmetic, shared by the kernels
// (src/exercises/streams.cuh) and the host tests, which walk it for every small n and alignment.
//
// The output's aligned quads start `out_head` elements in; the input's aligned quads start
// `in_head` elements in. Output quad q (elements out_head + 4q .. + 3) needs the input elements
// L(q) .. L(q) + 3 with L(q) = n - 4 - out_head - 4q. Writing n - 4 - out_head - in_head as
// 4 * top + shift, L(q) = in_head + 4 (top - q) + shift: the four elements are components
// shift .. 3 of aligned input quad p = top - q and components 0 .. shift - 1 of quad p + 1.
// With shift == 0 (both sides aligned alike) one input quad makes one output quad; otherwise a
// lane that holds quad p takes quad p + 1 from its neighbour (a warp shuffle), or from shared
// memory. `first` and `count` bound the output quads whose input quads all lie inside the array;
// the few elements outside them (at most 7 at each end) are copied one by one.
#pragma once

#include <algorithm>
#include <cstdint>

namespace ladder::lab::exercises {

struct ReversePlan {
  std::int64_t n = 0;
  std::int64_t out_head = 0; // output elements before the first 16-byte-aligned one
  std::int64_t in_head = 0;  // input elements before the first 16-byte-aligned one
  std::int64_t top = 0;      // the aligned input quad that output quad 0 starts in
  int shift = 0;             // where in that quad: 0 .. 3
  std::int64_t first = 0;    // output quads [first, first + count) go 16 bytes at a time
  std::int64_t count = 0;

  // Output elements [0, scalar_end_front()) and [scalar_begin_back(), n) are copied one by one.
  constexpr std::int64_t scalar_end_front() const { return count > 0 ? out_head + 4 * first : n; }
  constexpr std::int64_t scalar_begin_back() const {
    return count > 0 ? out_head + 4 * (first + count) : n;
  }
  // The aligned input quad that output quad `first + k` starts in (it also reads quad + 1 when
  // shift > 0).
  constexpr std::int64_t input_quad(std::int64_t k) const { return top - first - k; }
};

// Elements before the first 16-byte boundary at or after `address` (4-byte elements), at most n.
constexpr std::int64_t elements_to_alignment(std::uintptr_t address, std::int64_t n) {
  const auto misaligned = static_cast<std::int64_t>((address / 4) % 4);
  return std::min<std::int64_t>(n, misaligned == 0 ? 0 : 4 - misaligned);
}

constexpr ReversePlan plan_reverse(std::uintptr_t in, std::uintptr_t out, std::int64_t n) {
  ReversePlan plan;
  plan.n = n;
  plan.out_head = elements_to_alignment(out, n);
  plan.in_head = elements_to_alignment(in, n);
  const std::int64_t x = n - 4 - plan.out_head - plan.in_head;
  if (x < 0)
    return plan; // too short for one aligned quad on both sides: all scalar
  plan.top = x / 4;
  plan.shift = static_cast<int>(x % 4);
  const std::int64_t out_quads = (n - plan.out_head) / 4;
  const std::int64_t in_quads = (n - plan.in_head) / 4;
  // Quad p = top - q must exist (q <= top), and so must p + 1 when shift > 0.
  const std::int64_t last_readable = in_quads - (plan.shift > 0 ? 2 : 1);
  plan.first = std::max<std::int64_t>(0, plan.top - last_readable);
  const std::int64_t end = std::min<std::int64_t>(out_quads, plan.top + 1);
  plan.count = std::max<std::int64_t>(0, end - plan.first);
  return plan;
}

} // namespace ladder::lab::exercises
