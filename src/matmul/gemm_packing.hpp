// Whether ladder::gemm first packs an operand into scratch memory, as plain host arithmetic (the
// host tests check it without a GPU), and the library's entry that takes a packing as given (for
// the GPU tests and the lab's tuning rows).
//
// Two things slow the kernel down that a copy of an operand can undo (H200, `ladder tune matmul`
// and `ladder run matmul`, 2026-11-25):
//   - both operands k-contiguous (A untransposed and B transposed): each is turned element by
//     element on its way into shared memory, with 4-byte copies. 4096^3: 3.053 ms against 2.736
//     with only A turned (the untransposed product) and 2.675 with neither; 65536 x 64 x 4096:
//     1.049 ms against 885 us; 1000^3: 78.8 against 74.4 us. ladder::transpose turns one of them
//     at the copy's speed (a 4-byte transpose of 1 GiB in 541.7 us, 0.94 of cudaMemcpy).
//   - rows off 16-byte boundaries (a leading dimension not a multiple of 4, or a pointer off by
//     4, 8 or 12 bytes): element loads. 4097 x 4095 x 4093 took 3.244 ms against 2.736 ms for
//     4096^3 on 16-byte loads. A 2D copy (cudaMemcpy2DAsync) puts every row on a 16-byte boundary.
// The choice below estimates the kernel's time with and without each packing (the tile plan's
// score, the measured layout rates) and the copies' time from the device's memory bandwidth, and
// packs only where the estimate gains more than a margin: small products and the layouts that
// already run fast are left alone.
#pragma once

#include "ladder/gemm.hpp"
#include "matmul/gemm_plan.hpp"

#include <algorithm>
#include <cstdint>

namespace ladder::gemm_detail {

// One product as the caller gave it: C (m x n, ldc) = alpha op(A) op(B) + beta C.
struct Product {
  Trans trans_a = Trans::none, trans_b = Trans::none;
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1; // the fields in BLAS's argument order
  const float* a = nullptr;
  std::int64_t lda = 0;
  const float* b = nullptr;
  std::int64_t ldb = 0;
  float beta = 0;
  float* c = nullptr;
  std::int64_t ldc = 0;

  // k is the contiguous index in memory (the operand is turned on its way into shared memory).
  bool a_k_contiguous() const { return trans_a == Trans::none; }
  bool b_k_contiguous() const { return trans_b == Trans::transpose; }
};

enum class Pack : unsigned char {
  none,      // the kernel reads the operand where it is
  transpose, // ladder::transpose into scratch: a k-contiguous operand becomes k-major, dense
  repitch,   // a 2D copy into scratch, the same layout with every row on a 16-byte boundary
};

struct Packing {
  Pack a = Pack::none, b = Pack::none;
  // With one operand packed, C is computed in panels of this many rows (A packed) or columns
  // (B packed), each operand panel packed just before its product, so that the scratch stays
  // under max_pack_bytes; 0: one pass. With both packed, one pass.
  std::int64_t panel = 0;
  bool packs() const { return a != Pack::none || b != Pack::none; }
};

// The most scratch one call packs into (stream-ordered, from ladder's pool: see
// ladder/detail/scratch.hpp). 256 MiB holds one 8192 x 8192 operand; larger ones go in panels.
inline constexpr std::int64_t max_pack_bytes = std::int64_t{256} << 20;

inline constexpr std::int64_t round_up4(std::int64_t x) { return (x + 3) / 4 * 4; }

// The floats an operand panel takes once packed: `width` rows of C (A) or columns of C (B), the
// operand `k_contiguous` as stored. Transposed: k lines of `width` (ld = width). Repitched: the
// stored lines, each rounded up to whole 16-byte words.
inline std::int64_t packed_floats(Pack kind, bool k_contiguous, std::int64_t k,
                                  std::int64_t width) {
  switch (kind) {
  case Pack::none: return 0;
  case Pack::transpose: return k * width;
  case Pack::repitch: return k_contiguous ? width * round_up4(k) : k * round_up4(width);
  }
  return 0;
}

// Scratch offsets are kept on 256-byte boundaries.
inline std::int64_t scratch_bytes(std::int64_t floats) { return (floats * 4 + 255) / 256 * 256; }

// nullptr when `packing` can run on `p`, else why not. Transposing needs a k-contiguous operand
// stored dense (its leading dimension equal to k): ladder::transpose takes no leading dimension.
inline const char* packing_unsupported(const Product& p, const Packing& packing) {
  if (packing.a == Pack::transpose && !(p.a_k_contiguous() && p.lda == p.k))
    return "transposing A needs A untransposed and dense (lda == k)";
  if (packing.b == Pack::transpose && !(p.b_k_contiguous() && p.ldb == p.k))
    return "transposing B needs B transposed and dense (ldb == k)";
  if (packing.panel < 0)
    return "the panel width must be >= 0";
  if (packing.panel > 0 && (packing.a == Pack::none) == (packing.b == Pack::none))
    return "panels need exactly one packed operand";
  return nullptr;
}

// How a packed product is cut: with one operand packed, into panels of C of `width` rows (A
// packed) or columns (B packed) along `extent`; otherwise one pass over the whole of C.
struct Panels {
  bool a_only, b_only;
  std::int64_t extent, width;
  // The m (or n) of a panel of w rows (or columns).
  std::int64_t m(const Product& p, std::int64_t w) const { return a_only ? w : p.m; }
  std::int64_t n(const Product& p, std::int64_t w) const { return b_only ? w : p.n; }
};

inline Panels panels_of(const Product& p, const Packing& packing) {
  Panels s;
  s.a_only = packing.a != Pack::none && packing.b == Pack::none;
  s.b_only = packing.b != Pack::none && packing.a == Pack::none;
  s.extent = s.a_only ? p.m : p.n;
  s.width = (s.a_only || s.b_only) && packing.panel > 0 ? std::min(packing.panel, s.extent)
                                                        : s.extent;
  return s;
}

// The scratch a packed product takes: the packed panel of each packed operand (the widest
// panel), each on a 256-byte boundary.
inline std::int64_t packing_scratch_bytes(const Product& p, const Packing& packing) {
  const Panels s = panels_of(p, packing);
  return scratch_bytes(packed_floats(packing.a, p.a_k_contiguous(), p.k, s.m(p, s.width))) +
         scratch_bytes(packed_floats(packing.b, p.b_k_contiguous(), p.k, s.n(p, s.width)));
}

// What the estimate needs of the device.
struct DeviceRates {
  int sms = 0;
  double sm_clock_hz = 0;
  double dram_bytes_per_s = 0; // theoretical: memory clock x bus width x 2
};

// The reference FP32 rate per SM clock that plan()'s scores are fractions of: 4096^3 in
// 2.858 ms on 132 SMs at 1.98 GHz (the two-buffer 128 x 128 tile, H200, `ladder tune matmul`,
// 2026-11-25).
inline constexpr double large_tile_flops_per_sm_clock = 184.0;
// Each launch's fixed cost, in seconds. The scratch (a stream-ordered allocation from the pool)
// costs no visible time: at 1000^3 with B^T, transposing B first cost 5.0 us over the
// untransposed product (66.93 against 61.89 us, H200, `matmul-tune-h200-2026-11-26-r5.md`),
// about the transpose's own copy (1.7 us at 0.8 of the DRAM rate) and launch.
inline constexpr double launch_seconds = 3e-6;
// Fractions of the theoretical DRAM bandwidth the packing copies are reckoned at: the 4-byte
// transpose measured 0.94 of a cudaMemcpy, which reaches 0.88 of the theoretical (H200); the 2D
// copy from rows off 16-byte boundaries is reckoned lower until it is measured.
inline constexpr double transpose_efficiency = 0.80, repitch_efficiency = 0.60;
// A packing is taken only where its estimate is under this fraction of the next best's with
// fewer packed operands (the estimates are a few percent from the measurements).
inline constexpr double pack_margin = 0.97;

// The kernel's rate for each operand layout, relative to the untransposed product's (only A
// k-contiguous), from the H200 figures above: both k-contiguous 0.896 at 4096^3, 0.844 at 65536 x
// 64 x 4096; neither 1.023, 1.056, 1.056; only B about 1.0. At 1000^3, since edge tiles take
// masked loads (which sped the untransposed product more than this layout), both k-contiguous ran
// at 0.838 (61.89 against 73.82 us, H200, `matmul-tune-h200-2026-11-26-r5.md`) and 0.83 on two
// H100 hosts (`matmul-tune-h100-2026-11-26.md`, `-r4.md`): 0.84.
inline double layout_rate(bool a_k_contiguous, bool b_k_contiguous) {
  if (a_k_contiguous && b_k_contiguous)
    return 0.84;
  return a_k_contiguous || b_k_contiguous ? 1.0 : 1.03;
}

// Estimated seconds of one kernel launch.
inline double kernel_seconds(std::int64_t m, std::int64_t n, std::int64_t k, bool a_k_contiguous,
                             bool b_k_contiguous, bool vector, const DeviceRates& d) {
  const Plan pl = plan(m, n, k, d.sms, vector);
  const double rate = pl.score * layout_rate(a_k_contiguous, b_k_contiguous) * d.sms *
                      large_tile_flops_per_sm_clock * d.sm_clock_hz;
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / rate +
         launch_seconds;
}

// Estimated seconds of one packing copy of `floats` packed floats (read once, written once).
inline double pack_seconds(Pack kind, std::int64_t floats, const DeviceRates& d) {
  if (kind == Pack::none)
    return 0;
  const double efficiency = kind == Pack::transpose ? transpose_efficiency : repitch_efficiency;
  return 2.0 * 4.0 * static_cast<double>(floats) / (efficiency * d.dram_bytes_per_s) +
         launch_seconds;
}

// The estimate of a whole call: its panels' packing copies and products. Negative when the
// packing does not fit under max_pack_bytes (or does not apply).
inline double estimate_seconds(const Product& p, const Packing& packing, const DeviceRates& d) {
  if (packing_unsupported(p, packing))
    return -1;
  const bool a_kc = packing.a == Pack::transpose ? false : p.a_k_contiguous();
  const bool b_kc = packing.b == Pack::transpose ? false : p.b_k_contiguous();
  const bool vector = (packing.a != Pack::none || vector_ok(p.a, p.lda)) &&
                      (packing.b != Pack::none || vector_ok(p.b, p.ldb));
  if (packing_scratch_bytes(p, packing) > max_pack_bytes)
    return -1;
  const Panels s = panels_of(p, packing);
  // One panel of w rows (A packed) or columns (B packed), or the whole product.
  const auto panel_seconds = [&](std::int64_t w) {
    const std::int64_t m = s.m(p, w), n = s.n(p, w);
    return pack_seconds(packing.a, packed_floats(packing.a, p.a_k_contiguous(), p.k, m), d) +
           pack_seconds(packing.b, packed_floats(packing.b, p.b_k_contiguous(), p.k, n), d) +
           kernel_seconds(m, n, p.k, a_kc, b_kc, vector, d);
  };
  const std::int64_t full = s.extent / s.width, rest = s.extent % s.width;
  return static_cast<double>(full) * panel_seconds(s.width) + (rest ? panel_seconds(rest) : 0.0);
}

// The widest panel (a multiple of 256 rows or columns) whose packed operand fits in
// max_pack_bytes; 0 when the whole operand fits, -1 when not even 256 lines do.
inline std::int64_t panel_width(Pack kind, bool k_contiguous, std::int64_t k, std::int64_t extent) {
  if (scratch_bytes(packed_floats(kind, k_contiguous, k, extent)) <= max_pack_bytes)
    return 0;
  const std::int64_t per_256 = scratch_bytes(packed_floats(kind, k_contiguous, k, 256));
  const std::int64_t width = max_pack_bytes / per_256 * 256;
  return width >= 256 ? width : -1;
}

// Products under this many floating-point operations are never packed, without an estimate: the
// copies' fixed costs outweigh any gain there (on an H200's figures the smallest cube that packs
// is about 1536^3, 7 GFLOP), and the estimate's few thousand steps of host arithmetic would weigh
// on products that take a few microseconds.
inline constexpr double min_pack_flops = 1e9;

// The packing ladder::gemm takes for `p` (a checked product with k > 0, m > 0, n > 0).
inline Packing choose_packing(const Product& p, const DeviceRates& d) {
  if (2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) <
      min_pack_flops)
    return {};
  // Candidates per operand: transposing (k-contiguous and dense, and a whole number of 16-byte
  // words per packed row, so that the packed operand takes 16-byte loads). Repitching rows off
  // 16-byte boundaries is not a candidate: measured, it lost where the estimate had it win
  // (4097 x 4095 x 4093, both operands repitched: 3.491 ms against 3.246 ms on element loads,
  // H200, 2026-11-26; the product on the repitched operands ran well below the 16-byte rate the
  // estimate assumed). It stays a forced packing for the lab's row `gemm_repitch_both`.
  const auto kinds = [&](bool is_a) {
    const bool kc = is_a ? p.a_k_contiguous() : p.b_k_contiguous();
    const std::int64_t ld = is_a ? p.lda : p.ldb, width = is_a ? p.m : p.n;
    struct {
      Pack list[2];
      int count = 0;
    } out;
    out.list[out.count++] = Pack::none;
    if (kc && ld == p.k && width % 4 == 0)
      out.list[out.count++] = Pack::transpose;
    return out;
  };
  const auto a_kinds = kinds(true), b_kinds = kinds(false);
  Packing best;
  double best_seconds = estimate_seconds(p, best, d);
  // B first: with equal estimates, transposing B (the untransposed product's layout) measured a
  // little faster than transposing A (4096^3: 2.736 against 2.766 ms, H200, 2026-11-25); since the
  // huge tile computes the untransposed product as its transpose, the two are level (H100,
  // 2026-11-28: 2.697 ms in `ladder run matmul`, 2.665 for A turned in the tune before).
  for (int packed = 1; packed <= 2; ++packed) {
    Packing round_best;
    double round_seconds = -1;
    for (int i = 0; i < a_kinds.count; ++i)
      for (int j = 0; j < b_kinds.count; ++j) {
        Packing candidate{a_kinds.list[i], b_kinds.list[j], 0};
        if ((candidate.a != Pack::none) + (candidate.b != Pack::none) != packed)
          continue;
        if (packed == 1) {
          const bool on_a = candidate.a != Pack::none;
          candidate.panel = on_a ? panel_width(candidate.a, p.a_k_contiguous(), p.k, p.m)
                                 : panel_width(candidate.b, p.b_k_contiguous(), p.k, p.n);
          if (candidate.panel < 0)
            continue;
        }
        const double s = estimate_seconds(p, candidate, d);
        if (s > 0 && (round_seconds < 0 || s < round_seconds)) {
          round_best = candidate;
          round_seconds = s;
        }
      }
    if (round_seconds > 0 && round_seconds < pack_margin * best_seconds) {
      best = round_best;
      best_seconds = round_seconds;
    }
  }
  return best;
}

// The walk of a packed product (packing.packs(), checked by packing_unsupported) over its panels:
// for each panel of C (rows with A packed alone, columns with B packed alone, the whole of C with
// both), the packed operands' panels are packed into `scratch` (packing_scratch_bytes of it) and
// the panel's product is run on them. The copies and the product are callables, so that the host
// tests can run the same walk on the CPU:
//   pack(kind, src, ld, rows, cols, dst): the stored rows x cols matrix at src (leading dimension
//     ld), transposed into dst (cols x rows, dense) or repitched (rows x cols, each row rounded up
//     to whole 16-byte words); returns the packed leading dimension;
//   multiply(const Product&): the product as given.
template <class PackFn, class MultiplyFn>
void walk_packed(const Product& p, const Packing& packing, float* scratch, PackFn&& pack,
                 MultiplyFn&& multiply) {
  const Panels s = panels_of(p, packing);
  float* const a_dst = scratch;
  float* const b_dst =
      scratch + scratch_bytes(packed_floats(packing.a, p.a_k_contiguous(), p.k, s.m(p, s.width))) / 4;
  const bool a_t = p.trans_a == Trans::transpose, b_t = p.trans_b == Trans::transpose;
  for (std::int64_t p0 = 0; p0 < s.extent; p0 += s.width) {
    const std::int64_t w = std::min(s.width, s.extent - p0);
    Product q = p;
    if (s.a_only) { // rows p0 .. p0 + w of C and of op(A)
      q.m = w;
      q.a = a_t ? p.a + p0 : p.a + p0 * p.lda;
      q.c = p.c + p0 * p.ldc;
    } else if (s.b_only) { // columns p0 .. p0 + w of C and of op(B)
      q.n = w;
      q.b = b_t ? p.b + p0 * p.ldb : p.b + p0;
      q.c = p.c + p0;
    }
    if (packing.a != Pack::none) {
      // Stored A: m x k (untransposed) or k x m.
      q.lda = pack(packing.a, q.a, q.lda, a_t ? q.k : q.m, a_t ? q.m : q.k, a_dst);
      q.a = a_dst;
      if (packing.a == Pack::transpose)
        q.trans_a = Trans::transpose; // now stored k x m
    }
    if (packing.b != Pack::none) {
      // Stored B: k x n (untransposed) or n x k.
      q.ldb = pack(packing.b, q.b, q.ldb, b_t ? q.n : q.k, b_t ? q.k : q.n, b_dst);
      q.b = b_dst;
      if (packing.b == Pack::transpose)
        q.trans_b = Trans::none; // now stored k x n
    }
    multiply(q);
  }
}

// The current device's figures (CUDA attributes).
DeviceRates device_rates();

// ladder::gemm with `packing` as given instead of the one choose_packing picks: the same
// argument checks and BLAS quick returns, then std::invalid_argument if the packing does not
// apply (packing_unsupported). For the GPU tests and the lab's tuning rows.
void gemm_f32_packed(const Product& p, const Packing& packing, cudaStream_t stream);

} // namespace ladder::gemm_detail
