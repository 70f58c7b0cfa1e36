// The transpose ladder, in the order of the course's table ("Optimizing CUDA code", Moreno Maza,
// UWO CS4402: "Matrix Transpose", GTX 280, 2048 x 2048), then the rungs beyond it, then the
// reference rows.
//
// Every seed kernel takes `nreps` so that one body serves both of the seeds' timing modes: the
// host loops over launches with nreps = 1, or one launch loops nreps times inside the kernel.
// Seed kernels work on whole 32 x 32 tiles, one per 32 x 8 thread block, as the seeds do.
#include "transpose/tiled.cuh"
#include "transpose/variants.hpp"

#include "core/cublas.hpp"
#include "core/harness.hpp"
#include "ladder/error.hpp"
#include "ladder/transpose.hpp"

#include <cublas_v2.h>

#include <array>
#include <type_traits>
#include <vector>
#include <stdexcept>
#include <string>

namespace ladder::lab::transpose {

namespace {

constexpr int T = seed_tile;
constexpr int R = seed_block_rows;

// --- seed rungs --------------------------------------------------------------------------------

// Simple copy: the best case a transpose can reach (same bytes, both sides coalesced).
__global__ void copy_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                            int nreps) {
  const std::int64_t x = blockIdx.x * T + threadIdx.x;
  const std::int64_t y = blockIdx.y * T + threadIdx.y;
  for (int rep = 0; rep < nreps; ++rep)
    for (int k = 0; k < T; k += R)
      out[(y + k) * cols + x] = in[(y + k) * cols + x];
}

// Shared-memory copy: the copy staged through a tile, to price the shared-memory round trip.
__global__ void copy_shared_kernel(const float* in, float* out, std::int64_t rows,
                                   std::int64_t cols, int nreps) {
  __shared__ float tile[T][T];
  const std::int64_t x = blockIdx.x * T + threadIdx.x;
  const std::int64_t y = blockIdx.y * T + threadIdx.y;
  for (int rep = 0; rep < nreps; ++rep) {
    for (int k = 0; k < T; k += R)
      tile[threadIdx.y + k][threadIdx.x] = in[(y + k) * cols + x];
    __syncthreads();
    for (int k = 0; k < T; k += R)
      out[(y + k) * cols + x] = tile[threadIdx.y + k][threadIdx.x];
    __syncthreads(); // the next repetition overwrites the tile
  }
}

// Naive transpose: reads coalesced, writes with a stride of `rows` elements (one transaction
// per element on the GTX 280; one 32-byte sector per 4-byte element today).
__global__ void naive_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                             int nreps) {
  const std::int64_t x = blockIdx.x * T + threadIdx.x;
  const std::int64_t y = blockIdx.y * T + threadIdx.y;
  for (int rep = 0; rep < nreps; ++rep)
    for (int k = 0; k < T; k += R)
      out[x * rows + y + k] = in[(y + k) * cols + x];
}

// Tile (bx, by) of the input goes to tile (by, bx) of the output through shared memory, so both
// the read and the write walk along rows. Pad = 1 makes the column walk hit 32 distinct banks.
template <int Pad>
__device__ void transpose_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                               std::int64_t bx, std::int64_t by, int nreps) {
  __shared__ float tile[T][T + Pad];
  const std::int64_t x_in = bx * T + threadIdx.x, y_in = by * T + threadIdx.y;
  const std::int64_t x_out = by * T + threadIdx.x, y_out = bx * T + threadIdx.y;
  for (int rep = 0; rep < nreps; ++rep) {
    for (int k = 0; k < T; k += R)
      tile[threadIdx.y + k][threadIdx.x] = in[(y_in + k) * cols + x_in];
    __syncthreads();
    for (int k = 0; k < T; k += R)
      out[(y_out + k) * rows + x_out] = tile[threadIdx.x][threadIdx.y + k];
    __syncthreads();
  }
}

template <int Pad>
__global__ void coalesced_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                                 int nreps) {
  transpose_tile<Pad>(in, out, rows, cols, blockIdx.x, blockIdx.y, nreps);
}

// Fine-grained: transposes within each tile but writes it back to the tile's own place. Its
// speed against the shared-memory copy isolates the cost of the in-tile transpose.
__global__ void fine_grained_kernel(const float* in, float* out, std::int64_t rows,
                                    std::int64_t cols, int nreps) {
  __shared__ float tile[T][T + 1];
  const std::int64_t x = blockIdx.x * T + threadIdx.x;
  const std::int64_t y = blockIdx.y * T + threadIdx.y;
  for (int rep = 0; rep < nreps; ++rep) {
    for (int k = 0; k < T; k += R)
      tile[threadIdx.y + k][threadIdx.x] = in[(y + k) * cols + x];
    __syncthreads();
    for (int k = 0; k < T; k += R)
      out[(y + k) * cols + x] = tile[threadIdx.x][threadIdx.y + k];
    __syncthreads();
  }
}

// Coarse-grained: moves each tile to its transposed place without transposing inside it. Its
// speed isolates the cost of writing tiles to far-apart places (partition camping on GT200).
__global__ void coarse_grained_kernel(const float* in, float* out, std::int64_t rows,
                                      std::int64_t cols, int nreps) {
  __shared__ float tile[T][T + 1];
  const std::int64_t x_in = blockIdx.x * T + threadIdx.x, y_in = blockIdx.y * T + threadIdx.y;
  const std::int64_t x_out = blockIdx.y * T + threadIdx.x, y_out = blockIdx.x * T + threadIdx.y;
  for (int rep = 0; rep < nreps; ++rep) {
    for (int k = 0; k < T; k += R)
      tile[threadIdx.y + k][threadIdx.x] = in[(y_in + k) * cols + x_in];
    __syncthreads();
    for (int k = 0; k < T; k += R)
      out[(y_out + k) * rows + x_out] = tile[threadIdx.y + k][threadIdx.x];
    __syncthreads();
  }
}

// Diagonal block reordering: blocks launched together touch different memory partitions
// (the GT200's 8 partitions of 256 bytes). The block id is read as diagonal coordinates.
__global__ void diagonal_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                                int nreps) {
  std::int64_t bx, by;
  if (gridDim.x == gridDim.y) { // square grid: the cheap mapping
    by = blockIdx.x;
    bx = (blockIdx.x + blockIdx.y) % gridDim.x;
  } else {
    const std::int64_t linear = blockIdx.x + static_cast<std::int64_t>(gridDim.x) * blockIdx.y;
    by = linear % gridDim.y;
    bx = (linear / gridDim.y + by) % gridDim.x;
  }
  transpose_tile<1>(in, out, rows, cols, bx, by, nreps);
}

using SeedKernel = void (*)(const float*, float*, std::int64_t, std::int64_t, int);

template <SeedKernel Kernel>
void launch_seed(const float* in, float* out, Shape shape, int nreps, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(shape.cols / T), static_cast<unsigned>(shape.rows / T));
  Kernel<<<grid, dim3(T, R), 0, stream>>>(in, out, shape.rows, shape.cols, nreps);
  LADDER_CUDA(cudaGetLastError());
}

const char* needs_whole_tiles(Shape s) {
  if (s.rows % T != 0 || s.cols % T != 0)
    return "seed kernel: needs rows and cols that are multiples of 32";
  if (s.rows / T > 65535)
    return "seed kernel: more than 65535 tile rows exceed gridDim.y";
  return nullptr;
}

// --- beyond the seeds ----------------------------------------------------------------------------

using Word = std::uint32_t; // float moved as its bits
using transpose_detail::Access;
using transpose_detail::TileShape;

template <class Cfg, Access A>
void launch_tiled_rung(const float* in, float* out, Shape s, int nreps, cudaStream_t stream) {
  transpose_detail::launch_tiled<Word, Cfg, A>(reinterpret_cast<const Word*>(in),
                                               reinterpret_cast<Word*>(out), s.rows, s.cols, nreps,
                                               stream);
}

template <class Cfg, Access A> const void* tiled_address() {
  return transpose_detail::tiled_kernel_address<Word, Cfg, A>();
}

const char* any_shape(Shape) { return nullptr; }

const char* needs_whole_vectors(Shape s) {
  if (s.rows % 4 != 0 || s.cols % 4 != 0)
    return "aligned 16-byte rung: needs rows and cols that are multiples of 4";
  return nullptr;
}

void launch_library(const float* in, float* out, Shape s, int, cudaStream_t stream) {
  ladder::transpose(in, out, s.rows, s.cols, stream);
}

// The rungs beyond the seeds, each one change against the one before (tuned on an H200 with
// bench/tuning/transpose_sweep.cu; figures in docs/transpose.md).
using Tile32x32x64 = TileShape<32, 32, 64>;          // the seeds' tile, 16-byte accesses
using Tile64x64 = TileShape<64, 64, 256>;            // bigger tile, 4 vectors per thread
using Tile64x64Cs = TileShape<64, 64, 256, 0, true>; // + streaming (evict-first) hints
using Tile64x64CsPersistent = TileShape<64, 64, 256, 0, true, true>; // + persistent grid

// --- references --------------------------------------------------------------------------------

void launch_memcpy(const float* in, float* out, Shape s, int, cudaStream_t stream) {
  LADDER_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(s.rows * s.cols) * sizeof(float),
                              cudaMemcpyDeviceToDevice, stream));
}

// cuBLAS is column-major: our rows x cols row-major input is its cols x rows matrix A (lda =
// cols), and C = A^T is rows x cols column-major (ldc = rows), i.e. our cols x rows row-major.
void launch_geam(const float* in, float* out, Shape s, int, cudaStream_t stream) {
  const float one = 1.0f, zero = 0.0f;
  cublasHandle_t h = cublas_handle();
  check_cublas(cublasSetStream(h, stream), "cublasSetStream");
  const auto status =
      cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(s.rows), static_cast<int>(s.cols),
                  &one, in, static_cast<int>(s.cols), &zero, out, static_cast<int>(s.rows), out,
                  static_cast<int>(s.rows));
  check_cublas(status, "cublasSgeam");
}

const char* fits_cublas_int(Shape s) {
  return s.rows > 0x7fffffff || s.cols > 0x7fffffff ? "cuBLAS takes 32-bit dimensions" : nullptr;
}

const void* address(SeedKernel k) { return reinterpret_cast<const void*>(k); }

// --- element sizes -----------------------------------------------------------------------------

template <int Bytes> using ElementWord = typename transpose_detail::WordOf<Bytes>::type;
using transpose_detail::shape_fits;

using transpose_detail::Load;
using transpose_detail::Store;

// Element sizes a tuning variant is built and timed for: bit b for b-byte elements (a variant
// aimed at some sizes costs no compile time for the others).
constexpr unsigned size_bit(int bytes) { return 1u << bytes; }
constexpr unsigned all_sizes = size_bit(1) | size_bit(2) | size_bit(4) | size_bit(8) | size_bit(16);
template <unsigned Sizes, class Shape> struct Only : Shape {
  static constexpr unsigned sizes = Sizes;
};
template <class Cfg> constexpr bool size_selected(int bytes) {
  if constexpr (requires { Cfg::sizes; })
    return (Cfg::sizes & size_bit(bytes)) != 0;
  else
    return true;
}

// The packed kernel's shapes are given per element size by their row groups and words per tile
// row: G row groups of V = 16 / bytes rows, `Words` 4-byte words of 4 / bytes elements per row.
template <int G, int Words, int Threads, bool Streaming = true, int Group = 0,
          Load LoadHint = Streaming ? Load::cs : Load::normal,
          Store StoreHint = Streaming ? Store::cs : Store::normal, unsigned Sizes = all_sizes>
struct Packed {
  static constexpr bool streaming = Streaming;
  static constexpr Load load_hint = LoadHint;
  static constexpr Store store_hint = StoreHint;
  static constexpr unsigned sizes = Sizes;
  template <int Bytes>
  using tile = TileShape<G * 16 / Bytes, Words * 4 / Bytes, Threads, Group, Streaming, false,
                         LoadHint, StoreHint>;
};

// The tile of `Cfg` for `Bytes`-byte elements (packed shapes are given in row groups and words).
template <int Bytes, class Cfg, Access A> struct TileFor {
  using type = Cfg;
};
template <int Bytes, class Cfg> struct TileFor<Bytes, Cfg, Access::packed> {
  using type = typename Cfg::template tile<(Bytes < 4 ? Bytes : 4)>;
};

// Whether `Cfg` builds for `Bytes` with access `A`, within the shared memory a block may have:
// 48 KB of static shared memory, packed tiles up to 96 KB (dynamic), none in registers.
template <int Bytes, class Cfg, Access A> constexpr bool element_fits() {
  if constexpr (!size_selected<Cfg>(Bytes) || (A == Access::packed && Bytes > 4)) {
    return false;
  } else {
    using Tile = typename TileFor<Bytes, Cfg, A>::type;
    using W = ElementWord<Bytes>;
    constexpr std::size_t pad = A == Access::packed ? 0 : 1;
    constexpr std::size_t limit = A == Access::packed ? 96 * 1024 : 48 * 1024;
    return shape_fits<W, Tile, A>() &&
           (A == Access::registers ||
            std::size_t{Tile::tile_rows} * (Tile::tile_cols + pad) * Bytes <= limit);
  }
}

template <int Bytes, class Cfg, Access A>
void launch_element_size(const void* in, void* out, Shape s, cudaStream_t stream) {
  if constexpr (element_fits<Bytes, Cfg, A>()) {
    using W = ElementWord<Bytes>;
    using Tile = typename TileFor<Bytes, Cfg, A>::type;
    transpose_detail::launch_tiled<W, Tile, A>(static_cast<const W*>(in), static_cast<W*>(out),
                                               s.rows, s.cols, 1, stream);
  }
}

template <class Cfg, Access A>
void launch_element(const void* in, void* out, Shape s, int bytes, cudaStream_t stream) {
  switch (bytes) {
  case 1: return launch_element_size<1, Cfg, A>(in, out, s, stream);
  case 2: return launch_element_size<2, Cfg, A>(in, out, s, stream);
  case 4: return launch_element_size<4, Cfg, A>(in, out, s, stream);
  case 8: return launch_element_size<8, Cfg, A>(in, out, s, stream);
  case 16: return launch_element_size<16, Cfg, A>(in, out, s, stream);
  default: throw std::invalid_argument("element size must be 1, 2, 4, 8 or 16 bytes");
  }
}

template <class Cfg, Access A> const char* element_unsupported(Shape s, int bytes) {
  const bool fits = bytes == 1    ? element_fits<1, Cfg, A>()
                    : bytes == 2  ? element_fits<2, Cfg, A>()
                    : bytes == 4  ? element_fits<4, Cfg, A>()
                    : bytes == 8  ? element_fits<8, Cfg, A>()
                    : bytes == 16 ? element_fits<16, Cfg, A>()
                                  : false;
  if (!fits) {
    const bool selected = bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16
                              ? size_selected<Cfg>(bytes)
                              : false;
    if (!selected)
      return "this variant is aimed at other element sizes";
    return A == Access::packed && bytes > 4
               ? "packed words: elements of 1, 2 or 4 bytes only"
               : "this tile does not hold whole 16-byte vectors per thread of this element size";
  }
  const std::int64_t v = 16 / bytes;
  if (s.rows % v != 0 || s.cols % v != 0)
    return "aligned 16-byte rung: rows and cols must be multiples of 16 bytes of elements";
  return nullptr;
}

void launch_element_library(const void* in, void* out, Shape s, int bytes, cudaStream_t stream) {
  ladder::detail::transpose_bytes(in, out, s.rows, s.cols, static_cast<std::size_t>(bytes), stream);
}

const char* any_element_shape(Shape, int) { return nullptr; }

void launch_element_memcpy(const void* in, void* out, Shape s, int bytes, cudaStream_t stream) {
  LADDER_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(s.rows * s.cols) * bytes,
                              cudaMemcpyDeviceToDevice, stream));
}

// cuBLAS geam with op(A) = transpose for the element sizes cuBLAS has a type of (as for floats,
// launch_geam): S for 4 bytes, D for 8, Z (double complex) for 16. A transpose only moves bits,
// so any 4-, 8- or 16-byte elements go through them unchanged (alpha = 1, beta = 0 never reads C).
void launch_element_geam(const void* in, void* out, Shape s, int bytes, cudaStream_t stream) {
  cublasHandle_t h = cublas_handle();
  check_cublas(cublasSetStream(h, stream), "cublasSetStream");
  const int m = static_cast<int>(s.rows), n = static_cast<int>(s.cols);
  if (bytes == 4) {
    const float one = 1, zero = 0;
    const auto* a = static_cast<const float*>(in);
    auto* c = static_cast<float*>(out);
    check_cublas(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, n, &zero, c, m, c, m),
                 "cublasSgeam");
  } else if (bytes == 8) {
    const double one = 1, zero = 0;
    const auto* a = static_cast<const double*>(in);
    auto* c = static_cast<double*>(out);
    check_cublas(cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, n, &zero, c, m, c, m),
                 "cublasDgeam");
  } else if (bytes == 16) {
    const cuDoubleComplex one{1, 0}, zero{0, 0};
    const auto* a = static_cast<const cuDoubleComplex*>(in);
    auto* c = static_cast<cuDoubleComplex*>(out);
    check_cublas(cublasZgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, n, &zero, c, m, c, m),
                 "cublasZgeam");
  }
}

const char* element_geam_unsupported(Shape s, int bytes) {
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return "cuBLAS has no geam for elements of this size";
  return fits_cublas_int(s);
}

template <class Cfg, Access A>
ElementRung element_variant(std::string_view name, std::string_view idea, int rows_or_groups,
                            int cols_or_words, int threads) {
  const bool packed = A == Access::packed;
  constexpr bool default_hints = Cfg::load_hint == (Cfg::streaming ? Load::cs : Load::normal) &&
                                 Cfg::store_hint == (Cfg::streaming ? Store::cs : Store::normal);
  constexpr int kernel = A == Access::packed ? 1 : A == Access::registers ? 2 : 0;
  const std::string_view rows_key = packed ? "row_groups" : "tile_rows";
  const std::string_view cols_key = packed ? "tile_words" : "tile_cols";
  std::array<Param, max_params> params;
  if (A != Access::registers && default_hints) // the keys of the first tuning rows
    params = {{{rows_key, rows_or_groups},
               {cols_key, cols_or_words},
               {"threads", threads},
               {"packed", packed ? 1 : 0},
               {"streaming", Cfg::streaming ? 1 : 0}}};
  else // kernel: 0 tiled, 1 packed, 2 registers; hints: 10 x Load + Store (enum values)
    params = {
        {{rows_key, rows_or_groups},
         {cols_key, cols_or_words},
         {"threads", threads},
         {"kernel", kernel},
         {"hints", 10 * static_cast<int>(Cfg::load_hint) + static_cast<int>(Cfg::store_hint)}}};
  return ElementRung{.info = {.name = name,
                              .idea = idea,
                              .role = Role::variant,
                              .variant_of = "tiled_64x64_v16_cs",
                              .params = params},
                     .unsupported = element_unsupported<Cfg, A>,
                     .launch = launch_element<Cfg, A>};
}

template <int R, int C, int Threads, bool Streaming = true, int Group = 0>
ElementRung tiled_element(std::string_view name, std::string_view idea) {
  return element_variant<TileShape<R, C, Threads, Group, Streaming>, Access::aligned_vector>(
      name, idea, R, C, Threads);
}

template <int G, int Words, int Threads, bool Streaming = true>
ElementRung packed_element(std::string_view name, std::string_view idea) {
  return element_variant<Packed<G, Words, Threads, Streaming>, Access::packed>(name, idea, G,
                                                                                Words, Threads);
}

constexpr unsigned bytes_1_2 = size_bit(1) | size_bit(2);

// The tiled kernel with a hint per side and a tile order, built for `Sizes` only.
template <int R, int C, int Threads, Load L, Store S, int Group = 0, unsigned Sizes = size_bit(16),
          bool Persistent = false>
ElementRung hinted_tiled(std::string_view name, std::string_view idea) {
  using Shape =
      Only<Sizes,
           TileShape<R, C, Threads, Group, L == Load::cs && S == Store::cs, Persistent, L, S>>;
  return element_variant<Shape, Access::aligned_vector>(name, idea, R, C, Threads);
}

// The packed kernel with a hint per side and a tile order (1- and 2-byte elements).
template <int G, int Words, int Threads, Load L, Store S, int Group = 0, unsigned Sizes = bytes_1_2>
ElementRung hinted_packed(std::string_view name, std::string_view idea) {
  using Cfg = Packed<G, Words, Threads, L == Load::cs && S == Store::cs, Group, L, S, Sizes>;
  return element_variant<Cfg, Access::packed>(name, idea, G, Words, Threads);
}

// The register kernel (no shared memory): R x C elements per block, `Lanes` lanes per row.
template <int R, int C, int Threads, int Lanes, unsigned Sizes, Load L = Load::normal,
          Store S = Store::normal, int Group = 0>
ElementRung register_element(std::string_view name, std::string_view idea) {
  using Shape =
      Only<Sizes,
           TileShape<R, C, Threads, Group, L == Load::cs && S == Store::cs, false, L, S, Lanes>>;
  return element_variant<Shape, Access::registers>(name, idea, R, C, Threads);
}

// Rows of the second tuning round (after bench/results/transpose-tune-h200-2026-11-25.md: 1 and
// 2 bytes at 0.85-0.86 of cudaMemcpy, 16 bytes at 0.89 for every tile, all tried with .cs on both
// sides). Three ideas: hints per side (the best hint flips between 4- and 8-byte elements), larger
// output segments (128 bytes for the packed G = 8 tiles, against 256 for the 0.93 float tile),
// and a kernel without shared memory that reads and writes whole sectors per instruction.
void add_second_round(std::vector<ElementRung>& r) {
  constexpr auto N = Load::normal, Lcs = Load::cs, Lna = Load::no_allocate,
                 Lpf = Load::prefetch_256, Lcspf = Load::cs_prefetch_256;
  constexpr auto Sn = Store::normal, Scs = Store::cs, Slast = Store::evict_last;
  const std::vector<ElementRung> rows = {
      // 16 bytes, the tiled kernel (32x32 is the library's tile): hints per side.
      hinted_tiled<32, 32, 256, N, Sn>("elem16_tiled_32x32_t256_nocs",
                                       "16 B: library tile, no cache hints (8 B: 0.92 without)"),
      hinted_tiled<32, 32, 256, Lcs, Sn>("elem16_tiled_32x32_t256_ldcs",
                                         "16 B: library tile, .cs on loads only"),
      hinted_tiled<32, 32, 256, N, Scs>("elem16_tiled_32x32_t256_stcs",
                                        "16 B: library tile, .cs on stores only"),
      hinted_tiled<32, 32, 256, Lna, Sn>("elem16_tiled_32x32_t256_nc",
                                         "16 B: library tile, ld.global.nc.L1::no_allocate"),
      hinted_tiled<32, 32, 256, Lpf, Sn>("elem16_tiled_32x32_t256_pf256",
                                         "16 B: library tile, loads ask L2 for 256-byte blocks"),
      hinted_tiled<32, 32, 256, Lcspf, Scs>("elem16_tiled_32x32_t256_cs_pf256",
                                            "16 B: library tile, .cs + 256-byte L2 fetches"),
      hinted_tiled<32, 32, 256, Lcs, Slast>("elem16_tiled_32x32_t256_stlast",
                                            "16 B: .cs loads, stores kept in L2 (evict_last)"),
      // 16 bytes: tile orders, shapes, loads in flight, persistent grid, without hints.
      hinted_tiled<32, 32, 256, N, Sn, 8>("elem16_tiled_32x32_t256_nocs_g8",
                                          "16 B: no hints, 8 tile rows walked column by column"),
      hinted_tiled<32, 32, 256, N, Sn, 32>("elem16_tiled_32x32_t256_nocs_g32",
                                           "16 B: no hints, 32 tile rows grouped (4 KB out rows)"),
      hinted_tiled<32, 32, 256, Lcs, Scs, 32>("elem16_tiled_32x32_t256_g32",
                                              "16 B: .cs, 32 tile rows grouped"),
      hinted_tiled<16, 64, 128, N, Sn>("elem16_tiled_16x64_t128_nocs",
                                       "16 B: 1 KB input row segments, no hints"),
      hinted_tiled<64, 16, 128, N, Sn>("elem16_tiled_64x16_t128_nocs",
                                       "16 B: 1 KB output row segments, no hints"),
      hinted_tiled<32, 32, 64, N, Sn>("elem16_tiled_32x32_t64_nocs",
                                      "16 B: 16 loads in flight per thread, no hints"),
      hinted_tiled<32, 32, 256, N, Sn, 0, size_bit(16), true>(
          "elem16_tiled_32x32_t256_nocs_persistent",
          "16 B: no hints, persistent grid loading its next tile while it stores"),
      // 16 bytes, no shared memory: K = 8 elements per thread (16 with 128 threads).
      register_element<16, 128, 256, 2, size_bit(16)>(
          "elem16_reg_16x128_l2_t256", "16 B in registers: 2 KB input rows, 256 B output rows"),
      register_element<32, 64, 256, 2, size_bit(16)>(
          "elem16_reg_32x64_l2_t256", "16 B in registers: 1 KB input rows, 512 B output rows"),
      register_element<64, 32, 256, 2, size_bit(16)>(
          "elem16_reg_64x32_l2_t256", "16 B in registers: 512 B input rows, 1 KB output rows"),
      register_element<128, 16, 256, 2, size_bit(16)>(
          "elem16_reg_128x16_l2_t256", "16 B in registers: 256 B input rows, 2 KB output rows"),
      register_element<32, 64, 128, 2, size_bit(16)>(
          "elem16_reg_32x64_l2_t128", "16 B in registers: 16 loads in flight per thread"),
      register_element<32, 64, 256, 4, size_bit(16)>(
          "elem16_reg_32x64_l4_t256", "16 B in registers: 4 lanes per row (64 B per row read)"),
      register_element<32, 64, 256, 1, size_bit(16)>(
          "elem16_reg_32x64_l1_t256", "16 B in registers: one lane per row, 512 B stores"),
      register_element<32, 64, 256, 2, size_bit(16), Lcs, Scs>(
          "elem16_reg_32x64_l2_t256_cs", "16 B in registers, .cs on both sides"),
      register_element<32, 64, 256, 2, size_bit(16), Lpf, Sn>(
          "elem16_reg_32x64_l2_t256_pf256", "16 B in registers, 256-byte L2 fetches"),
      register_element<32, 64, 256, 2, size_bit(16), N, Sn, 16>(
          "elem16_reg_32x64_l2_t256_g16", "16 B in registers, 16 tile rows grouped"),
      // 1 and 2 bytes, packed: more row groups, so output segments of 256 (G = 16) or 512 bytes
      // (G = 32) for 1-byte elements (2 bytes: 256 and 512 bytes at G = 16 and 32 too).
      hinted_packed<16, 32, 256, N, Sn>("elem_packed_g16_w32_t256_nocs",
                                        "1/2 B packed: 16 row groups (256 B output rows)"),
      hinted_packed<16, 32, 256, Lcs, Scs>("elem_packed_g16_w32_t256",
                                           "1/2 B packed: 16 row groups, .cs"),
      hinted_packed<16, 64, 256, N, Sn>("elem_packed_g16_w64_t256_nocs",
                                        "1/2 B packed: 16 groups x 64 words (1 B: 64 KB tile)"),
      hinted_packed<16, 64, 256, Lcs, Scs>("elem_packed_g16_w64_t256",
                                           "1/2 B packed: 16 groups x 64 words, .cs"),
      hinted_packed<32, 32, 256, N, Sn>("elem_packed_g32_w32_t256_nocs",
                                        "1/2 B packed: 32 row groups (512 B output rows)"),
      hinted_packed<32, 32, 256, Lcs, Scs>("elem_packed_g32_w32_t256",
                                           "1/2 B packed: 32 row groups, .cs"),
      hinted_packed<16, 32, 512, N, Sn>("elem_packed_g16_w32_t512_nocs",
                                        "1/2 B packed: 16 row groups, 512 threads"),
      hinted_packed<16, 32, 128, N, Sn>("elem_packed_g16_w32_t128_nocs",
                                        "1/2 B packed: 16 row groups, 128 threads (16 loads)"),
      hinted_packed<8, 32, 256, Lcs, Sn>("elem_packed_g8_w32_t256_ldcs",
                                         "1/2 B packed (library 1 B tile): .cs on loads only"),
      hinted_packed<8, 32, 256, N, Scs>("elem_packed_g8_w32_t256_stcs",
                                        "1/2 B packed (library 1 B tile): .cs on stores only"),
      hinted_packed<16, 32, 256, Lcs, Sn>("elem_packed_g16_w32_t256_ldcs",
                                          "1/2 B packed, 16 groups: .cs on loads only"),
      hinted_packed<16, 32, 256, N, Scs>("elem_packed_g16_w32_t256_stcs",
                                         "1/2 B packed, 16 groups: .cs on stores only"),
      hinted_packed<16, 32, 256, N, Slast>("elem_packed_g16_w32_t256_stlast",
                                           "1/2 B packed, 16 groups: stores kept in L2"),
      hinted_packed<8, 64, 256, Lpf, Sn>("elem_packed_g8_w64_t256_pf256",
                                         "1/2 B packed (library 2 B tile): 256-byte L2 fetches"),
      hinted_packed<16, 64, 256, Lpf, Sn>("elem_packed_g16_w64_t256_pf256",
                                          "1/2 B packed, 16 groups x 64 words, 256 B L2 fetches"),
      hinted_packed<16, 32, 256, N, Sn, 4>("elem_packed_g16_w32_t256_nocs_grp4",
                                           "1/2 B packed, 16 groups, 4 tile rows grouped"),
      hinted_packed<8, 32, 256, N, Sn, 16>("elem_packed_g8_w32_t256_nocs_grp16",
                                           "1/2 B packed, 8 groups, 16 tile rows grouped"),
      // 1 byte in registers (16 x 16 byte blocks), 2 bytes (8 x 8 blocks): no shared memory.
      register_element<256, 256, 256, 2, size_bit(1)>(
          "elem1_reg_256x256_l2_t256", "1 B in registers: 256 B rows in and out, 32 B reads"),
      register_element<256, 128, 128, 2, size_bit(1)>(
          "elem1_reg_256x128_l2_t128", "1 B in registers: 128 threads, 128 B input rows"),
      register_element<256, 256, 256, 4, size_bit(1)>(
          "elem1_reg_256x256_l4_t256", "1 B in registers: 4 lanes per row (64 B reads)"),
      register_element<512, 128, 256, 2, size_bit(1)>("elem1_reg_512x128_l2_t256",
                                                      "1 B in registers: 512 B output rows"),
      register_element<256, 256, 256, 2, size_bit(1), Lcs, Scs>(
          "elem1_reg_256x256_l2_t256_cs", "1 B in registers, .cs on both sides"),
      register_element<256, 256, 256, 2, size_bit(1), Lpf, Sn>(
          "elem1_reg_256x256_l2_t256_pf256", "1 B in registers, 256-byte L2 fetches"),
      register_element<128, 256, 256, 2, size_bit(2)>(
          "elem2_reg_128x256_l2_t256", "2 B in registers: 512 B input rows, 256 B output rows"),
      register_element<128, 128, 128, 2, size_bit(2)>(
          "elem2_reg_128x128_l2_t128", "2 B in registers: 2 blocks (16 loads) per thread"),
      register_element<256, 128, 256, 2, size_bit(2)>(
          "elem2_reg_256x128_l2_t256", "2 B in registers: 512 B output rows, 16 loads"),
      register_element<128, 256, 256, 4, size_bit(2)>(
          "elem2_reg_128x256_l4_t256", "2 B in registers: 4 lanes per row (64 B reads)"),
      register_element<128, 256, 256, 2, size_bit(2), Lcs, Scs>(
          "elem2_reg_128x256_l2_t256_cs", "2 B in registers, .cs on both sides"),
      register_element<128, 256, 256, 2, size_bit(2), Lpf, Sn>(
          "elem2_reg_128x256_l2_t256_pf256", "2 B in registers, 256-byte L2 fetches"),
  };
  r.insert(r.end(), rows.begin(), rows.end());
}

} // namespace

std::span<const ElementRung> element_registry() {
  static const std::vector<ElementRung> rungs = [] {
    const char* tiled = "the 16-byte tiled kernel with this tile (elements), any element size";
    const char* packed = "elements packed in 4-byte words in shared memory (G row groups of "
                         "16 bytes of rows, words per tile row)";
    std::vector<ElementRung> r = {
        tiled_element<64, 64, 256>("elem_tiled_64x64_t256", tiled),
        tiled_element<64, 64, 128>("elem_tiled_64x64_t128", tiled),
        tiled_element<64, 64, 256, false>("elem_tiled_64x64_t256_nocs",
                                          "as elem_tiled_64x64_t256 without streaming hints"),
        tiled_element<64, 64, 256, true, 8>("elem_tiled_64x64_t256_g8",
                                            "as elem_tiled_64x64_t256, 8 tile rows grouped"),
        tiled_element<32, 32, 256>("elem_tiled_32x32_t256", tiled),
        tiled_element<32, 32, 128>("elem_tiled_32x32_t128", tiled),
        tiled_element<32, 32, 64>("elem_tiled_32x32_t64", tiled),
        tiled_element<32, 64, 256>("elem_tiled_32x64_t256", tiled),
        tiled_element<64, 32, 256>("elem_tiled_64x32_t256", tiled),
        tiled_element<128, 64, 256>("elem_tiled_128x64_t256", tiled),
        tiled_element<64, 128, 256>("elem_tiled_64x128_t256", tiled),
        tiled_element<16, 64, 128>("elem_tiled_16x64_t128", tiled),
        tiled_element<64, 16, 128>("elem_tiled_64x16_t128", tiled),
        packed_element<8, 32, 256>("elem_packed_g8_w32_t256", packed),
        packed_element<8, 64, 256>("elem_packed_g8_w64_t256", packed),
        packed_element<8, 32, 128>("elem_packed_g8_w32_t128", packed),
        packed_element<4, 32, 128>("elem_packed_g4_w32_t128", packed),
        packed_element<4, 64, 256>("elem_packed_g4_w64_t256", packed),
        packed_element<8, 64, 512>("elem_packed_g8_w64_t512", packed),
        packed_element<8, 32, 256, false>("elem_packed_g8_w32_t256_nocs",
                                          "as elem_packed_g8_w32_t256 without streaming hints"),
    };
    add_second_round(r);
    r.push_back({.info = {.name = "ladder::transpose",
                          .idea = "the library call for elements of this size",
                          .role = Role::library},
                 .unsupported = any_element_shape,
                 .launch = launch_element_library});
    r.push_back({.info = {.name = "cudaMemcpy",
                          .idea = "device-to-device copy of the same bytes: the bound",
                          .role = Role::reference},
                 .result = Result::copy,
                 .unsupported = any_element_shape,
                 .launch = launch_element_memcpy});
    r.push_back({.info = {.name = "cublas_geam",
                          .idea = "cuBLAS S/D/Zgeam with op(A) = transpose (4, 8, 16 bytes)",
                          .role = Role::reference,
                          .vendor = true},
                 .unsupported = element_geam_unsupported,
                 .launch = launch_element_geam});
    return r;
  }();
  return rungs;
}

std::span<const Rung> registry() {
  using enum Result;
  static const std::array rungs = {
      Rung{.info = {.name = "copy",
                    .idea = "copy rows to rows: both sides coalesced, the ceiling for a transpose",
                    .role = Role::seed,
                    .course_row = "Simple Copy",
                    .kernel = address(copy_kernel),
                    .block_threads = T * R},
           .result = copy,
           .unsupported = needs_whole_tiles,
           .loops_in_kernel = true,
           .launch = launch_seed<copy_kernel>},
      Rung{.info = {.name = "copy_shared",
                    .idea = "the copy staged through a 32x32 shared-memory tile",
                    .role = Role::seed,
                    .course_row = "Shared Memory Copy",
                    .kernel = address(copy_shared_kernel),
                    .block_threads = T * R},
           .result = copy,
           .unsupported = needs_whole_tiles,
           .loops_in_kernel = true,
           .launch = launch_seed<copy_shared_kernel>},
      Rung{.info = {.name = "naive",
                    .idea = "read rows, write columns: every write is a separate transaction",
                    .role = Role::seed,
                    .course_row = "Naive Transpose",
                    .kernel = address(naive_kernel),
                    .block_threads = T * R},
           .result = transpose,
           .unsupported = needs_whole_tiles,
           .loops_in_kernel = true,
           .launch = launch_seed<naive_kernel>},
      Rung{.info = {.name = "coalesced",
                    .idea = "transpose a 32x32 tile in shared memory so reads and writes coalesce",
                    .role = Role::seed,
                    .course_row = "Coalesced Transpose",
                    .kernel = address(coalesced_kernel<0>),
                    .block_threads = T * R},
           .result = transpose,
           .unsupported = needs_whole_tiles,
           .loops_in_kernel = true,
           .launch = launch_seed<coalesced_kernel<0>>},
      Rung{.info = {.name = "coalesced_padded",
                    .idea = "pad the tile to 33 columns: the column walk is bank-conflict free",
                    .role = Role::seed,
                    .course_row = "Bank Conflict Free Transpose",
                    .kernel = address(coalesced_kernel<1>),
                    .block_threads = T * R},
           .result = transpose,
           .unsupported = needs_whole_tiles,
           .loops_in_kernel = true,
           .launch = launch_seed<coalesced_kernel<1>>},
      Rung{.info = {.name = "fine_grained",
                    .idea = "transpose inside each tile but keep the tile in place (diagnostic)",
                    .role = Role::seed,
                    .course_row = "Fine-grained Transpose",
                    .kernel = address(fine_grained_kernel),
                    .block_threads = T * R},
           .result = tile_local_transpose,
           .unsupported = needs_whole_tiles,
           .loops_in_kernel = true,
           .launch = launch_seed<fine_grained_kernel>},
      Rung{.info = {.name = "coarse_grained",
                    .idea = "move whole tiles to their transposed place untransposed (diagnostic)",
                    .role = Role::seed,
                    .course_row = "Coarse-grained Transpose",
                    .kernel = address(coarse_grained_kernel),
                    .block_threads = T * R},
           .result = tiles_moved,
           .unsupported = needs_whole_tiles,
           .loops_in_kernel = true,
           .launch = launch_seed<coarse_grained_kernel>},
      Rung{.info = {.name = "diagonal",
                    .idea = "visit tiles along diagonals to spread writes over memory partitions",
                    .role = Role::seed,
                    .course_row = "Diagonal",
                    .kernel = address(diagonal_kernel),
                    .block_threads = T * R},
           .result = transpose,
           .unsupported = needs_whole_tiles,
           .loops_in_kernel = true,
           .launch = launch_seed<diagonal_kernel>},
      Rung{.info = {.name = "tiled_32x32_v16",
                    .idea = "the padded 32x32 tile with 16-byte loads and stores (64 threads)",
                    .role = Role::beyond,
                    .params = {{{"tile", 32}, {"threads", 64}, {"vector_bytes", 16}}},
                    .kernel = tiled_address<Tile32x32x64, Access::aligned_vector>(),
                    .block_threads = 64},
           .unsupported = needs_whole_vectors,
           .loops_in_kernel = true,
           .launch = launch_tiled_rung<Tile32x32x64, Access::aligned_vector>},
      Rung{.info = {.name = "tiled_64x64_v16",
                    .idea = "64x64 tiles: 4 16-byte loads in flight per thread",
                    .role = Role::beyond,
                    .params = {{{"tile", 64}, {"threads", 256}, {"vector_bytes", 16}}},
                    .kernel = tiled_address<Tile64x64, Access::aligned_vector>(),
                    .block_threads = 256},
           .unsupported = needs_whole_vectors,
           .loops_in_kernel = true,
           .launch = launch_tiled_rung<Tile64x64, Access::aligned_vector>},
      Rung{
          .info = {.name = "tiled_64x64_v16_cs",
                   .idea = "+ streaming cache hints (ld/st .cs): every byte is touched once",
                   .role = Role::beyond,
                   .params =
                       {{{"tile", 64}, {"threads", 256}, {"vector_bytes", 16}, {"streaming", 1}}},
                   .kernel = tiled_address<Tile64x64Cs, Access::aligned_vector>(),
                   .block_threads = 256},
          .unsupported = needs_whole_vectors,
          .loops_in_kernel = true,
          .launch = launch_tiled_rung<Tile64x64Cs, Access::aligned_vector>},
      Rung{.info = {.name = "tiled_64x64_v16_cs_persistent",
                    .idea = "+ a persistent grid that prefetches its next tile (measured: no gain)",
                    .role = Role::variant,
                    .variant_of = "tiled_64x64_v16_cs",
                    .params = {{{"tile", 64},
                                {"threads", 256},
                                {"vector_bytes", 16},
                                {"streaming", 1},
                                {"persistent", 1}}},
                    .kernel = tiled_address<Tile64x64CsPersistent, Access::aligned_vector>(),
                    .block_threads = 256},
           .unsupported = needs_whole_vectors,
           .loops_in_kernel = true,
           .launch = launch_tiled_rung<Tile64x64CsPersistent, Access::aligned_vector>},
      Rung{
          .info = {.name = "tiled_64x64_scalar_cs",
                   .idea = "4-byte accesses, any shape: what odd shapes cost without vectors",
                   .role = Role::variant,
                   .variant_of = "tiled_64x64_v16_cs",
                   .params =
                       {{{"tile", 64}, {"threads", 256}, {"vector_bytes", 4}, {"streaming", 1}}},
                   .kernel = tiled_address<Tile64x64Cs, Access::scalar>(),
                   .block_threads = 256},
          .unsupported = any_shape,
          .loops_in_kernel = true,
          .launch = launch_tiled_rung<Tile64x64Cs, Access::scalar>},
      Rung{
          .info = {.name = "tiled_64x64_any_v16_cs",
                   .idea = "16-byte accesses at any alignment: aligned vectors, element-wise ends",
                   .role = Role::beyond,
                   .params =
                       {{{"tile", 64}, {"threads", 256}, {"vector_bytes", 16}, {"streaming", 1}}},
                   .kernel = tiled_address<Tile64x64Cs, Access::any_alignment_vector>(),
                   .block_threads = 256},
          .unsupported = any_shape,
          .loops_in_kernel = true,
          .launch = launch_tiled_rung<Tile64x64Cs, Access::any_alignment_vector>},
      Rung{.info = {.name = "ladder::transpose",
                    .idea = "the library call: the best tiled kernel that applies, any shape",
                    .role = Role::library},
           .unsupported = any_shape,
           .launch = launch_library},
      Rung{.info = {.name = "cudaMemcpy",
                    .idea = "device-to-device copy of the same bytes: the bound",
                    .role = Role::reference},
           .result = copy,
           .unsupported = any_shape,
           .launch = launch_memcpy},
      Rung{.info = {.name = "cublas_geam",
                    .idea = "cuBLAS Sgeam with op(A) = transpose",
                    .role = Role::reference,
                    .vendor = true},
           .unsupported = fits_cublas_int,
           .launch = launch_geam},
  };
  return rungs;
}

} // namespace ladder::lab::transpose
