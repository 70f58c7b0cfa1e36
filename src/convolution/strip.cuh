// 2D, float, one channel: the window streamed down tall strips from a ring of rows that the bulk
// copy engine fills (sm_90). The lab's rung streamed_strips (variants_wide.cu); measured 1-3%
// slower than the wide tile at 7 x 7 (docs/convolution.md, "Streamed strips"), so the library
// keeps the wide tile.
//
// A block owns CW x 32 x 4 PX output columns and S output rows. The first lane of warp CW is the
// producer: it copies the block's input rows (its columns and one float4 of halo a side, as far as
// they lie inside the image), one cp.async.bulk a row, into a ring of D row stages, as far ahead
// as the ring is free, each row announced on its stage's `full` mbarrier. The CW consumer warps
// walk the rows down. A consumer thread keeps MW open output rows of 4 PX pixels in registers:
// slot j holds the sums of mask rows 0 .. j, so each input row turns slot j - 1 into slot j
// (nothing moves between registers), and slot MW - 1 is finished and stored. The sums run mask
// rows in order and taps left to right, as every other path: bit for bit the same outputs. A
// thread hands a stage back (its `empty` mbarrier) only after the FMAs that used it, its reads
// fenced before the bulk copy that refills the stage.
//
// Why: what holds the wide tile (wide.cuh) at 7 x 7 is its loads' wait with the few rows its
// registers keep in flight; here the rows in flight are bound by the ring, each input row is read
// once a strip (not once for each warp it feeds), and a row costs a thread PX + 2 shared loads and
// PX stores around 4 PX MW^2 FMAs. The price is the strip's shape: a plain copy walked down strips
// of 64 rows and more runs 8-9% slower than the same copy in short tiles (bench/tuning/
// conv_strips.cu, H200), since the blocks' rows in flight are spread over the image rather than
// one band of it. docs/convolution.md, "Streamed strips", has the measurements.
//
// Borders: rows outside the image are mapped through the border policy by the producer (a zero
// row: the ring's last stage, all zeros, read instead). In the blocks at the image's left and
// right edges a filler warp fills each landed row's floats outside the copied columns (the halo
// past the edge, the last partial float4 of a width not a multiple of 4) through the policy,
// from the stage where the column was copied, else from global memory, before the consumers
// take the row: every consumer thread reads its window as PX + 2 16-byte shared loads. Three
// earlier builds ran 1.5x to 3x slower, each paced by its edge blocks: one gathered the edge
// windows in the consumer threads; one had the producer lane wait on one barrier while the other
// lanes of its warp waited on another (divergent waits in one warp stall each other); one made
// that warp fill a few rows behind its copies, which tied the consumer warps to the slowest
// (likely; not measured on its own). Where the halo is zeros in every row (zero border, a width
// of whole float4s) the filler is left out: even a filler warp cost the edge blocks 8%.
#pragma once

#include "convolution/window.cuh"
#include "convolution/rolling.hpp"
#include "core/resident_grid.hpp"
#include "ladder/detail/bulk_copy.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace ladder::conv_detail {

template <int MW, int CW, int PX, int S, int D> struct Strips2d {
  static_assert(MW % 2 == 1 && MW >= 3 && MW <= 9, "one float4 of halo a side: masks 3 .. 9");
  static_assert(CW >= 1 && PX >= 1 && S >= 1 && D >= 2);
  static constexpr int halo = MW / 2;
  static constexpr int d = 4 - halo;            // the first tap's float in a thread's window
  static constexpr int k = 4 * PX;              // pixels a thread
  static constexpr int cols = CW * 32 * k;      // output columns a block
  static constexpr int stride = cols + 8;       // floats a stage row: a float4 of halo a side
  static constexpr int threads = (CW + 2) * 32; // and the producer and filler warps
  static constexpr std::size_t shared = std::size_t{D + 1} * stride * sizeof(float); // + zeros
};

// A strip's walk: input rows 0 .. rows - 1 through step(r, edge), the first MW - 1 and the rows
// past the strip's last output row (out_rows) as edge rows (std::true_type: only the slots of
// output rows inside the strip), the rows between in one loop kept rolled.
template <int MW, class Step>
__device__ __forceinline__ void strip_walk(int out_rows, int rows, Step&& step) {
  int r = 0;
  for (; r < MW - 1 && r < rows; ++r)
    step(r, std::true_type{});
#pragma unroll 1
  for (; r < out_rows; ++r)
    step(r, std::false_type{});
  for (; r < rows; ++r)
    step(r, std::true_type{});
}

template <int MW, int CW, int PX, int S, int D, int MinBlocks>
__global__ void __launch_bounds__(Strips2d<MW, CW, PX, S, D>::threads, MinBlocks)
    convolve_strips_2d(ImageArgs a, const __grid_constant__ MaskParam mask) {
  using St = Strips2d<MW, CW, PX, S, D>;
  constexpr int H = St::halo, K = St::k;
  constexpr int stage4 = St::stride / 4;
  namespace bulk = detail::bulk;
  extern __shared__ float4 ring4[]; // D stages of St::stride floats, then a row of zeros
  // full: the row's copy has landed; ready: and its halo floats outside the copied columns are
  // filled (blocks at the image's left and right edges); empty: every consumer warp is done.
  __shared__ std::uint64_t full[D], ready[D], empty[D];
  // Where each float of a stage row reads from outside the copied columns: -1 a zero, >= 0 the
  // stage's float there, -2 - c the image's column c (not in the stage).
  __shared__ int column_source[St::stride];
  const auto* in = reinterpret_cast<const float*>(a.in);
  const std::int64_t in_pitch = a.in_pitch / 4, out_pitch = a.out_pitch / 4; // floats
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * St::cols;
  const std::int64_t y0 = static_cast<std::int64_t>(blockIdx.y) * S;
  const std::int64_t width4 = a.width / 4 * 4; // the columns whole float4s cover
  // The block's copied columns [c0, c1): its own and a float4 a side, within whole float4s, at
  // stage floats [p0, p1).
  const std::int64_t c0 = x0 - 4 > 0 ? x0 - 4 : 0;
  const std::int64_t c1 = x0 + St::cols + 4 < width4 ? x0 + St::cols + 4 : width4;
  const int p0 = static_cast<int>(c0 - (x0 - 4));
  const int p1 = c1 > c0 ? static_cast<int>(c1 - (x0 - 4)) : p0;
  // In a block at the image's left or right edge, the stage floats outside [p0, p1) are the
  // halo past the edge and the last partial float4; under the zero border of a width that whole
  // float4s cover they are zeros for every row (zeroed once here, never copied over), otherwise
  // the filler warp fills them row by row (`filled`).
  const bool edge_block = p0 > 0 || p1 < St::stride;
  const bool filled = edge_block && !(a.border == Border::zero && width4 == a.width);
  for (int i = threadIdx.x; i < stage4; i += blockDim.x)
    ring4[D * stage4 + i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (edge_block && !filled)
    for (int i = threadIdx.x; i < D * St::stride; i += blockDim.x)
      if (const int f = i % St::stride; f < p0 || f >= p1)
        reinterpret_cast<float*>(ring4)[i] = 0.0f;
  if (filled)
    for (int i = threadIdx.x; i < St::stride; i += blockDim.x) {
      const std::int64_t c = border_index(x0 - 4 + i, a.width, a.border);
      column_source[i] = c < 0 ? -1 : c >= c0 && c < c1 ? static_cast<int>(c - (x0 - 4))
                                                         : static_cast<int>(-2 - c);
    }
  if (threadIdx.x == 0) {
    for (int s = 0; s < D; ++s) {
      bulk::barrier_init(&full[s], 1);
      // Every thread that reads or writes a stage with ordinary loads and stores arrives itself
      // (32 filler lanes on `ready`, every consumer lane on `empty`), so that its arrival orders
      // its own accesses (compute-sanitizer's racecheck reads a lane's accesses as unordered
      // when another lane of its warp arrives for it after __syncwarp).
      bulk::barrier_init(&ready[s], 32);
      bulk::barrier_init(&empty[s], CW * 32);
    }
  }
  __syncthreads();
  const int out_rows = static_cast<int>(a.height - y0 < S ? a.height - y0 : S);
  const int rows = out_rows + MW - 1; // input rows y0 - H ..
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Input row r's row of the image (-1: zeros).
  const auto image_row = [&](int r) {
    const std::int64_t y = y0 - H + r;
    return y >= 0 && y < a.height ? y : border_index(y, a.height, a.border);
  };
  if (warp == CW) { // the producer
    if (lane != 0)
      return;
    const unsigned bytes = static_cast<unsigned>(p1 - p0) * 4u;
    float* first = reinterpret_cast<float*>(ring4) + p0;
    for (int r = 0, s = 0, lap = 0; r < rows; ++r) {
      if (lap > 0) // the stage's row of the lap before has been used by every consumer warp
        bulk::wait(&empty[s], (lap - 1) & 1);
      const std::int64_t ym = image_row(r);
      if (ym < 0 || bytes == 0) {
        bulk::arrive(&full[s]);
      } else {
        bulk::expect_bytes(&full[s], bytes);
        bulk::copy_counted(first + s * St::stride, in + ym * in_pitch + c0, bytes, &full[s]);
      }
      if (++s == D)
        s = 0, ++lap;
    }
    return;
  }
  if (warp == CW + 1) {
    // In an edge block, the filler: each landed row's floats outside the copied columns, before
    // the consumers take the row (its `ready`). A row's new phase of `full` completes only after
    // the copy the producer issued once the consumers had released the stage, and they release
    // it only after its `ready`: the filler is never a lap behind.
    if (!filled)
      return;
    const int outside = St::stride - (p1 - p0);
    for (int q = 0, s = 0; q < rows; ++q) {
      bulk::wait_suspended(&full[s], (q / D) & 1); // asleep, not polling beside the consumers
      const std::int64_t ym = image_row(q);
      float* stage = reinterpret_cast<float*>(ring4 + s * stage4);
      const float* row = in + (ym < 0 ? 0 : ym) * in_pitch - 2; // column c at row[-source]
      for (int k = lane; k < outside; k += 32) {
        const int i = k < p0 ? k : k - p0 + p1;
        const int source = column_source[i];
        stage[i] = ym < 0 || source == -1 ? 0.0f
                   : source >= 0          ? stage[source]
                                          : __ldg(row - source);
      }
      bulk::arrive(&ready[s]);
      if (++s == D)
        s = 0;
    }
    return;
  }
  const int t = warp * 32 + lane;
  const std::int64_t x = x0 + static_cast<std::int64_t>(t) * K; // the thread's first pixel
  // The thread's pixels inside the image (K: a whole vector store).
  const int pixels = a.width - x >= K ? K : a.width - x > 0 ? static_cast<int>(a.width - x) : 0;
  // Input rows r_inside <= r < r_outside lie inside the image; the others are zeros for the
  // zero border (the ring's zero row) and mapped rows otherwise.
  const int r_inside = y0 - H < 0 ? static_cast<int>(H - y0) : 0;
  const int r_outside = static_cast<int>(a.height - y0 + H < rows ? a.height - y0 + H : rows);
  const bool zero_border = a.border == Border::zero;
  std::uint64_t* landed = filled ? ready : full; // what a row's stage is waited on
  float acc[MW][K];
#pragma unroll
  for (int j = 0; j < MW; ++j)
#pragma unroll
    for (int k = 0; k < K; ++k)
      acc[j][k] = 0.0f;
  int ls = 0, rs = 0; // the stages of the next row to load and to release
  unsigned phase = 0; // of the next row to load
  const float4* mine = ring4 + t * PX;
  float* o = reinterpret_cast<float*>(a.out) + (y0 - (MW - 1)) * out_pitch + x; // row r's outputs
  const auto step = [&](int r, auto edge) {
    constexpr bool Edge = decltype(edge)::value;
    bulk::wait(&landed[ls], phase);
    const bool zeros = zero_border && (r < r_inside || r >= r_outside);
    const float4* p = mine + (zeros ? D : ls) * stage4;
    float4 win[PX + 2];
#pragma unroll
    for (int v = 0; v < PX + 2; ++v)
      win[v] = p[v];
    if (++ls == D)
      ls = 0, phase ^= 1;
    strip_apply_row<MW, K, Edge>(acc, reinterpret_cast<const float*>(win), mask,
                                 r - out_rows + 1 > 0 ? r - out_rows + 1 : 0,
                                 r < MW - 1 ? r : MW - 1);
    // The stage goes back once this thread's FMAs have their window: its reads (generic proxy)
    // ordered before the bulk copy that refills the stage (async proxy), then its arrival.
    bulk::fence_proxy_async_shared();
    bulk::arrive(&empty[rs]);
    if (++rs == D)
      rs = 0;
    if (r >= MW - 1) {
      if (pixels == K) {
#pragma unroll
        for (int v = 0; v < PX; ++v)
          reinterpret_cast<float4*>(o)[v] = pack4(acc[MW - 1] + 4 * v);
      } else {
#pragma unroll
        for (int k = 0; k < K; ++k)
          if (k < pixels)
            o[k] = acc[MW - 1][k];
      }
    }
    o += out_pitch;
  };
  strip_walk<MW>(out_rows, rows, step);
}

// The rung's shape per mask width: 4 consumer warps of 8 pixels a thread (1024 columns a block,
// 96 registers, 3 blocks per SM with the producer and filler warps), strips of 248 rows (33 strips
// of an 8192-row image: two blocks on each of an H200's 132 SMs), 8 stages. bench/tuning/
// conv_strips.cu on an H200 (2026-11-28), float 8192^2 7 x 7: the tool's own zero-border kernel
// of this design 157.7 and 160.0 us against the wide tile's 167.0 and 167.4 in the same runs
// (the copy 132.0 and 131.9); this kernel, with its border handling, 169.3 against 166.0. 9 x 9:
// 8 warps of 4 pixels, whose 36 sums leave room for 2 blocks per SM (8 pixels would hold 72).
template <int MW> struct StripShape {
  static constexpr int consumer_warps = MW <= 7 ? 4 : 8, float4s = MW <= 7 ? 2 : 1;
  static constexpr int rows = 248, stages = 8, min_blocks = MW <= 7 ? 3 : 2;
};

template <int MW, int CW, int PX, int S, int D> dim3 strips_2d_grid(const ImageArgs& a) {
  using St = Strips2d<MW, CW, PX, S, D>;
  return dim3(static_cast<unsigned>((a.width + St::cols - 1) / St::cols),
              static_cast<unsigned>((a.height + S - 1) / S));
}

// Whether convolve_strips_2d takes this image: rows 16-byte aligned, a grid that fits, columns
// whose indices fit the kernel's arithmetic.
template <int MW, int CW, int PX, int S, int D> bool strips_2d_fits(const ImageArgs& a) {
  using St = Strips2d<MW, CW, PX, S, D>;
  return rows_aligned_to<float4>(a.in, a.in_pitch) && rows_aligned_to<float4>(a.out, a.out_pitch) &&
         (a.height + S - 1) / S <= 65535 &&
         (a.width + St::cols - 1) / St::cols <= std::numeric_limits<int>::max() &&
         a.width < std::numeric_limits<int>::max() / 2; // column_source's ints
}

// Whether the current device runs convolve_strips_2d's bulk copies: the kernel it loads was
// compiled for sm_90 or later (its PTX version), asked once a device. Below that the copies
// compile to nothing, and the caller takes another kernel.
template <int MW, int CW, int PX, int S, int D, int MinBlocks> bool strips_2d_runs_here() {
  static core::PerDevice cache;
  int device = 0;
  LADDER_CUDA(cudaGetDevice(&device));
  return cache.get(device, [] {
           cudaFuncAttributes attr{};
           LADDER_CUDA(cudaFuncGetAttributes(&attr, convolve_strips_2d<MW, CW, PX, S, D, MinBlocks>));
           return attr.ptxVersion >= 90 && attr.binaryVersion >= 90 ? 1 : 0;
         }) == 1;
}

// Launches convolve_strips_2d (strips_2d_fits, strips_2d_runs_here; width, height > 0).
template <int MW, int CW, int PX, int S, int D, int MinBlocks>
void launch_strips_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  using St = Strips2d<MW, CW, PX, S, D>;
  static_assert(St::shared <= 48 * 1024, "the ring within the default dynamic shared memory");
  convolve_strips_2d<MW, CW, PX, S, D, MinBlocks>
      <<<strips_2d_grid<MW, CW, PX, S, D>(a), St::threads, St::shared, stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}

} // namespace ladder::conv_detail
