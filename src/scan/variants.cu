// The scan ladder, in the order of the course's slides ("Optimizing CUDA code", Moreno Maza, UWO
// CS4402: "Parallel Scan", GeForce 8800 GTX), then the rungs beyond it, then the reference rows.
// Every rung computes the exclusive sum. Rung 1, the sequential CPU scan, lives in reference.cpp
// and is timed by the study on the host.
//
// Measured on an H200 (2026-11-21, bench/results/ladder-h200-2026-11-21-r5.md), int32 at 2^28:
// three_phase 859 GB/s (20% of the copy); lookback_v16 2664 (3.1x three_phase);
// lookback_v16_x32_spec 3089 (0.98x CUB 3144); lookback_staged 3190 (1.01x CUB);
// reduce_ahead_64k_s3_r2 3957, the best rung (1.26x CUB, 93% of the copy 4253); the library on
// that shape 3957.
#include "scan/lookback_scan.cuh"
#include "scan/reduce_ahead_scan.cuh"
#include "scan/variants.hpp"

#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "ladder/error.hpp"
#include "ladder/scan.hpp"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <array>
#include <cstdint>

namespace ladder::lab::scan {

namespace {

template <class T> __device__ __forceinline__ T* shared_array() {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  return reinterpret_cast<T*>(shared_bytes);
}

// --- rung 2: Hillis-Steele, one block -----------------------------------------------------------
// log2(n) steps, each adding the element `offset` places back: O(n log n) additions (not
// work-efficient), but every step is one fully parallel pass. Two shared-memory buffers, because
// a thread must not read an element that another thread of the same step has already updated.
// The seed's slide (GPU Gems 3, 39.2.1) writes `temp[pout*n+thid] += temp[pin*n+thid-offset]`,
// which adds to the stale value of two steps before: the known erratum. Here the sum is formed
// from the input buffer alone.
template <class T> __global__ void hillis_steele_kernel(const T* in, T* out, int n) {
  T* temp = shared_array<T>();
  const int thid = threadIdx.x;
  int pout = 0, pin = 1;
  temp[pout * n + thid] = thid > 0 ? in[thid - 1] : T(0); // exclusive: shift right by one
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (thid >= offset)
      temp[pout * n + thid] = temp[pin * n + thid] + temp[pin * n + thid - offset];
    else
      temp[pout * n + thid] = temp[pin * n + thid];
    __syncthreads();
  }
  out[thid] = temp[pout * n + thid];
}

// --- rungs 3 and 4: Blelloch up-sweep / down-sweep, one block ------------------------------------
// Work-efficient: 2(m - 1) additions for m elements in 2 log2(m) steps. Padded = rung 4: the tree
// walks addresses offset * (2 thid + 1) - 1, a stride that grows to 32 words and more, so a warp's
// accesses pile into a few of the 32 banks; inserting one word every 32 (i + i / 32) spreads them
// (the seed's CONFLICT_FREE_OFFSET, with 32 banks instead of the 8800 GTX's 16). m is n rounded up
// to a power of two; the extra elements are zero.
// Host and device: the launch sizes the shared memory with it. (A __device__-only function called
// from host code compiles, in a template, to a host stub that exits the process.)
template <bool Padded> __host__ __device__ constexpr int bank_index(int i) {
  return Padded ? i + (i >> 5) : i;
}

template <class T, bool Padded> __device__ void blelloch_in_shared(T* temp, int m, T* total) {
  const int thid = threadIdx.x;
  int offset = 1;
  for (int d = m >> 1; d > 0; d >>= 1) { // up-sweep: build sums in place up the tree
    __syncthreads();
    if (thid < d) {
      const int ai = offset * (2 * thid + 1) - 1, bi = offset * (2 * thid + 2) - 1;
      temp[bank_index<Padded>(bi)] += temp[bank_index<Padded>(ai)];
    }
    offset *= 2;
  }
  if (thid == 0) { // clear the last element (after keeping the block's total)
    if (total)
      *total = temp[bank_index<Padded>(m - 1)];
    temp[bank_index<Padded>(m - 1)] = T(0);
  }
  for (int d = 1; d < m; d *= 2) { // down-sweep: traverse down the tree, building the scan
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      const int ai = offset * (2 * thid + 1) - 1, bi = offset * (2 * thid + 2) - 1;
      const T t = temp[bank_index<Padded>(ai)];
      temp[bank_index<Padded>(ai)] = temp[bank_index<Padded>(bi)];
      temp[bank_index<Padded>(bi)] += t;
    }
  }
  __syncthreads();
}

template <class T, bool Padded> __global__ void blelloch_kernel(const T* in, T* out, int n, int m) {
  T* temp = shared_array<T>();
  const int thid = threadIdx.x;
  // The padded version loads thid and thid + m/2 (consecutive threads, consecutive banks), the
  // plain one 2 thid and 2 thid + 1, as in the seed.
  const int ai = Padded ? thid : 2 * thid, bi = Padded ? thid + m / 2 : 2 * thid + 1;
  temp[bank_index<Padded>(ai)] = ai < n ? in[ai] : T(0);
  temp[bank_index<Padded>(bi)] = bi < n ? in[bi] : T(0);
  blelloch_in_shared<T, Padded>(temp, m, nullptr);
  if (ai < n)
    out[ai] = temp[bank_index<Padded>(ai)];
  if (bi < n)
    out[bi] = temp[bank_index<Padded>(bi)];
}

int pow2_at_least(std::int64_t n) {
  int m = 2;
  while (m < n)
    m *= 2;
  return m;
}

const char* up_to_1024(std::int64_t n) {
  return n <= 1024 ? nullptr : "one thread block: n <= 1024 (one element per thread)";
}
const char* up_to_2048(std::int64_t n) {
  return n <= 2048 ? nullptr : "one thread block: n <= 2048 (two elements per thread)";
}
const char* any_size(std::int64_t) { return nullptr; }
const char* no_more_than_int_grid(std::int64_t n) {
  return n / 256 < (1ll << 31) - 1 ? nullptr : "more tiles than a grid can hold";
}

template <class T>
void launch_hillis_steele(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  const int threads = static_cast<int>(n);
  hillis_steele_kernel<T><<<1, threads, 2 * threads * sizeof(T), stream>>>(in, out, threads);
  check_launch("hillis_steele_kernel");
}

template <class T, bool Padded>
void launch_blelloch(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  const int m = pow2_at_least(n);
  const std::size_t shared = static_cast<std::size_t>(bank_index<Padded>(m - 1) + 1) * sizeof(T);
  blelloch_kernel<T, Padded><<<1, m / 2, shared, stream>>>(in, out, static_cast<int>(n), m);
  check_launch("blelloch_kernel");
}

// --- rung 5: any size in three phases (H200, 2^28: 859 GB/s, 20% of the copy) -------------------
// Scan each 2048-element block with rung 4 and write its total; scan the totals (recursively, the
// same three phases); add each block's scanned total to its elements. Reads the input and writes
// the output once in phase 1, then reads and writes the output again in phase 3: about 4n element
// moves plus the small recursive levels, and three launches per level.
constexpr int block_items = 2048;

template <class T>
__global__ void __launch_bounds__(block_items / 2)
    block_prescan_kernel(const T* in, T* out, std::int64_t n, T* block_sums) {
  __shared__ T temp[block_items + block_items / 32];
  const int thid = threadIdx.x;
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * block_items;
  const int ai = thid, bi = thid + block_items / 2;
  temp[bank_index<true>(ai)] = base + ai < n ? in[base + ai] : T(0);
  temp[bank_index<true>(bi)] = base + bi < n ? in[base + bi] : T(0);
  blelloch_in_shared<T, true>(temp, block_items, block_sums ? block_sums + blockIdx.x : nullptr);
  if (base + ai < n)
    out[base + ai] = temp[bank_index<true>(ai)];
  if (base + bi < n)
    out[base + bi] = temp[bank_index<true>(bi)];
}

template <class T>
__global__ void __launch_bounds__(block_items / 2)
    add_block_sums_kernel(T* out, std::int64_t n, const T* block_sums) {
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * block_items;
  const T add = block_sums[blockIdx.x];
  for (int i = threadIdx.x; i < block_items; i += blockDim.x)
    if (base + i < n)
      out[base + i] += add;
}

template <class T>
void launch_three_phase(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  const std::int64_t blocks = (n + block_items - 1) / block_items;
  if (blocks == 1) {
    block_prescan_kernel<T><<<1, block_items / 2, 0, stream>>>(in, out, n, nullptr);
    check_launch("block_prescan_kernel");
    return;
  }
  T* sums =
      static_cast<T*>(detail::scratch_alloc(static_cast<std::size_t>(blocks) * sizeof(T), stream));
  block_prescan_kernel<T>
      <<<static_cast<unsigned>(blocks), block_items / 2, 0, stream>>>(in, out, n, sums);
  check_launch("block_prescan_kernel");
  launch_three_phase<T>(sums, sums, blocks, stream); // in place: a block reads before it writes
  add_block_sums_kernel<T>
      <<<static_cast<unsigned>(blocks), block_items / 2, 0, stream>>>(out, n, sums);
  check_launch("add_block_sums_kernel");
  detail::scratch_free(sums, stream);
}

// --- rung 6: single pass with decoupled look-back (src/scan/lookback_scan.cuh) -------------------
// Reads n and writes n (rung 5 moves ~4n). H200, 2^28 int32, against lookback_v16 (2651 GB/s,
// bench/results/scan-h200-2026-11-21.md):
// 1 element per thread 0.18x (65536 x 4 more tiles on the chain), 4-byte loads 0.97x, 32 per
// thread 1.13x, 512 threads 1.04x, evict-first 1.03x, speculative first load 1.05x, 32 per thread
// + speculative 1.16x, the same with the aggregate published first 1.16x and with a back-off in
// the spin 1.16x (neither changes anything), the tile staged in shared memory by the bulk copy
// engine 1.20x (6 instead of 4 tiles per SM; the best), persistent + pipelined 0.60x (aggregates
// published late).
using scan_detail::TileShape;

template <class Shape> struct Lookback {
  template <class T> static void launch(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
    scan_detail::launch_lookback_scan<T, Shape, false>(in, out, n, stream);
  }
  static const void* kernel() {
    return scan_detail::lookback_kernel_address<std::int32_t, Shape, false>();
  }
};

using OneItem = TileShape<256, 1, 1>;
using Regs16 = TileShape<256, 1, 16>;
using V16 = TileShape<256, 4, 4>;
using V16x32 = TileShape<256, 4, 8>;
using V16T512 = TileShape<512, 4, 4>;
using V16T128x32 = TileShape<128, 4, 8>;
using V16Streaming = TileShape<256, 4, 4, true>;
using V16Speculative = TileShape<256, 4, 4, false, true>;
using V16x32Speculative = TileShape<256, 4, 8, false, true>;
using V16x32Early = TileShape<256, 4, 8, false, true, scan_detail::kernel_early>;
using V16x32EarlyBackoff = TileShape<256, 4, 8, false, true, scan_detail::kernel_early, true>;
using Staged = TileShape<256, 4, 8, false, true, scan_detail::kernel_staged>;
using StagedBackoff = TileShape<256, 4, 8, false, true, scan_detail::kernel_staged, true>;

template <class Shape> struct Pipelined {
  template <class T> static void launch(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
    scan_detail::launch_lookback_scan_pipelined<T, Shape, false>(in, out, n, stream);
  }
  static const void* kernel() {
    return scan_detail::pipelined_kernel_address<std::int32_t, Shape, false>();
  }
};

// --- beyond the look-back: reduce ahead (src/scan/reduce_ahead_scan.cuh) -----------------------
// Persistent blocks, a ring of Stages tiles in shared memory, each tile reduced Stages - 1 rows
// before it is scanned: no look-back chain to wait on.
using scan_detail::AheadShape;

template <class Ahead> struct ReduceAhead {
  template <class T> static void launch(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
    if (!scan_detail::launch_reduce_ahead_scan<T, Ahead, false>(in, out, n, stream))
      throw CudaError(cudaErrorCooperativeLaunchTooLarge, "reduce-ahead rung",
                      "this device cannot launch the grid cooperatively");
  }
  static const void* kernel() {
    return scan_detail::reduce_ahead_kernel_address<std::int32_t, Ahead, false>();
  }
  static constexpr std::int64_t tile = Ahead::template items<std::int32_t>;
};

// A reduce-ahead row of the registry: its launch shape and typed parameters from the shape.
template <class Ahead> Rung ahead_rung(RungInfo info) {
  info.params = {{{"tile_bytes", Ahead::threads * Ahead::accesses * 16},
                  {"stages", Ahead::stages},
                  {"rows_ahead", Ahead::ahead},
                  {"threads", Ahead::threads}}};
  info.kernel = ReduceAhead<Ahead>::kernel();
  info.block_threads = Ahead::threads;
  info.dynamic_shared_bytes = Ahead::template shared_bytes<std::int32_t>;
  return Rung{.info = info,
              .chain_tile = ReduceAhead<Ahead>::tile,
              .unsupported = any_size,
              .launch_i32 = ReduceAhead<Ahead>::template launch<std::int32_t>,
              .launch_f32 = ReduceAhead<Ahead>::template launch<float>};
}

using Ahead32s2r1 = AheadShape<256, 8, 2, 1>;
using Ahead32s3r2 = AheadShape<256, 8, 3, 2>;
using Ahead32s4r2 = AheadShape<256, 8, 4, 2>;
using Ahead24s4r2 = AheadShape<256, 6, 4, 2>;
using Ahead16s3r2 = AheadShape<256, 4, 3, 2>;
using Ahead16s4r3 = AheadShape<256, 4, 4, 3>;
using Ahead64s3r2 = AheadShape<512, 8, 3, 2>;
using Ahead48s4r2 = AheadShape<512, 6, 4, 2>;
using Ahead32s6r2T512 = AheadShape<512, 4, 6, 2>;
using Ahead64s3r2T1024 = AheadShape<1024, 4, 3, 2>;
using Ahead64s3r2Streaming = AheadShape<512, 8, 3, 2, true>;
using Ahead64s3r2VectorTail = AheadShape<512, 8, 3, 2, false, 0, true>;

template <class T> void launch_library(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  exclusive_scan(in, out, n, stream);
}

// --- references
// ------------------------------------------------------------------------------------ CUB with its
// temporary storage allocated once and kept (the way an application calls it in a loop), so the row
// times the scan alone; ladder's rows allocate and free theirs in every call.
template <class T> void launch_cub(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  static DeviceBuffer<std::uint8_t> temp;
  std::size_t bytes = 0;
  LADDER_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, stream));
  if (temp.bytes() < bytes) {
    LADDER_CUDA(cudaStreamSynchronize(stream));
    temp = DeviceBuffer<std::uint8_t>(bytes);
  }
  LADDER_CUDA(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, in, out, n, stream));
  check_launch("cub::DeviceScan::ExclusiveSum");
}

template <class T> void launch_memcpy(const T* in, T* out, std::int64_t n, cudaStream_t stream) {
  LADDER_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(n) * sizeof(T),
                              cudaMemcpyDeviceToDevice, stream));
}

template <class K> const void* address(K* kernel) { return reinterpret_cast<const void*>(kernel); }

// --- compaction
// ------------------------------------------------------------------------------------
struct Positive {
  __device__ bool operator()(std::int32_t x) const { return x > 0; }
};

void launch_compact(const std::int32_t* in, std::int32_t* out, std::int64_t n, std::int64_t* count,
                    cudaStream_t stream) {
  compact_async(in, out, n, Positive{}, count, stream);
}

// The look-back compaction (the library's path below 2^22 elements, under capture, and where a
// cooperative launch is not available), at any size.
void launch_compact_lookback(const std::int32_t* in, std::int32_t* out, std::int64_t n,
                             std::int64_t* count, cudaStream_t stream) {
  if (n == 0)
    return compact_async(in, out, n, Positive{}, count, stream);
  ladder::detail::compact_impl::launch<std::int32_t, 4>(in, out, n, Positive{}, count, stream);
}

// Reduce-ahead compaction shapes (threads, 16-byte accesses per thread, stages, rows ahead).
template <class Shape>
void launch_compact_ahead(const std::int32_t* in, std::int32_t* out, std::int64_t n,
                          std::int64_t* count, cudaStream_t stream) {
  if (n == 0)
    return compact_async(in, out, n, Positive{}, count, stream);
  if (!ladder::detail::compact_impl::launch_ahead<std::int32_t, Shape>(in, out, n, Positive{},
                                                                      count, stream))
    throw CudaError(cudaErrorCooperativeLaunchTooLarge, "reduce-ahead compaction rung",
                    "this device cannot launch the grid cooperatively");
}

template <class Shape> const void* compact_ahead_address() {
  return reinterpret_cast<const void*>(
      &ladder::detail::compact_impl::compact_ahead_kernel<std::int32_t, Shape, Positive>);
}

// write_out: 0 = scalar (each lane stores its kept elements one by one), 1 = staged (compacted in
// shared memory, written as aligned 16-byte stores), 2 = staged with evict-first stores.
using CompactWriteOut = ladder::detail::compact_impl::WriteOut;

template <int Threads, int Accesses, int Stages, int Ahead,
          CompactWriteOut Out = CompactWriteOut::staged>
CompactRung compact_ahead_variant(std::string_view name, std::string_view idea) {
  using Shape = ladder::detail::compact_impl::AheadShape<Threads, Accesses, Stages, Ahead, Out>;
  return CompactRung{.info = {.name = name,
                              .idea = idea,
                              .role = Role::variant,
                              .variant_of = "reduce_ahead_64k_s3_r2",
                              .params = {{{"threads", Threads},
                                          {"accesses", Accesses},
                                          {"stages", Stages},
                                          {"ahead", Ahead},
                                          {"write_out", static_cast<int>(Out)}}},
                              .kernel = compact_ahead_address<Shape>(),
                              .block_threads = Threads,
                              .dynamic_shared_bytes = Shape::template shared_bytes<std::int32_t>},
                     .launch = launch_compact_ahead<Shape>};
}

void launch_cub_select(const std::int32_t* in, std::int32_t* out, std::int64_t n,
                       std::int64_t* count, cudaStream_t stream) {
  static DeviceBuffer<std::uint8_t> temp;
  std::size_t bytes = 0;
  LADDER_CUDA(cub::DeviceSelect::If(nullptr, bytes, in, out, count, n, Positive{}, stream));
  if (temp.bytes() < bytes) {
    LADDER_CUDA(cudaStreamSynchronize(stream));
    temp = DeviceBuffer<std::uint8_t>(bytes);
  }
  LADDER_CUDA(cub::DeviceSelect::If(temp.data(), bytes, in, out, count, n, Positive{}, stream));
  check_launch("cub::DeviceSelect::If");
}

} // namespace

std::span<const Rung> registry() {
  static const std::array rungs = {
      Rung{.info = {.name = "cpu_scan",
                    .idea = "sequential loop on one CPU core: n - 1 additions, the reference",
                    .role = Role::seed,
                    .course_row = "sequential algorithm / CPU Scan column"},
           .on_cpu = true,
           .unsupported = any_size},
      Rung{.info = {.name = "hillis_steele",
                    .idea = "log2 n steps over a shared-memory double buffer: O(n log n) adds",
                    .role = Role::seed,
                    .course_row = "naive parallel algorithm (4/4)",
                    .kernel = address(hillis_steele_kernel<std::int32_t>),
                    .block_threads = 1024},
           .unsupported = up_to_1024,
           .launch_i32 = launch_hillis_steele<std::int32_t>,
           .launch_f32 = launch_hillis_steele<float>},
      Rung{.info = {.name = "blelloch",
                    .idea = "up-sweep / down-sweep tree in shared memory: O(n) adds",
                    .role = Role::seed,
                    .course_row = "work-efficient parallel algorithm (5/6, 6/6)",
                    .kernel = address(blelloch_kernel<std::int32_t, false>),
                    .block_threads = 1024},
           .unsupported = up_to_2048,
           .launch_i32 = launch_blelloch<std::int32_t, false>,
           .launch_f32 = launch_blelloch<float, false>},
      Rung{.info = {.name = "blelloch_padded",
                    .idea =
                        "one pad word every 32: the tree's strided accesses spread over the banks",
                    .role = Role::seed,
                    .course_row = "bank-conflict-free scan (performance slide)",
                    .kernel = address(blelloch_kernel<std::int32_t, true>),
                    .block_threads = 1024},
           .unsupported = up_to_2048,
           .launch_i32 = launch_blelloch<std::int32_t, true>,
           .launch_f32 = launch_blelloch<float, true>},
      Rung{
          .info = {.name = "three_phase",
                   .idea = "any n: scan 2048-element blocks, scan their sums recursively, add back",
                   .role = Role::beyond,
                   .params = {{{"threads", block_items / 2}, {"tile_items", block_items}}},
                   .kernel = address(block_prescan_kernel<std::int32_t>),
                   .block_threads = block_items / 2},
          .chain_tile = block_items,
          .unsupported = any_size,
          .launch_i32 = launch_three_phase<std::int32_t>,
          .launch_f32 = launch_three_phase<float>},
      Rung{.info =
               {.name = "lookback_1item",
                .idea =
                    "single pass, decoupled look-back; one element per thread (256-element tiles)",
                .role = Role::beyond,
                .params = {{{"threads", 256}, {"tile_items", OneItem::items}}},
                .kernel = Lookback<OneItem>::kernel(),
                .block_threads = 256},
           .chain_tile = OneItem::items,
           .unsupported = no_more_than_int_grid,
           .launch_i32 = Lookback<OneItem>::launch<std::int32_t>,
           .launch_f32 = Lookback<OneItem>::launch<float>},
      Rung{.info = {.name = "lookback_regs16",
                    .idea = "16 elements per thread in registers, coalesced 4-byte loads",
                    .role = Role::beyond,
                    .params = {{{"threads", 256}, {"tile_items", Regs16::items}}},
                    .kernel = Lookback<Regs16>::kernel(),
                    .block_threads = 256},
           .chain_tile = Regs16::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<Regs16>::launch<std::int32_t>,
           .launch_f32 = Lookback<Regs16>::launch<float>},
      Rung{.info = {.name = "lookback_v16",
                    .idea = "the same tile with 16-byte loads and stores (4 per thread)",
                    .role = Role::beyond,
                    .params = {{{"threads", 256}, {"tile_items", V16::items}}},
                    .kernel = Lookback<V16>::kernel(),
                    .block_threads = 256},
           .chain_tile = V16::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<V16>::launch<std::int32_t>,
           .launch_f32 = Lookback<V16>::launch<float>},
      Rung{.info = {.name = "lookback_v16_x32",
                    .idea = "32 elements per thread (8 16-byte loads in flight)",
                    .role = Role::beyond,
                    .params = {{{"threads", 256}, {"tile_items", V16x32::items}}},
                    .kernel = Lookback<V16x32>::kernel(),
                    .block_threads = 256},
           .chain_tile = V16x32::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<V16x32>::launch<std::int32_t>,
           .launch_f32 = Lookback<V16x32>::launch<float>},
      Rung{.info = {.name = "lookback_v16_t512",
                    .idea = "512-thread tiles of 8192 elements",
                    .role = Role::variant,
                    .variant_of = "lookback_v16",
                    .params = {{{"threads", 512}, {"tile_items", V16T512::items}}},
                    .kernel = Lookback<V16T512>::kernel(),
                    .block_threads = 512},
           .chain_tile = V16T512::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<V16T512>::launch<std::int32_t>,
           .launch_f32 = Lookback<V16T512>::launch<float>},
      Rung{.info = {.name = "lookback_v16_t128_x32",
                    .idea = "128-thread tiles, 32 elements per thread",
                    .role = Role::variant,
                    .variant_of = "lookback_v16_x32",
                    .params = {{{"threads", 128}, {"tile_items", V16T128x32::items}}},
                    .kernel = Lookback<V16T128x32>::kernel(),
                    .block_threads = 128},
           .chain_tile = V16T128x32::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<V16T128x32>::launch<std::int32_t>,
           .launch_f32 = Lookback<V16T128x32>::launch<float>},
      Rung{.info = {.name = "lookback_v16_cs",
                    .idea = "lookback_v16 with evict-first (streaming) loads and stores",
                    .role = Role::variant,
                    .variant_of = "lookback_v16",
                    .params = {{{"threads", 256}, {"tile_items", V16Streaming::items}}},
                    .kernel = Lookback<V16Streaming>::kernel(),
                    .block_threads = 256},
           .chain_tile = V16Streaming::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<V16Streaming>::launch<std::int32_t>,
           .launch_f32 = Lookback<V16Streaming>::launch<float>},
      Rung{.info = {.name = "lookback_v16_spec",
                    .idea = "lookback_v16 loading tile blockIdx while the tile counter answers",
                    .role = Role::variant,
                    .variant_of = "lookback_v16_x32_spec",
                    .params = {{{"threads", 256}, {"tile_items", V16Speculative::items}}},
                    .kernel = Lookback<V16Speculative>::kernel(),
                    .block_threads = 256},
           .chain_tile = V16Speculative::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<V16Speculative>::launch<std::int32_t>,
           .launch_f32 = Lookback<V16Speculative>::launch<float>},
      Rung{.info = {.name = "lookback_v16_x32_spec",
                    .idea = "the same with 32 elements per thread",
                    .role = Role::beyond,
                    .params = {{{"threads", 256}, {"tile_items", V16x32Speculative::items}}},
                    .kernel = Lookback<V16x32Speculative>::kernel(),
                    .block_threads = 256},
           .chain_tile = V16x32Speculative::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<V16x32Speculative>::launch<std::int32_t>,
           .launch_f32 = Lookback<V16x32Speculative>::launch<float>},
      Rung{.info = {.name = "lookback_v16_x32_early",
                    .idea = "x32_spec, the aggregate published before the per-access scans",
                    .role = Role::variant,
                    .variant_of = "lookback_v16_x32_spec",
                    .params = {{{"threads", 256}, {"tile_items", V16x32Early::items}}},
                    .kernel = Lookback<V16x32Early>::kernel(),
                    .block_threads = 256},
           .chain_tile = V16x32Early::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<V16x32Early>::launch<std::int32_t>,
           .launch_f32 = Lookback<V16x32Early>::launch<float>},
      Rung{.info = {.name = "lookback_v16_x32_early_bo",
                    .idea = "x32_early with a back-off (nanosleep) in the look-back spin",
                    .role = Role::variant,
                    .variant_of = "lookback_v16_x32_spec",
                    .params = {{{"threads", 256}, {"tile_items", V16x32EarlyBackoff::items}}},
                    .kernel = Lookback<V16x32EarlyBackoff>::kernel(),
                    .block_threads = 256},
           .chain_tile = V16x32EarlyBackoff::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<V16x32EarlyBackoff>::launch<std::int32_t>,
           .launch_f32 = Lookback<V16x32EarlyBackoff>::launch<float>},
      Rung{.info = {.name = "lookback_staged",
                    .idea =
                        "the 8192-element tile in shared memory via one bulk copy; few registers",
                    .role = Role::beyond,
                    .params = {{{"threads", 256}, {"tile_items", Staged::items}}},
                    .kernel = Lookback<Staged>::kernel(),
                    .block_threads = 256,
                    .dynamic_shared_bytes =
                        scan_detail::staged_shared_bytes<std::int32_t, Staged>()},
           .chain_tile = Staged::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<Staged>::launch<std::int32_t>,
           .launch_f32 = Lookback<Staged>::launch<float>},
      Rung{.info = {.name = "lookback_staged_bo",
                    .idea = "lookback_staged with the look-back back-off",
                    .role = Role::variant,
                    .variant_of = "lookback_staged",
                    .params = {{{"threads", 256}, {"tile_items", StagedBackoff::items}}},
                    .kernel = Lookback<StagedBackoff>::kernel(),
                    .block_threads = 256,
                    .dynamic_shared_bytes =
                        scan_detail::staged_shared_bytes<std::int32_t, StagedBackoff>()},
           .chain_tile = StagedBackoff::items,
           .unsupported = any_size,
           .launch_i32 = Lookback<StagedBackoff>::launch<std::int32_t>,
           .launch_f32 = Lookback<StagedBackoff>::launch<float>},
      Rung{.info = {.name = "lookback_v16_pipelined",
                    .idea = "persistent blocks: the next tile's loads fly during the look-back",
                    .role = Role::variant,
                    .variant_of = "lookback_v16",
                    .params = {{{"threads", 256}, {"tile_items", V16::items}}},
                    .kernel = Pipelined<V16>::kernel(),
                    .block_threads = 256},
           .chain_tile = V16::items,
           .unsupported = any_size,
           .launch_i32 = Pipelined<V16>::launch<std::int32_t>,
           .launch_f32 = Pipelined<V16>::launch<float>},
      ahead_rung<Ahead32s2r1>({.name = "reduce_ahead_32k_s2_r1",
                               .idea =
                                   "persistent: a ring of 2 32 KB tiles in shared memory; tile k+1 "
                                   "reduced right after k is scanned",
                               .role = Role::variant,
                               .variant_of = "reduce_ahead_64k_s3_r2"}),
      ahead_rung<Ahead32s3r2>(
          {.name = "reduce_ahead_32k_s3_r2",
           .idea = "3 tiles: aggregates published 2 rows ahead (one row of slack)",
           .role = Role::variant,
           .variant_of = "reduce_ahead_64k_s3_r2"}),
      ahead_rung<Ahead16s3r2>({.name = "reduce_ahead_16k_s3_r2",
                               .idea = "16 KB tiles, 3 per block, 2 ahead",
                               .role = Role::variant,
                               .variant_of = "reduce_ahead_64k_s3_r2"}),
      ahead_rung<Ahead16s4r3>({.name = "reduce_ahead_16k_s4_r3",
                               .idea = "16 KB tiles, 4 per block, 3 ahead",
                               .role = Role::variant,
                               .variant_of = "reduce_ahead_64k_s3_r2"}),
      ahead_rung<Ahead24s4r2>(
          {.name = "reduce_ahead_24k_s4_r2",
           .idea = "24 KB tiles, 4 per block, 2 ahead: 2 copies in flight, 2 blocks per SM",
           .role = Role::variant,
           .variant_of = "reduce_ahead_64k_s3_r2"}),
      ahead_rung<Ahead32s4r2>(
          {.name = "reduce_ahead_32k_s4_r2",
           .idea = "32 KB tiles, 4 per block, 2 ahead: 1 block of 256 threads per SM",
           .role = Role::variant,
           .variant_of = "reduce_ahead_64k_s3_r2"}),
      ahead_rung<Ahead64s3r2>(
          {.name = "reduce_ahead_64k_s3_r2",
           .idea = "512 threads, 64 KB tiles, 3 per block, 2 ahead (1 block per SM)",
           .role = Role::beyond}),
      ahead_rung<Ahead64s3r2Streaming>({.name = "reduce_ahead_64k_s3_r2_cs",
                                        .idea = "reduce_ahead_64k_s3_r2 with evict-first stores",
                                        .role = Role::variant,
                                        .variant_of = "reduce_ahead_64k_s3_r2"}),
      ahead_rung<Ahead64s3r2VectorTail>(
          {.name = "reduce_ahead_64k_s3_r2_vector_tail",
           .idea = "reduce_ahead_64k_s3_r2 with the last, partial tile read 16 bytes at a "
                   "time, every load issued before any lands (time it at an n that is "
                   "not a multiple of 16384)",
           .role = Role::variant,
           .variant_of = "reduce_ahead_64k_s3_r2"}),
      ahead_rung<Ahead48s4r2>(
          {.name = "reduce_ahead_48k_s4_r2",
           .idea = "512 threads, 48 KB tiles, 4 per block, 2 ahead: 2 copies in flight",
           .role = Role::variant,
           .variant_of = "reduce_ahead_64k_s3_r2"}),
      ahead_rung<Ahead32s6r2T512>(
          {.name = "reduce_ahead_32k_s6_r2_t512",
           .idea = "512 threads, 32 KB tiles, 6 per block, 2 ahead: 4 copies in flight",
           .role = Role::variant,
           .variant_of = "reduce_ahead_64k_s3_r2"}),
      ahead_rung<Ahead64s3r2T1024>({.name = "reduce_ahead_64k_s3_r2_t1024",
                                    .idea = "1024 threads, 64 KB tiles, 3 per block, 2 ahead",
                                    .role = Role::variant,
                                    .variant_of = "reduce_ahead_64k_s3_r2"}),
      Rung{.info = {.name = "ladder::exclusive_scan",
                    .idea = "the library call: checks, any alignment, scratch per call",
                    .role = Role::library},
           .chain_tile = scan_detail::LibraryShape<std::int32_t>::items,
           .unsupported = any_size,
           .launch_i32 = launch_library<std::int32_t>,
           .launch_f32 = launch_library<float>},
      Rung{.info = {.name = "cub::DeviceScan::ExclusiveSum",
                    .idea = "CUB's single-pass scan (temporary storage kept)",
                    .role = Role::reference,
                    .vendor = true},
           .chain_tile = 128,
           .unsupported = any_size,
           .launch_i32 = launch_cub<std::int32_t>,
           .launch_f32 = launch_cub<float>},
      Rung{.info = {.name = "cudaMemcpy",
                    .idea = "device-to-device copy of the same bytes: the ceiling for a scan",
                    .role = Role::reference},
           .computes_scan = false,
           .unsupported = any_size,
           .launch_i32 = launch_memcpy<std::int32_t>,
           .launch_f32 = launch_memcpy<float>},
  };
  return rungs;
}

std::span<const CompactRung> compact_registry() {
  static const std::array rungs = {
      CompactRung{.info = {.name = "compact_lookback_v16",
                           .idea = "flags, warp-shuffle scan and decoupled look-back in one pass",
                           .role = Role::variant,
                           .variant_of = "lookback_v16"},
                  .launch = launch_compact_lookback},
      // The scalar write-out (each lane stores its kept elements one by one), H200 2^28 int32:
      // 32k_s3_r2 675.5 us, the library's 64k_s3_r2 685.5 us, CUB 599.5 us.
      compact_ahead_variant<256, 8, 3, 2, CompactWriteOut::scalar>(
          "compact_ahead_32k_s3_r2", "reduce-ahead compaction, 32 KB tiles, 256 threads"),
      compact_ahead_variant<256, 4, 4, 2, CompactWriteOut::scalar>(
          "compact_ahead_16k_s4_r2", "reduce-ahead compaction, 16 KB tiles, 4 stages"),
      compact_ahead_variant<512, 4, 6, 2, CompactWriteOut::scalar>(
          "compact_ahead_32k_s6_r2_t512", "reduce-ahead compaction, 32 KB tiles, 6 stages"),
      compact_ahead_variant<512, 8, 3, 2, CompactWriteOut::scalar>(
          "compact_ahead_64k_s3_r2", "reduce-ahead compaction, the former library shape"),
      compact_ahead_variant<512, 8, 3, 1, CompactWriteOut::scalar>(
          "compact_ahead_64k_s3_r1", "reduce-ahead compaction, counted one row ahead"),
      compact_ahead_variant<1024, 4, 3, 2, CompactWriteOut::scalar>(
          "compact_ahead_64k_s3_r2_t1024", "reduce-ahead compaction, 1024 threads"),
      // Staged write-out: the count pass compacts the tile in shared memory, the write pass
      // stores the run as aligned 16-byte vectors.
      compact_ahead_variant<512, 8, 3, 2>("compact_staged_64k_s3_r2",
                                          "staged in shared memory, 16-byte stores; library shape"),
      compact_ahead_variant<512, 8, 3, 1>("compact_staged_64k_s3_r1",
                                          "staged, 64 KB tiles counted one row ahead"),
      compact_ahead_variant<512, 6, 4, 2>("compact_staged_48k_s4_r2",
                                          "staged, 48 KB tiles, 4 stages"),
      compact_ahead_variant<512, 4, 6, 2>("compact_staged_32k_s6_r2_t512",
                                          "staged, 32 KB tiles of 512 threads, 6 stages"),
      compact_ahead_variant<512, 4, 4, 2>("compact_staged_32k_s4_r2_t512",
                                          "staged, 32 KB tiles of 512 threads, 4 stages"),
      compact_ahead_variant<256, 8, 3, 2>("compact_staged_32k_s3_r2",
                                          "staged, 32 KB tiles of 256 threads, 2 blocks per SM"),
      compact_ahead_variant<256, 8, 4, 2>("compact_staged_32k_s4_r2",
                                          "staged, 32 KB tiles of 256 threads, 4 stages"),
      compact_ahead_variant<256, 8, 3, 1>("compact_staged_32k_s3_r1",
                                          "staged, 32 KB tiles of 256 threads, one row ahead"),
      compact_ahead_variant<256, 4, 4, 2>("compact_staged_16k_s4_r2",
                                          "staged, 16 KB tiles of 256 threads, 3 blocks per SM"),
      compact_ahead_variant<1024, 4, 3, 2>("compact_staged_64k_s3_r2_t1024",
                                           "staged, 64 KB tiles of 1024 threads"),
      compact_ahead_variant<512, 8, 3, 2, CompactWriteOut::staged_streaming>(
          "compact_staged_cs_64k_s3_r2", "staged, evict-first (st.global.cs) 16-byte stores"),
      compact_ahead_variant<256, 8, 3, 2, CompactWriteOut::staged_streaming>(
          "compact_staged_cs_32k_s3_r2", "staged, evict-first stores, 32 KB tiles"),
      CompactRung{
          .info = {.name = "ladder::compact",
                   .idea = "tiles counted and compacted in shared memory two rows ahead "
                           "(reduce-ahead), written as 16-byte stores; count on the device",
                   .role = Role::library},
          .launch = launch_compact},
      CompactRung{.info = {.name = "cub::DeviceSelect::If",
                           .idea = "CUB's single-pass select (temporary storage kept)",
                           .role = Role::reference,
                           .vendor = true},
                  .launch = launch_cub_select},
  };
  return rungs;
}

} // namespace ladder::lab::scan
