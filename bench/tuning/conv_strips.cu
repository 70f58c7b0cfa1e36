// Float 2D convolution streamed down strips, the access shapes around it, and the relaxations of
// the 7 x 7 case: the float 7 x 7 lead of docs/convolution.md ("Streamed strips", "What 7 x 7
// costs", "Walked tiles"). One tool, thirty-four tables, each on an 8192^2 float image against cudaMemcpy of the
// same bytes, every convolution checked against a CPU reference (zero border) before it is timed
// (bit for bit, except where a table says otherwise):
//
// - copy:  a plain copy walked down strips of S rows by blocks of 1024 columns;
// - bands: strip_conv (below) with resident blocks walking short strips in bands of the image;
// - ring:  strip_conv below, a ring of rows filled by the bulk copy engine (a producer warp, CW
//          consumer warps with MW open output rows of 4 PX pixels as rolling sums), beside the
//          library's wide tile and the lab's rung (convolution/strip.cuh);
// - warp:  warp_strip_conv, each warp its own ring of rows filled by cp.async;
// - occupancy: strip heights that give every SM 2, 3 or 4 whole blocks;
// - borders: the rung and the wide tile under each border policy, timed (small: checked on small
//          images, for compute-sanitizer);
// - ahead: the wide tile asking L2 for the rows of the tiles a few grid rows below;
// - zigzag: a copy in the strips' shape with their halo, long or in bands, and the odd strip rows
//          walked upwards (band_copy; strip_conv with Zig, checked within 1e-5: its upward sums
//          take the mask rows bottom first);
// - tiles: the ideal tile (tile_taps), the lane-halo kernel's shape with a free halo;
// - tiles_ahead: the same with the next tile's loads in flight;
// - taps: the ideal tile against the mask's rows (masks 7 wide, 1 to 7 high; 9 x 9), each row
//          adding 7 FMAs an output and a halo row;
// - flat: the ideal tile with no halo rows (each output's mask rows all on its own input row);
// - staged: a convolution staged by cp.async with few registers (staged_conv), many warps an SM;
// - windows: the flat and the ideal tile with real windows (own float4 and its two neighbours);
// - tma: the staged tile filled by one tensor copy a block (tma_conv), many blocks an SM;
// - warp_staged: each warp its own stage by cp.async (warp_staged_conv), no wait on other warps;
// - profile (not in "all"): one launch each of the flat, ideal and tensor-copied tiles, for ncu.
// - prefetch: the wide tile with its rows asked of L1 or L2 by prefetches; the walked tile
//          (walk_conv: a tile walked in a loop with rolling sums and few registers, rows asked of L1
//          a few rows ahead) with and without prefetches;
// - walk:  the walked tile at other heights, with its halo columns by shuffles, and at 9 x 9;
// - pairs: the walked tile with its odd warps walking upwards, as two code paths (checked within
//          1e-5: their sums take the mask rows bottom first);
// - pairs1: the same with one code path (direction and taps' orientation warp-uniform);
// - pairs2: the pairs with the warps also side by side;
// - library_walk: the walked pairs with every border's edge path, as a library kernel would be
//          (walk_pairs.cuh), beside the tool's;
// - walk_library: the library's walked tile (src/convolution/walk.cuh) in several shapes, 7 x 7
//          and 9 x 9, beside the wide tile and the tool's walked pairs;
// - walk_heights: the library's walked pairs 16 to 32 rows a warp, blocks 1, 2 or 4 warps across;
//          walk_blocks (not in "all"): the same in blocks of 4 and 16 warps; walk_wide (not in
//          "all"): 8 pixels a thread (KV 2);
// - walk_tail: the library's walked pairs with their grid's last rows of blocks walking fewer rows
//          a warp (profile_walk_tail, not in "all": one launch of three of them, for ncu);
// - walk_big: the library's walked pairs in blocks of 8, 16 and 32 warps (profile_walk_big, not
//          in "all": one launch each, for ncu; walk_big_tail, not in "all": the same with the
//          last rows of blocks walking 6 rows a warp);
// - walk_frame: the library's walked pairs with their tail, their frame's side columns walked down
//          runs of 8 to 32 rows a thread, and with no frame;
// - walk_copy: a plain copy in the walked pairs' shape (walk_copy): each lane's own float4s, the
//          halo rows too, and the halo columns too (the walk's memory side without its arithmetic);
// - walk_copy_ahead: the same copy held to the walk's 4 blocks an SM and not, its rows ahead asked
//          of L1, of L2, of L2 evict-last or of L2 in bulk (cp.async.bulk.prefetch), 1 to 8 ahead;
// - walk_shapes: the library's walked pairs with their tail, 16 to 32 rows a warp, with registers
//          for 4 blocks an SM (64 a thread) or 3 (80);
// - walk_ahead: the library's walked pairs asking for their rows ahead as walk_copy_ahead's copies
//          do (L1, L2, L2 evict-last, L2 in bulk), 2 to 4 ahead; walk_ahead_masks: the walks at 3 x 3,
//          5 x 5 and 7 x 7 with their rows asked of L2 evict-last, 2 to 6 ahead; walk_clusters: the
//          library's walk in thread block clusters of 1 x 2 to 2 x 2 neighbouring blocks;
// - walk_stacked: the library's walk from the grid of blocks the device holds at once, each block
//          walking tiles in turn (walk_stacked.cuh), an SM's blocks on tiles one above the other or
//          in the grid's order, with and without a tail (profile_walk_stacked, not in "all": one
//          launch each, for ncu);
// - edges: the same with its edge warps skipped (checked inside only) or started first, beside the
//          tool's with its edge warps skipped;
// - columns: the long walks (walk_columns.cuh): the grid the device holds at once, each warp one
//          segment of a 128-column strip, beside the walked pairs; with the warps of a block's
//          segment row meeting at a barrier every row; also over several times the resident warps
//          (shorter segments, several waves);
// - profile_walk, profile_l2, profile_pairs, profile_pairs1, profile_pairs2, profile_library_walk
//          (not in "all"): one
//          launch each of those tables' kernels (and a copy), for ncu.
//
// Build: cmake -DLADDER_BUILD_TUNING=ON, target ladder_conv_strips; run it with a table's name
// (or none: all but small).
#include "convolution/reference.hpp"
#include "convolution/strip.cuh"
#include "convolution/wide.cuh"
#include "walk_columns.cuh"
#include "walk_pairs.cuh"
#include "walk_stacked.cuh"
#include "core/tensor_map.hpp"
#include "ladder/detail/bulk_copy.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <utility>
#include <type_traits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace bulk = ladder::detail::bulk;

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);       \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

template <int MW, int Orientations = 1> struct Mask {
  float w[Orientations * MW * MW]; // and, with 2, the mask upside down after it
};

// The taps of one orientation of a Mask<MW, 2> (anything strip_apply_row reads as .w[j MW + i]).
template <int MW, int Offset> struct TapsAt {
  struct Row {
    const Mask<MW, 2>& m;
    __device__ __forceinline__ float operator[](int i) const { return m.w[Offset + i]; }
  } w;
};

// The mask in Orientations orientations: as given, and with 2 also upside down after it.
template <int Orientations, int MW> Mask<MW, Orientations> oriented(const Mask<MW>& m) {
  Mask<MW, Orientations> both{};
  for (int j = 0; j < MW; ++j)
    for (int i = 0; i < MW; ++i) {
      both.w[j * MW + i] = m.w[j * MW + i];
      if constexpr (Orientations == 2)
        both.w[MW * MW + j * MW + i] = m.w[(MW - 1 - j) * MW + i];
    }
  return both;
}

template <int MW, int CW, int PX, int S, int D> struct Strip {
  static constexpr int halo = MW / 2;
  static constexpr int h4 = (halo + 3) / 4; // float4s of halo a side
  static_assert(h4 == 1, "masks up to 9 wide");
  static constexpr int cols = CW * 32 * 4 * PX;
  static constexpr int stride = cols + 8 * h4; // floats a stage row
  static constexpr int threads = (CW + 1) * 32;
  static constexpr std::size_t shared = std::size_t{D + 1} * stride * 4; // and a zero stage
};

// The strips from a ring of bulk-copied rows (zero border; the image's width a multiple of 4, its
// rows 16-byte aligned). A strip is CW x 32 x 4 PX output columns and S output rows; block b
// walks strips b, b + G, b + 2G, ... (G the grid, a multiple of the strips across, so a block
// keeps its columns): G = every strip is a block per strip in raster order; a smaller G keeps the
// blocks resident and walking short strips together in a band of the image, which a copy streams
// best (a plain copy walked down strips costs more the more of the image its resident blocks
// span; the "copy" table). A producer lane copies the block's input rows (its columns and 4 halo
// floats a side), one cp.async.bulk a row, into a ring of D row stages, as far ahead as the ring
// is free, from one strip on into the next; CW consumer warps walk the rows down. A consumer
// thread holds MW open output rows of 4 PX pixels: slot j has the sums of mask rows 0 .. j, so
// each input row turns slot j - 1 into slot j and slot MW - 1 is done and stored. A strip reads
// MW - 1 rows more than it writes, and its first and last rows only compute the slots of its own
// rows: no FMA more than a long strip.
template <int MW, int CW, int PX, int S, int D, int MinBlocks, bool Zig = false>
__global__ void __launch_bounds__(Strip<MW, CW, PX, S, D>::threads, MinBlocks)
    strip_conv(const float* __restrict__ in, float* __restrict__ out, int width, int height,
               std::int64_t pitch, const __grid_constant__ Mask<MW, Zig ? 2 : 1> mask) {
  using St = Strip<MW, CW, PX, S, D>;
  constexpr int H = MW / 2;
  constexpr int stage4 = St::stride / 4; // float4s a stage
  // D stages and a zero stage last (the rows outside the image); the halo columns outside the
  // image are zeroed once and never copied over.
  extern __shared__ float4 ring4[];
  float* ring = reinterpret_cast<float*>(ring4);
  __shared__ std::uint64_t full[D], empty[D];
  const int strips_x = (width + St::cols - 1) / St::cols;
  const int strips = strips_x * ((height + S - 1) / S);
  const int x0 = static_cast<int>(blockIdx.x) % strips_x * St::cols;
  const bool left_edge = x0 == 0, right_edge = x0 + St::cols + 4 * St::h4 > width;
  for (int i = threadIdx.x; i < stage4; i += blockDim.x)
    ring4[D * stage4 + i] = make_float4(0.f, 0.f, 0.f, 0.f);
  if (left_edge || right_edge) // zero every stage's halo float4s outside the image
    for (int i = threadIdx.x; i < D * stage4; i += blockDim.x) {
      const int c = x0 - 4 * St::h4 + 4 * (i % stage4);
      if (c < 0 || c >= width)
        ring4[i] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
  if (threadIdx.x == 0) {
    for (int s = 0; s < D; ++s) {
      bulk::barrier_init(&full[s], 1);
      bulk::barrier_init(&empty[s], CW);
    }
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == CW) { // the producer
    if (lane != 0)
      return;
    const int c0 = max(x0 - 4 * St::h4, 0);
    const int c1 = min(x0 + St::cols + 4 * St::h4, width);
    const unsigned bytes = static_cast<unsigned>(c1 - c0) * 4u;
    const int dst_off = c0 - (x0 - 4 * St::h4);
    int s = 0, lap = 0;
    for (int strip = blockIdx.x; strip < strips; strip += gridDim.x) {
      const int y0 = strip / strips_x * S;
      const int out_rows = min(S, height - y0);
      const int rows = out_rows + MW - 1; // input rows y0 - H .. (Zig's odd strip rows: upwards)
      const bool up = Zig && (strip / strips_x) % 2 == 1;
      const int ytop = up ? y0 + out_rows - 1 + H : y0 - H;
      const std::int64_t step = up ? -pitch : pitch;
      const float* src = in + static_cast<std::int64_t>(ytop) * pitch + c0;
      for (int r = 0; r < rows; ++r, src += step) {
        if (lap > 0)
          bulk::wait(&empty[s], (lap - 1) & 1);
        const int y = up ? ytop - r : ytop + r;
        if (y < 0 || y >= height) {
          bulk::arrive(&full[s]);
        } else {
          bulk::expect_bytes(&full[s], bytes);
          bulk::copy_counted(ring + s * St::stride + dst_off, src, bytes, &full[s]);
        }
        if (++s == D)
          s = 0, ++lap;
      }
    }
    return;
  }
  constexpr int K = 4 * PX;
  const int t = warp * 32 + lane; // consumer thread
  const int x = x0 + t * K;       // its first pixel
  const bool active = x < width;
  float acc[MW][K];
#pragma unroll
  for (int j = 0; j < MW; ++j)
#pragma unroll
    for (int k = 0; k < K; ++k)
      acc[j][k] = 0.0f;
  int ls = 0, rs = 0; // the stages of the next row to load and to release
  unsigned phase = 0;  // of the next row to load
  const float4* mine = ring4 + t * PX;
  for (int strip = blockIdx.x; strip < strips; strip += gridDim.x) {
    const int y0 = strip / strips_x * S;
    const int out_rows = min(S, height - y0);
    const int rows = out_rows + MW - 1;
    const bool up = Zig && (strip / strips_x) % 2 == 1;
    // Input row r: slot j holds output row r - j of the strip; the first MW - 1 rows and the last
    // ones only compute the slots of rows inside it. Upwards (Zig): the rows from the bottom, the
    // mask upside down, input row r's output at the top row - r.
    const auto step = [&](int r, auto edge, auto upwards) {
      constexpr bool Edge = decltype(edge)::value, Up = decltype(upwards)::value;
      bulk::wait(&full[ls], phase);
      const int y = Up ? y0 + out_rows - 1 + H - r : y0 - H + r;
      float* o = Up ? out + static_cast<std::int64_t>(y0 + out_rows - 1 + MW - 1) * pitch + x - r * pitch
                    : out + static_cast<std::int64_t>(y0 - (MW - 1)) * pitch + x + r * pitch;
      const float4* p = mine + ((y >= 0 && y < height) ? ls : D) * stage4;
      float4 win[PX + 2];
#pragma unroll
      for (int v = 0; v < PX + 2; ++v)
        win[v] = p[v];
      if (++ls == D)
        ls = 0, phase ^= 1;
      const float* wf = reinterpret_cast<const float*>(win);
      const int lo = max(0, r - out_rows + 1), hi = min(MW - 1, r);
      if constexpr (!Zig)
        ladder::conv_detail::strip_apply_row<MW, K, Edge>(acc, wf, mask, lo, hi);
      else
        ladder::conv_detail::strip_apply_row<MW, K, Edge>(acc, wf, TapsAt<MW, Up ? MW * MW : 0>{{mask}}, lo, hi);
      __syncwarp(); // every lane's FMAs have their window: the stage can go back
      if (lane == 0)
        bulk::arrive(&empty[rs]);
      if (++rs == D)
        rs = 0;
      if (active && r >= MW - 1)
#pragma unroll
        for (int v = 0; v < PX; ++v)
          reinterpret_cast<float4*>(o)[v] = ladder::conv_detail::pack4(acc[MW - 1] + 4 * v);
    };
    if (up) // (only with Zig)
      ladder::conv_detail::strip_walk<MW>(out_rows, rows, [&](int r, auto e) { step(r, e, std::true_type{}); });
    else
      ladder::conv_detail::strip_walk<MW>(out_rows, rows, [&](int r, auto e) { step(r, e, std::false_type{}); });
  }
}


// Each warp walks its own strip (32 PX float4s of columns and a float4 of halo a side) down S
// rows, its rows brought into a ring of D row stages of its own by cp.async (16 bytes a lane, no
// register held while in flight): row r + D - 1 is asked for before row r is computed. No block
// barrier and no mbarrier: a warp waits on its own copies (cp.async.wait_group) and __syncwarp
// makes the lanes' copies visible to each other.
template <int PX> struct WarpStrip {
  static constexpr int stage4 = 32 * PX + 2; // float4s a stage row: halo, 32 PX, halo
};

__device__ __forceinline__ void async_copy16(void* smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(bulk::shared_address(smem)),
               "l"(gmem)
               : "memory");
}
__device__ __forceinline__ void async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

template <int MW, int WARPS, int PX, int S, int D, int MinBlocks>
__global__ void __launch_bounds__(WARPS * 32, MinBlocks)
    warp_strip_conv(const float* __restrict__ in, float* __restrict__ out, int width, int height,
                    std::int64_t pitch, const __grid_constant__ Mask<MW> mask) {
  constexpr int H = MW / 2;
  constexpr int stage4 = WarpStrip<PX>::stage4;
  constexpr int K = 4 * PX;
  extern __shared__ float4 smem4[]; // a zero row, then WARPS rings of D stages
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = threadIdx.x; i < stage4; i += blockDim.x)
    smem4[i] = make_float4(0.f, 0.f, 0.f, 0.f);
  float4* ring = smem4 + stage4 + warp * D * stage4;
  const int strip = blockIdx.x * WARPS + warp;
  const int x0 = strip * 32 * K;    // the warp's first column
  const int x = x0 + lane * K;      // the thread's
  const int y0 = blockIdx.y * S;
  // The float4s a lane copies of each row: its own PX, and the halo's (lane 0 the left one,
  // lane 31 the right one) where they lie inside the image; outside, the stage keeps zeros.
  const bool left_halo = lane == 0 && x0 - 4 >= 0;
  const bool right_halo = lane == 31 && x0 + 32 * K + 4 <= width;
  const bool own = x < width;
  if (lane == 0 || lane == 31) // zero the halo float4s outside the image in every stage
    for (int s = 0; s < D; ++s) {
      if (lane == 0 && !left_halo)
        ring[s * stage4] = make_float4(0.f, 0.f, 0.f, 0.f);
      if (lane == 31 && !right_halo)
        ring[s * stage4 + stage4 - 1] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
  __syncthreads();
  if (x0 >= width)
    return;
  const int out_rows = min(S, height - y0);
  const int rows = out_rows + MW - 1;
  const float* src = in + static_cast<std::int64_t>(y0 - H) * pitch + x; // input row 0, own float4
  const auto issue = [&](int r) { // input row r into its stage, if inside the image
    const int y = y0 - H + r;
    if (r < rows && y >= 0 && y < height) {
      float4* st = ring + (r % D) * stage4;
      const float* row = src + static_cast<std::int64_t>(r) * pitch;
      if (own)
#pragma unroll
        for (int v = 0; v < PX; ++v)
          async_copy16(st + 1 + lane * PX + v, row + 4 * v);
      if (left_halo)
        async_copy16(st, row - 4);
      if (right_halo)
        async_copy16(st + stage4 - 1, row + K);
    }
    async_commit(); // every row a group, copied or not, so that the count of groups is the rows'
  };
#pragma unroll
  for (int q = 0; q < D - 1; ++q)
    issue(q);
  float acc[MW][K];
#pragma unroll
  for (int j = 0; j < MW; ++j)
#pragma unroll
    for (int k = 0; k < K; ++k)
      acc[j][k] = 0.0f;
  float* o = out + static_cast<std::int64_t>(y0 - (MW - 1)) * pitch + x;
  const auto step = [&](int r, auto edge) {
    constexpr bool Edge = decltype(edge)::value;
    __syncwarp();     // every lane's reads of the stage row r + D - 1 overwrites are done
    issue(r + D - 1);
    async_wait<D - 1>(); // this lane's copies of row r have landed
    __syncwarp();        // and every lane's
    const int y = y0 - H + r;
    const float4* p = (y >= 0 && y < height) ? ring + (r % D) * stage4 + lane * PX : smem4;
    float4 win[PX + 2];
#pragma unroll
    for (int v = 0; v < PX + 2; ++v)
      win[v] = p[v];
    ladder::conv_detail::strip_apply_row<MW, K, Edge>(acc, reinterpret_cast<const float*>(win), mask,
                           max(0, r - out_rows + 1), min(MW - 1, r));
    if (own && r >= MW - 1)
#pragma unroll
      for (int v = 0; v < PX; ++v)
        reinterpret_cast<float4*>(o + r * pitch)[v] =
            make_float4(acc[MW - 1][4 * v], acc[MW - 1][4 * v + 1], acc[MW - 1][4 * v + 2],
                        acc[MW - 1][4 * v + 3]);
  };
  // The walk of strip_walk (strip.cuh), written out: through the helper, ptxas allocates this
  // kernel's registers differently, and its committed timings are of this code.
  int r = 0;
  for (; r < MW - 1 && r < rows; ++r)
    step(r, std::true_type{});
#pragma unroll 1
  for (; r < out_rows; ++r)
    step(r, std::false_type{});
  for (; r < rows; ++r)
    step(r, std::true_type{});
}

// The library's wide tile (convolution/wide.cuh) with L2 asked for the rows of the tile Ahead
// tiles below as well as (OwnToo) the warp's own: the blocks run in raster order, so the rows
// the blocks a few grid rows later will read are streamed into L2 in the image's order, and the
// wide tile's loads wait on L2 rather than DRAM.
template <int MW, int KV, int RY, int MinBlocks, int Ahead, bool OwnToo>
__global__ void __launch_bounds__(256, MinBlocks)
    wide_ahead(ladder::conv_detail::ImageArgs a,
               const __grid_constant__ ladder::conv_detail::MaskParam mask) {
  namespace cd = ladder::conv_detail;
  using W = cd::Wide2d<MW, KV, RY>;
  constexpr int K = 4 * KV;
  const std::int64_t x0 = std::int64_t(blockIdx.x) * W::tile_w, y0 = std::int64_t(blockIdx.y) * W::tile_h;
  const std::int64_t x = x0 + threadIdx.x * K;
  const std::int64_t y = y0 + threadIdx.y * RY;
  if (y >= a.height)
    return;
  const bool vector = cd::rows_aligned_to<float4>(a.in, a.in_pitch) && x - 4 * W::h4 >= 0 &&
                      x + K + 4 * W::h4 <= a.width;
  const bool interior = __all_sync(0xffffffffu, vector) &&
                        cd::rows_aligned_to<float4>(a.out, a.out_pitch) && y - W::halo >= 0 &&
                        y - W::halo + W::rows <= a.height;
  if (Ahead > 0 && y + Ahead * W::tile_h + RY <= a.height)
    cd::wide_prefetch_rows<MW, KV, RY>(a, x0, y + Ahead * W::tile_h);
  if (interior) {
    if (OwnToo)
      cd::wide_prefetch_rows<MW, KV, RY>(a, x0, y);
    return cd::wide_tile<MW, KV, RY, cd::WideRows::interior, false>(a, mask, x, y, true, nullptr);
  }
  if (x >= a.width)
    return;
  int cols[4 * W::loads];
  cd::wide_columns<MW, KV, RY>(a, x, cols);
  cd::wide_tile<MW, KV, RY, cd::WideRows::edge, false>(a, mask, x, y, vector, cols);
}


// Asks L1 (Level 1) or L2 (Level 2) for the lines of a warp's window in Rows input rows from
// `first` (its first input row at its first column): the warp's Lines 128-byte lines a row and
// the float4 beside them on each side (its outer lanes' halo loads), one prefetch a lane. No
// register waits on a prefetch: the rows are in flight without the registers a load would hold.
template <int Rows, int Lines, int Level>
__device__ __forceinline__ void prefetch_window(const unsigned char* first, std::int64_t pitch) {
  constexpr int per_row = Lines + 2, total = Rows * per_row;
#pragma unroll
  for (int i = 0; i < (total + 31) / 32; ++i) {
    const int l = static_cast<int>(threadIdx.x % 32) + 32 * i;
    if (total % 32 == 0 || l < total) {
      const int q = l % per_row;
      const unsigned char* p = first + (l / per_row) * pitch +
                               (q == 0 ? -16 : q == per_row - 1 ? 128 * Lines : (q - 1) * 128);
      ladder::conv_detail::prefetch_line<Level>(p);
    }
  }
}

// The library's wide tile with its rows asked for another way (Pf): 0 its own RY rows of L2 (the
// library's), 1 its whole window (RY + MW - 1 rows and the side lines) of L1, 2 the whole window
// of L1 and its own rows of L2, 3 the whole window of L2, 4 its own rows of L1.
template <int MW, int KV, int RY, int MinBlocks, int Pf>
__global__ void __launch_bounds__(256, MinBlocks)
    wide_pf(ladder::conv_detail::ImageArgs a, const __grid_constant__ ladder::conv_detail::MaskParam mask) {
  namespace cd = ladder::conv_detail;
  using W = cd::Wide2d<MW, KV, RY>;
  constexpr int K = 4 * KV;
  const std::int64_t x0 = std::int64_t(blockIdx.x) * W::tile_w, y0 = std::int64_t(blockIdx.y) * W::tile_h;
  const std::int64_t x = x0 + threadIdx.x * K;
  const std::int64_t y = y0 + threadIdx.y * RY;
  if (y >= a.height)
    return;
  const bool vector = cd::rows_aligned_to<float4>(a.in, a.in_pitch) && x - 4 * W::h4 >= 0 &&
                      x + K + 4 * W::h4 <= a.width;
  const bool interior = __all_sync(0xffffffffu, vector) &&
                        cd::rows_aligned_to<float4>(a.out, a.out_pitch) && y - W::halo >= 0 &&
                        y - W::halo + W::rows <= a.height;
  if (interior) {
    const unsigned char* window = a.in + (y - W::halo) * a.in_pitch + x0 * 4;
    if constexpr (Pf == 0 || Pf == 2)
      cd::wide_prefetch_rows<MW, KV, RY>(a, x0, y);
    if constexpr (Pf == 1 || Pf == 2)
      prefetch_window<W::rows, 4 * KV, 1>(window, a.in_pitch);
    if constexpr (Pf == 3)
      prefetch_window<W::rows, 4 * KV, 2>(window, a.in_pitch);
    if constexpr (Pf == 4)
      prefetch_window<RY, 4 * KV, 1>(window + W::halo * a.in_pitch, a.in_pitch);
    return cd::wide_tile<MW, KV, RY, cd::WideRows::interior, false>(a, mask, x, y, true, nullptr);
  }
  if (x >= a.width)
    return;
  int cols[4 * W::loads];
  cd::wide_columns<MW, KV, RY>(a, x, cols);
  cd::wide_tile<MW, KV, RY, cd::WideRows::edge, false>(a, mask, x, y, vector, cols);
}

// A tile walked in a loop with few registers: a warp a row of 128 columns (blocks of 32 x 8
// threads, warps one below the other), each warp S output rows, each thread 4 pixels a row. The
// thread walks its S + MW - 1 input rows once, holding MW open output rows as rolling sums (slot
// j from slot j - 1, strip.cuh's strip_apply_row): the first and last MW - 1 rows unrolled, each
// with its slots known at compile time, the rows between in a loop kept rolled, so ptxas cannot
// hoist every row's loads to the start. A row is a window of three 16-byte loads (its own float4
// and the two beside it, from L1); each finished row is stored at once. The rows in flight are
// asked for by prefetches, which hold no register: at the start the first Ahead rows, then at
// each step the row Ahead rows on, of L1 (Level 1) or L2 (Level 2); Ahead 0: none. Zero border
// (Interior false: loads and stores tested against the image); sums in the reference's order.
// up: the rows from the bottom (mask: the taps upside down; the sums then take the mask rows
// bottom first, so they agree with the reference within rounding, not bit for bit).
template <int MW, int S, int Ahead, int Level, bool Interior, bool Shuffle = false, class Taps = Mask<MW>>
__device__ __forceinline__ void walk_tile(const float4* __restrict__ in, float4* __restrict__ out, int x, int y0,
                                          int width4, int height, const Taps& mask, bool up = false) {
  static_assert(S >= MW - 1, "the first and last rows apart");
  constexpr int H = MW / 2, rows = S + MW - 1;
  const int step4 = up ? -width4 : width4; // from one walked row to the next
  const float4* p = in + std::int64_t(y0 - H + (up ? rows - 1 : 0)) * width4 + x - 1; // the first walked row's window
  // Lane l asks for line l % 6 of a row: the float4 left of the warp's 4 lines, the 4, and the
  // float4 right of them (lanes asking for the same line make one request).
  const int lane = static_cast<int>(threadIdx.x % 32), q6 = lane % 6;
  const unsigned char* pf =
      reinterpret_cast<const unsigned char*>(in + std::int64_t(y0 - H + (up ? rows - 1 : 0)) * width4 + (x & ~31)) +
      (q6 == 0 ? -16 : (q6 - 1) * 128);
  const std::int64_t pitch = std::int64_t(step4) * 16;
  if constexpr (Interior && Ahead > 0) {
#pragma unroll
    for (int r = 0; r < Ahead; ++r)
      ladder::conv_detail::prefetch_line<Level>(pf + r * pitch);
    pf += Ahead * pitch;
  }
  float acc[MW][4];
  // the output row finished by walked row MW - 1 (down: the tile's first; up: its last)
  float4* o = out + std::int64_t(y0 + (up ? S - 1 : 0)) * width4 + x;
  const auto step = [&](int r, int lo, int hi, auto edge) {
    constexpr bool Edge = decltype(edge)::value;
    if constexpr (Interior && Ahead > 0)
      if (r + Ahead < rows) {
        ladder::conv_detail::prefetch_line<Level>(pf);
        pf += pitch;
      }
    float w[12];
    const int y = y0 - H + (up ? rows - 1 - r : r);
    (void)y; // (not read on the interior path)
    if constexpr (Shuffle) {
      // Own float4 loaded; the floats beside it from the neighbouring lanes; the warp's outer
      // lanes load the float4 beyond the warp (lane 0 the left one, lane 31 the right one).
      static_assert(MW <= 7, "three floats of halo a side (w[0], w[11] unused)");
      const bool row_in = Interior || (y >= 0 && y < height);
      const float4 own = row_in ? __ldg(p + 1) : make_float4(0.f, 0.f, 0.f, 0.f);
      const int side_q = lane == 0 ? 0 : 2;
      float4 side = make_float4(0.f, 0.f, 0.f, 0.f);
      if ((lane == 0 || lane == 31) && row_in && (Interior || (x + side_q - 1 >= 0 && x + side_q - 1 < width4)))
        side = __ldg(p + side_q);
      const float l1 = __shfl_up_sync(0xffffffffu, own.y, 1), l2 = __shfl_up_sync(0xffffffffu, own.z, 1),
                  l3 = __shfl_up_sync(0xffffffffu, own.w, 1);
      const float r0 = __shfl_down_sync(0xffffffffu, own.x, 1), r1 = __shfl_down_sync(0xffffffffu, own.y, 1),
                  r2 = __shfl_down_sync(0xffffffffu, own.z, 1);
      w[1] = lane == 0 ? side.y : l1, w[2] = lane == 0 ? side.z : l2, w[3] = lane == 0 ? side.w : l3;
      w[4] = own.x, w[5] = own.y, w[6] = own.z, w[7] = own.w;
      w[8] = lane == 31 ? side.x : r0, w[9] = lane == 31 ? side.y : r1, w[10] = lane == 31 ? side.z : r2;
      w[0] = w[11] = 0.0f; // not read below 9 x 9
    } else {
#pragma unroll
      for (int q = 0; q < 3; ++q) {
        float4 f;
        if constexpr (Interior)
          f = __ldg(p + q);
        else {
          const int xq = x + q - 1;
          f = y >= 0 && y < height && xq >= 0 && xq < width4 ? __ldg(p + q) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
        w[4 * q] = f.x, w[4 * q + 1] = f.y, w[4 * q + 2] = f.z, w[4 * q + 3] = f.w;
      }
    }
    p += step4;
    ladder::conv_detail::strip_apply_row<MW, 4, Edge>(acc, w, mask, lo, hi);
    if (r >= MW - 1 && (Interior || y0 + (up ? rows - 1 - r : r - (MW - 1)) < height))
      *o = make_float4(acc[MW - 1][0], acc[MW - 1][1], acc[MW - 1][2], acc[MW - 1][3]);
    if (r >= MW - 1)
      o += step4;
  };
  ladder::conv_detail::walk_phases<MW>(S, step);
}

// The taps of one orientation of a Mask<MW, 2> chosen at run time by a warp-uniform offset
// (0 or MW^2): read through a value the compiler knows is uniform (a shuffle from lane 0), ptxas
// loads the taps into uniform registers once and the FMAs take them from there, so both
// orientations run the same code.
template <int MW> struct OrientedTaps {
  struct Row {
    const Mask<MW, 2>& m;
    int offset;
    __device__ __forceinline__ float operator[](int i) const { return m.w[offset + i]; }
  } w;
};

// Alternate: the odd warps walk upwards, so that two neighbouring warps of a block read the rows
// they share at about the same time (both at their start or both at their end), while L1 holds
// them for the second (mask: both orientations). 1: the two directions as two code paths (each
// orientation's taps FFMA operands from the parameter bank); 2: one code path, the direction and
// the taps' orientation warp-uniform values (OrientedTaps).
// WarpsX: a block's warps WarpsX side by side (they share the float4s beside their columns) and
// Warps / WarpsX one below the other; warp w at column w % WarpsX, row w / WarpsX.
// SkipEdges (a measurement): the warps that are not interior return at once, to time the interior
// alone (checked inside only).
template <int MW, int S, int MinBlocks, int Ahead, int Level, int Warps = 8, bool Shuffle = false, int Alternate = 0,
          int WarpsX = 1, bool SkipEdges = false>
__global__ void __launch_bounds__(32 * Warps, MinBlocks)
    walk_conv(const float4* __restrict__ in, float4* __restrict__ out, int width4, int height,
              const __grid_constant__ Mask<MW, Alternate ? 2 : 1> mask) {
  constexpr int H = MW / 2;
  const int wx = static_cast<int>(threadIdx.y) % WarpsX, wy = static_cast<int>(threadIdx.y) / WarpsX;
  const int x = (blockIdx.x * WarpsX + wx) * 32 + threadIdx.x;
  const int y0 = (blockIdx.y * (Warps / WarpsX) + wy) * S;
  if (y0 >= height)
    return;
  // warp-uniform: the warp's rows inside the image and the float4s beside its 128 columns too
  const bool interior = y0 - H >= 0 && y0 + S + H <= height && blockIdx.x > 0 && blockIdx.x + 1 < gridDim.x;
  if (SkipEdges && !interior)
    return;
  if constexpr (Alternate == 2) {
    const int odd = __shfl_sync(0xffffffffu, wy % 2, 0);
    const OrientedTaps<MW> taps{{mask, odd * MW * MW}};
    if (interior)
      walk_tile<MW, S, Ahead, Level, true, Shuffle>(in, out, x, y0, width4, height, taps, odd != 0);
    else
      walk_tile<MW, S, Ahead, Level, false, Shuffle>(in, out, x, y0, width4, height, taps, odd != 0);
  } else if constexpr (Alternate == 1) {
    const TapsAt<MW, 0> down{{mask}};
    const TapsAt<MW, MW * MW> up{{mask}};
    if (wy % 2 == 0) {
      if (interior)
        walk_tile<MW, S, Ahead, Level, true, Shuffle>(in, out, x, y0, width4, height, down);
      else
        walk_tile<MW, S, Ahead, Level, false, Shuffle>(in, out, x, y0, width4, height, down);
    } else if (interior)
      walk_tile<MW, S, Ahead, Level, true, Shuffle>(in, out, x, y0, width4, height, up, true);
    else
      walk_tile<MW, S, Ahead, Level, false, Shuffle>(in, out, x, y0, width4, height, up, true);
  } else if (interior)
    walk_tile<MW, S, Ahead, Level, true, Shuffle>(in, out, x, y0, width4, height, mask);
  else
    walk_tile<MW, S, Ahead, Level, false, Shuffle>(in, out, x, y0, width4, height, mask);
}

// A plain copy in the strips' shape: each warp copies its 128 columns down S rows, R rows at a
// time (R loads in flight, then R stores); blocks of 8 warps side by side, in raster order. S = R
// is a tile copy (every load of a block in flight at its start); long S is a strip walked down
// over the block's life, as the strip kernels above read.
template <int S, int R>
__global__ void __launch_bounds__(256) strip_copy(const float4* __restrict__ in, float4* __restrict__ out,
                                                 int width4, int height) {
  const int x = blockIdx.x * 256 + threadIdx.x;
  const int y0 = blockIdx.y * S;
  for (int r = 0; r < S; r += R) {
    float4 v[R];
#pragma unroll
    for (int i = 0; i < R; ++i)
      v[i] = __ldg(in + std::int64_t(y0 + r + i) * width4 + x);
#pragma unroll
    for (int i = 0; i < R; ++i)
      out[std::int64_t(y0 + r + i) * width4 + x] = v[i];
  }
}

// A plain copy in the 7 x 7 strip kernels' shape, halo included: each block (256 threads, 1024
// columns) walks strips b, b + G, ... of S output rows, reading their S + 6 input rows (R at a
// time, in flight together) and writing the S rows of its own. G = every strip: long strips each
// a block; a resident G: short strips walked in bands of the image. Zig: the odd strip rows are
// walked upwards, so that two neighbouring strips read the 6 rows they share at about the same
// time (both at their start or both at their end), where L2 may still hold them for the second.
template <int S, int R, bool Zig>
__global__ void __launch_bounds__(256) band_copy(const float4* __restrict__ in, float4* __restrict__ out,
                                                int width4, int height) {
  constexpr int H = 3;
  const int strips_x = width4 / 256;
  const int strips = strips_x * ((height + S - 1) / S);
  for (int strip = blockIdx.x; strip < strips; strip += gridDim.x) {
    const int x = strip % strips_x * 256 + threadIdx.x;
    const int y0 = strip / strips_x * S;
    const int out_rows = min(S, height - y0);
    const bool up = Zig && (strip / strips_x) % 2 == 1;
    const int rows = out_rows + 2 * H;
    for (int r = 0; r < rows; r += R) {
      float4 v[R];
      int ys[R];
#pragma unroll
      for (int i = 0; i < R; ++i) {
        const int y = up ? y0 + out_rows - 1 + H - (r + i) : y0 - H + r + i;
        ys[i] = (r + i < rows && y >= 0 && y < height) ? y : -1;
        v[i] = ys[i] >= 0 ? __ldg(in + std::int64_t(ys[i]) * width4 + x) : make_float4(0.f, 0.f, 0.f, 0.f);
      }
#pragma unroll
      for (int i = 0; i < R; ++i) // the halo rows' words are read, never written (no input is 1234.5)
        if (ys[i] >= 0 && ((ys[i] >= y0 && ys[i] < y0 + out_rows) || v[i].x == 1234.5f))
          out[std::int64_t(ys[i]) * width4 + x] = v[i];
    }
  }
}

// A plain copy in the library's walked pairs' shape (walk.cuh: blocks of 2 x 4 warps, each warp 128
// columns of S rows, the odd rows of warps walking upwards, the rows asked of L1 two rows ahead),
// with none of the convolution's arithmetic: what the walk's memory side costs by itself, part by
// part. Halo 0: each lane reads and writes its own float4 of the warp's S rows; 1: it also reads
// the 6 halo rows (the walk's S + 6 rows); 2: and the float4s left and right of its own (the
// walk's three 16-byte loads a row). Ask: how the rows Ahead rows ahead are asked for (AskAhead;
// l1, 2 ahead: the walk's). The halo's floats are read, never written (no input is 1234.5); rows
// and columns outside the image are clamped. With some 20-30 registers it holds more blocks an SM
// than the walk's 4 (the table prints how many): launched with dynamic shared memory it can be
// held to the walk's 4.
enum class AskAhead {
  none,
  l1,            // prefetch.global.L1, a lane a line of the warp's 4 (the walk's)
  l2,            // prefetch.global.L2, the same lines
  l2_evict_last, // prefetch.global.L2::evict_last, the same lines
  bulk_l2,       // cp.async.bulk.prefetch.L2 of the warp's 512 bytes, by lane 0
};
template <int S, int Halo, AskAhead Ask, int Ahead = 2>
__global__ void __launch_bounds__(256, 4) walk_copy(const float4* __restrict__ in, float4* __restrict__ out,
                                                   int width4, int height) {
  constexpr int H = 3, ahead = Ahead;
  constexpr bool Prefetch = Ask != AskAhead::none;
  const int warp = static_cast<int>(threadIdx.y), lane = static_cast<int>(threadIdx.x);
  const int x = (static_cast<int>(blockIdx.x) * 2 + warp % 2) * 32 + lane; // the lane's float4 column
  const int wy = static_cast<int>(blockIdx.y) * 4 + warp / 2;
  const int y0 = wy * S;
  if (x >= width4 || y0 >= height)
    return;
  const bool up = (warp / 2) % 2 == 1;
  const int first = Halo >= 1 ? -H : 0, rows = S + (Halo >= 1 ? 2 * H : 0);
  const int xl = x > 0 ? x - 1 : 0, xr = x + 1 < width4 ? x + 1 : x;
  const auto row_of = [&](int r) { // walked row r's image row, clamped
    int y = up ? y0 + S - 1 - first - r : y0 + first + r;
    return y < 0 ? 0 : y >= height ? height - 1 : y;
  };
  const int line = lane % 4; // the warp's 4 lines of a row, as the walk asks for them
  const auto* warp_base = reinterpret_cast<const char*>(in) + static_cast<std::int64_t>(x - lane) * 16;
  const auto ask = [&](int r) {
    const char* row = warp_base + static_cast<std::int64_t>(row_of(r)) * width4 * 16;
    if constexpr (Ask != AskAhead::none) // (the enum in the order of ask_ahead's levels)
      ladder::conv_detail::ask_ahead<static_cast<int>(Ask), 512>(row + line * 128, lane);
  };
  if (Prefetch)
    for (int r = 0; r < ahead && r < rows; ++r)
      ask(r);
#pragma unroll 1
  for (int r = 0; r < rows; ++r) {
    if (Prefetch && r + ahead < rows)
      ask(r + ahead);
    const int y = row_of(r);
    const std::int64_t at = static_cast<std::int64_t>(y) * width4;
    const float4 v = __ldg(in + at + x);
    bool keep = false;
    if constexpr (Halo >= 2) {
      const float4 l = __ldg(in + at + xl), rr = __ldg(in + at + xr);
      keep = l.w == 1234.5f || rr.x == 1234.5f;
    }
    if ((y >= y0 && y < y0 + S) || keep)
      out[at + x] = v;
  }
}

// One walk_copy variant (16 rows a warp), as the walk_copy tables name it.
template <int Halo, AskAhead Ask, int Ahead = 2> struct WalkCopyOf {
  static constexpr int halo = Halo, ahead = Ahead;
  static constexpr AskAhead ask = Ask;
};

// The ideal tile: a convolution's loads, FMAs and stores in the lane-halo kernel's shape (a warp a
// row of 128 columns, blocks of 32 x 8 threads, each thread its own float4 of the RY + MW - 1
// input rows of its RY output rows, every load issued before the first FMA), with no halo
// columns: output pixel c of a float4 takes its row's taps i from component (c + i) mod 4 of the
// thread's own float4 in each input row. MW^2 FMAs an output on MW rows of data, in the
// reference's order, and nothing else: no shuffles, no neighbours' loads, no shared memory. What
// a tile kernel costs when its halo is free.
// A thread's own float4 of its tile's RY + MW - 1 input rows (zeros outside the image).
// Cols 12: and the float4s left and right of it (zeros outside the image), a real window.
template <int MH, int RY, int Cols = 4>
__device__ __forceinline__ void tile_load(float (&v)[RY + MH - 1][Cols], const float4* __restrict__ in, int x, int y0,
                                          int width4, int height) {
#pragma unroll
  for (int r = 0; r < RY + MH - 1; ++r) {
    const int y = y0 - MH / 2 + r;
#pragma unroll
    for (int q = 0; q < Cols / 4; ++q) {
      const int xq = x + q - (Cols / 4 - 1) / 2;
      const bool inside = y >= 0 && y < height && (Cols == 4 || (xq >= 0 && xq < width4)); // (Cols 4: x is inside)
      const float4 f = inside ? __ldg(in + std::int64_t(y) * width4 + xq)
                                                                        : make_float4(0.f, 0.f, 0.f, 0.f);
      v[r][4 * q] = f.x, v[r][4 * q + 1] = f.y, v[r][4 * q + 2] = f.z, v[r][4 * q + 3] = f.w;
    }
  }
}

// The tile's FMAs (an MW x MH mask) and stores. TapOuter: tap by tap over all the thread's outputs (each tap's
// uniform load shared by 4 RY FMAs), else output row by output row (fewer sums live); ptxas
// schedules both much alike.
// Flat: every mask row applied to the output's own input row (v holds RY rows, no halo rows).
// Cols 12: the window of tile_load's Cols 12, taps left to right from 4 - MW / 2 floats in (the
// convolution's columns); else tap i of pixel c is component (c + i) mod 4 of the own float4.
template <int MW, int MH, int RY, bool TapOuter, class Taps, bool Flat = false, int Cols = 4>
__device__ __forceinline__ void tile_compute(const float (&v)[Flat ? RY : RY + MH - 1][Cols], const Taps& mask, float4* __restrict__ out,
                                             int x, int y0, int width4, int height) {
  constexpr auto col = [](int c, int i) { return Cols == 4 ? (c + i) % 4 : 4 - MW / 2 + c + i; };
  float o[RY][4];
  if constexpr (TapOuter) {
#pragma unroll
    for (int r = 0; r < RY; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c)
        o[r][c] = 0.0f;
#pragma unroll
    for (int j = 0; j < MH; ++j)
#pragma unroll
      for (int i = 0; i < MW; ++i)
#pragma unroll
        for (int r = 0; r < RY; ++r)
#pragma unroll
          for (int c = 0; c < 4; ++c)
            o[r][c] = __fmaf_rn(mask.w[j * MW + i], v[Flat ? r : r + j][col(c, i)], o[r][c]);
  } else {
#pragma unroll
    for (int r = 0; r < RY; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        float acc = 0.0f;
#pragma unroll
        for (int j = 0; j < MH; ++j)
#pragma unroll
          for (int i = 0; i < MW; ++i)
            acc = __fmaf_rn(mask.w[j * MW + i], v[Flat ? r : r + j][col(c, i)], acc);
        o[r][c] = acc;
      }
  }
#pragma unroll
  for (int r = 0; r < RY; ++r)
    if (y0 + r < height)
      out[std::int64_t(y0 + r) * width4 + x] = make_float4(o[r][0], o[r][1], o[r][2], o[r][3]);
}

// (MH < MW: an MW x MH mask, the first MW MH taps of `mask`. Flat: no halo rows at all, every
// mask row applied to the output's own row: the copy's loads and stores with the mask's FMAs, in
// this shape.)
// Neighbours: each row's window is the own float4 and the two beside it (12 floats), and the taps
// take the convolution's columns: with Flat false, a real convolution (zero border) in this shape.
template <int MW, int RY, int MinBlocks, bool TapOuter = false, int MH = MW, bool Flat = false, bool Neighbours = false>
__global__ void __launch_bounds__(256, MinBlocks)
    tile_taps(const float4* __restrict__ in, float4* __restrict__ out, int width4, int height,
              const __grid_constant__ Mask<MW> mask) {
  constexpr int cols = Neighbours ? 12 : 4;
  const int x = blockIdx.x * 32 + threadIdx.x;
  const int y0 = (blockIdx.y * 8 + threadIdx.y) * RY;
  constexpr int rows_loaded = Flat ? 1 : MH; // as tile_load counts them: RY + rows - 1
  float v[RY + rows_loaded - 1][cols];
  tile_load<rows_loaded, RY, cols>(v, in, x, y0, width4, height);
  tile_compute<MW, MH, RY, TapOuter, Mask<MW>, Flat, cols>(v, mask, out, x, y0, width4, height);
}

// The ideal tile with its loads a tile ahead: a thread takes T tiles one below the other and
// issues tile t + 1's loads before tile t's FMAs, so that it has a tile in flight while it
// computes (as the joint-bound probe's "ahead" shape).
template <int MW, int RY, int T, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    tile_taps_ahead(const float4* __restrict__ in, float4* __restrict__ out, int width4, int height,
                    const __grid_constant__ Mask<MW> mask) {
  const int x = blockIdx.x * 32 + threadIdx.x;
  const int y0 = (blockIdx.y * 8 + threadIdx.y) * RY * T;
  float v[2][RY + MW - 1][4];
  tile_load<MW, RY>(v[0], in, x, y0, width4, height);
#pragma unroll
  for (int t = 0; t < T; ++t) {
    if (t + 1 < T)
      tile_load<MW, RY>(v[(t + 1) % 2], in, x, y0 + (t + 1) * RY, width4, height);
    tile_compute<MW, MW, RY, false>(v[t % 2], mask, out, x, y0 + t * RY, width4, height);
  }
}

// A convolution staged through shared memory with few registers, so that many warps share an
// SM (the flat tile's lesson: the copy with the mask's 49 FMAs runs at 1.02x with 48 to 64 warps
// an SM, and the ideal tile, whose halo rows cost registers, at 1.17x with 32). A block of 32 x 8
// threads (4 x RY outputs a thread, a tile of 128 x 8 RY) copies its input tile and halo (a float4
// a side, MW / 2 rows above and below; zeros outside the image) into shared memory by cp.async,
// 16 bytes a copy and no register held, waits, then each thread walks its RY + MW - 1 input rows
// once: three 16-byte shared loads a row (the 12 floats from 4 left of its pixels), applied to
// every output row the row feeds. The sums take mask rows in order and taps left to right: bit for
// bit the reference. Zero border; the image's width a multiple of 128 and its rows 16-byte aligned.
template <int MW, int RY> struct StagedTile {
  static constexpr int rows = 8 * RY + MW - 1; // input rows a block
  static constexpr int row4 = 34;              // float4s a stage row: 32 and one a side
  static constexpr std::size_t shared = std::size_t(rows) * row4 * 16;
};

__device__ __forceinline__ void async_copy16_or_zero(void* smem, const void* gmem, bool inside) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(bulk::shared_address(smem)),
               "l"(gmem), "r"(inside ? 16 : 0)
               : "memory");
}

// A staged tile's FMAs and stores (staged_conv, tma_conv): each thread walks its RY + MW - 1 input
// rows of the stage once, three 16-byte shared loads a row, applied to every output row it feeds.
// (rows_before: the stage rows before this warp's first input row; a block's shared stage puts
// warp y's rows y RY rows down, a warp's own stage at 0.)
template <int MW, int RY, class Taps>
__device__ __forceinline__ void staged_compute(const float4* tile4, const Taps& mask, float4* __restrict__ out,
                                               int width4, int height, int rows_before) {
  using T = StagedTile<MW, RY>;
  constexpr int H = MW / 2;
  float acc[RY][4];
#pragma unroll
  for (int o = 0; o < RY; ++o)
#pragma unroll
    for (int c = 0; c < 4; ++c)
      acc[o][c] = 0.0f;
  const float4* mine = tile4 + rows_before * T::row4 + threadIdx.x; // its window's first float4
#pragma unroll
  for (int r = 0; r < RY + MW - 1; ++r) { // input row r feeds output rows r - j, mask row j
    float w[12];
#pragma unroll
    for (int v = 0; v < 3; ++v) {
      const float4 f = mine[r * T::row4 + v];
      w[4 * v] = f.x, w[4 * v + 1] = f.y, w[4 * v + 2] = f.z, w[4 * v + 3] = f.w;
    }
#pragma unroll
    for (int o = 0; o < RY; ++o) {
      const int j = r - o;
      if (j < 0 || j >= MW)
        continue;
#pragma unroll
      for (int c = 0; c < 4; ++c)
#pragma unroll
        for (int i = 0; i < MW; ++i)
          acc[o][c] = __fmaf_rn(mask.w[j * MW + i], w[4 - H + c + i], acc[o][c]);
    }
  }
  const int x = blockIdx.x * 32 + threadIdx.x;
  const int y0 = blockIdx.y * 8 * RY + threadIdx.y * RY;
#pragma unroll
  for (int o = 0; o < RY; ++o)
    if (y0 + o < height)
      out[std::int64_t(y0 + o) * width4 + x] = make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]);
}


template <int MW, int RY, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    staged_conv(const float4* __restrict__ in, float4* __restrict__ out, int width4, int height,
                const __grid_constant__ Mask<MW> mask) {
  using T = StagedTile<MW, RY>;
  constexpr int H = MW / 2;
  extern __shared__ float4 tile4[];
  const int bx = blockIdx.x * 32 - 1; // the tile's first float4 column (its left halo)
  const int by = blockIdx.y * 8 * RY - H;
  for (int i = threadIdx.y * 32 + threadIdx.x; i < T::rows * T::row4; i += 256) {
    const int r = i / T::row4, c = i % T::row4;
    const int y = by + r, x = bx + c;
    const bool inside = y >= 0 && y < height && x >= 0 && x < width4;
    async_copy16_or_zero(tile4 + i, inside ? in + std::int64_t(y) * width4 + x : in, inside);
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  staged_compute<MW, RY>(tile4, mask, out, width4, height, threadIdx.y * RY);
}

// Each warp its own stage: a warp copies its own RY + MW - 1 input rows (its 128 columns and a
// float4 a side) into a stage of its own by cp.async and waits for its own copies only, then the
// same FMAs: no registers hold the rows in flight, and no warp waits for another.
template <int MW, int RY, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    warp_staged_conv(const float4* __restrict__ in, float4* __restrict__ out, int width4, int height,
                     const __grid_constant__ Mask<MW> mask) {
  using T = StagedTile<MW, RY>;
  constexpr int rows = RY + MW - 1, words = rows * T::row4;
  extern __shared__ float4 stages4[];
  float4* mine = stages4 + threadIdx.y * words;
  const int bx = blockIdx.x * 32 - 1;
  const int by = (blockIdx.y * 8 + threadIdx.y) * RY - MW / 2;
  for (int i = threadIdx.x; i < words; i += 32) {
    const int r = i / T::row4, c = i % T::row4;
    const int y = by + r, x = bx + c;
    const bool inside = y >= 0 && y < height && x >= 0 && x < width4;
    async_copy16_or_zero(mine + i, inside ? in + std::int64_t(y) * width4 + x : in, inside);
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncwarp();
  staged_compute<MW, RY>(mine, mask, out, width4, height, 0);
}

// The staged tile filled by one tensor copy (the bulk copy engine; zeros outside the image come
// from the copy itself): thread 0 asks for the block's box, every thread sleeps on its mbarrier,
// then the same FMAs as staged_conv. No copy loop and no block barrier after the start.
template <int MW, int RY, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    tma_conv(const __grid_constant__ CUtensorMap in_map, float4* __restrict__ out, int width4, int height,
             const __grid_constant__ Mask<MW> mask) {
  using T = StagedTile<MW, RY>;
  extern __shared__ __align__(128) float4 tile4[];
  __shared__ std::uint64_t landed;
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    bulk::barrier_init(&landed, 1);
    bulk::expect_bytes(&landed, static_cast<unsigned>(T::shared));
    bulk::tensor_copy_2d(tile4, &in_map, blockIdx.x * 128 - 4, blockIdx.y * 8 * RY - MW / 2, &landed);
  }
  __syncthreads(); // the barrier is initialised before anyone waits on it
  bulk::wait_suspended(&landed, 0);
  staged_compute<MW, RY>(tile4, mask, out, width4, height, threadIdx.y * RY);
}

// ---------------------------------------------------------------------------------------------

constexpr int N = 8192;

int g_reps = 20;
template <class F> float time_it(F f, int reps = g_reps) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int i = 0; i < (reps > 1 ? 3 : 0); ++i)
    f();
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <int MW> std::vector<float> cpu_conv(const std::vector<float>& in, const Mask<MW>& m) {
  std::vector<float> out(in.size());
  constexpr int H = MW / 2;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      float s = 0.0f;
      for (int j = 0; j < MW; ++j) {
        const int yy = y - H + j;
        for (int i = 0; i < MW; ++i) {
          const int xx = x - H + i;
          const float v = (yy < 0 || yy >= N || xx < 0 || xx >= N) ? 0.0f : in[std::size_t(yy) * N + xx];
          s = std::fma(m.w[j * MW + i], v, s);
        }
      }
      out[std::size_t(y) * N + x] = s;
    }
  return out;
}

struct Bench {
  float *in = nullptr, *out = nullptr;
  std::vector<float> host_in;
  float copy_us = 0;
};

template <int MW> struct Case {
  Mask<MW> mask;
  std::vector<float> expect;
};


// Poisons the output, runs `launch` once, compares every output bit for bit with `expect` and,
// if all match, times it; prints `label` with the time and the ratio to the copy.
template <class Launch>
// inside > 0: only the outputs at least `inside` rows and columns from the image's edges are
// checked (kernels that skip their edge warps, to time the interior alone).
void check_and_time(Bench& b, const std::vector<float>& expect, Launch&& launch, const std::string& label,
                    float tolerance = 0.0f, int inside = 0) {
  CHECK(cudaMemset(b.out, 0xFF, std::size_t(N) * N * 4)); // NaN
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> got(std::size_t(N) * N);
  CHECK(cudaMemcpy(got.data(), b.out, got.size() * 4, cudaMemcpyDeviceToHost));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::size_t row = i / N, col = i % N;
    if (inside > 0 && (row < std::size_t(inside) || row >= std::size_t(N - inside) || col < std::size_t(inside) ||
                       col >= std::size_t(N - inside)))
      continue;
    bad += tolerance > 0.0f ? !(std::fabs(got[i] - expect[i]) <= tolerance) : std::memcmp(&got[i], &expect[i], 4) != 0;
  }
  const float us = bad ? 0.0f : time_it(launch);
  std::printf("%s  %s  %7.1f us  x copy %.3f\n", label.c_str(), bad ? "WRONG" : tolerance > 0.0f ? "ok~  " : "ok   ",
              us, us / b.copy_us);
  if (bad)
    std::printf("   %zu of %zu outputs differ\n", bad, got.size());
  std::fflush(stdout);
}

template <class Kernel> int regs_of(Kernel kernel) {
  cudaFuncAttributes attr{};
  CHECK(cudaFuncGetAttributes(&attr, kernel));
  return attr.numRegs;
}

// A shape of the library's walked tile (walk.cuh), as a type.
template <int S, int X, int Y, bool P> struct WalkShapeOf {
  static constexpr int rows = S, warps_x = X, warps_y = Y;
  static constexpr bool pairs = P;
};

// The library's own 7 x 7 launch (try_launch_walk_shape), checked and timed: the row the walk
// tables measure their variants against.
void run_library_walk(Bench& b, const Case<7>& c, const ladder::conv_detail::ImageArgs& a,
                      const ladder::conv_detail::MaskParam& m) {
  check_and_time(b, c.expect, [&] { ladder::conv_detail::try_launch_walk_shape<7>(a, m, nullptr); },
                 "library walked pairs (walk.cuh) MW 7  the library's launch (try_launch_walk_shape)", 1e-5f);
}

// The zero-border image arguments and the mask's parameter of the library's kernels.
template <int MW>
std::pair<ladder::conv_detail::ImageArgs, ladder::conv_detail::MaskParam> library_args(const Bench& b,
                                                                                     const Case<MW>& c) {
  namespace cd = ladder::conv_detail;
  cd::ImageArgs a;
  a.in = reinterpret_cast<const unsigned char*>(b.in);
  a.out = reinterpret_cast<unsigned char*>(b.out);
  a.in_pitch = a.out_pitch = std::int64_t(N) * 4;
  a.width = a.height = N;
  a.border = ladder::Border::zero;
  cd::MaskParam m{};
  for (int i = 0; i < MW * MW; ++i)
    m.w[i] = c.mask.w[i];
  m.width = m.height = MW;
  return {a, m};
}

// The library's 7 x 7 walk (its shape, tail and rows ahead) launched in thread block clusters of
// CX x CY blocks (the grid rounded up to whole clusters: the extra blocks find no work), so that
// neighbouring blocks, which read each other's halo, run on SMs of one GPC.
template <int CX, int CY>
void run_walk_clustered(Bench& b, const Case<7>& c, const ladder::conv_detail::ImageArgs& a,
                        const ladder::conv_detail::MaskParam& m) {
  namespace cd = ladder::conv_detail;
  using Shape = cd::WalkShape<7>;
  constexpr int S = Shape::rows, X = Shape::warps_x, Y = Shape::warps_y, T = Shape::tail_rows;
  const auto kernel = cd::convolve_walk_2d<7, S, X, Y, Shape::min_blocks, Shape::pairs, 1, T, Shape::ask_level, Shape::ahead>;
  const cd::WalkGrid g = cd::walk_2d_grid<7, S, X, Y, 1, T>(a, cd::walk_shape_tail<7>(a));
  const auto taps = cd::walk_taps<7>(m);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3((g.blocks_x + CX - 1) / CX * CX, (g.blocks_y + CY - 1) / CY * CY);
  config.blockDim = dim3(32, X * Y);
  cudaLaunchAttribute cluster[1];
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = CX;
  cluster[0].val.clusterDim.y = CY;
  cluster[0].val.clusterDim.z = 1;
  config.attrs = cluster;
  config.numAttrs = 1;
  int clusters = 0;
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  char label[240];
  std::snprintf(label, sizeof label, "library walked pairs (walk.cuh) MW 7  the library's launch in clusters of %d x %d blocks (%d clusters at once)",
                CX, CY, clusters);
  check_and_time(b, c.expect, [&] { CHECK(cudaLaunchKernelEx(&config, kernel, a, taps, g)); }, label, 1e-5f);
}

// The library's walked pairs in their shape and with their tail (WalkShape, walk_shape_tail),
// their rows ahead asked for by ask_ahead's Level, Ahead rows ahead (how: said so in the label).
template <int MW, int Level, int Ahead>
void run_walk_asking(Bench& b, const Case<MW>& c, const ladder::conv_detail::ImageArgs& a,
                     const ladder::conv_detail::MaskParam& m, const char* how) {
  namespace cd = ladder::conv_detail;
  using Shape = cd::WalkShape<MW>;
  constexpr int S = Shape::rows, X = Shape::warps_x, Y = Shape::warps_y, T = Shape::tail_rows;
  const auto kernel = cd::convolve_walk_2d<MW, S, X, Y, Shape::min_blocks, Shape::pairs, 1, T, Level, Ahead>;
  char label[240];
  std::snprintf(label, sizeof label, "library walked pairs (walk.cuh) MW %d  the library's shape and tail, %s  regs %3d",
                MW, how, regs_of(kernel));
  check_and_time(b, c.expect, [&] {
    cd::launch_walk_2d<MW, S, X, Y, Shape::min_blocks, Shape::pairs, 1, T, Level, Ahead>(a, m, nullptr, cd::walk_shape_tail<MW>(a));
  }, label, 1e-5f);
}

template <class Kernel> int blocks_per_sm(Kernel kernel, int threads, std::size_t shared) {
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared));
  return blocks;
}

// The stacked walks (walk_stacked.cuh): the library's 7 x 7 walk in its shape (16 rows a warp or
// TailS in the tail, 2 x 4 warps, rows asked of L2 evict-last 3 ahead) from the grid of the blocks
// the device holds at once, Stack 1 (the grid's order) or 4 (an SM's blocks one above the other).
// The tail's rows of blocks are those of walk_2d_counts that leave the blocks' fixed shares of
// walked rows most even (max_share: the largest share over the mean, printed).
template <int Stack, int TailS, bool BySm = false>
void run_walk_stacked(Bench& b, const Case<7>& c, const ladder::conv_detail::ImageArgs& a,
                      const ladder::conv_detail::MaskParam& m) {
  namespace cd = ladder::conv_detail;
  constexpr int S = 16, X = 2, Y = 4, MB = 4, threads = 32 * X * Y;
  const auto kernel = cd::walk_stacked_2d<7, S, X, Y, MB, TailS, 3, 3, Stack>;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int per_sm = blocks_per_sm(kernel, threads, 0);
  const std::int64_t grid = std::int64_t{per_sm} * sms;
  // Each block's walked rows (S + 6 a tile, TailS + 6 a tail tile; the frame's blocks counted as
  // none), items b, b + grid, ...: the tail that makes the largest share least.
  const auto largest_share = [&](const cd::WalkTail& tail) {
    const cd::WalkGrid g = cd::walk_2d_grid<7, S, X, Y, 1, TailS>(a, tail);
    const std::int64_t main = std::int64_t{g.blocks_x} * g.tail_row;
    const std::int64_t tiles = std::int64_t{g.blocks_x} * (g.blocks_y - g.frame_rows);
    std::vector<std::int64_t> share(static_cast<std::size_t>(grid), 0);
    for (std::int64_t n = 0; n < tiles; ++n)
      share[static_cast<std::size_t>(n % grid)] += n < main ? S + 6 : TailS + 6;
    std::int64_t most = 0, sum = 0;
    for (const std::int64_t v : share)
      most = std::max(most, v), sum += v;
    return static_cast<double>(most) * static_cast<double>(grid) / static_cast<double>(sum);
  };
  cd::WalkTail tail{};
  double max_share = largest_share(tail);
  for (std::int64_t rows = 1; TailS != S && rows <= 64; ++rows)
    if (const double share = largest_share(cd::WalkTail{rows}); share < max_share - 1e-9)
      max_share = share, tail.block_rows = rows;
  const cd::WalkGrid g = cd::walk_2d_grid<7, S, X, Y, 1, TailS>(a, tail);
  // Where the GPU put the first round's blocks: groups b, b + sms, ... whose Stack blocks share an SM.
  unsigned* smids = nullptr;
  CHECK(cudaMalloc(&smids, static_cast<std::size_t>(grid) * sizeof(unsigned)));
  const cd::WalkTaps<7> taps = cd::walk_taps<7>(m);
  // BySm: a block walks as the block its SM and its place there make it (walk_stacked_2d's on_sm).
  unsigned* on_sm = nullptr;
  if (BySm)
    CHECK(cudaMalloc(&on_sm, 1024 * sizeof(unsigned)));
  const auto launch = [&](unsigned* record) {
    if (BySm)
      CHECK(cudaMemsetAsync(on_sm, 0, 1024 * sizeof(unsigned)));
    kernel<<<static_cast<unsigned>(grid), dim3(32, X * Y)>>>(a, taps, g, sms, record, on_sm);
  };
  launch(smids);
  CHECK(cudaGetLastError());
  std::vector<unsigned> on(static_cast<std::size_t>(grid));
  CHECK(cudaMemcpy(on.data(), smids, on.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(smids));
  const unsigned highest = *std::max_element(on.begin(), on.end());
  std::vector<int> count(highest + 1, 0);
  for (const unsigned id : on)
    ++count[id];
  const auto [fewest, most] = std::minmax_element(count.begin(), count.end());
  int together = 0;
  for (int k = 0; k < sms; ++k) {
    bool same = true;
    for (int s = 1; s < per_sm && k + s * sms < grid; ++s)
      same = same && on[static_cast<std::size_t>(k + s * sms)] == on[static_cast<std::size_t>(k)];
    together += same;
  }
  char label[300];
  std::snprintf(label, sizeof label,
                "stacked walks (walk_stacked.cuh) MW 7  Stack %d%s, last %2lld rows of blocks %2d rows a warp, "
                "grid %lld, largest share %.3f of the mean; blocks b + k sms on one SM %d of %d, SM ids 0 .. %u, "
                "%d .. %d blocks an SM  regs %3d",
                Stack, BySm ? " by SM id" : "", static_cast<long long>(tail.block_rows), TailS,
                static_cast<long long>(grid), max_share, together, sms, highest, *fewest, *most, regs_of(kernel));
  check_and_time(b, c.expect, [&] { launch(nullptr); }, label, 1e-5f);
  if (BySm)
    CHECK(cudaFree(on_sm));
}

// The long walks (walk.cuh's convolve_walk_columns_2d) over `waves` times the warps the device
// holds at once (1: the library's, every warp one segment of about rows / segments rows).
// frame false: the frame not computed (checked inside only), to time the walks alone.
template <int MW, int WX, int WY, int MinBlocks, bool Pairs, int SyncRows = 0>
void run_columns(Bench& b, const Case<MW>& c, double waves = 1.0, bool frame = true) {
  namespace cd = ladder::conv_detail;
  const auto [a, m] = library_args(b, c);
  const auto kernel = cd::convolve_walk_columns_2d<MW, WX, WY, MinBlocks, Pairs, SyncRows>;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::int64_t resident = std::int64_t(blocks_per_sm(kernel, 32 * WX * WY, 0)) * sms * WX * WY;
  const auto warps = static_cast<std::int64_t>(waves * double(resident));
  cd::ColumnWalk g = cd::walk_columns_plan<MW, WX, WY>(a, warps);
  char label[300];
  std::snprintf(label, sizeof label,
                "long walks (walk_columns.cuh) MW %d  %d x %d warps a block, min %d, %s, %s, %.2f x the resident warps (%lld): "
                "%lld strips x %d segments of %.1f rows  regs %3d",
                MW, WX, WY, MinBlocks, Pairs ? "odd segments upwards" : "every warp down",
                SyncRows ? "a segment row's warps meet every row" : "no barrier", waves,
                static_cast<long long>(resident), static_cast<long long>(g.strips), g.segments,
                double(g.rows) / g.segments, regs_of(kernel));
  if (!frame) {
    g.frame = 0;
    const auto taps = cd::walk_taps<MW>(m);
    const auto blocks = static_cast<unsigned>(g.blocks_x * (g.segments / WY));
    check_and_time(b, c.expect, [&, a = a] { kernel<<<blocks, dim3(32, WX * WY)>>>(a, taps, g); },
                   std::string(label) + ", frame not computed (checked inside)", Pairs ? 1e-5f : 0.0f, 8);
    return;
  }
  check_and_time(b, c.expect, [&, a = a, m = m] { cd::launch_walk_columns_2d<MW, WX, WY, MinBlocks, Pairs, SyncRows>(a, m, nullptr, warps); },
                 label, Pairs ? 1e-5f : 0.0f);
}

// Resident 0: a block a strip, in raster order; otherwise `resident` blocks an SM (as many as
// the SMs hold, rounded down to whole rows of strips) walk the strips in bands.
template <int MW, int CW, int PX, int S, int D, int MinBlocks, bool Zig = false>
void run(Bench& b, const Case<MW>& c, int resident = 0) {
  using St = Strip<MW, CW, PX, S, D>;
  auto kernel = strip_conv<MW, CW, PX, S, D, MinBlocks, Zig>;
  const auto mask = oriented<Zig ? 2 : 1>(c.mask);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(St::shared)));
  const int strips_x = (N + St::cols - 1) / St::cols, strips = strips_x * ((N + S - 1) / S);
  const int fits = blocks_per_sm(kernel, St::threads, St::shared);
  int grid = strips;
  if (resident > 0) {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    grid = std::min(strips, std::min(resident, fits) * sms / strips_x * strips_x);
  }
  char label[200];
  std::snprintf(label, sizeof label,
                "MW %d  CW %d PX %d S %4d D %2d min %d  regs %3d blocks/SM %d  grid %5d (%s%s)", MW, CW, PX, S,
                D, MinBlocks, regs_of(kernel), fits, grid, resident > 0 ? "bands" : "a block a strip",
                Zig ? ", odd strip rows upwards" : "");
  // Upwards the sums take the mask rows bottom first: not the reference's order, so checked to
  // within 1e-5 (|outputs| <= 1, 49 terms).
  check_and_time(b, c.expect, [&] {
    kernel<<<grid, St::threads, St::shared>>>(b.in, b.out, N, N, N, mask);
  }, label, Zig ? 1e-5f : 0.0f);
}

template <int MW, int WARPS, int PX, int S, int D, int MinBlocks>
void run_warp(Bench& b, const Case<MW>& c) {
  constexpr int stage4 = WarpStrip<PX>::stage4;
  constexpr std::size_t shared = std::size_t(stage4) * (1 + WARPS * D) * 16;
  auto kernel = warp_strip_conv<MW, WARPS, PX, S, D, MinBlocks>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  constexpr int cols = WARPS * 32 * 4 * PX;
  dim3 grid((N + cols - 1) / cols, (N + S - 1) / S);
  const int blocks = blocks_per_sm(kernel, WARPS * 32, shared);
  char label[200];
  std::snprintf(label, sizeof label,
                "warp strips MW %d  warps %d PX %d S %4d D %2d min %d  regs %3d blocks/SM %2d (%2d warps) grid %5u",
                MW, WARPS, PX, S, D, MinBlocks, regs_of(kernel), blocks, blocks * WARPS, grid.x * grid.y);
  check_and_time(b, c.expect, [&] { kernel<<<grid, WARPS * 32, shared>>>(b.in, b.out, N, N, N, c.mask); },
                 label);
}

template <int MW, int KV, int RY, int MinBlocks, int Ahead, bool OwnToo>
void run_wide(Bench& b, const Case<MW>& c) {
  using W = ladder::conv_detail::Wide2d<MW, KV, RY>;
  const auto [a, m] = library_args(b, c);
  auto kernel = wide_ahead<MW, KV, RY, MinBlocks, Ahead, OwnToo>;
  dim3 grid((N + W::tile_w - 1) / W::tile_w, (N + W::tile_h - 1) / W::tile_h);
  char label[200];
  std::snprintf(label, sizeof label,
                "wide tile MW %d  %d x %d a thread, min %d, L2 %d tiles ahead, own rows %d  regs %3d", MW,
                4 * KV, RY, MinBlocks, Ahead, int(OwnToo), regs_of(kernel));
  check_and_time(b, c.expect, [&, a = a, m = m] { kernel<<<grid, dim3(W::tx, W::ty)>>>(a, m); }, label);
}

template <int MW, int KV, int RY, int MinBlocks, int Pf>
void run_wide_pf(Bench& b, const Case<MW>& c, int carveout = -1) {
  using W = ladder::conv_detail::Wide2d<MW, KV, RY>;
  const auto [a, m] = library_args(b, c);
  auto kernel = wide_pf<MW, KV, RY, MinBlocks, Pf>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
  dim3 grid((N + W::tile_w - 1) / W::tile_w, (N + W::tile_h - 1) / W::tile_h);
  static const char* const how[] = {"own rows of L2 (the library's)", "window of L1", "window of L1, own rows of L2",
                                    "window of L2", "own rows of L1"};
  char label[200];
  std::snprintf(label, sizeof label, "wide tile MW %d  %d x %d a thread, min %d, carveout %d, %s  regs %3d blocks/SM %d", MW,
                4 * KV, RY, MinBlocks, carveout, how[Pf], regs_of(kernel), blocks_per_sm(kernel, 256, 0));
  check_and_time(b, c.expect, [&, a = a, m = m] { kernel<<<grid, dim3(W::tx, W::ty)>>>(a, m); }, label);
}

template <int MW, int S, int MinBlocks, int Ahead, int Level, int Warps = 8, bool Shuffle = false, int Alternate = 0,
          int WarpsX = 1>
void run_walk(Bench& b, const Case<MW>& c, int carveout = 0) {
  auto kernel = walk_conv<MW, S, MinBlocks, Ahead, Level, Warps, Shuffle, Alternate, WarpsX>;
  const auto mask = oriented<Alternate ? 2 : 1>(c.mask);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
  const dim3 grid(N / (128 * WarpsX), (N + Warps / WarpsX * S - 1) / (Warps / WarpsX * S));
  char label[200];
  std::snprintf(label, sizeof label, "walked tile MW %d  4 x %d a thread, %d warps (%d across), min %d, carveout %d, rows %d ahead of L%d%s  regs %3d blocks/SM %d",
                MW, S, Warps, WarpsX, MinBlocks, carveout, Ahead, Level, Shuffle ? ", halo by shuffles" : Alternate == 1 ? ", odd warps upwards" : Alternate == 2 ? ", odd warps upwards, one code path" : "", regs_of(kernel),
                blocks_per_sm(kernel, 32 * Warps, 0));
  check_and_time(b, c.expect, [&] {
    kernel<<<grid, dim3(32, Warps)>>>(reinterpret_cast<const float4*>(b.in), reinterpret_cast<float4*>(b.out), N / 4, N, mask);
  }, label, Alternate ? 1e-5f : 0.0f);
}

template <int S, int R> void run_copy(Bench& b) {
  dim3 grid(N / 1024, N / S);
  const auto launch = [&] {
    strip_copy<S, R><<<grid, 256>>>(reinterpret_cast<const float4*>(b.in), reinterpret_cast<float4*>(b.out), N / 4, N);
  };
  launch();
  CHECK(cudaDeviceSynchronize());
  const float us = time_it(launch);
  std::printf("strip copy, 1024 columns a block, S %4d rows, %2d rows in flight: %7.1f us  x copy %.3f\n", S, R, us,
              us / b.copy_us);
  std::fflush(stdout);
}

template <int MW, int MH = MW, bool Flat = false, bool Neighbours = false>
std::vector<float> cpu_tile_taps(const std::vector<float>& in, const Mask<MW>& m) {
  std::vector<float> out(in.size());
  constexpr int H = MH / 2;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      float s = 0.0f;
      for (int j = 0; j < MH; ++j) {
        const int yy = Flat ? y : y - H + j;
        for (int i = 0; i < MW; ++i) {
          const int xx = Neighbours ? x - MW / 2 + i : x / 4 * 4 + (x % 4 + i) % 4;
          const float v = (yy < 0 || yy >= N || xx < 0 || xx >= N) ? 0.0f : in[std::size_t(yy) * N + xx];
          s = std::fma(m.w[j * MW + i], v, s);
        }
      }
      out[std::size_t(y) * N + x] = s;
    }
  return out;
}

template <int MW, int RY, int MinBlocks, bool TapOuter = false, int MH = MW, bool Flat = false, bool Neighbours = false>
void run_tile_taps(Bench& b, const Case<MW>& c, const std::vector<float>& expect) {
  auto kernel = tile_taps<MW, RY, MinBlocks, TapOuter, MH, Flat, Neighbours>;
  const dim3 grid(N / 128, (N + 8 * RY - 1) / (8 * RY));
  char label[200];
  if (Neighbours)
    std::snprintf(label, sizeof label, "%s %d x %d, windows of 3 float4s  4 x %d a thread, min %d  regs %3d blocks/SM %d",
                  Flat ? "flat tile (no halo rows)" : "convolution, ideal tile's shape", MW, MH, RY, MinBlocks,
                  regs_of(kernel), blocks_per_sm(kernel, 256, 0));
  else if (Flat)
    std::snprintf(label, sizeof label, "flat tile (no halo) %d x %d (%2d taps)  4 x %d a thread, min %d  regs %3d blocks/SM %d",
                  MW, MH, MW * MH, RY, MinBlocks, regs_of(kernel), blocks_per_sm(kernel, 256, 0));
  else if (MH == MW)
    std::snprintf(label, sizeof label, "ideal tile MW %d  4 x %d a thread, min %d%s  regs %3d blocks/SM %d", MW, RY,
                  MinBlocks, TapOuter ? ", tap by tap" : "", regs_of(kernel), blocks_per_sm(kernel, 256, 0));
  else
    std::snprintf(label, sizeof label, "ideal tile %d x %d (%2d taps)  4 x %d a thread, min %d  regs %3d blocks/SM %d", MW,
                  MH, MW * MH, RY, MinBlocks, regs_of(kernel), blocks_per_sm(kernel, 256, 0));
  check_and_time(b, expect, [&] {
    kernel<<<grid, dim3(32, 8)>>>(reinterpret_cast<const float4*>(b.in), reinterpret_cast<float4*>(b.out), N / 4, N, c.mask);
  }, label);
}

template <int MW, int RY, int T, int MinBlocks>
void run_tile_taps_ahead(Bench& b, const Case<MW>& c, const std::vector<float>& expect) {
  auto kernel = tile_taps_ahead<MW, RY, T, MinBlocks>;
  const dim3 grid(N / 128, (N + 8 * RY * T - 1) / (8 * RY * T));
  char label[200];
  std::snprintf(label, sizeof label, "ideal tile MW %d  4 x %d a thread, %d tiles, loads a tile ahead, min %d  regs %3d blocks/SM %d",
                MW, RY, T, MinBlocks, regs_of(kernel), blocks_per_sm(kernel, 256, 0));
  check_and_time(b, expect, [&] {
    kernel<<<grid, dim3(32, 8)>>>(reinterpret_cast<const float4*>(b.in), reinterpret_cast<float4*>(b.out), N / 4, N, c.mask);
  }, label);
}

template <int MW, int RY, int MinBlocks> void run_staged(Bench& b, const Case<MW>& c) {
  using T = StagedTile<MW, RY>;
  auto kernel = staged_conv<MW, RY, MinBlocks>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(T::shared)));
  const dim3 grid(N / 128, (N + 8 * RY - 1) / (8 * RY));
  char label[200];
  std::snprintf(label, sizeof label, "staged conv MW %d  4 x %d a thread, min %d  regs %3d  %5.1f KiB  blocks/SM %d", MW, RY,
                MinBlocks, regs_of(kernel), T::shared / 1024.0, blocks_per_sm(kernel, 256, T::shared));
  check_and_time(b, c.expect, [&] {
    kernel<<<grid, dim3(32, 8), T::shared>>>(reinterpret_cast<const float4*>(b.in), reinterpret_cast<float4*>(b.out),
                                             N / 4, N, c.mask);
  }, label);
}

template <int MW, int RY, int MinBlocks> void run_warp_staged(Bench& b, const Case<MW>& c) {
  constexpr std::size_t shared = std::size_t(8) * (RY + MW - 1) * StagedTile<MW, RY>::row4 * 16;
  auto kernel = warp_staged_conv<MW, RY, MinBlocks>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  const dim3 grid(N / 128, (N + 8 * RY - 1) / (8 * RY));
  char label[200];
  std::snprintf(label, sizeof label, "each warp its own stage MW %d  4 x %d a thread, min %d  regs %3d  %5.1f KiB  blocks/SM %d",
                MW, RY, MinBlocks, regs_of(kernel), shared / 1024.0, blocks_per_sm(kernel, 256, shared));
  check_and_time(b, c.expect, [&] {
    kernel<<<grid, dim3(32, 8), shared>>>(reinterpret_cast<const float4*>(b.in), reinterpret_cast<float4*>(b.out),
                                          N / 4, N, c.mask);
  }, label);
}

template <int MW, int RY, int MinBlocks> void run_tma(Bench& b, const Case<MW>& c) {
  using T = StagedTile<MW, RY>;
  auto kernel = tma_conv<MW, RY, MinBlocks>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(T::shared)));
  const CUtensorMap map = ladder::core::tensor_map_2d_f32(b.in, N, N, std::int64_t(N) * 4, 4 * T::row4, T::rows);
  const dim3 grid(N / 128, (N + 8 * RY - 1) / (8 * RY));
  char label[200];
  std::snprintf(label, sizeof label, "tensor-copied tile MW %d  4 x %d a thread, min %d  regs %3d  %5.1f KiB  blocks/SM %d",
                MW, RY, MinBlocks, regs_of(kernel), T::shared / 1024.0, blocks_per_sm(kernel, 256, T::shared));
  check_and_time(b, c.expect, [&] {
    kernel<<<grid, dim3(32, 8), T::shared>>>(map, reinterpret_cast<float4*>(b.out), N / 4, N, c.mask);
  }, label);
}

// Whether a copy kernel's launch writes the input back bit for bit, its output poisoned first.
template <class F> bool copies_exactly(Bench& b, F launch) {
  CHECK(cudaMemset(b.out, 0xFF, std::size_t(N) * N * 4));
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> got(std::size_t(N) * N);
  CHECK(cudaMemcpy(got.data(), b.out, got.size() * 4, cudaMemcpyDeviceToHost));
  return std::memcmp(got.data(), b.host_in.data(), got.size() * 4) == 0;
}

// resident 0: a block a strip; otherwise that many blocks (a multiple of the 8 strips across).
template <int S, int R, bool Zig> void run_band_copy(Bench& b, int resident) {
  const int strips = 8 * ((N + S - 1) / S);
  const int grid = resident > 0 ? std::min(resident, strips) : strips;
  const auto launch = [&] {
    band_copy<S, R, Zig><<<grid, 256>>>(reinterpret_cast<const float4*>(b.in), reinterpret_cast<float4*>(b.out), N / 4, N);
  };
  const bool same = copies_exactly(b, launch);
  const float us = time_it(launch);
  std::printf("halo copy, 1024 columns a block, S %4d rows (+6), %2d in flight, grid %5d%s: %s %7.1f us  x copy %.3f\n",
              S, R, grid, Zig ? ", odd strip rows upwards" : "", same ? "ok   " : "WRONG", us, us / b.copy_us);
  std::fflush(stdout);
}

// The lab's rung (convolution/strip.cuh), through its launcher.
template <int MW, int CW, int PX, int S, int D, int MinBlocks>
void run_lib(Bench& b, const Case<MW>& c) {
  namespace cd = ladder::conv_detail;
  using St = cd::Strips2d<MW, CW, PX, S, D>;
  const auto [a, m] = library_args(b, c);
  auto kernel = cd::convolve_strips_2d<MW, CW, PX, S, D, MinBlocks>;
  char label[200];
  std::snprintf(label, sizeof label, "rung strips MW %d CW %d PX %d S %d D %d min %d regs %d blocks/SM %d", MW,
                CW, PX, S, D, MinBlocks, regs_of(kernel), blocks_per_sm(kernel, St::threads, St::shared));
  check_and_time(b, c.expect, [&, a = a, m = m] { cd::launch_strips_2d<MW, CW, PX, S, D, MinBlocks>(a, m, nullptr); },
                 label);
}

// The rung (strips) and the library's wide tile under each border policy, timed only (the zero
// border's outputs are checked in the ring table): each launch timed alone, and 20 launched back
// to back between two events.
template <int MW, int CW, int PX, int S, int D, int MinBlocks>
void run_borders(Bench& b, const Case<MW>& c) {
  namespace cd = ladder::conv_detail;
  using Wide = cd::WideShape<MW>;
  for (const auto border : {ladder::Border::zero, ladder::Border::clamp, ladder::Border::reflect,
                            ladder::Border::wrap}) {
    auto [a, m] = library_args(b, c);
    a.border = border;
    const auto strips = [&, a = a, m = m] { cd::launch_strips_2d<MW, CW, PX, S, D, MinBlocks>(a, m, nullptr); };
    const auto wide = [&, a = a, m = m] {
      cd::launch_wide_2d<MW, Wide::kv, Wide::ry, Wide::min_blocks, Wide::row_loop, Wide::prefetch_l2>(a, m, nullptr);
    };
    const auto batch = [](auto f) { return [f] { for (int i = 0; i < 20; ++i) f(); }; };
    const float ts = time_it(strips), tw = time_it(wide);
    const float bs = time_it(batch(strips), 5) / 20, bw = time_it(batch(wide), 5) / 20;
    std::printf("border %d  strips %6.1f us (%.3f)  wide %6.1f us (%.3f)  | back to back: strips %6.1f  wide %6.1f\n",
                int(border), ts, ts / b.copy_us, tw, tw / b.copy_us, bs, bw);
    std::fflush(stdout);
  }
}

// The rung (StripShape's shape) under every border on small awkward images, checked bit for bit
// against the lab's CPU reference: short enough to run under compute-sanitizer.
void run_borders_small() {
  namespace cd = ladder::conv_detail;
  using Sh = cd::StripShape<7>;
  const int shapes[][2] = {{1030, 70}, {2050, 40}, {8, 9}, {1024, 300}, {3, 20}, {2049, 251}};
  for (const auto [w, h] : shapes)
    for (const auto border : {ladder::Border::zero, ladder::Border::clamp, ladder::Border::reflect,
                              ladder::Border::wrap}) {
      const std::int64_t pitch = (w + 7) / 4 * 4 + 4; // floats, rows 16-byte aligned, padded
      std::vector<float> in(pitch * h), out(pitch * h, 0.0f), got(pitch * h);
      unsigned st = 99u + w * 7u + h;
      for (auto& v : in) {
        st = st * 1664525u + 1013904223u;
        v = static_cast<float>(st >> 8) / 16777216.0f * 2.0f - 1.0f;
      }
      std::vector<float> mask(49);
      for (auto& v : mask) {
        st = st * 1664525u + 1013904223u;
        v = (static_cast<float>(st >> 8) / 16777216.0f * 2.0f - 1.0f) / 49.0f;
      }
      namespace lc = ladder::lab::convolution;
      lc::cpu_convolve2d<float>({in.data(), pitch, w, h, 1}, {out.data(), pitch, w, h, 1}, mask, 7, 7, border);
      float *din, *dout;
      CHECK(cudaMalloc(&din, in.size() * 4));
      CHECK(cudaMalloc(&dout, in.size() * 4));
      CHECK(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
      CHECK(cudaMemset(dout, 0xFF, in.size() * 4));
      cd::ImageArgs a;
      a.in = reinterpret_cast<const unsigned char*>(din);
      a.out = reinterpret_cast<unsigned char*>(dout);
      a.in_pitch = a.out_pitch = pitch * 4;
      a.width = w;
      a.height = h;
      a.border = border;
      cd::MaskParam m{};
      for (int i = 0; i < 49; ++i)
        m.w[i] = mask[i];
      m.width = m.height = 7;
      cd::launch_strips_2d<7, Sh::consumer_warps, Sh::float4s, Sh::rows, Sh::stages, Sh::min_blocks>(a, m, nullptr);
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
      std::size_t bad = 0;
      for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
          bad += std::memcmp(&got[y * pitch + x], &out[y * pitch + x], 4) != 0;
      std::printf("rung 7 x 7 %5d x %4d border %d: %s (%zu of %lld differ)\n", w, h, int(border),
                  bad ? "WRONG" : "ok", bad, static_cast<long long>(w) * h);
      CHECK(cudaFree(din));
      CHECK(cudaFree(dout));
    }
}

template <int MW> Case<MW> make_case(const Bench& b, unsigned seed) {
  Case<MW> c;
  unsigned st = seed;
  for (int i = 0; i < MW * MW; ++i) {
    st = st * 1664525u + 1013904223u;
    c.mask.w[i] = (static_cast<float>(st >> 8) / 16777216.0f * 2.0f - 1.0f) / (MW * MW);
  }
  c.expect = cpu_conv<MW>(b.host_in, c.mask);
  return c;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "small") == 0) { // the rung's borders on small images only
    run_borders_small();
    return 0;
  }
  const std::size_t bytes = std::size_t(N) * N * 4;
  Bench b;
  CHECK(cudaMalloc(&b.in, bytes));
  CHECK(cudaMalloc(&b.out, bytes));
  b.host_in.resize(std::size_t(N) * N);
  unsigned st = 12345;
  for (auto& v : b.host_in) {
    st = st * 1664525u + 1013904223u;
    v = static_cast<float>(st >> 8) / 16777216.0f * 2.0f - 1.0f;
  }
  CHECK(cudaMemcpy(b.in, b.host_in.data(), bytes, cudaMemcpyHostToDevice));
  b.copy_us = time_it([&] { cudaMemcpyAsync(b.out, b.in, bytes, cudaMemcpyDeviceToDevice); });
  std::printf("cudaMemcpy: %.1f us (%.0f GB/s)\n", b.copy_us, 2.0 * bytes / b.copy_us / 1e3);
  // Which table (docs/convolution.md, "Streamed strips"): all by default, or one by name.
  const std::string which = argc > 1 ? argv[1] : "all";
  if (argc > 2)
    g_reps = std::atoi(argv[2]);
  const auto table = [&](const char* name) {
    const bool on = which == "all" || which == name;
    if (on)
      std::printf("== %s\n", name);
    return on;
  };
  if (table("copy")) { // a plain copy walked down strips of S rows
    run_copy<4, 4>(b);
    run_copy<8, 8>(b);
    run_copy<16, 8>(b);
    run_copy<32, 8>(b);
    run_copy<64, 8>(b);
    run_copy<256, 8>(b);
    run_copy<64, 4>(b);
    run_copy<256, 4>(b);
    run_copy<256, 16>(b);
  }
  if (table("zigzag")) { // short strips walked in bands, neighbours towards each other
    run_copy<8, 8>(b);
    run_copy<256, 8>(b);
    run_band_copy<248, 8, false>(b, 0);
    run_band_copy<31, 8, false>(b, 264);
    run_band_copy<31, 8, true>(b, 264);
    run_band_copy<62, 8, true>(b, 264);
    run_band_copy<124, 8, true>(b, 264);
    run_band_copy<31, 8, true>(b, 528);
    run_band_copy<16, 8, true>(b, 528);
    run_band_copy<62, 8, true>(b, 528);
    const auto c7 = make_case<7>(b, 777);
    run_wide<7, 1, 8, 3, 0, true>(b, c7);
    run<7, 4, 2, 248, 8, 2>(b, c7);
    run<7, 4, 2, 248, 8, 2, true>(b, c7);
    run<7, 4, 2, 62, 8, 2, true>(b, c7, 2);
    run<7, 4, 2, 31, 8, 2, true>(b, c7, 2);
    run<7, 4, 2, 62, 8, 2>(b, c7, 2);
    run<7, 4, 2, 62, 8, 4, true>(b, c7, 4);
    run<7, 4, 2, 31, 8, 4, true>(b, c7, 4);
    const auto c3 = make_case<3>(b, 333);
    run<3, 8, 1, 248, 8, 3>(b, c3);
    run<3, 8, 1, 31, 8, 3, true>(b, c3, 3);
    run<3, 8, 1, 62, 8, 3, true>(b, c3, 3);
  }
  if (table("tiles")) { // the ideal tile: the lane-halo kernel's shape with a free halo
    const auto c3 = make_case<3>(b, 333);
    const auto e3 = cpu_tile_taps<3>(b.host_in, c3.mask);
    run_tile_taps<3, 2, 1>(b, c3, e3);
    run_tile_taps<3, 4, 1>(b, c3, e3);
    const auto c5 = make_case<5>(b, 555);
    const auto e5 = cpu_tile_taps<5>(b.host_in, c5.mask);
    run_tile_taps<5, 4, 1>(b, c5, e5);
    run_tile_taps<5, 8, 1>(b, c5, e5);
    const auto c7 = make_case<7>(b, 777);
    const auto e7 = cpu_tile_taps<7>(b.host_in, c7.mask);
    run_wide<7, 1, 8, 3, 0, true>(b, c7);
    run_tile_taps<7, 2, 1>(b, c7, e7);
    run_tile_taps<7, 4, 1>(b, c7, e7);
    run_tile_taps<7, 4, 3>(b, c7, e7);
    run_tile_taps<7, 4, 4>(b, c7, e7);
    run_tile_taps<7, 8, 1>(b, c7, e7);
    run_tile_taps<7, 8, 2>(b, c7, e7);
    run_tile_taps<7, 8, 3>(b, c7, e7);
    run_tile_taps<7, 16, 1>(b, c7, e7);
    run_tile_taps<7, 4, 1, true>(b, c7, e7);
    run_tile_taps<7, 4, 3, true>(b, c7, e7);
    run_tile_taps<7, 8, 1, true>(b, c7, e7);
    run_tile_taps<7, 8, 2, true>(b, c7, e7);
    run_tile_taps<7, 8, 3, true>(b, c7, e7);
    run_tile_taps<3, 4, 1, true>(b, c3, e3);
  }
  if (table("taps")) { // the ideal tile against the mask's rows: masks 7 wide, 1 to 7 high, and 9 x 9
    const auto c7 = make_case<7>(b, 777);
    const auto run7 = [&](auto mh) {
      constexpr int MH = decltype(mh)::value;
      const auto e = cpu_tile_taps<7, MH>(b.host_in, c7.mask);
      run_tile_taps<7, 4, 1, false, MH>(b, c7, e);
      run_tile_taps<7, 8, 1, false, MH>(b, c7, e);
    };
    run7(std::integral_constant<int, 1>{});
    run7(std::integral_constant<int, 2>{});
    run7(std::integral_constant<int, 3>{});
    run7(std::integral_constant<int, 4>{});
    run7(std::integral_constant<int, 5>{});
    run7(std::integral_constant<int, 6>{});
    run7(std::integral_constant<int, 7>{});
    const auto c9 = make_case<9>(b, 999);
    const auto e9 = cpu_tile_taps<9>(b.host_in, c9.mask);
    run_tile_taps<9, 4, 1>(b, c9, e9);
    run_tile_taps<9, 8, 1>(b, c9, e9);
  }
  if (table("flat")) { // the ideal tile with no halo rows: the copy with the mask's FMAs, in its shape
    const auto c3 = make_case<3>(b, 333);
    const auto e3 = cpu_tile_taps<3, 3, true>(b.host_in, c3.mask);
    run_tile_taps<3, 4, 1, false, 3, true>(b, c3, e3);
    run_tile_taps<3, 8, 1, false, 3, true>(b, c3, e3);
    const auto c5 = make_case<5>(b, 555);
    const auto e5 = cpu_tile_taps<5, 5, true>(b.host_in, c5.mask);
    run_tile_taps<5, 4, 1, false, 5, true>(b, c5, e5);
    run_tile_taps<5, 8, 1, false, 5, true>(b, c5, e5);
    const auto c7 = make_case<7>(b, 777);
    const auto e7 = cpu_tile_taps<7, 7, true>(b.host_in, c7.mask);
    run_tile_taps<7, 2, 1, false, 7, true>(b, c7, e7);
    run_tile_taps<7, 4, 1, false, 7, true>(b, c7, e7);
    run_tile_taps<7, 4, 4, false, 7, true>(b, c7, e7);
    run_tile_taps<7, 8, 1, false, 7, true>(b, c7, e7);
    run_tile_taps<7, 8, 3, false, 7, true>(b, c7, e7);
    run_tile_taps<7, 16, 1, false, 7, true>(b, c7, e7);
    run_tile_taps<7, 4, 1, true, 7, true>(b, c7, e7);
    run_tile_taps<7, 8, 1, true, 7, true>(b, c7, e7);
    const auto e76 = cpu_tile_taps<7, 6, true>(b.host_in, c7.mask);
    run_tile_taps<7, 4, 1, false, 6, true>(b, c7, e76);
    run_tile_taps<7, 8, 1, false, 6, true>(b, c7, e76);
    const auto e7h = cpu_tile_taps<7>(b.host_in, c7.mask);
    run_tile_taps<7, 4, 1>(b, c7, e7h); // with its halo rows, for the same call
  }
  if (which == "profile") { // one launch each of the flat, ideal and tensor-copied tiles at 7 x 7, for Nsight Compute
    Mask<7> m = make_case<7>(b, 777).mask;
    const auto in4 = reinterpret_cast<const float4*>(b.in);
    auto* out4 = reinterpret_cast<float4*>(b.out);
    tile_taps<7, 8, 1, false, 7, true><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, m);
    tile_taps<7, 4, 1><<<dim3(N / 128, N / 32), dim3(32, 8)>>>(in4, out4, N / 4, N, m);
    using T = StagedTile<7, 4>;
    auto tk = tma_conv<7, 4, 8>;
    CHECK(cudaFuncSetAttribute(tk, cudaFuncAttributeMaxDynamicSharedMemorySize, int(T::shared)));
    const CUtensorMap map = ladder::core::tensor_map_2d_f32(b.in, N, N, std::int64_t(N) * 4, 4 * T::row4, T::rows);
    tk<<<dim3(N / 128, N / 32), dim3(32, 8), T::shared>>>(map, out4, N / 4, N, m);
    CHECK(cudaDeviceSynchronize());
  }
  if (table("tma")) { // the staged tile filled by one tensor copy, few registers, many blocks
    const auto c3 = make_case<3>(b, 333);
    run_tma<3, 4, 1>(b, c3);
    run_tma<3, 8, 1>(b, c3);
    const auto c5 = make_case<5>(b, 555);
    run_tma<5, 4, 1>(b, c5);
    run_tma<5, 8, 1>(b, c5);
    const auto c7 = make_case<7>(b, 777);
    run_wide<7, 1, 8, 3, 0, true>(b, c7);
    run_tma<7, 4, 1>(b, c7);
    run_tma<7, 4, 6>(b, c7);
    run_tma<7, 4, 8>(b, c7);
    run_tma<7, 8, 1>(b, c7);
    run_tma<7, 8, 4>(b, c7);
    run_tma<7, 8, 5>(b, c7);
    run_tma<7, 2, 8>(b, c7);
    run_staged<7, 4, 8>(b, c7);
    const auto c9 = make_case<9>(b, 999);
    run_tma<9, 4, 1>(b, c9);
    run_tma<9, 4, 6>(b, c9);
  }
  if (table("warp_staged")) { // each warp its own stage by cp.async, waiting for its own copies only
    const auto c3 = make_case<3>(b, 333);
    run_warp_staged<3, 4, 1>(b, c3);
    const auto c5 = make_case<5>(b, 555);
    run_warp_staged<5, 4, 1>(b, c5);
    const auto c7 = make_case<7>(b, 777);
    run_wide<7, 1, 8, 3, 0, true>(b, c7);
    run_warp_staged<7, 2, 1>(b, c7);
    run_warp_staged<7, 2, 8>(b, c7);
    run_warp_staged<7, 4, 1>(b, c7);
    run_warp_staged<7, 4, 5>(b, c7);
    run_warp_staged<7, 8, 1>(b, c7);
    run_warp_staged<7, 8, 3>(b, c7);
  }
  if (table("windows")) { // the flat tile and the ideal tile with real windows: the halo columns' cost
    const auto c7 = make_case<7>(b, 777);
    const auto ef = cpu_tile_taps<7, 7, true, true>(b.host_in, c7.mask);
    run_tile_taps<7, 4, 1, false, 7, true, true>(b, c7, ef);
    run_tile_taps<7, 8, 1, false, 7, true, true>(b, c7, ef);
    run_tile_taps<7, 4, 1, false, 7, false, true>(b, c7, c7.expect); // a real convolution
    run_tile_taps<7, 8, 1, false, 7, false, true>(b, c7, c7.expect);
    run_tile_taps<7, 2, 1, false, 7, false, true>(b, c7, c7.expect);
    run_wide<7, 1, 8, 3, 0, true>(b, c7);
    const auto e7 = cpu_tile_taps<7, 7, true>(b.host_in, c7.mask);
    run_tile_taps<7, 8, 1, false, 7, true>(b, c7, e7); // the flat tile, for the same call
  }
  if (table("staged")) { // few registers, many warps: the tile staged by cp.async
    const auto c3 = make_case<3>(b, 333);
    run_staged<3, 4, 1>(b, c3);
    run_staged<3, 8, 1>(b, c3);
    const auto c5 = make_case<5>(b, 555);
    run_staged<5, 4, 1>(b, c5);
    run_staged<5, 8, 1>(b, c5);
    const auto c7 = make_case<7>(b, 777);
    run_wide<7, 1, 8, 3, 0, true>(b, c7);
    run_staged<7, 2, 1>(b, c7);
    run_staged<7, 4, 1>(b, c7);
    run_staged<7, 4, 6>(b, c7);
    run_staged<7, 4, 8>(b, c7);
    run_staged<7, 8, 1>(b, c7);
    run_staged<7, 8, 4>(b, c7);
    run_staged<7, 8, 5>(b, c7);
    run_staged<7, 16, 1>(b, c7);
    const auto e7 = cpu_tile_taps<7>(b.host_in, c7.mask);
    run_tile_taps<7, 4, 6>(b, c7, e7); // the ideal tile's registers capped for 6 and 8 blocks an SM
    run_tile_taps<7, 4, 8>(b, c7, e7);
    run_tile_taps<7, 8, 6>(b, c7, e7);
    const auto c9 = make_case<9>(b, 999);
    run_staged<9, 4, 1>(b, c9);
    run_staged<9, 8, 1>(b, c9);
  }
  if (table("tiles_ahead")) { // the ideal tile with its next tile's loads in flight
    const auto c3 = make_case<3>(b, 333);
    const auto e3 = cpu_tile_taps<3>(b.host_in, c3.mask);
    run_tile_taps_ahead<3, 4, 2, 1>(b, c3, e3);
    const auto c7 = make_case<7>(b, 777);
    const auto e7 = cpu_tile_taps<7>(b.host_in, c7.mask);
    run_tile_taps<7, 4, 1>(b, c7, e7);
    run_tile_taps_ahead<7, 2, 2, 1>(b, c7, e7);
    run_tile_taps_ahead<7, 2, 4, 1>(b, c7, e7);
    run_tile_taps_ahead<7, 2, 4, 3>(b, c7, e7);
    run_tile_taps_ahead<7, 4, 2, 1>(b, c7, e7);
    run_tile_taps_ahead<7, 4, 2, 2>(b, c7, e7);
    run_tile_taps_ahead<7, 4, 4, 1>(b, c7, e7);
    run_tile_taps_ahead<7, 8, 2, 1>(b, c7, e7);
  }
  if (table("ring")) { // the ring of bulk-copied rows, beside the wide tile
    const auto c3 = make_case<3>(b, 333);
    run<3, 8, 1, 248, 8, 3>(b, c3);
    run<3, 8, 1, 64, 8, 3>(b, c3);
    const auto c7 = make_case<7>(b, 777);
    run_wide<7, 1, 8, 3, 0, true>(b, c7);
    run<7, 4, 2, 248, 8, 2>(b, c7);
    run<7, 4, 2, 128, 8, 2>(b, c7);
    run<7, 4, 2, 64, 8, 2>(b, c7);
    run<7, 8, 2, 248, 8, 1>(b, c7);
    run<7, 8, 1, 248, 8, 3>(b, c7);
    run<7, 4, 2, 16, 22, 2>(b, c7); // short strips, every row asked for at the start
    run_lib<7, 4, 2, 248, 8, 3>(b, c7);    // the lab's rung (strip.cuh)
  }
  if (table("bands")) { // resident blocks walking short strips together, beside long strips
    const auto c3 = make_case<3>(b, 333);
    run<3, 8, 1, 248, 8, 3>(b, c3);
    run<3, 8, 1, 31, 8, 3>(b, c3, 2);
    run<3, 8, 1, 31, 8, 3>(b, c3, 4);
    run<3, 8, 1, 62, 8, 3>(b, c3, 4);
    const auto c7 = make_case<7>(b, 777);
    run_wide<7, 1, 8, 3, 0, true>(b, c7);
    run<7, 4, 2, 248, 8, 4>(b, c7);
    run<7, 4, 2, 248, 8, 4>(b, c7, 2);
    run<7, 4, 2, 124, 8, 4>(b, c7, 2);
    run<7, 4, 2, 62, 8, 4>(b, c7, 2);
    run<7, 4, 2, 31, 8, 4>(b, c7, 2);
    run<7, 4, 2, 62, 8, 4>(b, c7, 4);
    run<7, 4, 2, 31, 8, 4>(b, c7, 4);
    run<7, 4, 2, 15, 8, 4>(b, c7, 4);
    run<7, 4, 2, 31, 6, 4>(b, c7, 4);
    run<7, 4, 2, 31, 12, 4>(b, c7, 3);
    run<7, 4, 2, 31, 8, 4>(b, c7, 3);
    run<7, 8, 2, 31, 8, 2>(b, c7, 2);
    run<7, 8, 1, 31, 8, 3>(b, c7, 3);
  }
  if (table("occupancy")) { // strip heights that give every SM 2, 3 or 4 whole blocks at 8192^2
    const auto c7 = make_case<7>(b, 777);
    run<7, 4, 2, 248, 8, 2>(b, c7); // 272 blocks: 2 an SM (and 8 of 8 rows)
    run<7, 4, 2, 165, 8, 3>(b, c7); // 400: 3 an SM
    run<7, 4, 2, 125, 8, 4>(b, c7); // 528: 4 an SM
    run<7, 4, 2, 165, 12, 3>(b, c7);
    run<7, 4, 2, 125, 6, 4>(b, c7);
    run<7, 8, 2, 248, 8, 1>(b, c7); // 136: 1 an SM of 8 consumer warps
  }
  if (table("borders")) {
    const auto c7 = make_case<7>(b, 777);
    run_lib<7, 4, 2, 248, 8, 3>(b, c7);
    run_borders<7, 4, 2, 248, 8, 3>(b, c7);
  }
  if (table("warp")) { // each warp its own ring, filled by cp.async
    const auto c3 = make_case<3>(b, 333);
    run_warp<3, 4, 1, 128, 8, 8>(b, c3);
    const auto c7 = make_case<7>(b, 777);
    run_warp<7, 4, 1, 256, 8, 6>(b, c7);
    run_warp<7, 4, 1, 128, 6, 6>(b, c7);
    run_warp<7, 4, 2, 128, 8, 5>(b, c7);
  }
  if (table("prefetch")) { // rows in flight without registers: the window asked of L1 or L2 by prefetches
    const auto c7 = make_case<7>(b, 777);
    run_wide_pf<7, 1, 8, 3, 0>(b, c7);
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
    run_wide_pf<7, 1, 8, 3, 1>(b, c7);
    run_wide_pf<7, 1, 8, 3, 1>(b, c7, 0);
    run_wide_pf<7, 1, 8, 3, 2>(b, c7, 0);
    run_wide_pf<7, 1, 8, 3, 3>(b, c7);
    run_wide_pf<7, 1, 8, 3, 4>(b, c7, 0);
    run_wide_pf<7, 1, 8, 4, 1>(b, c7, 0);
    run_wide_pf<7, 1, 4, 5, 1>(b, c7, 0);
    run_wide_pf<7, 1, 4, 5, 0>(b, c7, 0);
    run_walk<7, 8, 1, 0, 1>(b, c7);
    run_walk<7, 8, 1, 4, 1>(b, c7);
    run_walk<7, 8, 4, 0, 1>(b, c7);
    run_walk<7, 8, 4, 2, 1>(b, c7);
    run_walk<7, 8, 4, 4, 1>(b, c7);
    run_walk<7, 8, 4, 4, 2>(b, c7);
    run_walk<7, 8, 9, 0, 1, 4>(b, c7);
    run_walk<7, 8, 9, 2, 1, 4>(b, c7);
    run_walk<7, 8, 9, 4, 1, 4>(b, c7);
    run_walk<7, 8, 9, 8, 1, 4>(b, c7);
    run_walk<7, 8, 9, 4, 2, 4>(b, c7);
    run_walk<7, 8, 5, 4, 1>(b, c7);
    run_walk<7, 16, 9, 0, 1, 4>(b, c7);
    run_walk<7, 16, 9, 4, 1, 4>(b, c7);
    run_walk<7, 16, 4, 4, 1>(b, c7);
    run_walk<7, 16, 5, 4, 1>(b, c7);
    run_walk<7, 32, 9, 4, 1, 4>(b, c7);
    run_walk<7, 8, 9, 4, 1, 4>(b, c7, -1);
    const auto e7 = cpu_tile_taps<7, 7, true>(b.host_in, c7.mask);
    run_tile_taps<7, 8, 1, false, 7, true>(b, c7, e7); // the flat tile, for the same call
  }
  if (table("walk")) { // the walked tile: shorter tiles, the halo columns by shuffles, 9 x 9
    const auto c7 = make_case<7>(b, 777);
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
    run_walk<7, 8, 4, 2, 1>(b, c7);
    run_walk<7, 8, 4, 0, 1>(b, c7);
    run_walk<7, 6, 4, 2, 1>(b, c7);
    run_walk<7, 7, 4, 2, 1>(b, c7);
    run_walk<7, 8, 4, 2, 1, 8, true>(b, c7);
    run_walk<7, 8, 4, 0, 1, 8, true>(b, c7);
    run_walk<7, 8, 9, 2, 1, 4, true>(b, c7);
    run_walk<7, 8, 5, 2, 1, 8, true>(b, c7);
    run_walk<7, 8, 6, 2, 1, 8, true>(b, c7);
    run_walk<7, 6, 5, 2, 1, 8, true>(b, c7);
    run_walk<7, 8, 4, 2, 1>(b, c7);
    const auto e7 = cpu_tile_taps<7, 7, true>(b.host_in, c7.mask);
    run_tile_taps<7, 8, 1, false, 7, true>(b, c7, e7); // the flat tile, for the same call
    const auto c9 = make_case<9>(b, 999);
    run_wide_pf<9, 1, 8, 3, 0>(b, c9, 0);
    run_walk<9, 8, 3, 2, 1>(b, c9);
    run_walk<9, 8, 4, 2, 1>(b, c9);
  }
  if (table("pairs")) { // the walked tile with its odd warps walking upwards
    const auto c7 = make_case<7>(b, 777);
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
    run_walk<7, 8, 4, 2, 1>(b, c7);
    run_walk<7, 8, 4, 2, 1, 8, false, 1>(b, c7);
    run_walk<7, 8, 4, 0, 1, 8, false, 1>(b, c7);
    run_walk<7, 8, 9, 2, 1, 4, false, 1>(b, c7);
    run_walk<7, 16, 4, 2, 1, 8, false, 1>(b, c7);
    run_walk<7, 16, 4, 0, 1, 8, false, 1>(b, c7);
    run_walk<7, 32, 4, 2, 1, 8, false, 1>(b, c7);
    run_walk<7, 12, 4, 2, 1, 8, false, 1>(b, c7);
    run_walk<7, 8, 4, 2, 1, 8, false, 1>(b, c7, -1);
    run_walk<7, 8, 4, 2, 1>(b, c7);
    const auto e7 = cpu_tile_taps<7, 7, true>(b.host_in, c7.mask);
    run_tile_taps<7, 8, 1, false, 7, true>(b, c7, e7); // the flat tile, for the same call
    const auto c9 = make_case<9>(b, 999);
    run_wide_pf<9, 1, 8, 3, 0>(b, c9, 0);
    run_walk<9, 8, 3, 2, 1>(b, c9);
    run_walk<9, 8, 3, 2, 1, 8, false, 1>(b, c9);
    run_walk<9, 16, 3, 2, 1, 8, false, 1>(b, c9);
    const auto c5 = make_case<5>(b, 555);
    run_walk<5, 8, 4, 2, 1>(b, c5);
    run_walk<5, 8, 4, 2, 1, 8, false, 1>(b, c5);
    run_walk<5, 16, 4, 2, 1, 8, false, 1>(b, c5);
  }
  if (which == "profile_l2") { // one launch each of a copy and the 7 x 7 kernels, for L2's breakdown in Nsight Compute
    const auto c7 = make_case<7>(b, 777);
    const auto in4 = reinterpret_cast<const float4*>(b.in);
    auto* out4 = reinterpret_cast<float4*>(b.out);
    strip_copy<8, 8><<<dim3(N / 1024, N / 8), 256>>>(in4, out4, N / 4, N);
    tile_taps<7, 8, 1, false, 7, true><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, c7.mask);
    tile_taps<7, 4, 1><<<dim3(N / 128, N / 32), dim3(32, 8)>>>(in4, out4, N / 4, N, c7.mask);
    walk_conv<7, 8, 4, 2, 1><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, c7.mask);
    const auto [a, m] = library_args(b, c7);
    wide_pf<7, 1, 8, 3, 0><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(a, m);
    using T = StagedTile<7, 4>;
    auto tk = tma_conv<7, 4, 8>;
    CHECK(cudaFuncSetAttribute(tk, cudaFuncAttributeMaxDynamicSharedMemorySize, int(T::shared)));
    const CUtensorMap map = ladder::core::tensor_map_2d_f32(b.in, N, N, std::int64_t(N) * 4, 4 * T::row4, T::rows);
    tk<<<dim3(N / 128, N / 32), dim3(32, 8), T::shared>>>(map, out4, N / 4, N, c7.mask);
    CHECK(cudaDeviceSynchronize());
  }
  if (table("pairs1")) { // the walked tile in pairs with one code path (taps in uniform registers)
    const auto c7 = make_case<7>(b, 777);
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
    run_walk<7, 8, 4, 2, 1>(b, c7);
    run_walk<7, 8, 4, 2, 1, 8, false, 2>(b, c7);
    run_walk<7, 8, 4, 0, 1, 8, false, 2>(b, c7);
    run_walk<7, 8, 4, 4, 1, 8, false, 2>(b, c7);
    run_walk<7, 8, 9, 2, 1, 4, false, 2>(b, c7);
    run_walk<7, 8, 9, 0, 1, 4, false, 2>(b, c7);
    run_walk<7, 16, 4, 2, 1, 8, false, 2>(b, c7);
    run_walk<7, 12, 4, 2, 1, 8, false, 2>(b, c7);
    run_walk<7, 32, 4, 2, 1, 8, false, 2>(b, c7);
    run_walk<7, 8, 4, 2, 1, 8, false, 1>(b, c7);
    run_walk<7, 8, 4, 2, 1, 8, false, 2>(b, c7, -1);
    run_walk<7, 8, 4, 2, 1>(b, c7);
    const auto e7 = cpu_tile_taps<7, 7, true>(b.host_in, c7.mask);
    run_tile_taps<7, 8, 1, false, 7, true>(b, c7, e7); // the flat tile, for the same call
    const auto c5 = make_case<5>(b, 555);
    run_walk<5, 8, 4, 2, 1>(b, c5);
    run_walk<5, 8, 4, 2, 1, 8, false, 2>(b, c5);
    run_walk<5, 8, 5, 2, 1, 8, false, 2>(b, c5);
  }
  if (table("pairs2")) { // the walked tile in pairs, one code path, warps also side by side
    const auto c7 = make_case<7>(b, 777);
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
    run_walk<7, 8, 4, 2, 1, 8, false, 2>(b, c7);
    run_walk<7, 8, 2, 2, 1, 16, false, 2, 2>(b, c7);
    run_walk<7, 16, 2, 2, 1, 16, false, 2, 2>(b, c7);
    run_walk<7, 8, 4, 2, 1, 8, false, 2, 2>(b, c7);
    run_walk<7, 16, 4, 2, 1, 8, false, 2, 2>(b, c7);
    run_walk<7, 8, 1, 2, 1, 32, false, 2, 4>(b, c7);
    run_walk<7, 16, 1, 2, 1, 32, false, 2, 4>(b, c7);
    run_walk<7, 16, 2, 2, 1, 16, false, 2, 4>(b, c7);
    run_walk<7, 16, 2, 0, 1, 16, false, 2, 2>(b, c7);
    run_walk<7, 24, 2, 2, 1, 16, false, 2, 2>(b, c7);
    run_walk<7, 16, 4, 2, 1>(b, c7);
    run_walk<7, 8, 4, 2, 1, 8, false, 0, 2>(b, c7);
    run_walk<7, 8, 4, 2, 1, 8, false, 2>(b, c7);
    const auto e7 = cpu_tile_taps<7, 7, true>(b.host_in, c7.mask);
    run_tile_taps<7, 8, 1, false, 7, true>(b, c7, e7); // the flat tile, for the same call
  }
  if (which == "profile_pairs2") { // the pairs with warps side by side, for Nsight Compute
    const auto c7 = make_case<7>(b, 777);
    const auto m2 = oriented<2>(c7.mask);
    const auto in4 = reinterpret_cast<const float4*>(b.in);
    auto* out4 = reinterpret_cast<float4*>(b.out);
    walk_conv<7, 16, 2, 2, 1, 16, false, 2, 2><<<dim3(N / 256, N / 128), dim3(32, 16)>>>(in4, out4, N / 4, N, m2);
    walk_conv<7, 8, 2, 2, 1, 16, false, 2, 2><<<dim3(N / 256, N / 64), dim3(32, 16)>>>(in4, out4, N / 4, N, m2);
    CHECK(cudaDeviceSynchronize());
  }
  if (table("library_walk")) { // the walked pairs with every border's edge path (walk_pairs.cuh) beside the tool's
    const auto c7 = make_case<7>(b, 777);
    const auto [a, m] = library_args(b, c7);
    namespace cd = walk_pairs;
    using Shape = cd::WalkShape;
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
    for (int k = 0; k < 2; ++k) {
      char label[200];
      std::snprintf(label, sizeof label, "walked pairs, every border (walk_pairs.cuh) MW 7  4 x %d a thread, %d x %d warps, min %d  regs %3d",
                    Shape::rows, Shape::warps_x, Shape::warps_y, Shape::min_blocks,
                    regs_of(cd::convolve_walk_2d<7, Shape::rows, Shape::warps_x, Shape::warps_y, Shape::min_blocks>));
      check_and_time(b, c7.expect, [&, a = a, m = m] {
        ladder::conv_detail::launch_walk_2d<7, Shape::rows, Shape::warps_x, Shape::warps_y, Shape::min_blocks, true>(a, m, nullptr);
      }, "the library's walked pairs (walk.cuh: edge warps in one rolled loop), through launch_walk_2d", 1e-5f);
      // the kernel launched directly, its taps built once (as the tool's own kernels are launched)
      const auto taps = cd::walk_taps<7>(m);
      using Wk = cd::Walk2d<7, Shape::rows, Shape::warps_x, Shape::warps_y>;
      const dim3 grid(N / Wk::tile_w, N / Wk::tile_h);
      check_and_time(b, c7.expect, [&, a = a] {
        cd::convolve_walk_2d<7, Shape::rows, Shape::warps_x, Shape::warps_y, Shape::min_blocks>
            <<<grid, dim3(32, Shape::warps_x * Shape::warps_y)>>>(a, taps);
      }, std::string(label) + ", launched directly", 1e-5f);
      // its edge warps reading as the tool's walk_conv does (zero border only)
      check_and_time(b, c7.expect, [&, a = a] {
        cd::convolve_walk_2d<7, Shape::rows, Shape::warps_x, Shape::warps_y, Shape::min_blocks, cd::Edges::zero_tested>
            <<<grid, dim3(32, Shape::warps_x * Shape::warps_y)>>>(a, taps);
      }, std::string(label) + ", launched directly, edge warps' loads tested (zero border only)", 1e-5f);
      run_walk<7, 16, 4, 2, 1, 8, false, 2, 2>(b, c7);
    }
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
  }
  if (table("walk_library")) { // the library's walked tile (walk.cuh) in its shapes, beside the wide tile
    namespace cd = ladder::conv_detail;
    const auto lib = [&](auto kernel, auto launch, int mw, int rows, int warps_x, int warps_y, bool pairs, const auto& c) {
      const auto [a, m] = library_args(b, c);
      char label[240];
      std::snprintf(label, sizeof label, "library walked tile (walk.cuh) MW %d  4 x %d a thread, %d x %d warps, %s  regs %3d blocks/SM %d",
                    mw, rows, warps_x, warps_y, pairs ? "odd warps upwards" : "every warp down", regs_of(kernel),
                    blocks_per_sm(kernel, 32 * warps_x * warps_y, 0));
      check_and_time(b, c.expect, [&, a = a, m = m] { launch(a, m, nullptr); }, label, pairs ? 1e-5f : 0.0f);
    };
#define LADDER_WALK(MW, S, X, Y, MB, P, c) \
    lib(cd::convolve_walk_2d<MW, S, X, Y, MB, P>, [](auto&&... v) { cd::launch_walk_2d<MW, S, X, Y, MB, P>(v...); }, MW, S, X, Y, P, c)
    // The frame: computed by the grid's first rows of blocks (the library's), or not computed
    // (checked inside only). (Spread through the grid, as the library had it, measured the same as
    // all first: convolution-walk-edges-h200-2026-11-29.md.)
    const auto frame = [&](auto kernel, auto shape, const auto& c, int how) {
      using Sh = decltype(shape);
      const auto [a, m] = library_args(b, c);
      auto g = cd::walk_2d_grid<7, Sh::rows, Sh::warps_x, Sh::warps_y>(a);
      if (how == 2)
        g.blocks_y -= g.frame_rows, g.frame_rows = 0;
      const auto taps = cd::walk_taps<7>(m);
      char label[240];
      std::snprintf(label, sizeof label, "library walked tile (walk.cuh) MW 7  4 x %d a thread, %d x %d warps, %s, frame %s",
                    Sh::rows, Sh::warps_x, Sh::warps_y, Sh::pairs ? "odd warps upwards" : "every warp down",
                    how == 0 ? "the grid's first rows (the library's)" : "not computed (checked inside)");
      check_and_time(b, c.expect, [&, a = a] {
        kernel<<<dim3(g.blocks_x, g.blocks_y), dim3(32, Sh::warps_x * Sh::warps_y)>>>(a, taps, g);
      }, label, Sh::pairs ? 1e-5f : 0.0f, how == 2 ? 16 : 0);
    };
    using PairsShape = WalkShapeOf<16, 2, 4, true>;
    using DownShape = WalkShapeOf<8, 1, 8, false>;
    const auto c7 = make_case<7>(b, 777);
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
    for (int how = 0; how < 3; how += 2) {
      frame(cd::convolve_walk_2d<7, 16, 2, 4, 4, true>, PairsShape{}, c7, how);
      frame(cd::convolve_walk_2d<7, 8, 1, 8, 4, false>, DownShape{}, c7, how);
    }
    for (int k = 0; k < 2; ++k) {
      LADDER_WALK(7, 16, 2, 4, 4, true, c7);
      LADDER_WALK(7, 16, 2, 4, 4, false, c7);
      LADDER_WALK(7, 8, 1, 8, 4, false, c7);
      LADDER_WALK(7, 8, 2, 4, 4, false, c7);
      LADDER_WALK(7, 16, 1, 8, 4, true, c7);
      LADDER_WALK(7, 8, 1, 8, 4, true, c7);
      LADDER_WALK(7, 16, 1, 8, 4, false, c7);
      run_walk<7, 16, 4, 2, 1, 8, false, 2, 2>(b, c7);
    }
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
    const auto c9 = make_case<9>(b, 999);
    run_wide_pf<9, 1, 8, 3, 0>(b, c9, 0);
    LADDER_WALK(9, 16, 2, 4, 3, false, c9);
    LADDER_WALK(9, 8, 1, 8, 3, false, c9);
    LADDER_WALK(9, 16, 2, 4, 3, true, c9);
    LADDER_WALK(9, 16, 1, 8, 3, false, c9);
    run_wide_pf<9, 1, 8, 3, 0>(b, c9, 0);
    const auto c5 = make_case<5>(b, 555);
    LADDER_WALK(5, 16, 2, 4, 4, false, c5);
    LADDER_WALK(5, 16, 2, 4, 4, true, c5);
#undef LADDER_WALK
  }
  if (table("walk_heights") || which == "walk_blocks" || which == "walk_wide") { // the library's walked pairs (walk.cuh) at other heights and widths of a block
    namespace cd = ladder::conv_detail;
    const auto c7 = make_case<7>(b, 777);
    const auto [a, m] = library_args(b, c7);
    const auto walk = [&](auto kernel, auto launch, int rows, int warps_x, int warps_y, int px) {
      char label[240];
      std::snprintf(label, sizeof label, "library walked pairs (walk.cuh) MW 7  %d x %d a thread, %d x %d warps  regs %3d blocks/SM %d",
                    px, rows, warps_x, warps_y, regs_of(kernel), blocks_per_sm(kernel, 32 * warps_x * warps_y, 0));
      check_and_time(b, c7.expect, [&, a = a, m = m] { launch(a, m, nullptr); }, label, 1e-5f);
    };
#define LADDER_WALK_KV(S, X, Y, MB, KV) \
    walk(cd::convolve_walk_2d<7, S, X, Y, MB, true, KV>, [](auto&&... v) { cd::launch_walk_2d<7, S, X, Y, MB, true, KV>(v...); }, S, X, Y, 4 * KV)
#define LADDER_WALK(S, X, Y, MB) LADDER_WALK_KV(S, X, Y, MB, 1)
    const bool blocks = which == "walk_blocks"; // (blocks of 4 and 16 warps only)
    const bool wide = which == "walk_wide";     // (8 pixels a thread only)
    for (int k = 0; k < 3; ++k) {
      LADDER_WALK(16, 2, 4, 4);
      if (wide) {
        LADDER_WALK_KV(16, 2, 4, 2, 2);
        LADDER_WALK_KV(16, 2, 4, 3, 2);
        LADDER_WALK_KV(16, 2, 2, 5, 2);
        LADDER_WALK_KV(16, 1, 4, 5, 2);
        continue;
      }
      if (blocks) {
        LADDER_WALK(16, 2, 2, 8);
        LADDER_WALK(16, 1, 4, 8);
        LADDER_WALK(20, 2, 2, 8);
        LADDER_WALK(16, 2, 8, 2);
        continue;
      }
      LADDER_WALK(20, 2, 4, 4);
      LADDER_WALK(24, 2, 4, 4);
      LADDER_WALK(32, 2, 4, 4);
      LADDER_WALK(16, 4, 2, 4);
      LADDER_WALK(24, 4, 2, 4);
      LADDER_WALK(24, 1, 8, 4);
    }
#undef LADDER_WALK
#undef LADDER_WALK_KV
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
  }
  if (table("walk_tail") || which == "profile_walk_tail") { // the library's walked pairs with their grid's last rows of blocks walking fewer rows a warp
    namespace cd = ladder::conv_detail;
    const auto c7 = make_case<7>(b, 777);
    const auto [a, m] = library_args(b, c7);
    const bool profile = which == "profile_walk_tail"; // one launch each, unchecked, for ncu
    const auto walk = [&, a = a, m = m](auto kernel, auto launch, int rows, int tail_rows, cd::WalkTail tail) {
      char label[240];
      std::snprintf(label, sizeof label, "library walked pairs (walk.cuh) MW 7  4 x %d a thread, 2 x 4 warps, TailS %2d, last %2lld rows of blocks %2d rows a warp  regs %3d",
                    rows, tail_rows, static_cast<long long>(tail.block_rows), tail.block_rows ? tail_rows : rows,
                    regs_of(kernel));
      if (profile) {
        launch(a, m, nullptr, tail);
        CHECK(cudaDeviceSynchronize());
        std::printf("%s  (one launch)\n", label);
        return;
      }
      check_and_time(b, c7.expect, [&] { launch(a, m, nullptr, tail); }, label, 1e-5f);
    };
#define LADDER_WALK_TAIL(S, TS, ROWS) \
    walk(cd::convolve_walk_2d<7, S, 2, 4, 4, true, 1, TS>, \
         [](auto&&... v) { cd::launch_walk_2d<7, S, 2, 4, 4, true, 1, TS>(v...); }, S, TS, cd::WalkTail{ROWS})
    if (profile) {
      LADDER_WALK_TAIL(16, 16, 0);
      LADDER_WALK_TAIL(16, 6, 16);
      LADDER_WALK_TAIL(16, 8, 16);
    }
    for (int k = 0; k < (profile ? 0 : 3); ++k) {
      LADDER_WALK_TAIL(16, 16, 0);
      LADDER_WALK_TAIL(16, 6, 0); // the tail's kernel (its row count a run-time value), no tail
      for (const int rows : {8, 12, 16, 20, 24, 32})
        LADDER_WALK_TAIL(16, 6, rows);
      for (const int rows : {8, 16, 32}) {
        LADDER_WALK_TAIL(16, 8, rows);
        LADDER_WALK_TAIL(16, 12, rows);
      }
      LADDER_WALK_TAIL(24, 24, 0);
      LADDER_WALK_TAIL(24, 6, 16);
    }
#undef LADDER_WALK_TAIL
  }
  if (table("walk_big") || which == "walk_big_tail" || which == "profile_walk_big") { // the library's walked pairs in blocks of 8 to 32 warps
    namespace cd = ladder::conv_detail;
    const auto c7 = make_case<7>(b, 777);
    const auto [a, m] = library_args(b, c7);
    const bool profile = which == "profile_walk_big"; // one launch each, unchecked, for ncu
    const auto walk = [&, a = a, m = m](auto kernel, auto launch, int warps_x, int warps_y, int tail_rows = -1) {
      char label[240];
      char tail[64] = "";
      if (tail_rows >= 0)
        std::snprintf(tail, sizeof tail, ", last %2d rows of blocks 6 rows a warp", tail_rows);
      std::snprintf(label, sizeof label, "library walked pairs (walk.cuh) MW 7  4 x 16 a thread, %d x %2d warps%s  regs %3d blocks/SM %d",
                    warps_x, warps_y, tail, regs_of(kernel), blocks_per_sm(kernel, 32 * warps_x * warps_y, 0));
      if (profile) {
        launch(a, m, nullptr);
        CHECK(cudaDeviceSynchronize());
        std::printf("%s  (one launch)\n", label);
        return;
      }
      check_and_time(b, c7.expect, [&] { launch(a, m, nullptr); }, label, 1e-5f);
    };
#define LADDER_WALK_BIG(X, Y, MB) \
    walk(cd::convolve_walk_2d<7, 16, X, Y, MB, true>, [](auto&&... v) { cd::launch_walk_2d<7, 16, X, Y, MB, true>(v...); }, X, Y)
#define LADDER_WALK_BIG_TAIL(X, Y, MB, ROWS) \
    walk(cd::convolve_walk_2d<7, 16, X, Y, MB, true, 1, 6>, [=](auto&&... v) { \
      cd::launch_walk_2d<7, 16, X, Y, MB, true, 1, 6>(v..., cd::WalkTail{ROWS}); }, X, Y, ROWS)
    if (which == "walk_big_tail") { // the same with the last rows of blocks walking 6 rows a warp
      for (int k = 0; k < 3; ++k) {
        LADDER_WALK_BIG_TAIL(2, 4, 4, 0);
        LADDER_WALK_BIG_TAIL(2, 4, 4, 16);
        for (const int rows : {4, 8, 12})
          LADDER_WALK_BIG_TAIL(2, 8, 2, rows);
        for (const int rows : {2, 4, 6})
          LADDER_WALK_BIG_TAIL(2, 16, 1, rows);
        for (const int rows : {4, 8})
          LADDER_WALK_BIG_TAIL(4, 8, 1, rows);
      }
    }
    for (int k = 0; k < (profile ? 1 : which == "walk_big_tail" ? 0 : 3); ++k) {
      LADDER_WALK_BIG(2, 4, 4);
      LADDER_WALK_BIG(2, 8, 2);
      LADDER_WALK_BIG(2, 16, 1);
      LADDER_WALK_BIG(4, 8, 1);
      LADDER_WALK_BIG(1, 32, 1);
    }
#undef LADDER_WALK_BIG_TAIL
#undef LADDER_WALK_BIG
  }
  if (table("walk_frame")) { // the library's walked pairs, with their tail, their frame's side columns a thread a quad or walked down
    namespace cd = ladder::conv_detail;
    const auto c7 = make_case<7>(b, 777);
    const auto [a, m] = library_args(b, c7);
    const auto taps = cd::walk_taps<7>(m);
    const cd::WalkTail tail = cd::walk_shape_tail<7>(a);
    // side_rows: the frame's side columns walked down runs of side_rows rows; -1: no frame
    // (checked inside only).
    const auto walk = [&, a = a](int side_rows) {
      auto g = cd::walk_2d_grid<7, 16, 2, 4, 1, 6>(a, tail);
      const unsigned tile_rows = g.blocks_y - g.frame_rows;
      g.frame = cd::frame_walks(a.width, a.height, 3, side_rows < 0 ? 16 : side_rows);
      g.frame_rows = side_rows < 0 ? 0 : static_cast<unsigned>(cd::frame_block_rows(g.frame, 256, g.blocks_x));
      g.blocks_y = tile_rows + g.frame_rows;
      const auto kernel = cd::convolve_walk_2d<7, 16, 2, 4, 4, true, 1, 6>;
      char label[240];
      std::snprintf(label, sizeof label, "library walked pairs (walk.cuh) MW 7  4 x 16 a thread, 2 x 4 warps, last %2lld rows of blocks 6 rows a warp, frame %-34s %u rows of blocks  regs %3d",
                    static_cast<long long>(tail.block_rows),
                    side_rows < 0 ? "not computed (inside)" : (std::string("sides walked ") + std::to_string(side_rows) + " rows a thread").c_str(),
                    g.frame_rows, regs_of(kernel));
      check_and_time(b, c7.expect, [&, a = a] {
        kernel<<<dim3(g.blocks_x, g.blocks_y), dim3(32, 8)>>>(a, taps, g);
      }, label, 1e-5f, side_rows < 0 ? 16 : 0);
    };
    for (int k = 0; k < 4; ++k) {
      run_library_walk(b, c7, a, m);
      for (const int side_rows : {8, 16, 32, -1})
        walk(side_rows);
    }
  }
  if (table("walk_copy") || table("walk_copy_ahead")) { // a plain copy in the walked pairs' shape
    namespace cd = ladder::conv_detail;
    static constexpr const char* asked[] = {"nothing asked ahead", "rows asked of L1", "rows asked of L2",
                                            "rows asked of L2 evict-last", "rows asked of L2 in bulk, 512 bytes by lane 0"};
    // blocks: 0 as many an SM as fit; otherwise held to that many by dynamic shared memory, out of
    // a shared-memory carve-out of 64 KB (the rest of the SM's 256 KB stays L1).
    const auto copy = [&](auto variant, int blocks) {
      using V = decltype(variant);
      constexpr int halo = V::halo, ahead = V::ahead;
      constexpr AskAhead ask = V::ask;
      const auto kernel = walk_copy<16, halo, ask, ahead>;
      const std::size_t shared = blocks > 0 ? std::size_t{64 * 1024} / blocks - 2048 : 0;
      CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 blocks > 0 ? 28 : cudaSharedmemCarveoutDefault));
      const dim3 grid(N / 4 / 64, N / (16 * 4));
      const auto launch = [&] {
        kernel<<<grid, dim3(32, 8), shared>>>(reinterpret_cast<const float4*>(b.in), reinterpret_cast<float4*>(b.out), N / 4, N);
      };
      const bool same = copies_exactly(b, launch);
      const float us = time_it(launch);
      std::printf("copy in the walked pairs' shape (16 rows a warp, 2 x 4 warps, odd rows of warps upwards), %s, %s %d ahead  regs %3d blocks/SM %d  %s %7.1f us  x copy %.3f\n",
                  halo == 0 ? "its own float4s" : halo == 1 ? "its own float4s of the halo rows too" : "the window: halo rows and halo columns",
                  asked[static_cast<int>(ask)], ask == AskAhead::none ? 0 : ahead, regs_of(kernel), blocks_per_sm(kernel, 256, shared),
                  same ? "ok   " : "WRONG", us, us / b.copy_us);
      std::fflush(stdout);
    };
    const auto c7 = make_case<7>(b, 777);
    const auto [a, m] = library_args(b, c7);
    using A = AskAhead;
    if (table("walk_copy"))
      for (int k = 0; k < 4; ++k) { // its own float4s, the halo rows, the halo columns
        run_library_walk(b, c7, a, m);
        copy(WalkCopyOf<0, A::none>{}, 0);
        copy(WalkCopyOf<0, A::l1>{}, 0);
        copy(WalkCopyOf<1, A::l1>{}, 0);
        copy(WalkCopyOf<2, A::l1>{}, 0);
        copy(WalkCopyOf<2, A::none>{}, 0);
      }
    if (table("walk_copy_ahead"))
      for (int k = 0; k < 3; ++k) { // how the rows ahead are asked for, at the walk's 4 blocks an SM and at 8
        run_library_walk(b, c7, a, m);
        for (const int blocks : {4, 0}) {
          copy(WalkCopyOf<2, A::none>{}, blocks);
          copy(WalkCopyOf<2, A::l1>{}, blocks);
          copy(WalkCopyOf<2, A::l2>{}, blocks);
          copy(WalkCopyOf<2, A::l2_evict_last>{}, blocks);
          copy(WalkCopyOf<2, A::bulk_l2>{}, blocks);
          copy(WalkCopyOf<0, A::none>{}, blocks);
          copy(WalkCopyOf<0, A::l1>{}, blocks);
          copy(WalkCopyOf<0, A::bulk_l2>{}, blocks);
        }
        copy(WalkCopyOf<2, A::l1, 1>{}, 4);
        copy(WalkCopyOf<2, A::l1, 4>{}, 4);
        copy(WalkCopyOf<2, A::l2, 4>{}, 4);
        copy(WalkCopyOf<2, A::bulk_l2, 4>{}, 4);
        copy(WalkCopyOf<2, A::bulk_l2, 8>{}, 4);
      }
  }
  if (table("walk_shapes") || table("walk_ahead")) { // the library's walked pairs in other shapes, or asking for their rows ahead otherwise
    namespace cd = ladder::conv_detail;
    const auto c7 = make_case<7>(b, 777);
    const auto [a, m] = library_args(b, c7);
    // Each shape with its own tail: the last rows of blocks of one wave (walk_tail_rows) walking
    // TailS rows a warp.
    const auto walk = [&, a = a, m = m](auto kernel, auto launch, auto counts, int rows, int tail_rows, int min_blocks) {
      int sms = 0;
      CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
      const int per_sm = blocks_per_sm(kernel, 256, 0);
      const cd::WalkCounts c = counts(a);
      const cd::WalkTail tail{cd::walk_tail_rows(c.blocks_x, c.main_rows, std::int64_t{per_sm} * sms)};
      char label[240];
      std::snprintf(label, sizeof label, "library walked pairs (walk.cuh) MW 7  4 x %d a thread, 2 x 4 warps, min %d, last %2lld rows of blocks %d rows a warp  regs %3d blocks/SM %d",
                    rows, min_blocks, static_cast<long long>(tail.block_rows), tail_rows, regs_of(kernel), per_sm);
      check_and_time(b, c7.expect, [&] { launch(a, m, nullptr, tail); }, label, 1e-5f);
    };
#define LADDER_WALK_SHAPE(S, TS, MB) \
    walk(cd::convolve_walk_2d<7, S, 2, 4, MB, true, 1, TS>, \
         [](auto&&... v) { cd::launch_walk_2d<7, S, 2, 4, MB, true, 1, TS>(v...); }, \
         [](const cd::ImageArgs& x) { return cd::walk_2d_counts<7, S, 2, 4, 1, TS>(x); }, S, TS, MB)
    for (int k = 0; k < 4 && table("walk_shapes"); ++k) {
      run_library_walk(b, c7, a, m);
      LADDER_WALK_SHAPE(16, 6, 4);
      LADDER_WALK_SHAPE(16, 6, 3);
      LADDER_WALK_SHAPE(20, 6, 4);
      LADDER_WALK_SHAPE(24, 6, 4);
      LADDER_WALK_SHAPE(24, 6, 3);
      LADDER_WALK_SHAPE(32, 6, 4);
      LADDER_WALK_SHAPE(32, 6, 3);
      LADDER_WALK_SHAPE(32, 8, 3);
    }
#undef LADDER_WALK_SHAPE
    // The library's shape and tail, its rows ahead asked for as walk_copy_ahead's copies ask
    // (cd::ask_ahead's levels: 1 L1, 2 L2, 3 L2 evict-last, 4 L2 in bulk by lane 0).
    for (int k = 0; k < 4 && table("walk_ahead"); ++k) {
      run_library_walk(b, c7, a, m);
      run_walk_asking<7, 1, 2>(b, c7, a, m, "rows asked of L1 2 ahead");
      run_walk_asking<7, 1, 3>(b, c7, a, m, "rows asked of L1 3 ahead");
      run_walk_asking<7, 1, 4>(b, c7, a, m, "rows asked of L1 4 ahead");
      run_walk_asking<7, 2, 2>(b, c7, a, m, "rows asked of L2 2 ahead");
      run_walk_asking<7, 2, 4>(b, c7, a, m, "rows asked of L2 4 ahead");
      run_walk_asking<7, 3, 2>(b, c7, a, m, "rows asked of L2 evict-last 2 ahead");
      run_walk_asking<7, 3, 4>(b, c7, a, m, "rows asked of L2 evict-last 4 ahead");
      run_walk_asking<7, 4, 2>(b, c7, a, m, "rows asked of L2 in bulk 2 ahead");
      run_walk_asking<7, 4, 4>(b, c7, a, m, "rows asked of L2 in bulk 4 ahead");
    }
  }
  if (table("walk_clusters")) { // the library's 7 x 7 walk in thread block clusters of neighbouring blocks
    const auto c7 = make_case<7>(b, 777);
    const auto [a7, m7] = library_args(b, c7);
    for (int k = 0; k < 4; ++k) {
      run_library_walk(b, c7, a7, m7);
      run_walk_clustered<1, 1>(b, c7, a7, m7);
      run_walk_clustered<1, 2>(b, c7, a7, m7);
      run_walk_clustered<2, 1>(b, c7, a7, m7);
      run_walk_clustered<2, 2>(b, c7, a7, m7);
      run_walk_clustered<1, 4>(b, c7, a7, m7);
    }
  }
  if (table("walk_stacked") || which == "profile_walk_stacked") { // the walk from resident blocks, an SM's blocks one above the other
    const bool profile = which == "profile_walk_stacked"; // one launch each (after the check), for ncu
    const auto c7 = make_case<7>(b, 777);
    const auto [a7, m7] = library_args(b, c7);
    for (int k = 0; k < (profile ? 1 : 3); ++k) {
      run_library_walk(b, c7, a7, m7);
      run_walk_stacked<1, 16>(b, c7, a7, m7);
      run_walk_stacked<4, 16>(b, c7, a7, m7);
      run_walk_stacked<4, 16, true>(b, c7, a7, m7);
      run_walk_stacked<1, 6>(b, c7, a7, m7);
      run_walk_stacked<4, 6>(b, c7, a7, m7);
      run_walk_stacked<4, 6, true>(b, c7, a7, m7);
      run_walk_stacked<1, 6, true>(b, c7, a7, m7);
    }
  }
  if (table("walk_ahead_masks")) { // the walks at 3 x 3, 5 x 5 and 7 x 7, rows asked of L2 evict-last 2 to 6 ahead
    const auto c3 = make_case<3>(b, 333);
    const auto c5 = make_case<5>(b, 555);
    const auto c7 = make_case<7>(b, 777);
    const auto [a3, m3] = library_args(b, c3);
    const auto [a5, m5] = library_args(b, c5);
    const auto [a7, m7] = library_args(b, c7);
    for (int k = 0; k < 4; ++k) {
      run_walk_asking<7, 1, 2>(b, c7, a7, m7, "rows asked of L1 2 ahead (the library's)");
      run_walk_asking<7, 3, 3>(b, c7, a7, m7, "rows asked of L2 evict-last 3 ahead");
      run_walk_asking<7, 3, 4>(b, c7, a7, m7, "rows asked of L2 evict-last 4 ahead");
      run_walk_asking<7, 3, 5>(b, c7, a7, m7, "rows asked of L2 evict-last 5 ahead");
      run_walk_asking<7, 3, 6>(b, c7, a7, m7, "rows asked of L2 evict-last 6 ahead");
      run_walk_asking<5, 1, 2>(b, c5, a5, m5, "rows asked of L1 2 ahead (the library's)");
      run_walk_asking<5, 3, 2>(b, c5, a5, m5, "rows asked of L2 evict-last 2 ahead");
      run_walk_asking<5, 3, 3>(b, c5, a5, m5, "rows asked of L2 evict-last 3 ahead");
      run_walk_asking<5, 3, 4>(b, c5, a5, m5, "rows asked of L2 evict-last 4 ahead");
      run_walk_asking<3, 1, 2>(b, c3, a3, m3, "rows asked of L1 2 ahead (the library's)");
      run_walk_asking<3, 3, 2>(b, c3, a3, m3, "rows asked of L2 evict-last 2 ahead");
      run_walk_asking<3, 2, 2>(b, c3, a3, m3, "rows asked of L2 2 ahead");
    }
  }
  if (table("edges")) { // where walk_pairs.cuh's kernel loses to the tool's: its edge warps, its grid's order
    const auto c7 = make_case<7>(b, 777);
    const auto [a, m] = library_args(b, c7);
    namespace cd = walk_pairs;
    using Shape = cd::WalkShape;
    using Wk = cd::Walk2d<7, Shape::rows, Shape::warps_x, Shape::warps_y>;
    const auto taps = cd::walk_taps<7>(m);
    const dim3 grid(N / Wk::tile_w, N / Wk::tile_h), block(32, Shape::warps_x * Shape::warps_y);
    const auto library = [&, a = a](auto kernel, const char* how, int carveout, int inside = 0) {
      CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
      char label[240];
      std::snprintf(label, sizeof label, "walked pairs (walk_pairs.cuh) MW 7  4 x %d a thread, %d x %d warps, min %d, carveout %d, %s  regs %3d",
                    Shape::rows, Shape::warps_x, Shape::warps_y, Shape::min_blocks, carveout, how, regs_of(kernel));
      check_and_time(b, c7.expect, [&] { kernel<<<grid, block>>>(a, taps); }, label, 1e-5f, inside);
    };
    constexpr int R = Shape::rows, X = Shape::warps_x, Y = Shape::warps_y, MB = Shape::min_blocks;
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
    for (int k = 0; k < 2; ++k) {
      library(cd::convolve_walk_2d<7, R, X, Y, MB>, "every border's edge path", -1);
      library(cd::convolve_walk_2d<7, R, X, Y, MB>, "every border's edge path", 0);
      library(cd::convolve_walk_2d<7, R, X, Y, MB, cd::Edges::zero_tested>, "edge loads tested (zero border only)", 0);
      library(cd::convolve_walk_2d<7, R, X, Y, MB, cd::Edges::skipped>, "edge warps skipped (checked inside)", 0, 256);
      library(cd::convolve_walk_2d<7, R, X, Y, MB, cd::Edges::as_interior>, "edge warps moved inwards, run as interior (checked inside)", 0, 256);
      library(cd::convolve_walk_2d<7, R, X, Y, MB, cd::Edges::as_interior_copy>, "edge warps moved inwards, run through a copy of the interior's code (checked inside)", 0, 256);
      library(cd::convolve_walk_2d<7, R, X, Y, MB, cd::Edges::zero_prefetched>, "edge loads tested, rows ahead asked of L1 (zero border only)", 0);
      library(cd::convolve_walk_2d<7, R, X, Y, MB, cd::Edges::zero_prefetched, true>, "edge loads tested, rows ahead asked of L1, edge blocks first", 0);
      library(cd::convolve_walk_2d<7, R, X, Y, MB, cd::Edges::policy, true>, "every border's edge path, edge blocks first", 0);
      library(cd::convolve_walk_2d<7, R, X, Y, MB, cd::Edges::zero_tested, true>, "edge loads tested, edge blocks first", 0);
      run_walk<7, 16, 4, 2, 1, 8, false, 2, 2>(b, c7);
      {
        auto kernel = walk_conv<7, 16, 4, 2, 1, 8, false, 2, 2, true>;
        CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
        const auto m2 = oriented<2>(c7.mask);
        check_and_time(b, c7.expect, [&] {
          kernel<<<dim3(N / 256, N / 64), dim3(32, 8)>>>(reinterpret_cast<const float4*>(b.in), reinterpret_cast<float4*>(b.out), N / 4, N, m2);
        }, "walked tile MW 7  4 x 16 a thread, 8 warps (2 across), min 4, carveout 0, rows 2 ahead of L1, odd warps upwards, one code path, edge warps skipped (checked inside)", 1e-5f, 256);
      }
    }
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
  }
  if (which == "profile_edges") { // walk_pairs.cuh's kernel with its edge warps as the edges table has them, for Nsight Compute
    const auto c7 = make_case<7>(b, 777);
    const auto [a, m] = library_args(b, c7);
    namespace cd = walk_pairs;
    using Shape = cd::WalkShape;
    constexpr int R = Shape::rows, X = Shape::warps_x, Y = Shape::warps_y, MB = Shape::min_blocks;
    const auto taps = cd::walk_taps<7>(m);
    const dim3 grid(N / 256, N / 64), block(32, 8);
    cd::convolve_walk_2d<7, R, X, Y, MB><<<grid, block>>>(a, taps);
    cd::convolve_walk_2d<7, R, X, Y, MB, cd::Edges::as_interior><<<grid, block>>>(a, taps);
    cd::convolve_walk_2d<7, R, X, Y, MB, cd::Edges::as_interior_copy><<<grid, block>>>(a, taps);
    cd::convolve_walk_2d<7, R, X, Y, MB, cd::Edges::skipped><<<grid, block>>>(a, taps);
    CHECK(cudaDeviceSynchronize());
  }
  if (which == "profile_library_walk") { // the tool's walked pairs and walk_pairs.cuh's, for Nsight Compute
    const auto c7 = make_case<7>(b, 777);
    const auto m2 = oriented<2>(c7.mask);
    const auto in4 = reinterpret_cast<const float4*>(b.in);
    auto* out4 = reinterpret_cast<float4*>(b.out);
    walk_conv<7, 16, 4, 2, 1, 8, false, 2, 2><<<dim3(N / 256, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, m2);
    const auto [a, m] = library_args(b, c7);
    using Shape = walk_pairs::WalkShape;
    walk_pairs::convolve_walk_2d<7, Shape::rows, Shape::warps_x, Shape::warps_y, Shape::min_blocks>
        <<<dim3(N / 256, N / 64), dim3(32, 8)>>>(a, walk_pairs::walk_taps<7>(m));
    CHECK(cudaDeviceSynchronize());
  }
  if (which == "profile_pairs1") { // the walked tile down, and in pairs with one code path, for Nsight Compute
    const auto c7 = make_case<7>(b, 777);
    const auto m2 = oriented<2>(c7.mask);
    const auto in4 = reinterpret_cast<const float4*>(b.in);
    auto* out4 = reinterpret_cast<float4*>(b.out);
    walk_conv<7, 8, 4, 2, 1><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, c7.mask);
    walk_conv<7, 8, 4, 2, 1, 8, false, 2><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, m2);
    walk_conv<7, 8, 4, 2, 1, 8, false, 1><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, m2);
    CHECK(cudaDeviceSynchronize());
  }
  if (which == "profile_pairs") { // one launch each of the walked tile down and in pairs, for Nsight Compute
    const auto c7 = make_case<7>(b, 777);
    const auto m2 = oriented<2>(c7.mask);
    const auto in4 = reinterpret_cast<const float4*>(b.in);
    auto* out4 = reinterpret_cast<float4*>(b.out);
    walk_conv<7, 8, 4, 2, 1><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, c7.mask);
    walk_conv<7, 8, 4, 2, 1, 8, false, 1><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, m2);
    walk_conv<7, 16, 4, 2, 1, 8, false, 1><<<dim3(N / 128, N / 128), dim3(32, 8)>>>(in4, out4, N / 4, N, m2);
    CHECK(cudaDeviceSynchronize());
  }
  if (which == "profile_walk") { // one launch each of the flat, walked and wide tiles at 7 x 7, for Nsight Compute
    const auto c7 = make_case<7>(b, 777);
    const auto in4 = reinterpret_cast<const float4*>(b.in);
    auto* out4 = reinterpret_cast<float4*>(b.out);
    tile_taps<7, 8, 1, false, 7, true><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, c7.mask);
    walk_conv<7, 8, 4, 2, 1><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, c7.mask);
    walk_conv<7, 8, 4, 2, 1, 8, true><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(in4, out4, N / 4, N, c7.mask);
    const auto [a, m] = library_args(b, c7);
    wide_pf<7, 1, 8, 3, 0><<<dim3(N / 128, N / 64), dim3(32, 8)>>>(a, m);
    CHECK(cudaDeviceSynchronize());
  }
  if (table("columns")) { // the long walks: the resident grid, every warp one segment of a strip
    namespace cd = ladder::conv_detail;
    const auto c7 = make_case<7>(b, 777);
    const auto [a, m] = library_args(b, c7);
    for (int k = 0; k < 2; ++k) {
      check_and_time(b, c7.expect, [&, a = a, m = m] { cd::launch_walk_2d<7, 16, 2, 4, 4, true>(a, m, nullptr); },
                     "library walked pairs (walk.cuh convolve_walk_2d: 16 rows a warp, 2 x 4 warps, min 4)", 1e-5f);
      run_columns<7, 8, 2, 2, true>(b, c7);
      run_columns<7, 16, 1, 2, false>(b, c7);
      run_columns<7, 8, 2, 2, true, 1>(b, c7);
      run_columns<7, 16, 2, 1, true, 1>(b, c7);
      run_columns<7, 8, 1, 4, false, 1>(b, c7);
      run_columns<7, 16, 1, 2, false, 1>(b, c7);
      run_columns<7, 32, 1, 1, false, 1>(b, c7);
    }
    for (double waves : {2.0, 4.0}) {
      run_columns<7, 8, 2, 2, true, 1>(b, c7, waves);
      run_columns<7, 16, 1, 2, false, 1>(b, c7, waves);
    }
    run_columns<7, 8, 2, 2, true>(b, c7, 1.0, false);
    run_columns<7, 8, 2, 2, true, 1>(b, c7, 1.0, false);
    run_columns<7, 2, 4, 4, true>(b, c7);
    run_wide_pf<7, 1, 8, 3, 0>(b, c7, 0);
    const auto c5 = make_case<5>(b, 555);
    check_and_time(b, c5.expect, [&] { const auto [a5, m5] = library_args(b, c5); cd::launch_walk_2d<5, 16, 2, 4, 4, true>(a5, m5, nullptr); },
                   "library walked pairs MW 5 (walk.cuh convolve_walk_2d)", 1e-5f);
    run_columns<5, 8, 2, 2, true, 1>(b, c5);
    run_columns<5, 16, 1, 2, false, 1>(b, c5);
    const auto c3 = make_case<3>(b, 333);
    run_columns<3, 8, 2, 2, true, 1>(b, c3);
    run_columns<3, 16, 1, 2, false, 1>(b, c3);
    const auto c9 = make_case<9>(b, 999);
    run_columns<9, 16, 1, 1, false>(b, c9);
    run_columns<9, 16, 1, 1, false, 1>(b, c9);
    run_wide_pf<9, 1, 8, 3, 0>(b, c9, 0);
  }
  if (which == "profile_columns") { // the long walks and the library's walked pairs, one launch each, for Nsight Compute
    namespace cd = ladder::conv_detail;
    const auto c7 = make_case<7>(b, 777);
    const auto [a, m] = library_args(b, c7);
    cd::launch_walk_2d<7, 16, 2, 4, 4, true>(a, m, nullptr);
    cd::launch_walk_columns_2d<7, 8, 2, 2, true>(a, m, nullptr);
    cd::launch_walk_columns_2d<7, 8, 2, 2, true, 1>(a, m, nullptr);
    cd::launch_walk_columns_2d<7, 16, 1, 2, false, 1>(a, m, nullptr);
    CHECK(cudaDeviceSynchronize());
  }
  if (table("ahead")) { // the wide tile asking L2 for the rows of the tiles below
    const auto c7 = make_case<7>(b, 777);
    run_wide<7, 1, 8, 3, 0, true>(b, c7);
    run_wide<7, 1, 8, 3, 0, false>(b, c7);
    run_wide<7, 1, 8, 3, 2, true>(b, c7);
    run_wide<7, 1, 8, 3, 4, true>(b, c7);
    run_wide<7, 1, 8, 3, 8, true>(b, c7);
  }
  b.copy_us = time_it([&] { cudaMemcpyAsync(b.out, b.in, bytes, cudaMemcpyDeviceToDevice); });
  std::printf("cudaMemcpy again: %.1f us\n", b.copy_us);
  (void)which;
  CHECK(cudaDeviceSynchronize());
}
