// The exercises of "Optimizing CUDA code" (Moreno Maza, UWO CS4402: Exercises 1-3: increment an
// array, the sieve of Eratosthenes, array reversal) and the vector add of "GPU architecture and
// programming", lecture 3 (UCAS), each as a ladder: the slides' kernels first, then the rungs
// past them, then the reference rows.
#include "exercises/sieve.cuh"
#include "exercises/sieve_host.hpp"
#include "exercises/streams.cuh"
#include "exercises/variants.hpp"

#include "core/resident_grid.hpp"
#include "ladder/error.hpp"
#include "ladder/primes.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <string_view>

namespace ladder::lab::exercises {

namespace {

using core::PerDevice;
using core::resident_blocks;

const char* any_n(std::int64_t) { return nullptr; }
const char* int_index(std::int64_t n) {
  return n > INT_MAX ? "the slides' int index overflows past 2^31 - 1 elements" : nullptr;
}

int blocks_for(std::int64_t n, int threads) {
  return static_cast<int>((n + threads - 1) / threads);
}

// ------------------------------------------------------------------------------------------------
// The streaming rungs from `vector4` on, and their tuning variants: each one policy of
// exercises/streams.cuh over the exercise's op. What each lever asks, shared by the three
// exercises so that their variants mean the same thing:
// ------------------------------------------------------------------------------------------------

namespace st = streams;

// vector4: 256-thread blocks of a resident grid, four 16-byte loads in flight per thread.
using Vector4 = st::Registers<256, 4>;

namespace lever {
constexpr std::string_view x8 = "8 16-byte loads in flight per thread before their stores (4 in "
                                "vector4)";
constexpr std::string_view x16 = "16 16-byte loads in flight per thread before their stores";
constexpr std::string_view t128 = "vector4 in 128-thread blocks";
constexpr std::string_view t512 = "vector4 in 512-thread blocks";
constexpr std::string_view t1024 = "vector4 in 1024-thread blocks";
constexpr std::string_view tile = "one block per 32 KiB tile (1024 threads x 2 quads), no loop: the "
                                  "hardware hands out the blocks, not a persistent grid";
constexpr std::string_view tile_256t = "one block per 16 KiB tile (256 threads x 4 quads), no loop";
constexpr std::string_view tile_x8 = "one block per 32 KiB tile (256 threads x 8 quads), no loop";
constexpr std::string_view tile_x16 = "one block per 64 KiB tile (256 threads x 16 quads), the 16 "
                                      "loads issued before any store (volatile asm): 16 in flight";
constexpr std::string_view tile_x2 = "one block per 8 KiB tile (256 threads x 2 quads): twice the "
                                     "blocks, each half as long";
constexpr std::string_view tile_512t = "one block per 32 KiB tile (512 threads x 4 quads), no loop";
constexpr std::string_view tile_128t = "one block per 8 KiB tile (128 threads x 4 quads): more, "
                                       "shorter blocks resident per SM";
constexpr std::string_view tile_1024t_x1 = "one block per 16 KiB tile (1024 threads x 1 quad)";
constexpr std::string_view tile_1024t_x4 = "one block per 64 KiB tile (1024 threads x 4 quads)";
constexpr std::string_view tile_in_order = "the 16 KiB tile with the loads kept ahead of the "
                                           "stores in the order written (volatile asm)";
constexpr std::string_view chunk = "resident grid, each block one contiguous chunk (1/grid of the "
                                   "array) in 16 KiB steps: long runs per block, not a grid-wide "
                                   "interleave";
constexpr std::string_view chunk_x8 = "the contiguous chunks in 32 KiB steps (8 loads in flight)";
constexpr std::string_view cs = "streaming cache hints (ld/st.global.cs, evict first): each line is "
                                "touched once";
constexpr std::string_view no_allocate = "loads and stores .L1::no_allocate: nothing kept in L1";
constexpr std::string_view policy = "an L2 evict-first policy (createpolicy.fractional) on every "
                                    "load and store";
constexpr std::string_view prefetch = "loads .L1::no_allocate.L2::256B: the L2 fetches 256-byte "
                                      "blocks";
constexpr std::string_view bulk_16k = "the bulk copy engine (cp.async.bulk, TMA): 16 KiB tiles "
                                      "global -> shared -> global, 4 per block in flight; threads "
                                      "only compute in shared memory";
constexpr std::string_view bulk_8k = "bulk copies of 8 KiB tiles, 4 in flight, more blocks per SM";
constexpr std::string_view bulk_32k = "bulk copies of 32 KiB tiles, 3 in flight, 512 threads";
} // namespace lever

// The story's last rung: 1024-thread blocks measured best on an H200 (increment 521 us against
// 537 us in 256-thread blocks of 4 quads, 2026-11-25).
using Tile = st::Registers<1024, 2, st::Schedule::block_per_tile>;
using Tile256 = st::Registers<256, 4, st::Schedule::block_per_tile>;
using TileX8 = st::Registers<256, 8, st::Schedule::block_per_tile>;
// 16 quads a thread in flight: the loads kept ahead of the stores (Hint::in_order).
using TileX16 = st::Registers<256, 16, st::Schedule::block_per_tile, st::Hint::in_order>;
using TileX2 = st::Registers<256, 2, st::Schedule::block_per_tile>;
using Tile512 = st::Registers<512, 4, st::Schedule::block_per_tile>;
using Tile128 = st::Registers<128, 4, st::Schedule::block_per_tile>;
using Tile1024X1 = st::Registers<1024, 1, st::Schedule::block_per_tile>;
using Tile1024X4 = st::Registers<1024, 4, st::Schedule::block_per_tile>;
using TileInOrder = st::Registers<256, 4, st::Schedule::block_per_tile, st::Hint::in_order>;
using Chunk = st::Registers<256, 4, st::Schedule::chunk_per_block>;
using ChunkX8 = st::Registers<256, 8, st::Schedule::chunk_per_block>;
using Streaming = st::Registers<256, 4, st::Schedule::grid_stride, st::Hint::streaming>;
using NoAllocate = st::Registers<256, 4, st::Schedule::grid_stride, st::Hint::no_allocate>;
using EvictPolicy = st::Registers<256, 4, st::Schedule::grid_stride, st::Hint::evict_first_policy>;
using Prefetch = st::Registers<256, 4, st::Schedule::grid_stride, st::Hint::prefetch_256>;
using Bulk16k = st::Bulk<256, 16384, 4>;
using Bulk8k = st::Bulk<256, 8192, 4>;
using Bulk32k = st::Bulk<512, 32768, 3>;

// A rung's launch shape and typed parameters from its policy, for the resource report and `tune`.
template <class P, class Op> RungInfo shaped(RungInfo info) {
  info.params = P::params();
  info.kernel = st::kernel_pointer<P, Op>();
  info.block_threads = P::threads;
  info.dynamic_shared_bytes = P::shared_bytes(Op::inputs);
  return info;
}
RungInfo variant_of(std::string_view base, std::string_view name, std::string_view idea) {
  return {.name = name, .idea = idea, .role = Role::variant, .variant_of = base};
}

// ================================================================================================
// Exercise 1: increment
// ================================================================================================

// The slides' kernel (Exercise 1 (3/4)): one element per thread, a boundary check, int indexing;
// launched with 64-thread blocks as in Exercise 1 (4/4).
__global__ void increment_slides(float* A, int N) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N)
    A[idx] = A[idx] + 1.0f;
}

template <int Threads> void launch_increment_slides(float* a, float*, std::int64_t n, cudaStream_t s) {
  if (n == 0)
    return;
  increment_slides<<<blocks_for(n, Threads), Threads, 0, s>>>(a, static_cast<int>(n));
}

// Grid-stride: a resident grid walks the array, 64-bit indices, any n.
__global__ void increment_grid_stride(float* a, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride)
    a[i] += 1.0f;
}

constexpr int stream_threads = 256;

template <auto Kernel> std::int64_t stream_grid() {
  static PerDevice cache;
  return resident_blocks(cache, reinterpret_cast<const void*>(Kernel), stream_threads);
}

void launch_increment_grid_stride(float* a, float*, std::int64_t n, cudaStream_t s) {
  if (n == 0)
    return;
  const auto grid = std::min<std::int64_t>(stream_grid<increment_grid_stride>(), blocks_for(n, stream_threads));
  increment_grid_stride<<<static_cast<unsigned>(grid), stream_threads, 0, s>>>(a, n);
}
template <class P> void launch_increment(float* a, float*, std::int64_t n, cudaStream_t s) {
  if (n > 0)
    st::launch<P>(st::increment_op(a, n), s);
}
template <class P> IncrementRung increment_rung(RungInfo info) {
  return {.info = shaped<P, st::IncrementOp>(info), .unsupported = any_n,
          .launch = launch_increment<P>};
}
template <class P> IncrementRung increment_variant(std::string_view name, std::string_view idea) {
  return increment_rung<P>(variant_of("increment_vector4", name, idea));
}
template <class P>
IncrementRung increment_tile_variant(std::string_view name, std::string_view idea) {
  return increment_rung<P>(variant_of("increment_tile_per_block", name, idea));
}

void launch_increment_copy(float* a, float* to, std::int64_t n, cudaStream_t s) {
  LADDER_CUDA(cudaMemcpyAsync(to, a, static_cast<std::size_t>(n) * sizeof(float),
                              cudaMemcpyDeviceToDevice, s));
}

const IncrementRung increment_rungs[] = {
    {.info = {.name = "increment_slides_64_threads",
              .idea = "one element per thread with a boundary check, 64-thread blocks",
              .role = Role::seed,
              .course_row = "Exercise 1: increment_On_Device<<<nBlocks, 64>>>",
              .kernel = reinterpret_cast<const void*>(increment_slides),
              .block_threads = 64},
     .unsupported = int_index,
     .launch = launch_increment_slides<64>},
    {.info = {.name = "increment_slides_256_threads",
              .idea = "the same kernel in 256-thread blocks (a quarter of the blocks to schedule)",
              .role = Role::variant,
              .variant_of = "increment_slides_64_threads",
              .params = {{{"threads", 256}}},
              .kernel = reinterpret_cast<const void*>(increment_slides),
              .block_threads = 256},
     .unsupported = int_index,
     .launch = launch_increment_slides<256>},
    {.info = {.name = "increment_grid_stride",
              .idea = "a resident grid strides over the array with 64-bit indices: any n",
              .kernel = reinterpret_cast<const void*>(increment_grid_stride),
              .block_threads = stream_threads},
     .unsupported = any_n,
     .launch = launch_increment_grid_stride},
    increment_rung<Vector4>(
        {.name = "increment_vector4",
         .idea = "16-byte float4 loads and stores (scalar head and tail): a quarter of the memory "
                 "instructions, four loads in flight per thread"}),
    increment_variant<Streaming>("increment_vector4_cs", lever::cs),
    increment_variant<st::Registers<256, 8>>("increment_vector4_x8", lever::x8),
    increment_variant<st::Registers<256, 16>>("increment_vector4_x16", lever::x16),
    increment_variant<st::Registers<128, 4>>("increment_vector4_128t", lever::t128),
    increment_variant<st::Registers<512, 4>>("increment_vector4_512t", lever::t512),
    increment_variant<st::Registers<1024, 4>>("increment_vector4_1024t", lever::t1024),
    increment_variant<Chunk>("increment_chunk_per_block", lever::chunk),
    increment_variant<ChunkX8>("increment_chunk_per_block_x8", lever::chunk_x8),
    increment_variant<NoAllocate>("increment_vector4_no_allocate", lever::no_allocate),
    increment_variant<EvictPolicy>("increment_vector4_evict_policy", lever::policy),
    increment_variant<Prefetch>("increment_vector4_prefetch256", lever::prefetch),
    increment_variant<Bulk16k>("increment_bulk_16k", lever::bulk_16k),
    increment_variant<Bulk8k>("increment_bulk_8k", lever::bulk_8k),
    increment_variant<Bulk32k>("increment_bulk_32k", lever::bulk_32k),
    // The story's last rung: vector4's walk with one block per tile and no loop.
    increment_rung<Tile>({.name = "increment_tile_per_block", .idea = lever::tile}),
    increment_tile_variant<TileX8>("increment_tile_per_block_x8", lever::tile_x8),
    increment_tile_variant<TileX16>("increment_tile_per_block_x16", lever::tile_x16),
    increment_tile_variant<TileX2>("increment_tile_per_block_x2", lever::tile_x2),
    increment_tile_variant<Tile512>("increment_tile_per_block_512t", lever::tile_512t),
    increment_tile_variant<Tile128>("increment_tile_per_block_128t", lever::tile_128t),
    increment_tile_variant<Tile256>("increment_tile_per_block_256t", lever::tile_256t),
    increment_tile_variant<Tile1024X1>("increment_tile_per_block_1024t_x1", lever::tile_1024t_x1),
    increment_tile_variant<Tile1024X4>("increment_tile_per_block_1024t_x4", lever::tile_1024t_x4),
    increment_tile_variant<TileInOrder>("increment_tile_per_block_in_order", lever::tile_in_order),
    {.info = {.name = "increment_copy",
              .idea = "cudaMemcpy device to device of the same bytes: the bound",
              .role = Role::reference},
     .unsupported = any_n,
     .launch = launch_increment_copy,
     .is_copy = true},
};

// ================================================================================================
// Vector add (UCAS lecture 3): c = a + b
// ================================================================================================

__global__ void add_slides(const float* A, const float* B, float* C, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n)
    C[i] = A[i] + B[i];
}

__global__ void add_grid_stride(const float* a, const float* b, float* c, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride)
    c[i] = a[i] + b[i];
}

void launch_add_slides(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t s) {
  if (n == 0)
    return;
  add_slides<<<blocks_for(n, slides_add_threads), slides_add_threads, 0, s>>>(a, b, c,
                                                                             static_cast<int>(n));
}
void launch_add_grid_stride(const float* a, const float* b, float* c, std::int64_t n,
                            cudaStream_t s) {
  if (n == 0)
    return;
  const auto grid = std::min<std::int64_t>(stream_grid<add_grid_stride>(), blocks_for(n, stream_threads));
  add_grid_stride<<<static_cast<unsigned>(grid), stream_threads, 0, s>>>(a, b, c, n);
}
template <class P>
void launch_add(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t s) {
  if (n == 0)
    return;
  // Inputs on c's alignment take the kernel without the 4-byte loads (fewer registers).
  const auto op = st::add_op(a, b, c, n, !P::bulk);
  if constexpr (!P::bulk) {
    if (!op.a4 || !op.b4)
      return st::launch<P>(op, s);
  }
  st::launch<P>(st::AddOp{op.a, op.b, op.c, op.n, op.head, op.count}, s);
}
template <class P> AddRung add_rung(RungInfo info) {
  return {.info = shaped<P, st::AddOp>(info), .unsupported = any_n, .launch = launch_add<P>};
}
template <class P> AddRung add_variant(std::string_view name, std::string_view idea) {
  return add_rung<P>(variant_of("add_vector4", name, idea));
}

void launch_add_copy(const float* a, const float*, float* c, std::int64_t n, cudaStream_t s) {
  // a and b are one 2n buffer: 1.5 n floats read from it and written to c move the add's bytes.
  LADDER_CUDA(cudaMemcpyAsync(c, a, static_cast<std::size_t>(n + n / 2) * sizeof(float),
                              cudaMemcpyDeviceToDevice, s));
}

const AddRung add_rungs[] = {
    {.info = {.name = "add_slides",
              .idea = "one element per thread, if (i < n), 256-thread blocks",
              .role = Role::seed,
              .course_row = "Lecture 3: vecAddKernel, n = 1000, 256 threads per block",
              .kernel = reinterpret_cast<const void*>(add_slides),
              .block_threads = slides_add_threads},
     .unsupported = int_index,
     .launch = launch_add_slides},
    {.info = {.name = "add_grid_stride",
              .idea = "a resident grid strides over the arrays with 64-bit indices",
              .kernel = reinterpret_cast<const void*>(add_grid_stride),
              .block_threads = stream_threads},
     .unsupported = any_n,
     .launch = launch_add_grid_stride},
    add_rung<Vector4>({.name = "add_vector4",
                       .idea = "16-byte float4 stores to c and loads from the inputs that "
                               "share its alignment (four 4-byte loads a quad from one that does "
                               "not; scalar head and tail), four in flight per thread"}),
    add_variant<st::Registers<256, 8>>("add_vector4_x8", lever::x8),
    add_variant<st::Registers<512, 4>>("add_vector4_512t", lever::t512),
    add_variant<Chunk>("add_chunk_per_block", lever::chunk),
    add_variant<NoAllocate>("add_vector4_no_allocate", lever::no_allocate),
    add_variant<Bulk16k>("add_bulk_16k", lever::bulk_16k),
    add_variant<Bulk8k>("add_bulk_8k", lever::bulk_8k),
    add_rung<Tile>({.name = "add_tile_per_block", .idea = lever::tile}),
    add_rung<Tile256>(variant_of("add_tile_per_block", "add_tile_per_block_256t", lever::tile_256t)),
    {.info = {.name = "add_copy",
              .idea = "cudaMemcpy device to device of the same bytes (1.5 n floats each way): the "
                      "bound",
              .role = Role::reference},
     .unsupported = any_n,
     .launch = launch_add_copy,
     .is_copy = true},
};

// The slides' add with the check's ballot counted: taken before the branch, by a full warp.
__global__ void add_divergence_probe(const float* A, const float* B, float* C, std::int64_t n,
                                     unsigned long long* counts) {
  const std::int64_t i = threadIdx.x + static_cast<std::int64_t>(blockDim.x) * blockIdx.x;
  const unsigned ballot = __ballot_sync(0xffffffffu, i < n);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&counts[0], 1ull);
    if (ballot != 0u && ballot != 0xffffffffu)
      atomicAdd(&counts[1], 1ull);
  }
  if (i < n)
    C[i] = A[i] + B[i];
}

// ================================================================================================
// Exercise 3: array reversal
// ================================================================================================

// The slides' kernels (Exercise 3 (2/4) and (3/4)) with their launch: numBlocks = dimA / 256, so
// the last dimA % 256 elements are never read, and the block mirror is over the truncated length.
__global__ void reverse_slides_naive(int* d_out, int* d_in) {
  int inOffset = blockDim.x * blockIdx.x;
  int outOffset = blockDim.x * (gridDim.x - 1 - blockIdx.x);
  int in = inOffset + threadIdx.x;
  int out = outOffset + (blockDim.x - 1 - threadIdx.x);
  d_out[out] = d_in[in];
}

__global__ void reverse_slides_shared(int* d_out, int* d_in) {
  extern __shared__ int s_data[];
  int inOffset = blockDim.x * blockIdx.x;
  int in = inOffset + threadIdx.x;
  s_data[blockDim.x - 1 - threadIdx.x] = d_in[in];
  __syncthreads();
  int outOffset = blockDim.x * (gridDim.x - 1 - blockIdx.x);
  int out = outOffset + threadIdx.x;
  d_out[out] = s_data[threadIdx.x];
}

constexpr int slides_reverse_threads = 256;

template <bool Shared>
void launch_reverse_slides(const std::int32_t* in, std::int32_t* out, std::int64_t n,
                           cudaStream_t s) {
  const int numBlocks = static_cast<int>(n / slides_reverse_threads);
  if (numBlocks == 0)
    return; // the slides' launch would be an invalid configuration: nothing is written
  if constexpr (Shared)
    reverse_slides_shared<<<numBlocks, slides_reverse_threads,
                            slides_reverse_threads * sizeof(int), s>>>(out, const_cast<int*>(in));
  else
    reverse_slides_naive<<<numBlocks, slides_reverse_threads, 0, s>>>(out, const_cast<int*>(in));
}

// Any n: element i goes to n - 1 - i, 64-bit, grid-stride. Both sides stay coalesced (a warp
// writes 32 consecutive elements in descending order).
__global__ void reverse_any_n(const std::int32_t* in, std::int32_t* out, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride)
    out[n - 1 - i] = in[i];
}

void launch_reverse_any_n(const std::int32_t* in, std::int32_t* out, std::int64_t n,
                          cudaStream_t s) {
  if (n == 0)
    return;
  const auto grid = std::min<std::int64_t>(stream_grid<reverse_any_n>(), blocks_for(n, stream_threads));
  reverse_any_n<<<static_cast<unsigned>(grid), stream_threads, 0, s>>>(in, out, n);
}
template <class P, bool AnyShift>
void launch_reverse(const std::int32_t* in, std::int32_t* out, std::int64_t n, cudaStream_t s) {
  if (n > 0)
    st::launch_reverse<P>(in, out, n, AnyShift, s);
}
// The resource report shows the kernel of shift 1 (the shuffling one) for the any-shift rungs.
template <class P, bool AnyShift> ReverseRung reverse_rung(RungInfo info) {
  return {.info = shaped<P, st::ReverseOp<AnyShift ? 1 : 0>>(info), .unsupported = any_n,
          .launch = launch_reverse<P, AnyShift>};
}
template <class P> ReverseRung reverse_variant(std::string_view name, std::string_view idea) {
  return reverse_rung<P, true>(variant_of("reverse_vector4_shuffle", name, idea));
}

void launch_reverse_copy(const std::int32_t* in, std::int32_t* out, std::int64_t n,
                         cudaStream_t s) {
  LADDER_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(n) * sizeof(std::int32_t),
                              cudaMemcpyDeviceToDevice, s));
}

const ReverseRung reverse_rungs[] = {
    {.info = {.name = "reverse_slides_naive",
              .idea = "block b's elements to block (numBlocks - 1 - b), mirrored; numBlocks = "
                      "dimA / 256 drops the tail",
              .role = Role::seed,
              .course_row = "Exercise 3: reverseArrayBlock (global memory)",
              .kernel = reinterpret_cast<const void*>(reverse_slides_naive),
              .block_threads = slides_reverse_threads},
     .unsupported = int_index,
     .launch = launch_reverse_slides<false>,
     .drops_tail_of_awkward_n = true},
    {.info = {.name = "reverse_slides_shared",
              .idea = "reverse within the block through shared memory, then write forward; the "
                      "same launch, the same dropped tail",
              .role = Role::seed,
              .course_row = "Exercise 3: reverseArrayBlock (shared memory)",
              .kernel = reinterpret_cast<const void*>(reverse_slides_shared),
              .block_threads = slides_reverse_threads,
              .dynamic_shared_bytes = slides_reverse_threads * sizeof(int)},
     .unsupported = int_index,
     .launch = launch_reverse_slides<true>,
     .drops_tail_of_awkward_n = true},
    {.info = {.name = "reverse_any_n",
              .idea = "out[n - 1 - i] = in[i] over a resident grid: any n, 64-bit; a warp still "
                      "writes one 128-byte line, descending",
              .kernel = reinterpret_cast<const void*>(reverse_any_n),
              .block_threads = stream_threads},
     .unsupported = any_n,
     .launch = launch_reverse_any_n},
    reverse_rung<Vector4, false>(
        {.name = "reverse_vector4",
         .idea = "16-byte int4 loads and stores, the four components swapped in registers, four "
                 "loads in flight per thread; element by element unless in and out line up"}),
    reverse_rung<Streaming, false>(variant_of("reverse_vector4", "reverse_vector4_cs", lever::cs)),
    reverse_rung<Vector4, true>(
        {.name = "reverse_vector4_shuffle",
         .idea = "16-byte accesses on both sides at every n: aligned input quads, each output "
                 "quad built from a lane's quad and its neighbour's (warp shuffles)"}),
    reverse_variant<st::Registers<256, 8>>("reverse_shuffle_x8", lever::x8),
    reverse_variant<st::Registers<256, 16>>("reverse_shuffle_x16", lever::x16),
    reverse_variant<st::Registers<128, 4>>("reverse_shuffle_128t", lever::t128),
    reverse_variant<st::Registers<512, 4>>("reverse_shuffle_512t", lever::t512),
    reverse_variant<st::Registers<1024, 4>>("reverse_shuffle_1024t", lever::t1024),
    reverse_variant<Chunk>("reverse_chunk_per_block", lever::chunk),
    reverse_variant<ChunkX8>("reverse_chunk_per_block_x8", lever::chunk_x8),
    reverse_variant<NoAllocate>("reverse_shuffle_no_allocate", lever::no_allocate),
    reverse_variant<EvictPolicy>("reverse_shuffle_evict_policy", lever::policy),
    reverse_variant<Prefetch>("reverse_shuffle_prefetch256", lever::prefetch),
    reverse_variant<Bulk16k>("reverse_bulk_16k", lever::bulk_16k),
    reverse_variant<Bulk8k>("reverse_bulk_8k", lever::bulk_8k),
    reverse_variant<Bulk32k>("reverse_bulk_32k", lever::bulk_32k),
    reverse_rung<Tile, true>({.name = "reverse_tile_per_block", .idea = lever::tile}),
    reverse_rung<Tile256, true>(
        variant_of("reverse_tile_per_block", "reverse_tile_per_block_256t", lever::tile_256t)),
    {.info = {.name = "reverse_copy",
              .idea = "cudaMemcpy device to device of the same bytes: the bound",
              .role = Role::reference},
     .unsupported = any_n,
     .launch = launch_reverse_copy,
     .is_copy = true},
};

// ================================================================================================
// Exercise 2: the sieve of Eratosthenes
// ================================================================================================

// The slides' naive kernel (Exercise 2 (2/4)): one block of sqrt(n) threads; thread idx > 1
// crosses off every multiple of idx, composite or not. Launched with floor(sqrt(n)) + 1 threads
// (the slides' sqrt(sieve_size) can stop one short of sqrt(n)) on a zeroed array (the slides'
// launch code leaves it as cudaMalloc returned it).
__global__ static void Sieve(int* sieve, int sieve_size) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx > 1) {
    for (int i = idx + idx; i < sieve_size; i += idx)
      sieve[i] = 1;
  }
}

const char* single_block_unsupported(std::uint64_t n) {
  if (ladder::detail::primes::isqrt(n) + 1 > 1024)
    return "one block of sqrt(n) threads: at most 1024 threads, so n < 1024^2";
  return nullptr;
}
void launch_single_block(const SievePlan& plan, void* out, std::uint64_t, unsigned long long*,
                         cudaStream_t s) {
  const int size = static_cast<int>(plan.n + 1);
  LADDER_CUDA(cudaMemsetAsync(out, 0, static_cast<std::size_t>(size) * sizeof(int), s));
  const int threads = static_cast<int>(ladder::detail::primes::isqrt(plan.n) + 1);
  Sieve<<<1, threads, 0, s>>>(static_cast<int*>(out), size);
}

// The slides' shared-memory kernel (Exercise 2 (3/4), (4/4)), fixed: each block sieves its own
// tile of the int array in shared memory; every thread is a knocker for k = 2 + threadIdx.x,
// 2 + threadIdx.x + blockDim.x, ... <= sqrt(n) (the slides take knockers from threadIdx.y, so
// knockers 0 and 1 and none above the block's height), starting at max(k^2, the first multiple
// in the tile) (the slides start at the first multiple, which crosses off k itself), with the tile
// offset from blockIdx.x (the slides multiply blockDim.x by itself) and a compile-time tile size.
constexpr int shared_tile = 4096;
constexpr int shared_threads = 256;

__global__ void sieve_shared_fixed(int* sieve, std::int64_t sieve_size, int root) {
  __shared__ int A[shared_tile];
  const std::int64_t offset = static_cast<std::int64_t>(blockIdx.x) * shared_tile;
  const int width = static_cast<int>(std::min<std::int64_t>(shared_tile, sieve_size - offset));
  for (int t = threadIdx.x; t < width; t += blockDim.x)
    A[t] = 0;
  __syncthreads();
  for (int knocker = 2 + threadIdx.x; knocker <= root; knocker += blockDim.x) {
    const std::int64_t k = knocker;
    std::int64_t start = (offset + k - 1) / k * k;
    start = std::max(start, k * k);
    for (std::int64_t jx = start; jx < offset + width; jx += k)
      A[jx - offset] = 1;
  }
  __syncthreads();
  for (int t = threadIdx.x; t < width; t += blockDim.x)
    sieve[offset + t] = A[t];
}

const char* flags_unsupported(std::uint64_t n) {
  if (n >= (1ull << 30))
    return "an int per number: n >= 2^30 would take 4 GiB and more";
  return nullptr;
}
void launch_shared_fixed(const SievePlan& plan, void* out, std::uint64_t, unsigned long long*,
                         cudaStream_t s) {
  const auto size = static_cast<std::int64_t>(plan.n + 1);
  const auto blocks = static_cast<unsigned>((size + shared_tile - 1) / shared_tile);
  sieve_shared_fixed<<<blocks, shared_threads, 0, s>>>(
      static_cast<int*>(out), size, static_cast<int>(ladder::detail::primes::isqrt(plan.n)));
}

// The segmented rungs: exercises/sieve.cuh in the shape each rung names.
namespace dp = ladder::detail::primes;

const char* segmented_unsupported(std::uint64_t n) {
  return n < 2 ? "n < 2: no odd number to sieve (pi(n) = 0)" : nullptr;
}
const char* primes_unsupported(std::uint64_t n) {
  if (n >= (1ull << 32))
    return "uint32 output: n < 2^32";
  return n < 2 ? "n < 2: no prime to write" : nullptr;
}

dp::SieveArgs args_for(const SievePlan& plan, bool presieve, std::uint32_t warp_limit) {
  dp::SieveArgs a;
  a.patterns = plan.table;
  a.primes = plan.table + plan.prime_word;
  a.prime_count = static_cast<std::uint32_t>(plan.host_primes.size());
  a.first_prime = presieve ? plan.first_pattern_free : 0;
  const auto limit_at = static_cast<std::uint32_t>(
      std::lower_bound(plan.host_primes.begin(), plan.host_primes.end(), warp_limit) -
      plan.host_primes.begin());
  a.warp_end = std::max(a.first_prime, limit_at);
  a.last_bit = (plan.n - 1) / 2;
  return a;
}

template <int Words, int Threads, bool Presieve, bool WarpSmall, std::uint32_t WarpLimit>
void launch_count(const SievePlan& plan, void* out, std::uint64_t, unsigned long long*,
                  cudaStream_t s) {
  auto* count = static_cast<unsigned long long*>(out);
  LADDER_CUDA(cudaMemsetAsync(count, 0, sizeof *count, s));
  dp::SieveArgs a = args_for(plan, Presieve, WarpSmall ? WarpLimit : 0);
  a.count = count;
  dp::launch_sieve<Words, Threads, Presieve, WarpSmall, dp::Output::count>(
      a, dp::segments_for(plan.n, 32u * Words), s);
}

// The library's shape (see exercises/api.cu): one thread per sieving prime, no warp-wide path.
constexpr int primes_words = 16384;
constexpr int primes_threads = 512;

void launch_primes(const SievePlan& plan, void* out, std::uint64_t capacity,
                   unsigned long long* scratch, cudaStream_t s) {
  const auto segments = dp::segments_for(plan.n, 32u * primes_words);
  LADDER_CUDA(cudaMemsetAsync(scratch, 0, segments * 8, s));
  dp::SieveArgs a = args_for(plan, true, 0);
  a.status = scratch;
  a.out = static_cast<std::uint32_t*>(out);
  a.capacity = capacity;
  dp::launch_sieve<primes_words, primes_threads, true, false, dp::Output::primes>(a, segments, s);
}

void launch_library_count(const SievePlan& plan, void* out, std::uint64_t, unsigned long long*,
                          cudaStream_t s) {
  const unsigned long long pi = ladder::count_primes(plan.n, s);
  LADDER_CUDA(cudaMemcpyAsync(out, &pi, sizeof pi, cudaMemcpyHostToDevice, s));
  LADDER_CUDA(cudaStreamSynchronize(s)); // `pi` is on this stack frame
}
void launch_library_generate(const SievePlan& plan, void* out, std::uint64_t capacity,
                             unsigned long long*, cudaStream_t s) {
  (void)ladder::generate_primes(plan.n, static_cast<std::uint32_t*>(out), capacity, s);
}

template <int Words, int Threads, bool Presieve, bool WarpSmall>
const void* count_kernel() {
  return dp::sieve_kernel_pointer<Words, Threads, Presieve, WarpSmall, dp::Output::count>();
}

#define LADDER_SIEVE_VARIANT(W, T, L)                                                             \
  SieveRung {                                                                                      \
    .info = {.name = "sieve_warp_small_primes_" #W "w_" #T "t_" #L,                                     \
             .idea = "tuning shape: segment words, threads, warp-wide primes below the limit",     \
             .role = Role::variant,                                                                \
             .variant_of = "sieve_warp_small_primes",                                                    \
             .params = {{{"words", W}, {"threads", T}, {"warp_limit", L}}},                        \
             .kernel = count_kernel<W, T, true, true>(),                                           \
             .block_threads = T,                                                                   \
             .dynamic_shared_bytes = 4 * W},                                                       \
    .output = SieveOutput::count, .unsupported = segmented_unsupported,                            \
    .launch = launch_count<W, T, true, true, L>                                                    \
  }

std::vector<SieveRung> make_sieve_rungs() {
  return {
      {.info = {.name = "sieve_slides_single_block",
                .idea = "one block of sqrt(n) threads, an int per number; thread k crosses off "
                        "every multiple of k, prime or not",
                .role = Role::seed,
                .course_row = "Exercise 2 (1): Sieve<<<1, sqrt(sieve_size)>>>",
                .kernel = reinterpret_cast<const void*>(Sieve),
                .block_threads = 1024},
       .output = SieveOutput::flags,
       .unsupported = single_block_unsupported,
       .launch = launch_single_block},
      {.info = {.name = "sieve_slides_shared_fixed",
                .idea = "the slides' \"almost correct\" shared-memory kernel, fixed: a 4096-int "
                        "tile per block, every thread a knocker from k^2",
                .role = Role::seed,
                .course_row = "Exercise 2 (2): the shared-memory Sieve, fixed",
                .params = {{{"tile_ints", shared_tile}, {"threads", shared_threads}}},
                .kernel = reinterpret_cast<const void*>(sieve_shared_fixed),
                .block_threads = shared_threads},
       .output = SieveOutput::flags,
       .unsupported = flags_unsupported,
       .launch = launch_shared_fixed},
      {.info = {.name = "sieve_segmented_bits",
                .idea = "odd numbers only, a bit each, 64 KiB segments in shared memory, crossed "
                        "off by the primes <= sqrt(n) only (one thread per prime, atomicOr), "
                        "counted by popcount",
                .params = {{{"words", 16384}, {"threads", 512}}},
                .kernel = count_kernel<16384, 512, false, false>(),
                .block_threads = 512,
                .dynamic_shared_bytes = 4 * 16384},
       .output = SieveOutput::count,
       .unsupported = segmented_unsupported,
       .launch = launch_count<16384, 512, false, false, 0>},
      {.info = {.name = "sieve_presieved",
                .idea = "each word starts as the OR of three periodic patterns that cross off "
                        "3..37: a third of the bits, no atomics",
                .params = {{{"words", 16384}, {"threads", 512}}},
                .kernel = count_kernel<16384, 512, true, false>(),
                .block_threads = 512,
                .dynamic_shared_bytes = 4 * 16384},
       .output = SieveOutput::count,
       .unsupported = segmented_unsupported,
       .launch = launch_count<16384, 512, true, false, 0>},
      {.info = {.name = "sieve_warp_small_primes",
                .idea = "primes below 2^14 crossed off by a whole warp each (one thread per "
                        "prime left the thread with p = 41 doing 12,800 of the block's hits)",
                .params = {{{"words", 16384}, {"threads", 512}, {"warp_limit", 1 << 14}}},
                .kernel = count_kernel<16384, 512, true, true>(),
                .block_threads = 512,
                .dynamic_shared_bytes = 4 * 16384},
       .output = SieveOutput::count,
       .unsupported = segmented_unsupported,
       .launch = launch_count<16384, 512, true, true, (1u << 14)>},
      LADDER_SIEVE_VARIANT(8192, 256, 16384),
      LADDER_SIEVE_VARIANT(8192, 512, 16384),
      LADDER_SIEVE_VARIANT(16384, 256, 16384),
      LADDER_SIEVE_VARIANT(16384, 1024, 16384),
      LADDER_SIEVE_VARIANT(16384, 512, 2048),
      LADDER_SIEVE_VARIANT(16384, 512, 65536),
      LADDER_SIEVE_VARIANT(24576, 512, 16384),
      LADDER_SIEVE_VARIANT(32768, 1024, 16384),
      {.info = {.name = "sieve_write_primes",
                .idea = "the same sieve writes the primes as uint32: each segment's offset from "
                        "a decoupled look-back over the segments' counts, one pass",
                .params = {{{"words", primes_words}, {"threads", primes_threads}}},
                .kernel = dp::sieve_kernel_pointer<primes_words, primes_threads, true, false,
                                                   dp::Output::primes>(),
                .block_threads = primes_threads,
                .dynamic_shared_bytes = 4 * primes_words},
       .output = SieveOutput::primes,
       .unsupported = primes_unsupported,
       .launch = launch_primes},
      {.info = {.name = "ladder::count_primes",
                .idea = "the library call: host prep, upload, sieve, result back (synchronizes)",
                .role = Role::library},
       .output = SieveOutput::count,
       .unsupported = nullptr,
       .launch = launch_library_count},
      {.info = {.name = "ladder::generate_primes",
                .idea = "the library call writing the primes (synchronizes)",
                .role = Role::library},
       .output = SieveOutput::primes,
       .unsupported = primes_unsupported,
       .launch = launch_library_generate},
      {.info = {.name = "primesieve_all_cores",
                .idea = "primesieve::count_primes on every host thread",
                .role = Role::reference,
                .vendor = true},
       .output = SieveOutput::host,
       .host_threads = 0},
      {.info = {.name = "primesieve_one_core",
                .idea = "primesieve::count_primes on one host thread",
                .role = Role::reference,
                .vendor = true},
       .output = SieveOutput::host,
       .host_threads = 1},
  };
}

const char* none(std::uint64_t) { return nullptr; }

} // namespace

std::span<const IncrementRung> increment_registry() { return increment_rungs; }
std::span<const AddRung> add_registry() { return add_rungs; }
std::span<const ReverseRung> reverse_registry() { return reverse_rungs; }

std::span<const SieveRung> sieve_registry() {
  static const std::vector<SieveRung> rungs = [] {
    auto r = make_sieve_rungs();
    for (auto& rung : r)
      if (!rung.unsupported)
        rung.unsupported = none;
    return r;
  }();
  return rungs;
}

std::uint64_t sieve_scratch_words(std::uint64_t n) {
  return n < 2 ? 1 : dp::segments_for(n, 32u * primes_words);
}

DivergenceProbe probe_add_divergence(const float* a, const float* b, float* c, std::int64_t n,
                                     int block_threads, cudaStream_t stream) {
  unsigned long long* counts = nullptr;
  LADDER_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&counts), 2 * sizeof *counts, stream));
  LADDER_CUDA(cudaMemsetAsync(counts, 0, 2 * sizeof *counts, stream));
  add_divergence_probe<<<blocks_for(n, block_threads), block_threads, 0, stream>>>(a, b, c, n,
                                                                                   counts);
  LADDER_CUDA(cudaGetLastError());
  unsigned long long host[2] = {};
  LADDER_CUDA(cudaMemcpyAsync(host, counts, sizeof host, cudaMemcpyDeviceToHost, stream));
  LADDER_CUDA(cudaFreeAsync(counts, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  return {static_cast<std::int64_t>(host[0]), static_cast<std::int64_t>(host[1])};
}

} // namespace ladder::lab::exercises
