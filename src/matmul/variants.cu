// The matrix multiplication ladder, as the course builds it ("GPU architecture and programming",
// lecture 3, UCAS; "Programming Massively Parallel Processors", Hwu, Kirk and El Hajj, chapters 5
// and 6): the basic kernel (one thread per element of C), the same with the thread mapping
// swapped (what the coalescing rule predicts), the tiled kernel with the material's boundary
// checks (TILE_WIDTH 16, and 32 as a variant), corner turning (B stored transposed, its tiles
// loaded coalesced and read transposed from shared memory), and thread coarsening
// (mm_tiled_coarse_kernel, COARSE_FACTOR 4; 2 and 8 as variants); then, past the course, 2D
// register blocking. Every kernel handles any shape.
// Then cuBLAS: FP32 math (the vendor) and TF32 tensor-core math (for context: other arithmetic).
#include "matmul/variants.hpp"

#include "core/cublas.hpp"
#include "core/harness.hpp"
#include "core/tensor_map.hpp"
#include "matmul/gemm_packing.hpp"
#include "matmul/gemm_policies.cuh"

#include <array>

// The lab's tile policies compile in src/matmul/policies.cu, a group to a translation unit.
namespace ladder::gemm_detail {
LADDER_MATMUL_LAB_POLICIES(LADDER_MATMUL_EXTERN_POLICY_INSTANCES)
} // namespace ladder::gemm_detail

namespace ladder::lab::matmul {

namespace {

// --- the basic kernel ---------------------------------------------------------------------------

// Thread (x, y) computes C[row][col] with col from x: a warp reads one row of A (the same address:
// a broadcast) and 32 consecutive elements of each row of B (coalesced), and writes 32
// consecutive elements of C.
__global__ void basic_kernel(const float* a, const float* b, float* c, std::int64_t m,
                             std::int64_t n, std::int64_t k) {
  const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y;
  const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row < m && col < n) {
    float sum = 0;
    for (std::int64_t i = 0; i < k; ++i)
      sum += a[row * k + i] * b[i * n + col];
    c[row * n + col] = sum;
  }
}

// The same with row from x: a warp now reads 32 rows of A at once (a stride of k elements: one
// transaction each), one element of B (a broadcast), and writes C down a column.
__global__ void basic_swapped_kernel(const float* a, const float* b, float* c, std::int64_t m,
                                     std::int64_t n, std::int64_t k) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t col = blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y;
  if (row < m && col < n) {
    float sum = 0;
    for (std::int64_t i = 0; i < k; ++i)
      sum += a[row * k + i] * b[i * n + col];
    c[row * n + col] = sum;
  }
}

constexpr int basic_block = 16;

dim3 grid_of(std::int64_t x_extent, std::int64_t y_extent, std::int64_t x_per_block,
             std::int64_t y_per_block) {
  return dim3(static_cast<unsigned>((x_extent + x_per_block - 1) / x_per_block),
              static_cast<unsigned>((y_extent + y_per_block - 1) / y_per_block));
}

void launch_basic(const Operands& o, cudaStream_t stream) {
  basic_kernel<<<grid_of(o.problem.shape.n, o.problem.shape.m, basic_block, basic_block),
                 dim3(basic_block, basic_block), 0, stream>>>(o.a, o.b, o.c, o.problem.shape.m, o.problem.shape.n,
                                                              o.problem.shape.k);
  check_launch("basic_kernel");
}

void launch_basic_swapped(const Operands& o, cudaStream_t stream) {
  basic_swapped_kernel<<<grid_of(o.problem.shape.m, o.problem.shape.n, basic_block, basic_block),
                         dim3(basic_block, basic_block), 0, stream>>>(o.a, o.b, o.c, o.problem.shape.m,
                                                                      o.problem.shape.n, o.problem.shape.k);
  check_launch("basic_swapped_kernel");
}

// --- the tiled kernel --------------------------------------------------------------------------

// Each block loads a Tile x Tile tile of A and of B per phase into shared memory, so every
// element loaded from global memory is used Tile times. The boundary checks load 0 past the
// matrices' edges and skip the write outside C (the material's "Type 1 / Type 2" blocks).
template <int Tile>
__global__ void tiled_kernel(const float* a, const float* b, float* c, std::int64_t m,
                             std::int64_t n, std::int64_t k) {
  __shared__ float as[Tile][Tile];
  __shared__ float bs[Tile][Tile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(Tile) + ty;
  const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(Tile) + tx;
  float sum = 0;
  for (std::int64_t phase = 0; phase < (k + Tile - 1) / Tile; ++phase) {
    const std::int64_t a_col = phase * Tile + tx, b_row = phase * Tile + ty;
    as[ty][tx] = row < m && a_col < k ? a[row * k + a_col] : 0.0f;
    bs[ty][tx] = b_row < k && col < n ? b[b_row * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Tile; ++i)
      sum += as[ty][i] * bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < n)
    c[row * n + col] = sum;
}

template <int Tile> void launch_tiled(const Operands& o, cudaStream_t stream) {
  tiled_kernel<Tile><<<grid_of(o.problem.shape.n, o.problem.shape.m, Tile, Tile), dim3(Tile, Tile), 0, stream>>>(
      o.a, o.b, o.c, o.problem.shape.m, o.problem.shape.n, o.problem.shape.k);
  check_launch("tiled_kernel");
}

// Corner turning: B is stored transposed (bt = B^T, n x k). Reading a tile of B from it row by
// row would stride by k between the threads of a warp; instead the threads of a warp read
// consecutive elements of one row of bt (coalesced) and store them transposed into shared memory,
// so the inner loop reads bs exactly as the tiled kernel does. The pad column keeps the
// transposed store free of bank conflicts.
template <int Tile>
__global__ void corner_turning_kernel(const float* a, const float* bt, float* c, std::int64_t m,
                                      std::int64_t n, std::int64_t k) {
  __shared__ float as[Tile][Tile];
  __shared__ float bs[Tile][Tile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(Tile) + ty;
  const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(Tile) + tx;
  const std::int64_t bt_row = blockIdx.x * static_cast<std::int64_t>(Tile) + ty; // a column of B
  float sum = 0;
  for (std::int64_t phase = 0; phase < (k + Tile - 1) / Tile; ++phase) {
    const std::int64_t inner = phase * Tile + tx;
    as[ty][tx] = row < m && inner < k ? a[row * k + inner] : 0.0f;
    bs[tx][ty] =
        bt_row < n && inner < k ? bt[bt_row * k + inner] : 0.0f; // bs[i][j] = B[phase T + i][col j]
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Tile; ++i)
      sum += as[ty][i] * bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < n)
    c[row * n + col] = sum;
}

template <int Tile> void launch_corner_turning(const Operands& o, cudaStream_t stream) {
  corner_turning_kernel<Tile>
      <<<grid_of(o.problem.shape.n, o.problem.shape.m, Tile, Tile), dim3(Tile, Tile), 0, stream>>>(
          o.a, o.b_transposed, o.c, o.problem.shape.m, o.problem.shape.n, o.problem.shape.k);
  check_launch("corner_turning_kernel");
}

// Thread coarsening (PMPP's mm_tiled_coarse_kernel): each block computes Coarse tiles of C along
// a row, loading the tile of A once per phase for all of them; each thread keeps Coarse sums.
template <int Tile, int Coarse>
__global__ void coarse_kernel(const float* a, const float* b, float* c, std::int64_t m,
                              std::int64_t n, std::int64_t k) {
  __shared__ float as[Tile][Tile];
  __shared__ float bs[Tile][Tile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(Tile) + ty;
  const std::int64_t col_start = blockIdx.x * static_cast<std::int64_t>(Tile) * Coarse + tx;
  float sum[Coarse];
#pragma unroll
  for (int f = 0; f < Coarse; ++f)
    sum[f] = 0;
  for (std::int64_t phase = 0; phase < (k + Tile - 1) / Tile; ++phase) {
    const std::int64_t a_col = phase * Tile + tx, b_row = phase * Tile + ty;
    as[ty][tx] = row < m && a_col < k ? a[row * k + a_col] : 0.0f;
#pragma unroll
    for (int f = 0; f < Coarse; ++f) {
      const std::int64_t col = col_start + static_cast<std::int64_t>(f) * Tile;
      bs[ty][tx] = b_row < k && col < n ? b[b_row * n + col] : 0.0f;
      __syncthreads();
#pragma unroll
      for (int i = 0; i < Tile; ++i)
        sum[f] += as[ty][i] * bs[i][tx];
      __syncthreads();
    }
  }
#pragma unroll
  for (int f = 0; f < Coarse; ++f) {
    const std::int64_t col = col_start + static_cast<std::int64_t>(f) * Tile;
    if (row < m && col < n)
      c[row * n + col] = sum[f];
  }
}

template <int Tile, int Coarse> void launch_coarse(const Operands& o, cudaStream_t stream) {
  coarse_kernel<Tile, Coarse>
      <<<grid_of(o.problem.shape.n, o.problem.shape.m, Tile * Coarse, Tile), dim3(Tile, Tile), 0, stream>>>(
          o.a, o.b, o.c, o.problem.shape.m, o.problem.shape.n, o.problem.shape.k);
  check_launch("coarse_kernel");
}

// --- beyond the course -------------------------------------------------------------------------

// 2D register blocking: a block computes a BM x BN tile of C with BM x BN / (TM x TN) threads,
// each thread a TM x TN micro-tile held in registers. Per step of BK along k, the block stages
// BM x BK of A (transposed, so a thread's TM values of A are contiguous) and BK x BN of B in
// shared memory, and each thread does TM x TN FMAs for TM + TN shared loads, where the tiled
// kernel does one FMA per two. Loads past the matrices' edges read 0; writes outside C are skipped.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(BM* BN / (TM * TN))
    register_blocked_kernel(const float* a, const float* b, float* c, std::int64_t m,
                            std::int64_t n, std::int64_t k) {
  constexpr int threads = BM * BN / (TM * TN);
  __shared__ float as[BK][BM];
  __shared__ float bs[BK][BN];
  const int tid = threadIdx.x;
  const int thread_row = tid / (BN / TN), thread_col = tid % (BN / TN);
  const std::int64_t block_row = blockIdx.y * static_cast<std::int64_t>(BM);
  const std::int64_t block_col = blockIdx.x * static_cast<std::int64_t>(BN);
  float acc[TM][TN] = {};
  float reg_a[TM], reg_b[TN];
  for (std::int64_t k0 = 0; k0 < k; k0 += BK) {
    for (int i = tid; i < BM * BK; i += threads) {
      const int r = i / BK, col = i % BK;
      const std::int64_t gr = block_row + r, gc = k0 + col;
      as[col][r] = gr < m && gc < k ? a[gr * k + gc] : 0.0f;
    }
    for (int i = tid; i < BK * BN; i += threads) {
      const int r = i / BN, col = i % BN;
      const std::int64_t gr = k0 + r, gc = block_col + col;
      bs[r][col] = gr < k && gc < n ? b[gr * n + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
      for (int i = 0; i < TM; ++i)
        reg_a[i] = as[kk][thread_row * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j)
        reg_b[j] = bs[kk][thread_col * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] += reg_a[i] * reg_b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const std::int64_t r = block_row + thread_row * TM + i;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const std::int64_t col = block_col + thread_col * TN + j;
      if (r < m && col < n)
        c[r * n + col] = acc[i][j];
    }
  }
}

// The register-blocked shape: 128 x 128 block tiles, BK 8, 8 x 8 per thread (256 threads).
struct Blocked {
  static constexpr int bm = 128, bn = 128, bk = 8, tm = 8, tn = 8;
  static constexpr int threads = bm * bn / (tm * tn);
};

void launch_register_blocked(const Operands& o, cudaStream_t stream) {
  using S = Blocked;
  register_blocked_kernel<S::bm, S::bn, S::bk, S::tm, S::tn>
      <<<grid_of(o.problem.shape.n, o.problem.shape.m, S::bn, S::bm), S::threads, 0, stream>>>(
          o.a, o.b, o.c, o.problem.shape.m, o.problem.shape.n, o.problem.shape.k);
  check_launch("register_blocked_kernel");
}

constexpr const char* untransposed_only = "the course's kernels take A and B untransposed";

// Grids of these kernels: gridDim.y counts rows of tiles (at most 65535).
template <int RowsPerBlock> const char* fits_grid(const Problem& p) {
  if (!p.untransposed())
    return untransposed_only;
  return (p.shape.m + RowsPerBlock - 1) / RowsPerBlock > 65535
             ? "more than 65535 rows of blocks exceed gridDim.y"
             : nullptr;
}

const char* fits_swapped_grid(const Problem& p) {
  if (!p.untransposed())
    return untransposed_only;
  return (p.shape.n + basic_block - 1) / basic_block > 65535
             ? "more than 65535 columns of blocks exceed gridDim.y"
             : nullptr;
}

// --- the library's kernel, one idea at a time (matmul/gemm_kernel.cuh) ---------------------

namespace gd = gemm_detail;

template <class Kernel> const void* address(Kernel kernel) {
  return reinterpret_cast<const void*>(kernel);
}

// The kernel's parameters for the table's operands (C dense, alpha 1, beta 0).
gd::Params params_of(const Operands& o) {
  const Shape s = o.shape();
  gd::Params prm;
  prm.m = s.m;
  prm.n = s.n;
  prm.k = s.k;
  prm.a = o.a;
  prm.lda = o.lda();
  prm.b = o.b;
  prm.ldb = o.ldb();
  prm.c = o.c;
  prm.ldc = s.n;
  return prm;
}

bool vector_loads(const gd::Params& prm) {
  return gd::vector_ok(prm.a, prm.lda) && gd::vector_ok(prm.b, prm.ldb);
}

// One product with policy P on the table's operands (any transposes, alignments from cudaMalloc).
template <class P, int GroupM, int Splits, gd::SplitSum Sum = gd::SplitSum::atomic>
void launch_policy(const Operands& o, cudaStream_t stream) {
  const gd::Params prm = params_of(o);
  gd::launch_any_layout<P>(prm, o.problem.trans_a == Trans::none,
                           o.problem.trans_b == Trans::transpose, vector_loads(prm),
                           {.group_m = GroupM, .splits = Splits, .split_sum = Sum}, stream);
}

// A^T and B as stored through the huge tile with its stages filled by tensor copies.
void launch_tensor_copies(const Operands& o, cudaStream_t stream) {
  gd::launch_huge_tensor_copies(params_of(o), {.group_m = 8}, stream);
}

const char* tensor_copies_unsupported(const Problem& p) {
  if (p.trans_a != Trans::transpose || p.trans_b != Trans::none)
    return "tensor copies take A^T and B as stored (a box is copied as stored, never turned)";
  if (p.shape.m % 4 != 0 || p.shape.n % 4 != 0)
    return "tensor copies need rows of whole 16-byte words (m and n multiples of 4)";
  if (!core::tensor_maps_available())
    return "the driver encodes no tensor maps";
  return nullptr;
}

// An untransposed product as its transpose, C^T = B^T A^T, stored transposed (gemm_swapped).
void launch_swapped(const Operands& o, cudaStream_t stream) {
  const gd::Params prm = params_of(o);
  gd::launch_huge_swapped_untransposed(prm, vector_loads(prm), {.group_m = 8}, stream);
}

const char* swapped_untransposed(const Problem& p) {
  return p.untransposed() ? nullptr : "computed as its transpose for untransposed products only";
}

void launch_library(const Operands& o, cudaStream_t stream) {
  const Shape s = o.shape();
  ladder::gemm<float>(o.problem.trans_a, o.problem.trans_b, s.m, s.n, s.k, 1.0f, o.a, o.lda(), o.b,
                      o.ldb(), 0.0f, o.c, s.n, stream);
}

// The library's call with a packing forced (matmul/gemm_packing.hpp): what the library's choice
// is weighed against.
gd::Product product_of(const Operands& o) {
  const Shape s = o.shape();
  return {o.problem.trans_a, o.problem.trans_b, s.m, s.n, s.k, 1.0f, o.a, o.lda(), o.b, o.ldb(),
          0.0f, o.c, s.n};
}

// Transposes one k-contiguous operand: B if B is (op(B) = B^T), else A.
gd::Packing transpose_one(const Problem& p) {
  if (p.trans_b == Trans::transpose)
    return {.b = gd::Pack::transpose};
  return {.a = gd::Pack::transpose};
}
void launch_transpose_a(const Operands& o, cudaStream_t stream) {
  gd::gemm_f32_packed(product_of(o), {.a = gd::Pack::transpose}, stream);
}
const char* a_k_contiguous(const Problem& p) {
  return p.trans_a == Trans::none ? nullptr : "A is stored transposed: nothing to turn";
}

void launch_direct(const Operands& o, cudaStream_t stream) {
  gd::gemm_f32_packed(product_of(o), {}, stream);
}
void launch_transpose_one(const Operands& o, cudaStream_t stream) {
  gd::gemm_f32_packed(product_of(o), transpose_one(o.problem), stream);
}
void launch_repitch_both(const Operands& o, cudaStream_t stream) {
  gd::gemm_f32_packed(product_of(o), {.a = gd::Pack::repitch, .b = gd::Pack::repitch}, stream);
}

const char* has_k_contiguous_operand(const Problem& p) {
  return p.trans_a == Trans::transpose && p.trans_b == Trans::none
             ? "neither operand is k-contiguous: nothing to turn"
             : nullptr;
}

const char* untransposed_story(const Problem& p) {
  return p.untransposed() ? nullptr : "the story's rungs take A and B untransposed";
}

const char* any_problem(const Problem&) { return nullptr; }

template <class P> std::array<Param, max_params> policy_params(int group_m, int splits) {
  return {{{"block_m", P::bm},
           {"block_n", P::bn},
           {"block_k", P::bk},
           {"group_m", group_m},
           {"splits", splits}}};
}

// A rung running policy P through the library's kernel: its registry entry's shared part.
template <class P, int GroupM, int Splits, gd::SplitSum Sum = gd::SplitSum::atomic>
Rung policy_rung(std::string_view name, std::string_view idea, Role role,
                 std::string_view variant_of = {}) {
  return Rung{.info = {.name = name,
                       .idea = idea,
                       .role = role,
                       .variant_of = variant_of,
                       .params = policy_params<P>(GroupM, Splits),
                       .kernel = gd::kernel_address<P>(),
                       .block_threads = P::threads,
                       .dynamic_shared_bytes =
                           Splits > 1 && Sum == gd::SplitSum::cluster
                               ? gd::cluster_shared_bytes<gd::Shared<P, true, false, true>, P>()
                               : gd::Shared<P, true, false, true>::bytes},
              .unsupported = role == Role::variant ? any_problem : untransposed_story,
              .launch = launch_policy<P, GroupM, Splits, Sum>};
}

// --- cuBLAS ------------------------------------------------------------------------------------

// cuBLAS is column-major: row-major C = A B is column-major C^T = B^T A^T, i.e. Sgemm(N, N, n, m,
// k) on B (ld n) and A (ld k) into C (ld n).
// A row-major operand stored transposed is a column-major one untransposed, and vice versa.
template <cublasMath_t Math> void launch_cublas(const Operands& o, cudaStream_t stream) {
  const float one = 1.0f, zero = 0.0f;
  const Shape s = o.shape();
  const auto op = [](Trans t) { return t == Trans::none ? CUBLAS_OP_N : CUBLAS_OP_T; };
  cublasHandle_t h = cublas_handle();
  check_cublas(cublasSetStream(h, stream), "cublasSetStream");
  check_cublas(cublasSetMathMode(h, Math), "cublasSetMathMode");
  const cublasStatus_t status =
      cublasSgemm(h, op(o.problem.trans_b), op(o.problem.trans_a), static_cast<int>(s.n),
                  static_cast<int>(s.m), static_cast<int>(s.k), &one, o.b,
                  static_cast<int>(o.ldb()), o.a, static_cast<int>(o.lda()), &zero, o.c,
                  static_cast<int>(s.n));
  check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  check_cublas(status, "cublasSgemm");
}

const char* fits_cublas_int(const Problem& p) {
  const Shape s = p.shape;
  return s.m > 0x7fffffff || s.n > 0x7fffffff || s.k > 0x7fffffff ? "cuBLAS takes 32-bit dimensions"
                                                                  : nullptr;
}


constexpr int course_tile = 16;

} // namespace

// Packed storage: a stored row is op(X)'s k, or its m / n when stored transposed (at least 1).
std::int64_t Operands::lda() const {
  const std::int64_t cols = problem.trans_a == Trans::none ? problem.shape.k : problem.shape.m;
  return cols > 1 ? cols : 1;
}

std::int64_t Operands::ldb() const {
  const std::int64_t cols = problem.trans_b == Trans::none ? problem.shape.n : problem.shape.k;
  return cols > 1 ? cols : 1;
}

std::span<const Rung> registry() {
  static const std::array rungs = {
      Rung{.info = {.name = "basic",
                    .idea = "one thread per element of C; a warp reads a row of A (broadcast) and "
                            "coalesced rows of B",
                    .role = Role::seed,
                    .course_row = "basic matrix multiplication kernel",
                    .params = {{{"block", basic_block}}},
                    .kernel = address(basic_kernel),
                    .block_threads = basic_block * basic_block},
           .unsupported = fits_grid<basic_block>,
           .launch = launch_basic},
      Rung{.info = {.name = "basic_swapped",
                    .idea = "the thread mapping swapped: a warp reads 32 rows of A at once, one "
                            "transaction each",
                    .role = Role::beyond,
                    .params = {{{"block", basic_block}}},
                    .kernel = address(basic_swapped_kernel),
                    .block_threads = basic_block * basic_block},
           .unsupported = fits_swapped_grid,
           .launch = launch_basic_swapped},
      Rung{.info =
               {.name = "tiled",
                .idea =
                    "16x16 tiles of A and B in shared memory: each loaded element is used 16 times",
                .role = Role::seed,
                .course_row = "tiled matrix multiplication kernel (TILE_WIDTH 16)",
                .params = {{{"tile", course_tile}}},
                .kernel = address(tiled_kernel<course_tile>),
                .block_threads = course_tile * course_tile},
           .unsupported = fits_grid<course_tile>,
           .launch = launch_tiled<course_tile>},
      Rung{.info = {.name = "tiled_32",
                    .idea = "the tiled kernel with TILE_WIDTH 32 (1024 threads per block)",
                    .role = Role::variant,
                    .variant_of = "tiled",
                    .params = {{{"tile", 32}}},
                    .kernel = address(tiled_kernel<32>),
                    .block_threads = 32 * 32},
           .unsupported = fits_grid<32>,
           .launch = launch_tiled<32>},
      Rung{.info = {.name = "corner_turning",
                    .idea = "B stored transposed: its tiles read along rows (coalesced), turned in "
                            "shared memory",
                    .role = Role::seed,
                    .course_row = "corner turning",
                    .params = {{{"tile", course_tile}}},
                    .kernel = address(corner_turning_kernel<course_tile>),
                    .block_threads = course_tile * course_tile},
           .unsupported = fits_grid<course_tile>,
           .launch = launch_corner_turning<course_tile>},
      Rung{.info =
               {.name = "coarse_4",
                .idea =
                    "each block computes 4 tiles of C along a row, loading A's tile once for all 4",
                .role = Role::seed,
                .course_row = "mm_tiled_coarse_kernel (COARSE_FACTOR 4)",
                .params = {{{"tile", course_tile}, {"coarse_factor", 4}}},
                .kernel = address(coarse_kernel<course_tile, 4>),
                .block_threads = course_tile * course_tile},
           .unsupported = fits_grid<course_tile>,
           .launch = launch_coarse<course_tile, 4>},
      Rung{.info = {.name = "coarse_2",
                    .idea = "thread coarsening with COARSE_FACTOR 2",
                    .role = Role::variant,
                    .variant_of = "coarse_4",
                    .params = {{{"tile", course_tile}, {"coarse_factor", 2}}},
                    .kernel = address(coarse_kernel<course_tile, 2>),
                    .block_threads = course_tile * course_tile},
           .unsupported = fits_grid<course_tile>,
           .launch = launch_coarse<course_tile, 2>},
      Rung{.info = {.name = "coarse_8",
                    .idea = "thread coarsening with COARSE_FACTOR 8",
                    .role = Role::variant,
                    .variant_of = "coarse_4",
                    .params = {{{"tile", course_tile}, {"coarse_factor", 8}}},
                    .kernel = address(coarse_kernel<course_tile, 8>),
                    .block_threads = course_tile * course_tile},
           .unsupported = fits_grid<course_tile>,
           .launch = launch_coarse<course_tile, 8>},
      Rung{.info = {.name = "register_blocked",
                    .idea = "128x128 block tiles, each thread an 8x8 micro-tile in registers: 64 "
                            "FMAs per 16 "
                            "shared loads",
                    .role = Role::beyond,
                    .params = {{{"block_m", Blocked::bm},
                                {"block_n", Blocked::bn},
                                {"block_k", Blocked::bk},
                                {"thread_m", Blocked::tm},
                                {"thread_n", Blocked::tn}}},
                    .kernel = address(register_blocked_kernel<Blocked::bm, Blocked::bn, Blocked::bk,
                                                              Blocked::tm, Blocked::tn>),
                    .block_threads = Blocked::threads},
           .unsupported = fits_grid<Blocked::bm>,
           .launch = launch_register_blocked},
      policy_rung<gd::Vectorized, 1, 1>(
          "vectorized",
          "16-byte global loads; A turned k-major in shared memory so fragments are LDS.128",
          Role::beyond),
      policy_rung<gd::WarpTiled, 1, 1>(
          "warp_tiled",
          "warp tiles; each thread's 8x8 in 4x4 pieces a warp apart: conflict-free LDS.128",
          Role::beyond),
      policy_rung<gd::LargeStepped, 1, 1>(
          "double_buffered",
          "two shared buffers: the next k-step travels into registers during the FMAs",
          Role::beyond),
      policy_rung<gd::LargeStepped, 8, 1>(
          "tile_order", "blocks walk groups of 8 tile rows: B's column panels reused from L2",
          Role::beyond),
      policy_rung<gd::HugeStepped, 8, 1>(
          "thread_16x8",
          "256x128 tiles, 16x8 per thread: 128 FMAs per 6 LDS.128, one block per SM",
          Role::beyond),
      policy_rung<gd::Huge, 8, 1>(
          "steady_loop",
          "a branch-free k-loop for inside tiles; the next step's first fragments read across "
          "the barrier",
          Role::beyond),
      policy_rung<gd::HugeAsync3, 8, 1>(
          "async_copies",
          "cp.async copies into 3 shared buffers, 2 steps ahead: no register holds a tile in "
          "flight",
          Role::beyond),
      policy_rung<gd::HugeAsync4, 8, 1>("huge_async4", "256x128 tiles, 4 shared buffers",
                                        Role::variant, "async_copies"),
      policy_rung<gd::HugeAsync3GuardedEdges, 8, 1>(
          "async_copies_guarded_edges",
          "edge tiles on guarded loads at every k-step (no masks set once per tile)",
          Role::variant, "async_copies"),
      policy_rung<gd::WideAsync3GuardedEdges, 8, 1>(
          "wide_async3_guarded_edges", "64x128 tiles, 3 blocks/SM, edge tiles guarded per step",
          Role::variant, "async_copies"),
      policy_rung<gd::Large4WarpsAsync3, 8, 1>(
          "large_4warps_async3", "128x128 tiles of 4 warps (8x16 each), 3 buffers",
          Role::variant, "async_copies"),
      policy_rung<gd::WideAsync3, 8, 1>("wide_async3", "64x128 tiles, 3 blocks/SM, 3 buffers",
                                        Role::variant, "async_copies"),
      policy_rung<gd::TallAsync3, 8, 1>("tall_async3", "128x64 tiles, 3 blocks/SM, 3 buffers",
                                        Role::variant, "async_copies"),
      policy_rung<gd::WideTwoAsync3, 8, 1>("wide_two_async3",
                                           "64x128 tiles, 2 blocks/SM, 3 buffers",
                                           Role::variant, "async_copies"),
      policy_rung<gd::TallTwoAsync3, 8, 1>("tall_two_async3",
                                           "128x64 tiles, 2 blocks/SM, 3 buffers",
                                           Role::variant, "async_copies"),
      policy_rung<gd::TallTwoAsync3Warps4x1, 8, 1>(
          "tall_two_async3_4x1", "128x64 tiles, 2 blocks/SM, 3 buffers, warps 4x1 (32x64 each)",
          Role::variant, "async_copies"),
      policy_rung<gd::TallAsync3, 8, 2>("tall_async3_split_k2",
                                        "128x64 cp.async tiles with k split over 2 blocks",
                                        Role::variant, "async_copies"),
      // 1000^3 split over k, added up by atomic adds into C scaled first, and the same in a
      // thread-block cluster (measured slower); the library runs 1000^3 unsplit (gemm_plan.hpp).
      policy_rung<gd::WideAsync3, 8, 3>(
          "wide_async3_split_k3",
          "64x128 cp.async tiles, k split over 3 blocks adding into C with atomics (C scaled "
          "by beta in a pass before)",
          Role::variant, "async_copies"),
      policy_rung<gd::WideAsync3, 8, 3, gd::SplitSum::cluster>(
          "wide_async3_split_k3_cluster",
          "the same with the 3 blocks in a cluster, added up through distributed shared memory",
          Role::variant, "async_copies"),
      policy_rung<gd::WideTwoAsync3Warps1x4, 8, 1>(
          "wide_two_async3_1x4", "64x128 tiles, 2 blocks/SM, 3 buffers, warps 1x4 (64x32 each)",
          Role::variant, "async_copies"),
      policy_rung<gd::WideTwoAsync3K16, 8, 1>("wide_two_async3_k16",
                                              "64x128 tiles, 2 blocks/SM, 3 buffers of k 16",
                                              Role::variant, "async_copies"),
      policy_rung<gd::WideAsync3Warps8K16, 8, 1>(
          "wide_8warps_async3_k16",
          "64x128 tiles of 8 warps (32x32 each, 8x4 per thread), 3 buffers of k 16",
          Role::variant, "async_copies"),
      policy_rung<gd::WideAsync4Warps8K16, 8, 1>(
          "wide_8warps_async4_k16", "the same with 4 buffers of k 16", Role::variant,
          "async_copies"),
      policy_rung<gd::WideAsync4Warps8K16Solo, 8, 1>(
          "wide_8warps_async4_k16_solo",
          "the same with up to 255 registers a thread (one block per SM)", Role::variant,
          "async_copies"),
      policy_rung<gd::WideAsync4Warps8x4x2K16, 8, 1>(
          "wide_8warps_4x2_async4_k16",
          "64x128 tiles of 8 warps stacked 4x2 (16x64 each, 4x8 per thread), 4 buffers of k 16",
          Role::variant, "async_copies"),
      policy_rung<gd::WideAsync4Warps8K16Rows, 8, 1>(
          "wide_8warps_async4_k16_rows",
          "the 8-warp tile of 4 buffers of k 16, A untransposed copied as stored (16-byte "
          "copies, rows swizzled in shared memory, read 4 k at a time), not turned",
          Role::variant, "async_copies"),
      policy_rung<gd::WideAsync3Warps8K16Rows, 8, 1>(
          "wide_8warps_async3_k16_rows", "the same with 3 buffers", Role::variant,
          "async_copies"),
      policy_rung<gd::WideAsync4Warps8K16RowsSolo, 8, 1>(
          "wide_8warps_async4_k16_rows_solo",
          "the same with up to 255 registers a thread (one block per SM)", Role::variant,
          "async_copies"),
      policy_rung<gd::WideAsync3Warps8K32, 8, 1>(
          "wide_8warps_async3_k32", "64x128 tiles of 8 warps (8x4 per thread), 3 buffers of k 32",
          Role::variant, "async_copies"),
      policy_rung<gd::WideTwoAsync4, 8, 1>("wide_two_async4",
                                           "64x128 tiles, 2 blocks/SM, 4 buffers",
                                           Role::variant, "async_copies"),
      policy_rung<gd::HugeAsync3SerpentineFragments8, 8, 1>(
          "async_serpentine_row8",
          "every other row's FMAs walked backwards, the next k's fragments read after 8 rows (the "
          "library's order where A is stored m-contiguous)",
          Role::variant, "async_copies"),
      Rung{.info = {.name = "tensor_copies",
                    .idea = "the same tile and order (13x), its stages filled by the bulk tensor "
                            "copy engine (TMA): one thread copies a step's two boxes, an mbarrier "
                            "a stage; A^T and B as stored",
                    .role = Role::variant,
                    .variant_of = "async_copies",
                    .params = policy_params<gd::HugeAsync3TensorCopies>(8, 1),
                    .kernel = gd::huge_tensor_copies_kernel(),
                    .block_threads = gd::HugeAsync3TensorCopies::threads,
                    .dynamic_shared_bytes =
                        gd::Shared<gd::HugeAsync3TensorCopies, false, false, true>::bytes},
           .unsupported = tensor_copies_unsupported,
           .launch = launch_tensor_copies},
      policy_rung<gd::HugeAsync3K16, 8, 1>("huge_async3_k16",
                                           "256x128 tiles, 3 buffers of k 16",
                                           Role::variant, "async_copies"),
      policy_rung<gd::Large4Warps, 8, 1>(
          "four_warps",
          "128x128 tiles of 4 warps, 8x16 per thread, 2 blocks per SM (the library's large tile)",
          Role::beyond),
      policy_rung<gd::HugeK16, 8, 1>("huge_k16", "256x128 tiles with 16-deep k-steps",
                                     Role::variant, "four_warps"),
      policy_rung<gd::Huge, 8, 2>("huge_split_k2", "256x128 tiles with k split over 2 blocks",
                                  Role::variant, "four_warps"),
      policy_rung<gd::Huge, 8, 3>("huge_split_k3", "256x128 tiles with k split over 3 blocks",
                                  Role::variant, "four_warps"),
      policy_rung<gd::Wide256, 8, 1>("wide_256", "128x256 tiles, 8x16 per thread",
                                     Role::variant, "four_warps"),
      policy_rung<gd::Large, 8, 1>("large", "128x128 tiles (8 warps, 8x8 each)", Role::variant,
                                   "four_warps"),
      policy_rung<gd::LargeK16, 8, 1>("large_k16", "128x128 tiles with 16-deep k-steps",
                                      Role::variant, "four_warps"),
      policy_rung<gd::Large, 8, 2>("split_k2", "128x128 tiles with k split over 2 blocks",
                                   Role::variant, "four_warps"),
      policy_rung<gd::Wide, 8, 1>("wide", "64x128 tiles (4 warps, 3 blocks per SM)",
                                  Role::variant, "four_warps"),
      policy_rung<gd::WideTwo, 8, 1>("wide_two", "64x128 tiles (4 warps, 2 blocks per SM)",
                                     Role::variant, "four_warps"),
      policy_rung<gd::Tall, 8, 1>("tall", "128x64 tiles (4 warps, 3 blocks per SM)",
                                  Role::variant, "four_warps"),
      policy_rung<gd::TallTwo, 8, 1>("tall_two", "128x64 tiles (4 warps, 2 blocks per SM)",
                                     Role::variant, "four_warps"),
      policy_rung<gd::Small, 8, 1>("small", "64x64 tiles, 8x4 per thread", Role::variant,
                                   "four_warps"),
      policy_rung<gd::Small, 8, 2>("small_split_k2", "64x64 tiles with k split over 2 blocks",
                                   Role::variant, "four_warps"),
      policy_rung<gd::LargeStepped, 1, 1>("group_1", "the 128x128 tile walked row by row",
                                          Role::variant, "tile_order"),
      Rung{.info = {.name = "ladder::gemm",
                    .idea = "the library call: checks, a tile shape and k split chosen per shape, "
                            "any transposes and alignment",
                    .role = Role::library},
           .unsupported = any_problem,
           .launch = launch_library},
      Rung{.info = {.name = "gemm_direct",
                    .idea = "the library's kernel on the operands where they are (no packing)",
                    .role = Role::variant,
                    .variant_of = "ladder::gemm"},
           .unsupported = any_problem,
           .launch = launch_direct},
      Rung{.info = {.name = "gemm_transpose_one",
                    .idea = "ladder::transpose turns one k-contiguous operand first (B if "
                            "transposed, else A)",
                    .role = Role::variant,
                    .variant_of = "ladder::gemm"},
           .unsupported = has_k_contiguous_operand,
           .launch = launch_transpose_one},
      Rung{.info = {.name = "gemm_transpose_a",
                    .idea = "A turned first (ladder::transpose) wherever it is k-contiguous, "
                            "with B^T too (where the library turns B): the product then runs "
                            "with A as stored",
                    .role = Role::variant,
                    .variant_of = "ladder::gemm"},
           .unsupported = a_k_contiguous,
           .launch = launch_transpose_a},
      Rung{.info = {.name = "gemm_swapped",
                    .idea = "C = A B computed as its transpose, C^T = B^T A^T, on the huge tile with "
                            "A as stored and B k-contiguous; C stored transposed",
                    .role = Role::variant,
                    .variant_of = "ladder::gemm"},
           .unsupported = swapped_untransposed,
           .launch = launch_swapped},
      Rung{.info = {.name = "gemm_repitch_both",
                    .idea = "both operands copied first with rows on 16-byte boundaries "
                            "(cudaMemcpy2DAsync)",
                    .role = Role::variant,
                    .variant_of = "ladder::gemm"},
           .unsupported = any_problem,
           .launch = launch_repitch_both},
      Rung{.info = {.name = "cublasSgemm",
                    .idea = "cuBLAS with FP32 math (CUBLAS_DEFAULT_MATH: no TF32)",
                    .role = Role::reference,
                    .vendor = true},
           .unsupported = fits_cublas_int,
           .launch = launch_cublas<CUBLAS_DEFAULT_MATH>},
      Rung{.info = {.name = "cublasSgemm_tf32",
                    .idea = "cuBLAS on the tensor cores in TF32 (10-bit mantissas): other "
                            "arithmetic, for context",
                    .role = Role::reference},
           .unsupported = fits_cublas_int,
           .launch = launch_cublas<CUBLAS_TF32_TENSOR_OP_MATH>,
           .input_rounding = 0x1p-11},
  };
  return rungs;
}

} // namespace ladder::lab::matmul
