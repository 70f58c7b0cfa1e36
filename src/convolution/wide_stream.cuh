// 2D, float, one channel: the wide tile's window (4 pixels a thread, each input row as 16-byte
// loads with the halo columns from L1) streamed down a strip of rows in a loop of one input row.
//
// Why: the unrolled wide tile (wide.cuh) reads 14 input rows for its 8 output rows at 7 x 7, so L2
// sends each input row 1.75 times (Nsight Compute on an H200: L2 at 83% of its peak), and a taller
// unrolled tile is slower still although its sums fit the same registers (4 x 16 a thread, stores
// as soon as each row is complete: 254 against 197 us on an H100, 2026-11-28): past some 28 KB of
// straight-line SASS the warps wait on instruction fetch. Here a warp walks `strip` output rows
// with a loop whose body is one input row (3 loads, MW x MW x 4 FMAs, one store): the code stays
// a few KB whatever the strip, and L2 sends each row (strip + MW - 1) / strip times.
//
// The MW output rows a thread has open live in MW slots of 4 sums: slot j holds the output row
// that the current input row feeds as mask row j. Moving to the next input row, the row in slot
// j - 1 becomes slot j's, so slot j's chain of FMAs starts from slot j - 1's sums (slot 0's from
// zero), the slots taken from MW - 1 down to 0 so that each is read before it is overwritten:
// nothing moves between registers, and slot MW - 1 holds a finished row after every input row
// from the MW - 1-th on. The sums run mask rows in order and taps left to right from 0, as every
// other path: bit for bit the same results.
//
// Rows in flight: each input row is requested Ahead rows before it is applied (a ring of Ahead + 1
// windows, the loop unrolled by Ahead + 1 so that the ring's slots are registers), and asked of L2
// PrefetchRows rows before that. The strip's first MW - 1 input rows feed only the slots they
// open and its last MW - 1 rows only the slots still open (prologue and epilogue unrolled, no sums
// thrown away).
//
// A block's 8 warps sit side by side along the row (1024 pixels x strip rows), so the halo
// columns neighbouring warps share are read at about the same time. Warps whose strip and windows
// lie inside the image and are 16-byte aligned walk with plain vector loads and stores; the
// others map rows and columns through the border policy (the wide tile's edge loads). A last strip
// shorter than the mask takes the wide tile's edge path (8 rows, those below the image skipped).
#pragma once

#include "convolution/wide.cuh"
#include "core/resident_grid.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace ladder::conv_detail {

template <int MW, int Ahead, int PrefetchRows> struct WideStream {
  static_assert(Ahead >= 0 && Ahead < MW, "rows requested ahead: fewer than the mask's");
  static_assert(PrefetchRows >= 0, "rows asked of L2 ahead");
  using W = Wide2d<MW, 1, 8>;               // the window's geometry (loads, d, h4)
  static constexpr int ring = Ahead + 1;    // windows in registers
  static constexpr int tx = 256, tile_w = 4 * tx;
  static constexpr int min_strip = MW > 8 ? MW : 8; // the short last strip's path covers 8 rows
};

// Input row window w (w[0]: the first tap of pixel 0) applied as mask row j to slot j for every j
// in [jlo, jhi], slot j's chain starting from slot j - 1 (from zero for j == 0), j descending.
// jlo and jhi are compile-time constants once the callers' loops are unrolled.
template <int MW>
__device__ __forceinline__ void stream_apply(float (&slot)[MW][4], const MaskParam& mask,
                                             const float* w, int jlo, int jhi) {
#pragma unroll
  for (int j = MW - 1; j >= 0; --j) {
    if (j < jlo || j > jhi)
      continue;
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      v[k] = j == 0 ? 0.0f : slot[j - 1][k];
#pragma unroll
    for (int i = 0; i < MW; ++i)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        v[k] = __fmaf_rn(mask.w[j * MW + i], w[k + i], v[k]);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      slot[j][k] = v[k];
  }
}

// A warp's walk down `rows_out` (>= MW) output rows. Each call of the three functors takes the
// next row of its own sequence: load(win) reads input row 0, 1, 2, ... (image row y0 - MW / 2 +
// r), prefetch() asks L2 for input row 0, 1, 2, ..., store(sums) writes output row 0, 1, 2, ...
// (so that the interior's rows are pointers stepped by the pitch, not products).
template <int MW, int Ahead, int PrefetchRows, class Load, class Prefetch, class Store>
__device__ __forceinline__ void wide_stream_walk(const MaskParam& mask, int rows_out, Load& load,
                                                 Prefetch& prefetch, Store& store) {
  using S = WideStream<MW, Ahead, PrefetchRows>;
  using W = typename S::W;
  constexpr int U = S::ring;
  float4 ring[U][W::loads];
  float slot[MW][4];
  // One input row r of the prologue or the steady walk, its window in ring slot u: the row Ahead
  // below requested (the epilogue's rows are not: they are read where they are applied).
  // Checked false: the caller knows both requests fall inside.
  const auto step = [&](int r, int u, int jlo, int jhi, auto checked) {
    if (!decltype(checked)::value || r + Ahead < rows_out)
      load(ring[(u + Ahead) % U]);
    if (PrefetchRows > 0 &&
        (!decltype(checked)::value || r + Ahead + PrefetchRows < rows_out + MW - 1))
      prefetch();
    stream_apply<MW>(slot, mask, reinterpret_cast<const float*>(ring[u]) + W::d, jlo, jhi);
  };
  constexpr std::true_type checked;
  constexpr std::false_type unchecked;
  if constexpr (PrefetchRows > 0)
    for (int r = 0; r < PrefetchRows + Ahead && r < rows_out + MW - 1; ++r)
      prefetch();
#pragma unroll
  for (int r = 0; r < Ahead; ++r)
    load(ring[r]);
#pragma unroll
  for (int r = 0; r < MW - 1; ++r) // the prologue: input row r opens slots 0 .. r
    step(r, r % U, 0, r, checked);
  // The steady walk, U rows a turn: unchecked while every row a turn requests lies inside the
  // strip's input rows, then checked row by row.
  constexpr int beyond = PrefetchRows > MW - 1 ? PrefetchRows - (MW - 1) : 0;
  int base = MW - 1;
#pragma unroll 1
  for (; base + U + Ahead + beyond <= rows_out; base += U) {
#pragma unroll
    for (int t = 0; t < U; ++t) {
      step(base + t, (MW - 1 + t) % U, 0, MW - 1, unchecked);
      store(slot[MW - 1]);
    }
  }
#pragma unroll 1
  for (; base < rows_out; base += U) {
#pragma unroll
    for (int t = 0; t < U; ++t) {
      const int r = base + t;
      if (r >= rows_out)
        break;
      step(r, (MW - 1 + t) % U, 0, MW - 1, checked);
      store(slot[MW - 1]);
    }
  }
#pragma unroll
  for (int e = 0; e < MW - 1; ++e) { // the epilogue: input row rows_out + e closes slot MW - 1
    float4 win[W::loads];
    load(win);
    stream_apply<MW>(slot, mask, reinterpret_cast<const float*>(win) + W::d, e + 1, MW - 1);
    store(slot[MW - 1]);
  }
}

template <int MW, int Ahead, int PrefetchRows, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    convolve_wide_stream_2d(ImageArgs a, const __grid_constant__ MaskParam mask, int strip) {
  using S = WideStream<MW, Ahead, PrefetchRows>;
  using W = typename S::W;
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * S::tile_w + threadIdx.x * 4;
  const std::int64_t y0 = static_cast<std::int64_t>(blockIdx.y) * strip;
  const int rows_out = static_cast<int>(a.height - y0 < strip ? a.height - y0 : strip);
  const bool vector = rows_aligned_to<float4>(a.in, a.in_pitch) && x - 4 * W::h4 >= 0 &&
                      x + 4 + 4 * W::h4 <= a.width;
  const bool interior = __all_sync(0xffffffffu, vector) &&
                        rows_aligned_to<float4>(a.out, a.out_pitch) && y0 - W::halo >= 0 &&
                        y0 + rows_out + W::halo <= a.height && rows_out >= MW;
  if (interior) {
    const unsigned char* in0 = a.in + (y0 - W::halo) * a.in_pitch;
    const int lane = static_cast<int>(threadIdx.x % 32);
    const unsigned char* next = in0 + (x - 4 * W::h4) * 4; // the window's first byte, next row
    // The warp's own 512 bytes of a row: four 128-byte lines, lanes 0 .. 3.
    const unsigned char* line = in0 + (x - lane * 4) * 4 + lane * 128;
    unsigned char* out = a.out + y0 * a.out_pitch + x * 4;
    auto load = [&](float4(&win)[W::loads]) {
      const auto* p = reinterpret_cast<const float4*>(next);
#pragma unroll
      for (int j = 0; j < W::loads; ++j)
        win[j] = __ldg(p + j);
      next += a.in_pitch;
    };
    auto prefetch = [&] {
      if (lane < 4)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(line));
      line += a.in_pitch;
    };
    auto store = [&](const float(&sums)[4]) {
      *reinterpret_cast<float4*>(out) = pack4(sums);
      out += a.out_pitch;
    };
    return wide_stream_walk<MW, Ahead, PrefetchRows>(mask, rows_out, load, prefetch, store);
  }
  if (x >= a.width)
    return; // no output: the lanes share nothing
  int cols[4 * W::loads];
  wide_columns<MW, 1, 8>(a, x, cols);
  if (rows_out < MW) // the image's last strip, shorter than the mask: 8 rows, those below skipped
    return wide_tile<MW, 1, 8, WideRows::edge, false>(a, mask, x, y0, vector, cols);
  const bool out_vector = rows_aligned_to<float4>(a.out, a.out_pitch) && x + 4 <= a.width;
  int r = 0, o = 0;
  auto load = [&](float4(&win)[W::loads]) {
    wide_load_window<MW, 1, 8, WideRows::edge>(a, nullptr, r++, x, y0, vector, cols, nullptr,
                                               win);
  };
  auto prefetch = [] {};
  auto store = [&](const float(&sums)[4]) {
    auto* p = reinterpret_cast<float*>(a.out + (y0 + o++) * a.out_pitch) + x;
    if (out_vector) {
      *reinterpret_cast<float4*>(p) = pack4(sums);
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (x + k < a.width)
          p[k] = sums[k];
    }
  };
  wide_stream_walk<MW, 0, 0>(mask, rows_out, load, prefetch, store); // no ring: registers for cols
}

// Launches convolve_wide_stream_2d for a square mask of width MW (width, height > 0) with strips
// of `strip` output rows (at least WideStream::min_strip), or with strip 0 the shortest strips that
// fit the image in one wave of resident blocks.
template <int MW, int Ahead, int PrefetchRows, int MinBlocks>
void launch_wide_stream_2d(const ImageArgs& a, const MaskParam& mask, int strip,
                           cudaStream_t stream) {
  using S = WideStream<MW, Ahead, PrefetchRows>;
  auto* kernel = &convolve_wide_stream_2d<MW, Ahead, PrefetchRows, MinBlocks>;
  if (strip != 0 && strip < S::min_strip)
    throw std::invalid_argument("wide_stream_2d: strip must be 0 or >= " +
                                std::to_string(S::min_strip));
  if (a.width > std::numeric_limits<int>::max() / 2) // the edge threads' columns are ints
    throw std::invalid_argument("wide_stream_2d: rows wider than 2^30 pixels");
  const std::int64_t tiles_x = (a.width + S::tile_w - 1) / S::tile_w;
  std::int64_t rows = strip;
  if (strip == 0) {
    static core::PerDevice resident;
    const std::int64_t bands = std::max<std::int64_t>(
        1, core::resident_blocks(resident, reinterpret_cast<const void*>(kernel), S::tx) /
               tiles_x);
    rows = std::max<std::int64_t>(S::min_strip, (a.height + bands - 1) / bands);
  }
  rows = std::max<std::int64_t>(rows, (a.height + 65534) / 65535); // at most 65535 strips
  if (rows > std::numeric_limits<int>::max())
    throw std::invalid_argument("wide_stream_2d: strips of more than 2^31 rows");
  const std::int64_t strips = (a.height + rows - 1) / rows;
  kernel<<<dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(strips)), S::tx, 0,
           stream>>>(a, mask, static_cast<int>(rows));
  LADDER_CUDA(cudaGetLastError());
}

} // namespace ladder::conv_detail
