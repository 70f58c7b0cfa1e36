// ladder::gemm: argument checks (BLAS's, plus overlap), the quick returns of BLAS semantics, then
// the plan (tile shape, split over k) and one launch of the matmul ladder's best kernel.
#include "ladder/gemm.hpp"
#include "matmul/gemm_plan.hpp"
#include "matmul/gemm_policies.cuh"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace ladder::detail {

namespace {

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

} // namespace

void gemm_f32(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
              float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
              float beta, float* c, std::int64_t ldc, cudaStream_t stream) {
  using namespace gemm_detail;
  if (trans_a != Trans::none && trans_a != Trans::transpose)
    bad("trans_a is neither Trans::none nor Trans::transpose");
  if (trans_b != Trans::none && trans_b != Trans::transpose)
    bad("trans_b is neither Trans::none nor Trans::transpose");
  if (m < 0)
    bad("m must be >= 0, got " + std::to_string(m));
  if (n < 0)
    bad("n must be >= 0, got " + std::to_string(n));
  if (k < 0)
    bad("k must be >= 0, got " + std::to_string(k));
  const bool a_t = trans_a == Trans::transpose, b_t = trans_b == Trans::transpose;
  // Stored shapes: A m x k or k x m, B k x n or n x k.
  const std::int64_t a_rows = a_t ? k : m, a_cols = a_t ? m : k;
  const std::int64_t b_rows = b_t ? n : k, b_cols = b_t ? k : n;
  check_leading_dimension("A", "lda", a_cols, lda);
  check_leading_dimension("B", "ldb", b_cols, ldb);
  check_leading_dimension("C", "ldc", n, ldc);
  if (m == 0 || n == 0) // BLAS: nothing is referenced
    return;
  check_matrix("A", "lda", a, a_rows, a_cols, lda);
  check_matrix("B", "ldb", b, b_rows, b_cols, ldb);
  check_matrix("C", "ldc", c, m, n, ldc);
  const std::uintptr_t c_bytes = span_bytes(m, n, ldc);
  if (k > 0 && overlap(c, c_bytes, a, span_bytes(a_rows, a_cols, lda)))
    bad("C overlaps A (C is written while A is read)");
  if (k > 0 && overlap(c, c_bytes, b, span_bytes(b_rows, b_cols, ldb)))
    bad("C overlaps B (C is written while B is read)");
  if (k == 0 || alpha == 0.0f) {
    scale(c, m, n, ldc, beta, stream);
    return;
  }

  int device = 0, sms = 0;
  LADDER_CUDA(cudaGetDevice(&device));
  LADDER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // A untransposed and B transposed have k as their contiguous index.
  const bool vector_loads = vector_ok(a, lda) && vector_ok(b, ldb);
  const Plan p = plan(m, n, k, sms, vector_loads);
  const TileShape& shape = *std::find_if(tile_shapes.begin(), tile_shapes.end(),
                                         [&](const TileShape& t) { return t.tile == p.tile; });
  const std::int64_t tile_m = shape.bm, tile_n = shape.bn;
  if ((m + tile_m - 1) / tile_m * ((n + tile_n - 1) / tile_n) > std::numeric_limits<int>::max())
    bad("m x n needs more than 2^31 - 1 tiles of " + std::to_string(tile_m) + " x " +
        std::to_string(tile_n));

  Params prm;
  prm.m = m;
  prm.n = n;
  prm.k = k;
  prm.alpha = alpha;
  prm.beta = beta;
  prm.a = a;
  prm.lda = lda;
  prm.b = b;
  prm.ldb = ldb;
  prm.c = c;
  prm.ldc = ldc;
  const Schedule schedule{.group_m = 8, .splits = p.splits};
  switch (p.tile) {
  case Tile::huge:
    return launch_any_layout<HugeAsync3>(prm, !a_t, b_t, vector_loads, schedule, stream);
  case Tile::large:
    return launch_any_layout<Large4Warps>(prm, !a_t, b_t, vector_loads, schedule, stream);
  case Tile::wide:
    return launch_any_layout<WideAsync3>(prm, !a_t, b_t, vector_loads, schedule, stream);
  case Tile::tall:
    return launch_any_layout<TallAsync3>(prm, !a_t, b_t, vector_loads, schedule, stream);
  case Tile::wide_two:
    return launch_any_layout<WideTwoAsync3>(prm, !a_t, b_t, vector_loads, schedule, stream);
  case Tile::tall_two:
    return launch_any_layout<TallTwoAsync3>(prm, !a_t, b_t, vector_loads, schedule, stream);
  case Tile::small:
    return launch_any_layout<Small>(prm, !a_t, b_t, vector_loads, schedule, stream);
  }
}

} // namespace ladder::detail
