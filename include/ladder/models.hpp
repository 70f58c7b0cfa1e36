// ladder/models.hpp: the course's back-of-the-envelope performance models as host-only C++.
//
// The course reasons with small models before they measure: theoretical bandwidth, the occupancy
// calculator, shared-memory bank conflicts, global-memory coalescing, control divergence and the
// bandwidth reduction of tiling. Each model here reproduces the course's figures (docs/models.md
// lists them with file and slide) and answers the same question for other inputs and for today's
// GPUs. Nothing here needs a GPU or CUDA headers: `ladder model <topic>` and the host tests run
// everywhere.
//
// Bad arguments throw std::invalid_argument whose message starts with the argument's name; so do
// arguments whose counts (warps, loads, addresses) would not fit in 64 bits.
#pragma once

#include "ladder/device.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::models {

// A read-only view of contiguous elements: the part of std::span the models' interface needs, so
// that this header compiles as C++17 too (one type for every standard, so every caller links).
template <class T> class View {
public:
  constexpr View() = default;
  constexpr View(const T* data, std::size_t size) : data_(data), size_(size) {}
  template <class Container, class = decltype(std::data(std::declval<const Container&>())),
            class = decltype(std::size(std::declval<const Container&>()))>
  constexpr View(const Container& c) : data_(std::data(c)), size_(std::size(c)) {}
  constexpr const T* data() const { return data_; }
  constexpr std::size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](std::size_t i) const { return data_[i]; }
  constexpr const T& front() const { return data_[0]; }
  constexpr const T& back() const { return data_[size_ - 1]; }

private:
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

// ================================================================================================
// GPU table
// ================================================================================================

// Compute capability 1.x allocates a block's registers in one piece; later GPUs allocate them
// per warp (and per SM sub-partition, see warp_allocation_granularity).
enum class RegisterGranularity { per_block, per_warp };

// What an SM of one compute capability can hold, with the allocation granularities the CUDA
// occupancy calculator uses. Values: the occupancy calculator's "GPU Data" sheet for 1.x, the
// CUDA programming guide's compute-capability table and cuda_occupancy.h (CUDA 13) for sm_70+.
struct ArchitectureLimits {
  std::string_view name;   // "sm_90"
  std::string_view family; // "Hopper"
  int compute_major = 0;
  int compute_minor = 0;
  int threads_per_warp = 32;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 0;
  int registers_per_sm = 0;
  int max_registers_per_block = 0;
  int max_registers_per_thread = 0;
  int register_allocation_unit = 0; // registers are handed out in multiples of this
  RegisterGranularity register_granularity = RegisterGranularity::per_warp;
  // 1.x: a block's warp count is rounded up to this before its registers are counted.
  // sm_70+: the number of SM sub-partitions; each holds a quarter of the register file and a warp
  // lives in one, so the register limit is computed per sub-partition.
  int warp_allocation_granularity = 0;
  std::int64_t shared_memory_per_sm = 0;    // the largest configuration (bytes)
  std::int64_t shared_memory_per_block = 0; // without opting in (bytes)
  std::int64_t shared_memory_per_block_optin = 0;
  std::int64_t reserved_shared_memory_per_block = 0; // taken by the driver (sm_80+: 1 KB)
  int shared_memory_allocation_unit = 0;
  // The shared-memory sizes an SM can be configured to (ascending). Empty: fixed size.
  View<std::int64_t> shared_memory_configurations;
  int shared_memory_banks = 32; // 4-byte banks

  int max_threads_per_sm() const { return max_warps_per_sm * threads_per_warp; }
};

// The DRAM interface. Theoretical bandwidth = clock x transfers per clock x bus width / 8.
struct MemoryInterface {
  double clock_mhz = 0;        // as the spec sheet (or the driver) states it
  int bus_width_bits = 0;      // e.g. 512 for the GTX 280
  int transfers_per_clock = 2; // 2 = double data rate; 1 when clock_mhz is already effective
};

// A named GPU: its architecture, SM count and memory interface.
struct GpuSpec {
  std::string_view key;          // "gtx280": what --gpu accepts
  std::string_view name;         // "GeForce GTX 280"
  std::string_view architecture; // "sm_13": a name in architectures()
  int multiprocessors = 0;
  MemoryInterface memory;
  std::string_view source; // where the numbers come from
};

View<ArchitectureLimits> architectures();
View<GpuSpec> gpus();

// Case-insensitive lookups; unknown names throw std::invalid_argument listing the known ones.
const ArchitectureLimits& find_architecture(std::string_view name); // "sm_13", "sm_90"
const GpuSpec& find_gpu(std::string_view key);                      // "g80", "gtx280"
const ArchitectureLimits& architecture_of(const GpuSpec& gpu);
// The table entry for a compute capability (1.0 .. 12.0); throws when it has none.
const ArchitectureLimits& architecture_for_compute_capability(int major, int minor);

// The fields of cudaDeviceProp the occupancy model needs. The caller fills them (with CUDA);
// a field left at 0 is taken from the table entry of the same compute capability.
struct DeviceProperties {
  int compute_major = 0;
  int compute_minor = 0;
  int warp_size = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int registers_per_block = 0;
  int registers_per_sm = 0;
  std::int64_t shared_memory_per_block = 0;
  std::int64_t shared_memory_per_sm = 0;
  std::int64_t shared_memory_per_block_optin = 0;
  std::int64_t reserved_shared_memory_per_block = -1; // -1: from the table (0 is a real value)
};

// Limits of a real device: its own properties, with the granularities of its architecture.
// A compute capability the table lacks borrows the granularities of the newest entry below it;
// its name is then "unknown" and its family says whose granularities it uses.
ArchitectureLimits architecture_from_device(const DeviceProperties& device);

// The fields above, from what ladder::current_device_info() read (cudaGetDeviceProperties): every
// limit the model uses then comes from the device; only the allocation granularities come from
// the table (architecture_from_device).
DeviceProperties device_properties(const DeviceInfo& info);

// ================================================================================================
// Bandwidth
// ================================================================================================

struct Bandwidth {
  double bytes_per_second = 0;
  double gb_per_second = 0;  // 1e9 bytes
  double gib_per_second = 0; // 2^30 bytes
};

// clock x transfers per clock x bus width / 8. The course: GTX 280 (1107 MHz, 512-bit, DDR)
// 141.7 GB/s = 131.9 GiB/s; G80 (384-bit, 1800 MHz effective) 86.4 GB/s.
Bandwidth theoretical_bandwidth(const MemoryInterface& memory);

// ================================================================================================
// Occupancy (the CUDA occupancy calculator)
// ================================================================================================

// What one block of a kernel asks for.
struct BlockResources {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  std::int64_t shared_memory_per_block = 0; // static + dynamic bytes
};

struct OccupancyOptions {
  // The preferred shared-memory carveout in percent of the largest configuration, as
  // cudaFuncAttributePreferredSharedMemoryCarveout takes it (sm_70+ only). Unset: the largest,
  // which is what the CUDA occupancy API assumes by default.
  std::optional<int> shared_memory_carveout_percent;
};

enum class OccupancyLimiter { warps, registers, shared_memory, blocks_per_sm };
std::string_view to_string(OccupancyLimiter limiter);

// A block limit that a resource does not impose (no registers, no shared memory on 1.x).
inline constexpr int unlimited_blocks = std::numeric_limits<int>::max();

struct OccupancyResult {
  // Allocation per block (what the hardware hands out, after rounding).
  int warps_per_block = 0;
  int registers_per_block = 0;
  std::int64_t shared_memory_per_block = 0; // with the driver's reserve, rounded
  std::int64_t shared_memory_per_sm = 0;    // the configuration the block runs with
  bool needs_shared_memory_opt_in = false;  // more than the default per-block limit
  // Maximum blocks per SM allowed by each resource (unlimited_blocks when it imposes none).
  int blocks_limited_by_warps = 0;
  int blocks_limited_by_registers = 0;
  int blocks_limited_by_shared_memory = 0;
  int blocks_limited_by_sm = 0;           // the hardware's resident-block limit
  std::vector<OccupancyLimiter> limiters; // every resource whose limit is the minimum
  // Result per SM. active_blocks_per_sm == 0: the block cannot launch (e.g. too many registers
  // for one block).
  int active_blocks_per_sm = 0;
  int active_warps_per_sm = 0;
  int active_threads_per_sm = 0;
  double occupancy = 0; // active warps / maximum warps, 0..1
};

// The occupancy calculator. Throws std::invalid_argument when an argument alone is outside what
// the architecture allows: threads_per_block < 1 or above the maximum, registers_per_thread < 0
// or above the maximum, shared_memory_per_block < 0 or above the opt-in maximum, a carveout
// outside 0..100 or on an architecture without one.
OccupancyResult occupancy(const ArchitectureLimits& arch, const BlockResources& block,
                          const OccupancyOptions& options = {});

enum class SweepVariable { threads_per_block, registers_per_thread, shared_memory_per_block };
std::string_view to_string(SweepVariable variable);

struct OccupancySweepPoint {
  BlockResources block;
  OccupancyResult result;
};

// The spreadsheet's three graphs: vary one resource over its whole range, the other two as in
// `base`. Default steps: threads by a warp, registers by 1, shared memory by the allocation unit
// (from 0). `step` overrides the step (> 0).
std::vector<OccupancySweepPoint> occupancy_sweep(const ArchitectureLimits& arch,
                                                 const BlockResources& base, SweepVariable variable,
                                                 const OccupancyOptions& options = {},
                                                 std::int64_t step = 0);

// ================================================================================================
// Shared-memory bank conflicts
// ================================================================================================

struct BankConflicts {
  int banks = 0;
  int threads_per_request = 0; // 16 (a half-warp, 1.x) or 32 (a warp)
  // Worst request: the most distinct words any bank must serve. 1 = conflict-free; an n-way
  // conflict costs n passes. Threads reading the same word share one pass (broadcast).
  int degree = 0;
  std::vector<int> degree_per_request;
  std::vector<int> words_per_bank; // distinct words per bank in the worst request
};

// word_addresses: one 4-byte word index per thread, in thread order; split into requests of
// threads_per_request threads (the last may be partial).
BankConflicts bank_conflicts(View<std::int64_t> word_addresses, int banks,
                             int threads_per_request);

// Thread t reads word offset + t * stride (throws when that overflows 64 bits).
std::vector<std::int64_t> strided_words(int threads, std::int64_t stride, std::int64_t offset = 0);

// A rows x cols tile of 4-byte words stored row-major with `padding` extra words per row (the
// course's tile[32][32 + 1]). A row walk gives consecutive threads consecutive columns (wrapping to
// the next row); a column walk gives them consecutive rows (wrapping to the next column),
// starting at (row, col).
struct TileWalk {
  enum class Direction { row, column };
  int rows = 0;
  int cols = 0;
  int padding = 0;
  Direction direction = Direction::row;
  int row = 0;
  int col = 0;
};
std::vector<std::int64_t> tile_words(const TileWalk& tile, int threads);

// ================================================================================================
// Global-memory coalescing
// ================================================================================================

enum class CoalescingRules {
  cc_1_0, // 1.0/1.1: per half-warp, thread k must access word k of an aligned segment
  cc_1_2, // 1.2/1.3: per half-warp, one transaction per segment touched, shrunk to the used half
  sectors // 2.0+ (L2): per warp, one 32-byte sector per sector touched
};
std::string_view to_string(CoalescingRules rules);

struct MemoryTransaction {
  std::int64_t address = 0; // aligned to its size
  int bytes = 0;
};

struct Coalescing {
  CoalescingRules rules = CoalescingRules::sectors;
  int threads_per_request = 0;                 // 16 or 32
  std::vector<MemoryTransaction> transactions; // in issue order
  std::int64_t bytes_requested = 0;            // active threads x element size
  // Distinct bytes the threads access: threads reading the same element share it.
  std::int64_t bytes_used = 0;
  std::int64_t bytes_transferred = 0; // sum of the transactions
  // Every active thread (more than one) reads the same element: one transaction's data serves
  // them all (e.g. stride 0).
  bool broadcast = false;
  // used / transferred, 0..1 (1 when nothing is requested). Not requested / transferred: a
  // broadcast requests the same bytes many times but moves them once.
  double efficiency = 0;
};

// One byte address per thread in thread order; std::nullopt = the thread does not access memory.
using ThreadAddress = std::optional<std::int64_t>;

// The largest byte address the model accepts: 2^62 - 1, far above any GPU's virtual address space
// (57 bits at most), and low enough that a transaction's end never overflows.
inline constexpr std::int64_t max_byte_address = (std::int64_t{1} << 62) - 1;

// element_bytes: 1, 2, 4, 8 or 16, and every address must be aligned to it and at most
// max_byte_address.
Coalescing coalescing(View<ThreadAddress> addresses, int element_bytes,
                      CoalescingRules rules);

// Thread t accesses base + t * stride_bytes (throws when that overflows 64 bits).
std::vector<ThreadAddress> strided_addresses(int threads, std::int64_t base,
                                             std::int64_t stride_bytes);

// ================================================================================================
// Control divergence
// ================================================================================================

struct DivergenceCount {
  std::int64_t total = 0;     // warps, or warp-phases
  std::int64_t divergent = 0; // of those, the ones whose threads take both paths
  double fraction() const {
    return total == 0 ? 0.0 : static_cast<double>(divergent) / static_cast<double>(total);
  }
};

// `if (i < n)` with i = blockIdx.x * block_size + threadIdx.x over ceil(n / block_size) blocks.
// Seed: n = 1000, 256-thread blocks -> 1 divergent warp of 32.
DivergenceCount boundary_check_divergence(std::int64_t n, int block_size, int warp_size = 32);

// Tile loading of the tiled matrix multiplication (width x width, tile x tile blocks):
//   M tile: if (Row < Width && p * TILE + tx < Width)
//   N tile: if (p * TILE + ty < Width && Col < Width)
// counted per warp-phase (one warp in one phase of the loop over tiles).
struct TiledMatmulDivergence {
  std::int64_t blocks = 0;
  std::int64_t phases = 0;
  std::int64_t warps_per_block = 0;
  DivergenceCount m_tile;       // all blocks
  DivergenceCount m_tile_type1; // blocks whose rows are all inside the matrix (the course's "Type 1")
  DivergenceCount m_tile_type2; // blocks with rows outside it (the course's "Type 2")
  DivergenceCount n_tile;
  DivergenceCount either; // a warp-phase divergent in the M or the N load
};
TiledMatmulDivergence tiled_matmul_divergence(std::int64_t width, int tile_width,
                                              int warp_size = 32);

// ================================================================================================
// Tiling: global-memory bandwidth reduction of tiled convolution
// ================================================================================================

// Internal tiles, ghost cells ignored (the course's tables):
//   1D: O * M / (O + M - 1)        2D: O^2 * M^2 / (O + M - 1)^2
double convolution_tiling_reduction_1d(int output_tile, int mask_width);
double convolution_tiling_reduction_2d(int output_tile, int mask_width);

// How many outputs of one tile use each element of its O + M - 1 input tile (seed, O = 8, M = 5:
// 1 2 3 4 5 5 5 5 4 3 2 1, which sums to O * M = 40).
std::vector<int> convolution_input_reuse_1d(int output_tile, int mask_width);

// Exact counts for a whole array, where edge tiles do not load ghost cells and the untiled kernel
// skips out-of-range taps: what the tables ignore.
struct TilingTraffic {
  std::int64_t untiled_loads = 0; // global loads of the basic kernel (in-range taps)
  std::int64_t tiled_loads = 0;   // global loads of the tiled kernel (in-range input tile elements)
  double reduction = 0;           // untiled / tiled
};
TilingTraffic convolution_tiling_traffic_1d(std::int64_t width, int output_tile, int mask_width);
TilingTraffic convolution_tiling_traffic_2d(std::int64_t width, std::int64_t height,
                                            int output_tile, int mask_width);

// ================================================================================================
// Matrix multiplication: global traffic and arithmetic intensity of each tiling level
// ================================================================================================

// C (m x n) = A (m x k) B (k x n), float. Loads count the elements each kernel requests from
// global memory (the boundary checks skip those past the edges), as the course counts them:
//   basic:          every output reads a row of A and a column of B: 2 m n k loads;
//   tiled (T):      each block loads every element of its T rows of A once per block column and
//                   of its T columns of B once per block row: m k ceil(n / T) + k n ceil(m / T);
//   coarse (T, C):  a block covers C tiles of a row, so A is loaded ceil(n / (T C)) times.
// Intensity = 2 m n k FLOPs / (4 B x (loads + m n stores)): PMPP's "4 FLOP/B" for 16 x 16 tiles.
struct MatmulTraffic {
  std::string_view kernel; // "basic", "tiled", "coarse"
  std::int64_t loads_a = 0, loads_b = 0, stores = 0; // elements
  double bytes = 0;
  double flops = 0;
  double intensity = 0; // FLOP per byte of global traffic
};
std::vector<MatmulTraffic> matmul_traffic(std::int64_t m, std::int64_t n, std::int64_t k, int tile,
                                          int coarse_factor);

} // namespace ladder::models
