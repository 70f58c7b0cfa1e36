// The reduction ladder, in the order of the course's table (Harris's seven kernels on a G80, 2^22
// ints, block size 128, as taught in "Optimizing CUDA code", Moreno Maza, UWO CS4402, and in the
// reduction slides of Hui Liu), then the rungs beyond them, the library call and CUB.
//
// Seed rungs keep the seeds' shape: one block of 128 threads reduces 128 (rungs 1-3) or 256
// (rungs 4-6) elements in shared memory and writes one partial; the same kernel is launched again
// on the partials until one value is left. Two changes against the printed code, both needed for
// correctness today: every global load is bounds-checked (so any n works, and the later levels,
// whose sizes are not multiples of the block, are safe), and the warp-synchronous last warp
// (rungs 5-7) separates each step's reads from its writes with __syncwarp() (see
// docs/reduction.md: without it the printed code is a data race since Volta).
#include "reduce/kernels.cuh"
#include "reduce/variants.hpp"

#include "core/resident_grid.hpp"

#include "core/harness.hpp"
#include "ladder/error.hpp"
#include "ladder/reduce.hpp"

#include <cub/device/device_reduce.cuh>

#include <array>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace ladder::lab::reduce {

namespace {

using reduce_detail::Finish;
using reduce_detail::LoadPolicy;
using reduce_detail::ScratchView;
using reduce_detail::Split;
using reduce_detail::Sum;

constexpr int B = seed_block;

template <class T> __device__ T* shared_array() {
  extern __shared__ __align__(16) unsigned char reduce_shared_bytes[];
  return reinterpret_cast<T*>(reduce_shared_bytes);
}

// --- 1: interleaved addressing with divergent branching -----------------------------------------
// H200, 2^28 int32 (bench/results/reduce-h200-2026-11-21.md): 2.259 ms, 475 GB/s; G80: 8.054 ms at
// 2^22. Thread tid adds its neighbour at distance s when tid is a multiple of 2s: at every level
// the active threads are spread over all warps, so every warp runs both sides of the branch, and
// `%` is a slow integer instruction.
template <class T> __global__ void interleaved_divergent_kernel(const T* in, T* out, unsigned n) {
  T* sdata = shared_array<T>();
  const Sum<T> op;
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] = op(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// --- 2: interleaved addressing, strided index (bank conflicts) ---------------------------------
// H200 2^28: 1.470 ms, 1.54x over rung 1 (G80 2.33x).
// The first threads of the block do the work (no divergence inside busy warps), but thread tid
// touches sdata[2 s tid]: at s = 1 lanes 0 and 16 hit the same bank, 2-way conflicts, growing
// with s.
template <class T> __global__ void interleaved_strided_kernel(const T* in, T* out, unsigned n) {
  T* sdata = shared_array<T>();
  const Sum<T> op;
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x)
      sdata[index] = op(sdata[index], sdata[index + s]);
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// --- 3: sequential addressing --------------------------------------------------------------------
// H200 2^28: 1.287 ms, 1.14x (G80 2.01x): Hopper's shared memory hides most of the conflicts.
// Halve the stride instead of doubling it: thread tid adds sdata[tid + s], consecutive lanes read
// consecutive words, no bank conflicts. Half the threads idle from the first step on.
template <class T> __device__ void tree_sequential(T* sdata, unsigned tid, unsigned down_to) {
  const Sum<T> op;
  for (unsigned s = blockDim.x / 2; s > down_to; s >>= 1) {
    if (tid < s)
      sdata[tid] = op(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
}

template <class T> __global__ void sequential_kernel(const T* in, T* out, unsigned n) {
  T* sdata = shared_array<T>();
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  tree_sequential(sdata, tid, 0);
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// --- 4: first add during global load -------------------------------------------------------------
// H200 2^28: 0.648 ms, 1.99x (G80 1.78x): half the blocks and barrier-bound trees.
// Each thread loads two elements a block apart and adds them: half the blocks, no idle first step.
template <class T> __device__ T load_two(const T* in, unsigned n, unsigned i, unsigned stride) {
  const Sum<T> op;
  const T a = i < n ? in[i] : T(0);
  const T b = i + stride < n ? in[i + stride] : T(0);
  return op(a, b);
}

template <class T> __global__ void first_add_kernel(const T* in, T* out, unsigned n) {
  T* sdata = shared_array<T>();
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = load_two(in, n, i, blockDim.x);
  __syncthreads();
  tree_sequential(sdata, tid, 0);
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// --- 5: unroll the last warp ---------------------------------------------------------------------
// H200 2^28: 0.646 ms, 1.00x (G80 1.80x): instruction issue is not Hopper's limit here.
// When s <= 32 only warp 0 works: drop the loop, the `tid < s` test and the block barrier for the
// last six steps. The seeds relied on lock-step warps; since Volta each lane may run ahead, so a
// lane could overwrite sdata[tid] before its neighbour read it. Each step therefore reads into a
// register, waits for the whole warp (__syncwarp), writes, and waits again; `volatile` keeps the
// compiler from holding sdata in registers across the steps.
template <class T, unsigned BlockSize = 64>
__device__ void warp_reduce_shared(volatile T* sdata, unsigned tid) {
  const Sum<T> op;
  T v = sdata[tid];
#pragma unroll
  for (unsigned s = 32; s > 0; s >>= 1) {
    if (BlockSize >= 2 * s) {
      v = op(v, sdata[tid + s]);
      __syncwarp();
      sdata[tid] = v;
      __syncwarp();
    }
  }
}

template <class T> __global__ void unroll_last_warp_kernel(const T* in, T* out, unsigned n) {
  T* sdata = shared_array<T>();
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = load_two(in, n, i, blockDim.x);
  __syncthreads();
  tree_sequential(sdata, tid, 32); // needs blockDim.x >= 64
  if (tid < 32)
    warp_reduce_shared(sdata, tid);
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// --- 6: completely unrolled ----------------------------------------------------------------------
// H200 2^28: 0.647 ms, 1.00x (G80 1.41x).
// The block size is a template parameter, so every `if (BlockSize >= ...)` and the loop vanish at
// compile time. A run-time block size is dispatched by the seeds' switch (here 64 to 1024).
template <class T, unsigned BlockSize> __device__ void tree_unrolled(T* sdata, unsigned tid) {
  const Sum<T> op;
  if (BlockSize >= 1024) {
    if (tid < 512)
      sdata[tid] = op(sdata[tid], sdata[tid + 512]);
    __syncthreads();
  }
  if (BlockSize >= 512) {
    if (tid < 256)
      sdata[tid] = op(sdata[tid], sdata[tid + 256]);
    __syncthreads();
  }
  if (BlockSize >= 256) {
    if (tid < 128)
      sdata[tid] = op(sdata[tid], sdata[tid + 128]);
    __syncthreads();
  }
  if (BlockSize >= 128) {
    if (tid < 64)
      sdata[tid] = op(sdata[tid], sdata[tid + 64]);
    __syncthreads();
  }
  if (tid < 32)
    warp_reduce_shared<T, BlockSize>(sdata, tid);
}

template <class T, unsigned BlockSize>
__global__ void complete_unroll_kernel(const T* in, T* out, unsigned n) {
  T* sdata = shared_array<T>();
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * (BlockSize * 2) + threadIdx.x;
  sdata[tid] = load_two(in, n, i, BlockSize);
  __syncthreads();
  tree_unrolled<T, BlockSize>(sdata, tid);
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// --- 7: multiple elements per thread (algorithm cascading) ---------------------------------------
// H200 2^28: 1.531 ms, 0.42x (G80 1.42x): 32,768 threads cannot keep enough bytes in flight.
// A fixed grid (256 blocks) and a grid-stride loop: each thread first adds many elements in a
// register (sequential, O(n/p) work with no barriers), then the block runs the unrolled tree once.
// Brent's theorem: O(n / log n) threads each doing O(log n) work is cost-optimal.
template <class T, unsigned BlockSize> __device__ T cascade_sum(const T* in, unsigned n) {
  const Sum<T> op;
  unsigned i = blockIdx.x * (BlockSize * 2) + threadIdx.x;
  const unsigned grid_size = BlockSize * 2 * gridDim.x;
  T sum = T(0);
  while (i < n) {
    sum = op(sum, in[i]);
    if (i + BlockSize < n)
      sum = op(sum, in[i + BlockSize]);
    i += grid_size;
  }
  return sum;
}

template <class T, unsigned BlockSize>
__global__ void cascade_kernel(const T* in, T* out, unsigned n) {
  T* sdata = shared_array<T>();
  const unsigned tid = threadIdx.x;
  sdata[tid] = cascade_sum<T, BlockSize>(in, n);
  __syncthreads();
  tree_unrolled<T, BlockSize>(sdata, tid);
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// --- 8 (beyond): warp shuffles for the last levels -----------------------------------------------
// H200 2^28: 1.531 ms, 1.00x: the tree was never the cost; the shuffle tree is reused below.
// Rung 7 with the in-block tree done by __shfl_down_sync: values move register to register, no
// shared-memory round trip, one barrier instead of one per level.
template <class T, unsigned BlockSize>
__global__ void cascade_shuffle_kernel(const T* in, T* out, unsigned n) {
  const T total =
      reduce_detail::block_reduce<BlockSize>(cascade_sum<T, BlockSize>(in, n), Sum<T>{});
  if (threadIdx.x == 0)
    out[blockIdx.x] = total;
}

// --- launchers -----------------------------------------------------------------------------------

template <class T> using SeedKernel = void (*)(const T*, T*, unsigned);

// The seeds' multi-launch driver: level after level on the partials, ping-ponging between the
// two halves of the scratch, until one block writes the result.
template <class T>
void launch_levels(SeedKernel<T> kernel, unsigned elements_per_block, unsigned max_blocks,
                   const T* in, std::int64_t n, T* out, void* scratch, cudaStream_t stream) {
  T* halves[2] = {static_cast<T*>(scratch), static_cast<T*>(scratch) + (n + B - 1) / B + 1};
  const T* src = in;
  std::int64_t m = n;
  for (int level = 0;; ++level) {
    std::int64_t blocks = (m + elements_per_block - 1) / elements_per_block;
    blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(blocks, max_blocks));
    T* dst = blocks == 1 ? out : halves[level % 2];
    const std::size_t shared = seed_shared_bytes<T>();
    kernel<<<static_cast<unsigned>(blocks), B, shared, stream>>>(src, dst,
                                                                 static_cast<unsigned>(m));
    check_launch("reduce seed kernel");
    if (blocks == 1)
      return;
    src = dst;
    m = blocks;
  }
}

template <class T, SeedKernel<T> (*Pick)(), unsigned PerBlock, unsigned MaxBlocks>
void launch_seed(const T* in, std::int64_t n, T* out, void* scratch, std::size_t,
                 cudaStream_t stream) {
  launch_levels<T>(Pick(), PerBlock, MaxBlocks, in, n, out, scratch, stream);
}

// The seeds' switch over block sizes, for the completely unrolled rungs.
#define LADDER_SEED_SWITCH(NAME, KERNEL)                                                           \
  template <class T> SeedKernel<T> NAME(unsigned threads) {                                        \
    switch (threads) {                                                                             \
    case 1024:                                                                                     \
      return KERNEL<T, 1024>;                                                                      \
    case 512:                                                                                      \
      return KERNEL<T, 512>;                                                                       \
    case 256:                                                                                      \
      return KERNEL<T, 256>;                                                                       \
    case 128:                                                                                      \
      return KERNEL<T, 128>;                                                                       \
    case 64:                                                                                       \
      return KERNEL<T, 64>;                                                                        \
    default:                                                                                       \
      throw std::invalid_argument("block size must be a power of two from 64 to 1024");            \
    }                                                                                              \
  }
LADDER_SEED_SWITCH(complete_unroll_for, complete_unroll_kernel)
LADDER_SEED_SWITCH(cascade_for, cascade_kernel)
LADDER_SEED_SWITCH(cascade_shuffle_for, cascade_shuffle_kernel)
#undef LADDER_SEED_SWITCH

template <class T> SeedKernel<T> pick_divergent() { return interleaved_divergent_kernel<T>; }
template <class T> SeedKernel<T> pick_strided() { return interleaved_strided_kernel<T>; }
template <class T> SeedKernel<T> pick_sequential() { return sequential_kernel<T>; }
template <class T> SeedKernel<T> pick_first_add() { return first_add_kernel<T>; }
template <class T> SeedKernel<T> pick_last_warp() { return unroll_last_warp_kernel<T>; }
template <class T> SeedKernel<T> pick_unrolled() { return complete_unroll_for<T>(B); }
template <class T> SeedKernel<T> pick_cascade() { return cascade_for<T>(B); }
template <class T> SeedKernel<T> pick_cascade_shuffle() { return cascade_shuffle_for<T>(B); }

// --- tiled rungs (src/reduce/kernels.cuh) --------------------------------------------------------
// H200 2^28 int32, step over the rung before: vector16 1.84x (16-byte loads), occupancy_grid
// 3.32x (fill every SM), loads_in_flight 1.03x, single_pass 1.01x (one launch; 1.30x at 2^22).
// single_pass and the rungs after it are variations of it (docs/reduction.md).

// The grid: the course's 256 blocks, or the resident blocks (occupancy API) x SMs; `balanced` then
// drops blocks that do not cut the number of rounds (reduce_detail::balanced_grid).
enum class Grid { seed_256, occupancy, balanced };

constexpr std::int64_t tiled_max_partials = 65536;
constexpr std::size_t tiled_header_bytes = 256;

template <class T, int Threads, int Unroll, LoadPolicy Load, Split Layout, Grid Rule, Finish End>
void launch_tiled(const T* in, std::int64_t n, T* out, void* scratch, std::size_t,
                  cudaStream_t stream) {
  using reduce_detail::tiled_reduce_kernel;
  static_assert(End != Finish::cluster, "one-cluster rungs launch through launch_cluster");
  constexpr auto first =
      tiled_reduce_kernel<T, Sum<T>, Threads, Unroll, Load, Layout, Finish::partials>;
  constexpr auto finish = tiled_reduce_kernel < T, Sum<T>, Threads, Unroll, Load, Layout,
                 End == Finish::partials ? Finish::last_block : End > ;
  constexpr bool one_pass = End != Finish::partials;
  const auto sized_by = reinterpret_cast<const void*>(one_pass ? finish : first);
  static core::PerDevice resident;
  std::int64_t max_blocks = Rule == Grid::seed_256
                                ? seed_cascade_blocks
                                : core::resident_blocks(resident, sized_by, Threads);
  max_blocks = std::min(max_blocks, tiled_max_partials);
  const std::int64_t grid = Rule == Grid::balanced
                                ? reduce_detail::balanced_grid<T>(n, Threads, Unroll, max_blocks)
                                : reduce_detail::tiled_grid<T>(n, Threads, Unroll, max_blocks);
  const ScratchView<T> view{static_cast<unsigned int*>(scratch),
                            reinterpret_cast<T*>(static_cast<char*>(scratch) + tiled_header_bytes)};
  if (one_pass || grid == 1) {
    finish<<<static_cast<unsigned>(grid), Threads, 0, stream>>>(in, n, out, view);
    check_launch("tiled_reduce_kernel (single pass)");
    return;
  }
  first<<<static_cast<unsigned>(grid), Threads, 0, stream>>>(in, n, out, view);
  check_launch("tiled_reduce_kernel (partials)");
  finish<<<1, Threads, 0, stream>>>(view.partials, grid, out, view);
  check_launch("tiled_reduce_kernel (finish)");
}

template <int Threads, int Unroll, LoadPolicy Load, Split Layout, Finish End>
const void* tiled_address() {
  return reinterpret_cast<const void*>(
      reduce_detail::tiled_reduce_kernel<int, Sum<int>, Threads, Unroll, Load, Layout, End>);
}

// The one-cluster rungs: as many blocks as one round of tiles needs, up to the largest cluster the
// device runs (16 on H100/H200), launched as one cluster; below sm_90 they report unsupported.
template <class T, int Threads, int Unroll> int cluster_blocks() {
  static const int capacity = reduce_detail::cluster_capacity(
      reduce_detail::tiled_reduce_kernel<T, Sum<T>, Threads, Unroll, LoadPolicy::ldg,
                                         Split::grid_stride, Finish::cluster>,
      Threads);
  return capacity;
}

template <class T, int Threads, int Unroll>
void launch_cluster(const T* in, std::int64_t n, T* out, void*, std::size_t, cudaStream_t stream) {
  const int capacity = cluster_blocks<T, Threads, Unroll>();
  if (capacity == 0)
    throw std::runtime_error(
        "one-cluster rung: this device runs no thread-block cluster (needs sm_90)");
  const std::int64_t blocks = reduce_detail::tiled_grid<T>(n, Threads, Unroll, capacity);
  LADDER_CUDA((reduce_detail::launch_one_cluster<T, Sum<T>, Threads, Unroll, LoadPolicy::ldg,
                                                 Split::grid_stride>(
      in, n, out, static_cast<unsigned>(blocks), stream)));
}

template <int Threads, int Unroll> const char* cluster_unsupported(std::int64_t) {
  return cluster_blocks<int, Threads, Unroll>() == 0 ? "needs thread-block clusters (sm_90)"
                                                     : nullptr;
}

// The ring rungs: a persistent grid (resident blocks with the ring's shared memory) of the ring
// kernel, one launch. Needs sm_90 (the bulk copy engine); unsupported elsewhere.
template <class T, int Threads, int ChunkBytes, int Stages>
void launch_ring(const T* in, std::int64_t n, T* out, void* scratch, std::size_t,
                 cudaStream_t stream) {
  constexpr auto kernel = reduce_detail::ring_reduce_kernel<T, Sum<T>, Threads, ChunkBytes, Stages>;
  constexpr std::size_t shared = reduce_detail::ring_shared_bytes<ChunkBytes, Stages>();
  static core::PerDevice resident;
  const std::int64_t grid =
      core::resident_blocks(resident, reinterpret_cast<const void*>(kernel), Threads, shared);
  const std::int64_t chunk_elements = ChunkBytes / static_cast<std::int64_t>(sizeof(T));
  const std::int64_t blocks =
      std::clamp<std::int64_t>((n + chunk_elements - 1) / chunk_elements, 1, grid);
  const ScratchView<T> view{static_cast<unsigned int*>(scratch),
                            reinterpret_cast<T*>(static_cast<char*>(scratch) + tiled_header_bytes)};
  kernel<<<static_cast<unsigned>(blocks), Threads, shared, stream>>>(in, n, out, view);
  check_launch("ring_reduce_kernel");
}

template <int Threads, int ChunkBytes, int Stages> const void* ring_address() {
  return reinterpret_cast<const void*>(
      reduce_detail::ring_reduce_kernel<int, Sum<int>, Threads, ChunkBytes, Stages>);
}

// --- library and reference rows ------------------------------------------------------------------

template <class T>
void launch_library(const T* in, std::int64_t n, T* out, void*, std::size_t, cudaStream_t stream) {
  ladder::reduce(in, n, Op::sum, out, stream);
}

template <class T>
void launch_cub(const T* in, std::int64_t n, T* out, void* scratch, std::size_t bytes,
                cudaStream_t stream) {
  std::size_t temp = bytes;
  LADDER_CUDA(cub::DeviceReduce::Sum(scratch, temp, in, out, n, stream));
}

template <class T> std::size_t cub_bytes(std::int64_t n) {
  std::size_t temp = 0;
  LADDER_CUDA(cub::DeviceReduce::Sum(nullptr, temp, static_cast<const T*>(nullptr),
                                     static_cast<T*>(nullptr), n, nullptr));
  return temp;
}

// --- registry helpers ----------------------------------------------------------------------------

const char* any_n(std::int64_t) { return nullptr; }

const char* seed_indices(std::int64_t n) {
  return n >= (std::int64_t{1} << 31) ? "seed rung: 32-bit indices, as in the seed" : nullptr;
}

std::size_t seed_scratch(std::int64_t n) {
  return static_cast<std::size_t>(2 * ((n + B - 1) / B + 1)) * 8 + 256;
}

std::size_t tiled_scratch(std::int64_t) {
  return tiled_header_bytes +
         static_cast<std::size_t>(tiled_max_partials) * 16; // flagged: 16 B a slot
}

std::size_t no_scratch(std::int64_t) { return 0; }

std::size_t cub_scratch(std::int64_t n) { return std::max(cub_bytes<int>(n), cub_bytes<float>(n)); }

// Seed 001's accounting: every level reads its input and writes one partial per block.
template <unsigned PerBlock, unsigned MaxBlocks> double levels_elements(std::int64_t n) {
  double total = 0;
  std::int64_t m = n;
  for (;;) {
    std::int64_t blocks =
        std::max<std::int64_t>(1, std::min<std::int64_t>((m + PerBlock - 1) / PerBlock, MaxBlocks));
    total += static_cast<double>(m + blocks);
    if (blocks == 1)
      return total;
    m = blocks;
  }
}

const void* address(SeedKernel<int> k) { return reinterpret_cast<const void*>(k); }

constexpr unsigned no_cap = 0x7fffffff;
constexpr unsigned cascade_per_block = 2 * B; // the grid stride loop covers the rest

} // namespace

std::span<const Rung> registry() {
  using L = LoadPolicy;
  using S = Split;
  using G = Grid;
  using F = Finish;
  static const std::array rungs = {
      Rung{.info = {.name = "interleaved_divergent",
                    .idea = "tid % (2s) picks the adding threads: divergent warps, slow modulo",
                    .role = Role::seed,
                    .course_row = "Kernel 1: interleaved addressing with divergent branching",
                    .params = {{{"threads", 128}}},
                    .kernel = address(interleaved_divergent_kernel<int>),
                    .block_threads = B,
                    .dynamic_shared_bytes = seed_shared_bytes<int>()},
           .unsupported = seed_indices,
           .scratch_bytes = seed_scratch,
           .launch_int = launch_seed<int, pick_divergent<int>, B, no_cap>,
           .launch_float = launch_seed<float, pick_divergent<float>, B, no_cap>,
           .all_levels_elements = levels_elements<B, no_cap>},
      Rung{.info =
               {.name = "interleaved_strided",
                .idea =
                    "index = 2 s tid: busy threads packed into warps, shared-memory bank conflicts",
                .role = Role::seed,
                .course_row = "Kernel 2: interleaved addressing with bank conflicts",
                .params = {{{"threads", 128}}},
                .kernel = address(interleaved_strided_kernel<int>),
                .block_threads = B,
                .dynamic_shared_bytes = seed_shared_bytes<int>()},
           .unsupported = seed_indices,
           .scratch_bytes = seed_scratch,
           .launch_int = launch_seed<int, pick_strided<int>, B, no_cap>,
           .launch_float = launch_seed<float, pick_strided<float>, B, no_cap>,
           .all_levels_elements = levels_elements<B, no_cap>},
      Rung{.info = {.name = "sequential",
                    .idea = "stride halves from blockDim/2: conflict-free, but half the threads "
                            "idle at once",
                    .role = Role::seed,
                    .course_row = "Kernel 3: sequential addressing",
                    .params = {{{"threads", 128}}},
                    .kernel = address(sequential_kernel<int>),
                    .block_threads = B,
                    .dynamic_shared_bytes = seed_shared_bytes<int>()},
           .unsupported = seed_indices,
           .scratch_bytes = seed_scratch,
           .launch_int = launch_seed<int, pick_sequential<int>, B, no_cap>,
           .launch_float = launch_seed<float, pick_sequential<float>, B, no_cap>,
           .all_levels_elements = levels_elements<B, no_cap>},
      Rung{.info = {.name = "first_add",
                    .idea = "each thread loads two elements and adds them: half the blocks, no "
                            "idle first step",
                    .role = Role::seed,
                    .course_row = "Kernel 4: first add during global load",
                    .params = {{{"threads", 128}}},
                    .kernel = address(first_add_kernel<int>),
                    .block_threads = B,
                    .dynamic_shared_bytes = seed_shared_bytes<int>()},
           .unsupported = seed_indices,
           .scratch_bytes = seed_scratch,
           .launch_int = launch_seed<int, pick_first_add<int>, 2 * B, no_cap>,
           .launch_float = launch_seed<float, pick_first_add<float>, 2 * B, no_cap>,
           .all_levels_elements = levels_elements<2 * B, no_cap>},
      Rung{
          .info = {.name = "unroll_last_warp",
                   .idea = "last 6 steps unrolled in warp 0 (volatile + __syncwarp, not lock-step)",
                   .role = Role::seed,
                   .course_row = "Kernel 5: unroll last warp",
                   .params = {{{"threads", 128}}},
                   .kernel = address(unroll_last_warp_kernel<int>),
                   .block_threads = B,
                   .dynamic_shared_bytes = seed_shared_bytes<int>()},
          .unsupported = seed_indices,
          .scratch_bytes = seed_scratch,
          .launch_int = launch_seed<int, pick_last_warp<int>, 2 * B, no_cap>,
          .launch_float = launch_seed<float, pick_last_warp<float>, 2 * B, no_cap>,
          .all_levels_elements = levels_elements<2 * B, no_cap>},
      Rung{.info =
               {.name = "complete_unroll",
                .idea =
                    "block size as a template parameter: the whole tree unrolled at compile time",
                .role = Role::seed,
                .course_row = "Kernel 6: completely unrolled",
                .params = {{{"threads", 128}}},
                .kernel = address(complete_unroll_kernel<int, B>),
                .block_threads = B,
                .dynamic_shared_bytes = seed_shared_bytes<int>()},
           .unsupported = seed_indices,
           .scratch_bytes = seed_scratch,
           .launch_int = launch_seed<int, pick_unrolled<int>, 2 * B, no_cap>,
           .launch_float = launch_seed<float, pick_unrolled<float>, 2 * B, no_cap>,
           .all_levels_elements = levels_elements<2 * B, no_cap>},
      Rung{.info = {.name = "cascade",
                    .idea = "256 blocks, grid-stride loop: many elements per thread before the "
                            "tree (Brent)",
                    .role = Role::seed,
                    .course_row = "Kernel 7: multiple elements per thread",
                    .params = {{{"threads", 128}}},
                    .kernel = address(cascade_kernel<int, B>),
                    .block_threads = B,
                    .dynamic_shared_bytes = seed_shared_bytes<int>()},
           .unsupported = seed_indices,
           .scratch_bytes = seed_scratch,
           .launch_int =
               launch_seed<int, pick_cascade<int>, cascade_per_block, seed_cascade_blocks>,
           .launch_float =
               launch_seed<float, pick_cascade<float>, cascade_per_block, seed_cascade_blocks>,
           .all_levels_elements = levels_elements<cascade_per_block, seed_cascade_blocks>},
      Rung{.info =
               {.name = "warp_shuffle",
                .idea =
                    "rung 7 with the in-block tree in registers (__shfl_down_sync), one barrier",
                .role = Role::beyond,
                .params = {{{"threads", 128}}},
                .kernel = address(cascade_shuffle_kernel<int, B>),
                .block_threads = B,
                .dynamic_shared_bytes = seed_shared_bytes<int>()},
           .unsupported = seed_indices,
           .scratch_bytes = seed_scratch,
           .launch_int =
               launch_seed<int, pick_cascade_shuffle<int>, cascade_per_block, seed_cascade_blocks>,
           .launch_float = launch_seed<float, pick_cascade_shuffle<float>, cascade_per_block,
                                       seed_cascade_blocks>,
           .all_levels_elements = levels_elements<cascade_per_block, seed_cascade_blocks>},
      Rung{
          .info = {.name = "vector16",
                   .idea = "16-byte loads (scalar head/tail: any alignment, any n), 64-bit indices",
                   .role = Role::beyond,
                   .params = {{{"threads", 128}, {"loads_per_thread", 1}}},
                   .kernel = tiled_address<B, 1, L::ldg, S::grid_stride, F::partials>(),
                   .block_threads = B},
          .unsupported = any_n,
          .scratch_bytes = tiled_scratch,
          .launch_int = launch_tiled<int, B, 1, L::ldg, S::grid_stride, G::seed_256, F::partials>,
          .launch_float =
              launch_tiled<float, B, 1, L::ldg, S::grid_stride, G::seed_256, F::partials>},
      Rung{.info = {.name = "occupancy_grid",
                    .idea = "grid = resident blocks per SM (occupancy API) x SMs instead of 256",
                    .role = Role::beyond,
                    .params = {{{"threads", 128}, {"loads_per_thread", 1}}},
                    .kernel = tiled_address<B, 1, L::ldg, S::grid_stride, F::partials>(),
                    .block_threads = B},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int = launch_tiled<int, B, 1, L::ldg, S::grid_stride, G::occupancy, F::partials>,
           .launch_float =
               launch_tiled<float, B, 1, L::ldg, S::grid_stride, G::occupancy, F::partials>},
      Rung{.info = {.name = "loads_in_flight",
                    .idea =
                        "256 threads, 4 independent 16-byte loads per thread before the first add",
                    .role = Role::beyond,
                    .params = {{{"threads", 256}, {"loads_per_thread", 4}}},
                    .kernel = tiled_address<256, 4, L::ldg, S::grid_stride, F::partials>(),
                    .block_threads = 256},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int =
               launch_tiled<int, 256, 4, L::ldg, S::grid_stride, G::occupancy, F::partials>,
           .launch_float =
               launch_tiled<float, 256, 4, L::ldg, S::grid_stride, G::occupancy, F::partials>},
      Rung{.info =
               {.name = "single_pass",
                .idea =
                    "last block done: the block that finishes last adds the partials; one launch",
                .role = Role::beyond,
                .params = {{{"threads", 256}, {"loads_per_thread", 4}}},
                .kernel = tiled_address<256, 4, L::ldg, S::grid_stride, F::last_block>(),
                .block_threads = 256},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int =
               launch_tiled<int, 256, 4, L::ldg, S::grid_stride, G::occupancy, F::last_block>,
           .launch_float =
               launch_tiled<float, 256, 4, L::ldg, S::grid_stride, G::occupancy, F::last_block>,
           .in_shape_sweep = true},
      Rung{
          .info = {.name = "single_pass_even_share",
                   .idea = "single_pass, but each block streams one contiguous range (CUB's split)",
                   .role = Role::variant,
                   .variant_of = "single_pass",
                   .params = {{{"threads", 256}, {"loads_per_thread", 4}}},
                   .kernel = tiled_address<256, 4, L::ldg, S::even_share, F::last_block>(),
                   .block_threads = 256},
          .unsupported = any_n,
          .scratch_bytes = tiled_scratch,
          .launch_int =
              launch_tiled<int, 256, 4, L::ldg, S::even_share, G::occupancy, F::last_block>,
          .launch_float =
              launch_tiled<float, 256, 4, L::ldg, S::even_share, G::occupancy, F::last_block>},
      Rung{
          .info = {.name = "single_pass_l2_256B",
                   .idea = "single_pass with loads that skip L1 and ask L2 for 256-byte blocks",
                   .role = Role::variant,
                   .variant_of = "single_pass",
                   .params = {{{"threads", 256}, {"loads_per_thread", 4}}},
                   .kernel = tiled_address<256, 4, L::l2_prefetch, S::grid_stride, F::last_block>(),
                   .block_threads = 256},
          .unsupported = any_n,
          .scratch_bytes = tiled_scratch,
          .launch_int = launch_tiled<int, 256, 4, L::l2_prefetch, S::grid_stride, G::occupancy,
                                     F::last_block>,
          .launch_float = launch_tiled<float, 256, 4, L::l2_prefetch, S::grid_stride, G::occupancy,
                                       F::last_block>},
      Rung{.info = {.name = "single_pass_unroll8",
                    .idea = "single_pass with 8 loads in flight per thread (more bytes per SM)",
                    .role = Role::variant,
                    .variant_of = "single_pass",
                    .params = {{{"threads", 256}, {"loads_per_thread", 8}}},
                    .kernel = tiled_address<256, 8, L::ldg, S::grid_stride, F::last_block>(),
                    .block_threads = 256},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int =
               launch_tiled<int, 256, 8, L::ldg, S::grid_stride, G::occupancy, F::last_block>,
           .launch_float =
               launch_tiled<float, 256, 8, L::ldg, S::grid_stride, G::occupancy, F::last_block>},
      Rung{.info = {.name = "single_pass_1024",
                    .idea =
                        "single_pass with 1024-thread blocks: 4x fewer partials and counter bumps",
                    .role = Role::variant,
                    .variant_of = "single_pass",
                    .params = {{{"threads", 1024}, {"loads_per_thread", 4}}},
                    .kernel = tiled_address<1024, 4, L::ldg, S::grid_stride, F::last_block>(),
                    .block_threads = 1024},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int =
               launch_tiled<int, 1024, 4, L::ldg, S::grid_stride, G::occupancy, F::last_block>,
           .launch_float =
               launch_tiled<float, 1024, 4, L::ldg, S::grid_stride, G::occupancy, F::last_block>,
           .in_shape_sweep = true},
      Rung{.info = {.name = "single_pass_1024_unroll8",
                    .idea = "single_pass_1024 with 8 loads in flight per thread",
                    .role = Role::variant,
                    .variant_of = "single_pass",
                    .params = {{{"threads", 1024}, {"loads_per_thread", 8}}},
                    .kernel = tiled_address<1024, 8, L::ldg, S::grid_stride, F::last_block>(),
                    .block_threads = 1024},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int =
               launch_tiled<int, 1024, 8, L::ldg, S::grid_stride, G::occupancy, F::last_block>,
           .launch_float =
               launch_tiled<float, 1024, 8, L::ldg, S::grid_stride, G::occupancy, F::last_block>},
      Rung{.info = {.name = "single_pass_512",
                    .idea = "single_pass with 512-thread blocks",
                    .role = Role::variant,
                    .variant_of = "single_pass",
                    .params = {{{"threads", 512}, {"loads_per_thread", 4}}},
                    .kernel = tiled_address<512, 4, L::ldg, S::grid_stride, F::last_block>(),
                    .block_threads = 512},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int =
               launch_tiled<int, 512, 4, L::ldg, S::grid_stride, G::occupancy, F::last_block>,
           .launch_float =
               launch_tiled<float, 512, 4, L::ldg, S::grid_stride, G::occupancy, F::last_block>},
      Rung{.info = {.name = "flagged_finish",
                    .idea = "single_pass, but each partial carries its own ready flag: no fence "
                            "before the counter",
                    .role = Role::variant,
                    .variant_of = "single_pass",
                    .params = {{{"threads", 256}, {"loads_per_thread", 4}}},
                    .kernel = tiled_address<256, 4, L::ldg, S::grid_stride, F::flagged>(),
                    .block_threads = 256},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int =
               launch_tiled<int, 256, 4, L::ldg, S::grid_stride, G::occupancy, F::flagged>,
           .launch_float =
               launch_tiled<float, 256, 4, L::ldg, S::grid_stride, G::occupancy, F::flagged>,
           .in_shape_sweep = true},
      Rung{.info = {.name = "polled_finish",
                    .idea = "the last block to start waits for the flagged partials: no counter "
                            "round trip after the loads",
                    .role = Role::beyond,
                    .params = {{{"threads", 256}, {"loads_per_thread", 4}}},
                    .kernel = tiled_address<256, 4, L::ldg, S::grid_stride, F::polled>(),
                    .block_threads = 256},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int = launch_tiled<int, 256, 4, L::ldg, S::grid_stride, G::occupancy, F::polled>,
           .launch_float =
               launch_tiled<float, 256, 4, L::ldg, S::grid_stride, G::occupancy, F::polled>,
           .in_shape_sweep = true},
      Rung{.info = {.name = "polled_finish_1024",
                    .idea = "polled_finish with 1024-thread blocks",
                    .role = Role::variant,
                    .variant_of = "polled_finish",
                    .params = {{{"threads", 1024}, {"loads_per_thread", 4}}},
                    .kernel = tiled_address<1024, 4, L::ldg, S::grid_stride, F::polled>(),
                    .block_threads = 1024},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int =
               launch_tiled<int, 1024, 4, L::ldg, S::grid_stride, G::occupancy, F::polled>,
           .launch_float =
               launch_tiled<float, 1024, 4, L::ldg, S::grid_stride, G::occupancy, F::polled>,
           .in_shape_sweep = true},
      Rung{.info = {.name = "one_cluster",
                    .idea = "one cluster of up to 16 1024-thread blocks; totals meet in block 0's "
                            "shared memory (no global round trip; the cluster launch costs more)",
                    .role = Role::variant,
                    .variant_of = "polled_finish",
                    .params = {{{"threads", 1024}, {"loads_per_thread", 4}}},
                    .kernel = tiled_address<1024, 4, L::ldg, S::grid_stride, F::cluster>(),
                    .block_threads = 1024},
           .unsupported = cluster_unsupported<1024, 4>,
           .scratch_bytes = no_scratch,
           .launch_int = launch_cluster<int, 1024, 4>,
           .launch_float = launch_cluster<float, 1024, 4>,
           .in_shape_sweep = true},
      Rung{.info = {.name = "ring_512_32k_x6",
                    .idea = "bulk copies through a ring of 6 32 KB chunks in shared memory; 512 "
                            "threads, 1 block per SM",
                    .role = Role::beyond,
                    .params = {{{"threads", 512}, {"chunk_bytes", 32768}, {"chunks", 6}}},
                    .kernel = ring_address<512, 32768, 6>(),
                    .block_threads = 512,
                    .dynamic_shared_bytes = reduce_detail::ring_shared_bytes<32768, 6>()},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int = launch_ring<int, 512, 32768, 6>,
           .launch_float = launch_ring<float, 512, 32768, 6>},
      Rung{.info = {.name = "ring_1024_16k_x12",
                    .idea = "the ring with 12 16 KB chunks, 1024 threads",
                    .role = Role::variant,
                    .variant_of = "ring_512_32k_x6",
                    .params = {{{"threads", 1024}, {"chunk_bytes", 16384}, {"chunks", 12}}},
                    .kernel = ring_address<1024, 16384, 12>(),
                    .block_threads = 1024,
                    .dynamic_shared_bytes = reduce_detail::ring_shared_bytes<16384, 12>()},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int = launch_ring<int, 1024, 16384, 12>,
           .launch_float = launch_ring<float, 1024, 16384, 12>},
      Rung{.info = {.name = "ring_256_16k_x6",
                    .idea = "the ring with 6 16 KB chunks per 256-thread block, 2 blocks per SM",
                    .role = Role::variant,
                    .variant_of = "ring_512_32k_x6",
                    .params = {{{"threads", 256}, {"chunk_bytes", 16384}, {"chunks", 6}}},
                    .kernel = ring_address<256, 16384, 6>(),
                    .block_threads = 256,
                    .dynamic_shared_bytes = reduce_detail::ring_shared_bytes<16384, 6>()},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int = launch_ring<int, 256, 16384, 6>,
           .launch_float = launch_ring<float, 256, 16384, 6>},
      Rung{.info = {.name = "single_pass_tile_stride",
                    .idea =
                        "blocks take whole 16 KiB tiles round robin; grid balanced to full rounds",
                    .role = Role::variant,
                    .variant_of = "single_pass",
                    .params = {{{"threads", 256}, {"loads_per_thread", 4}}},
                    .kernel = tiled_address<256, 4, L::ldg, S::tile_stride, F::last_block>(),
                    .block_threads = 256},
           .unsupported = any_n,
           .scratch_bytes = tiled_scratch,
           .launch_int =
               launch_tiled<int, 256, 4, L::ldg, S::tile_stride, G::balanced, F::last_block>,
           .launch_float =
               launch_tiled<float, 256, 4, L::ldg, S::tile_stride, G::balanced, F::last_block>},
      Rung{.info = {.name = "ladder::reduce",
                    .idea =
                        "the library call: single pass, per-stream scratch, any type/op/alignment",
                    .role = Role::library},
           .unsupported = any_n,
           .scratch_bytes = no_scratch,
           .launch_int = launch_library<int>,
           .launch_float = launch_library<float>},
      Rung{.info = {.name = "cub::DeviceReduce::Sum",
                    .idea = "CUB (CCCL) with its temporary storage allocated beforehand",
                    .role = Role::reference,
                    .vendor = true},
           .unsupported = any_n,
           .scratch_bytes = cub_scratch,
           .launch_int = launch_cub<int>,
           .launch_float = launch_cub<float>},
  };
  return rungs;
}

} // namespace ladder::lab::reduce
