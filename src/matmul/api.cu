// ladder::gemm: argument checks (BLAS's, plus overlap), the quick returns of BLAS semantics, then
// the packing (gemm_packing.hpp), the plan (tile shape, split over k) and the launches of the
// matmul ladder's best kernel.
#include "ladder/gemm.hpp"
#include "core/resident_grid.hpp"
#include "ladder/detail/scratch.hpp"
#include "ladder/transpose.hpp"
#include "matmul/gemm_packing.hpp"
#include "matmul/gemm_plan.hpp"
#include "matmul/gemm_policies.cuh"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace ladder::detail {

namespace {

using namespace gemm_detail;

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("ladder::gemm: " + what);
}

// The bytes a stored rows x cols matrix of leading dimension ld spans: [p, p + span).
std::uintptr_t span_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  return static_cast<std::uintptr_t>((rows - 1) * ld + cols) * sizeof(float);
}

void check_leading_dimension(const char* name, const char* ld_name, std::int64_t cols,
                             std::int64_t ld) {
  const std::int64_t least = cols > 1 ? cols : 1;
  if (ld < least)
    bad(std::string(ld_name) + " must be >= " + std::to_string(least) + " (the stored " + name +
        "'s row length), got " + std::to_string(ld));
}

void check_matrix(const char* name, const char* ld_name, const void* p, std::int64_t rows,
                  std::int64_t cols, std::int64_t ld) {
  if (rows == 0 || cols == 0)
    return;
  if (p == nullptr)
    bad(std::string(name) + " is null with a non-empty " + std::to_string(rows) + " x " +
        std::to_string(cols) + " matrix");
  constexpr auto max_elements =
      std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(sizeof(float));
  if (rows - 1 > (max_elements - cols) / ld)
    bad(std::string(name) + "'s extent ((rows - 1) x " + ld_name +
        " + cols) overflows 64-bit byte counts");
}

bool overlap(const void* p, std::uintptr_t p_bytes, const void* q, std::uintptr_t q_bytes) {
  const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(q);
  return a < b + q_bytes && b < a + p_bytes;
}

// Checks a product's arguments (std::invalid_argument naming the bad one) and does what BLAS
// semantics ask when there is nothing to multiply; true when the product remains to be done.
bool check_and_quick_return(const Product& p, cudaStream_t stream) {
  if (p.trans_a != Trans::none && p.trans_a != Trans::transpose)
    bad("trans_a is neither Trans::none nor Trans::transpose");
  if (p.trans_b != Trans::none && p.trans_b != Trans::transpose)
    bad("trans_b is neither Trans::none nor Trans::transpose");
  if (p.m < 0)
    bad("m must be >= 0, got " + std::to_string(p.m));
  if (p.n < 0)
    bad("n must be >= 0, got " + std::to_string(p.n));
  if (p.k < 0)
    bad("k must be >= 0, got " + std::to_string(p.k));
  const bool a_t = p.trans_a == Trans::transpose, b_t = p.trans_b == Trans::transpose;
  // Stored shapes: A m x k or k x m, B k x n or n x k.
  const std::int64_t a_rows = a_t ? p.k : p.m, a_cols = a_t ? p.m : p.k;
  const std::int64_t b_rows = b_t ? p.n : p.k, b_cols = b_t ? p.k : p.n;
  check_leading_dimension("A", "lda", a_cols, p.lda);
  check_leading_dimension("B", "ldb", b_cols, p.ldb);
  check_leading_dimension("C", "ldc", p.n, p.ldc);
  if (p.m == 0 || p.n == 0) // BLAS: nothing is referenced
    return false;
  check_matrix("A", "lda", p.a, a_rows, a_cols, p.lda);
  check_matrix("B", "ldb", p.b, b_rows, b_cols, p.ldb);
  check_matrix("C", "ldc", p.c, p.m, p.n, p.ldc);
  const std::uintptr_t c_bytes = span_bytes(p.m, p.n, p.ldc);
  if (p.k > 0 && overlap(p.c, c_bytes, p.a, span_bytes(a_rows, a_cols, p.lda)))
    bad("C overlaps A (C is written while A is read)");
  if (p.k > 0 && overlap(p.c, c_bytes, p.b, span_bytes(b_rows, b_cols, p.ldb)))
    bad("C overlaps B (C is written while B is read)");
  if (p.k == 0 || p.alpha == 0.0f) {
    scale(p.c, p.m, p.n, p.ldc, p.beta, stream);
    return false;
  }
  return true;
}

// One launch of the planned tile shape on the operands as they are.
void multiply(const Product& p, int sms, cudaStream_t stream) {
  const bool vector_loads = vector_ok(p.a, p.lda) && vector_ok(p.b, p.ldb);
  const Plan pl = plan(p.m, p.n, p.k, sms, vector_loads);
  const TileShape& shape = *std::find_if(tile_shapes.begin(), tile_shapes.end(),
                                         [&](const TileShape& t) { return t.tile == pl.tile; });
  const std::int64_t tile_m = shape.bm, tile_n = shape.bn;
  // In either orientation: launch_tile may compute the product as its transpose.
  const auto tiles = [](std::int64_t rows, std::int64_t cols, std::int64_t tr, std::int64_t tc) {
    return (rows + tr - 1) / tr * ((cols + tc - 1) / tc);
  };
  if (std::max(tiles(p.m, p.n, tile_m, tile_n), tiles(p.n, p.m, tile_m, tile_n)) >
      std::numeric_limits<int>::max())
    bad("m x n needs more than 2^31 - 1 tiles of " + std::to_string(tile_m) + " x " +
        std::to_string(tile_n));

  Params prm;
  prm.m = p.m;
  prm.n = p.n;
  prm.k = p.k;
  prm.alpha = p.alpha;
  prm.beta = p.beta;
  prm.a = p.a;
  prm.lda = p.lda;
  prm.b = p.b;
  prm.ldb = p.ldb;
  prm.c = p.c;
  prm.ldc = p.ldc;
  launch_tile(pl.tile, prm, p.a_k_contiguous(), p.b_k_contiguous(), vector_loads,
              {.group_m = 8, .splits = pl.splits}, stream);
}

// Packs one operand panel into `dst`: the stored rows x cols matrix at `src` (leading dimension
// ld), transposed (dst: cols x rows, dense) or repitched (dst: rows x cols, rows rounded up to
// 16-byte words). Returns the packed leading dimension.
std::int64_t pack(Pack kind, const float* src, std::int64_t ld, std::int64_t rows,
                  std::int64_t cols, float* dst, cudaStream_t stream) {
  if (kind == Pack::transpose) {
    transpose_bytes(src, dst, rows, cols, sizeof(float), stream);
    return rows;
  }
  const std::int64_t packed_ld = round_up4(cols);
  LADDER_CUDA(cudaMemcpy2DAsync(dst, static_cast<std::size_t>(packed_ld) * sizeof(float), src,
                                static_cast<std::size_t>(ld) * sizeof(float),
                                static_cast<std::size_t>(cols) * sizeof(float),
                                static_cast<std::size_t>(rows), cudaMemcpyDeviceToDevice, stream));
  return packed_ld;
}

// The product with `packing` (checked by packing_unsupported): operand panels packed into one
// scratch allocation (walk_packed), each followed by its product, the scratch freed after the last.
void multiply_packed(const Product& p, const Packing& packing, int sms, cudaStream_t stream) {
  if (!packing.packs())
    return multiply(p, sms, stream);
  StreamScratch scratch(static_cast<std::size_t>(packing_scratch_bytes(p, packing)), stream);
  walk_packed(
      p, packing, scratch.as<float>(),
      [&](Pack kind, const float* src, std::int64_t ld, std::int64_t rows, std::int64_t cols,
          float* dst) { return pack(kind, src, ld, rows, cols, dst, stream); },
      [&](const Product& q) { multiply(q, sms, stream); });
  scratch.release();
}

} // namespace

void gemm_f32(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
              float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
              float beta, float* c, std::int64_t ldc, cudaStream_t stream) {
  const Product p{trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc};
  if (!check_and_quick_return(p, stream))
    return;
  const DeviceRates d = gemm_detail::device_rates();
  multiply_packed(p, choose_packing(p, d), d.sms, stream);
}

} // namespace ladder::detail

namespace ladder::gemm_detail {

// Asked once per device: asked on every call, these attributes made every call take at least
// 0.87 ms on an H200 with CUDA 13, a 128^3 product included (`ladder run matmul`, 2026-11-26).
DeviceRates device_rates() {
  const int device = core::current_device();
  const auto attribute = [&](core::PerDevice& cache, cudaDeviceAttr what) {
    return cache.get(device, [&] {
      int value = 0;
      LADDER_CUDA(cudaDeviceGetAttribute(&value, what, device));
      return value;
    });
  };
  static core::PerDevice clock_khz, memory_clock_khz, bus_bits;
  DeviceRates d;
  d.sms = core::multiprocessors(device);
  d.sm_clock_hz = 1e3 * attribute(clock_khz, cudaDevAttrClockRate);
  // CUDA 13 removed memoryClockRate from cudaDeviceProp; the attribute is still there.
  d.dram_bytes_per_s = 2e3 * attribute(memory_clock_khz, cudaDevAttrMemoryClockRate) *
                       (attribute(bus_bits, cudaDevAttrGlobalMemoryBusWidth) / 8.0);
  return d;
}

void launch_tile(Tile tile, const Params& prm, bool a_kc, bool b_kc, bool vector_loads,
                 Schedule schedule, cudaStream_t stream) {
  switch (tile) {
  case Tile::huge:
    // The untransposed layout's own k-loop ran 3% slower than the transposed product's
    // (launch_huge_swapped_untransposed); measured with 16-byte loads only.
    if (a_kc && !b_kc && vector_loads)
      return launch_huge_swapped_untransposed(prm, true, schedule, stream);
    return launch_any_layout<HugeAsync3, HugeAsync3SerpentineFragments8>(
        prm, a_kc, b_kc, vector_loads, schedule, stream);
  case Tile::large:
    return launch_any_layout<Large4Warps>(prm, a_kc, b_kc, vector_loads, schedule, stream);
  case Tile::wide:
    return launch_any_layout<WideAsync3>(prm, a_kc, b_kc, vector_loads, schedule, stream);
  case Tile::tall:
    return launch_any_layout<TallAsync3>(prm, a_kc, b_kc, vector_loads, schedule, stream);
  case Tile::wide_two:
    return launch_any_layout<WideTwoAsync3>(prm, a_kc, b_kc, vector_loads, schedule, stream);
  case Tile::tall_two:
    return launch_any_layout<TallTwoAsync3>(prm, a_kc, b_kc, vector_loads, schedule, stream);
  case Tile::small:
    return launch_any_layout<Small>(prm, a_kc, b_kc, vector_loads, schedule, stream);
  case Tile::wide_eight_warps:
    return launch_any_layout<WideAsync4Warps8K16>(prm, a_kc, b_kc, vector_loads, schedule,
                                                  stream);
  }
}

void gemm_f32_packed(const Product& p, const Packing& packing, cudaStream_t stream) {
  if (const char* why = packing_unsupported(p, packing))
    throw std::invalid_argument(std::string("ladder::gemm (packed): ") + why);
  if (!detail::check_and_quick_return(p, stream))
    return;
  detail::multiply_packed(p, packing, device_rates().sms, stream);
}

} // namespace ladder::gemm_detail
