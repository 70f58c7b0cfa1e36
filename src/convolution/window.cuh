// The rungs past staging: no shared memory at all. Each thread reads its window straight from
// global memory as 16-byte loads, the halo from L1 (the neighbours' own float4s, requested by the
// same warp's other loads), so DRAM reads each byte once, and no barrier, border map or per-chunk
// test stands between the loads and the fused multiply-adds.
//
// 1D: each thread computes U float4s of outputs from the float4 that holds its own four inputs
// and H4 = ceil(halo / 4) float4s on each side. Load j of a warp reads float4s q - H4 + j for 32
// consecutive q (coalesced). At mask 9 the staged kernel (tiled.cuh, Staging::vector) ran at 1.31x
// the copy's time on an H200 (659.3 against 504.4 us for 2^28 floats, 2026-11-25), and its SASS
// spends more instructions on staging (the border map, bounds and alignment tests of every 16-byte
// chunk, the barrier) than on its 36 fused multiply-adds per float4 of output.
//
// 2D (float, one channel): a thread computes one float4 of outputs in each of RY rows, walking the
// RY + MH - 1 input rows it needs once each (row reuse, as tiled.cuh's RowReuse) and applying each
// to every output row it feeds, from 2 H4 + 1 float4s per row.
//
// Blocks whose windows reach outside the image (the edges) or whose pointers and pitches are not
// 16-byte aligned read element by element through the border policy. Every path sums mask rows in
// order and taps left to right with fused multiply-adds, as the staged kernels and the CPU
// reference do, so their results are bit for bit the same.
#pragma once

#include "convolution/tiled.cuh"

#include <stdexcept>

namespace ladder::conv_detail {

// One output scalar (x, y) of a one-channel float image through the border policy: mask rows in
// order, taps left to right.
template <int MW, int MH>
__device__ __forceinline__ float bordered_output(const ImageArgs& a, const MaskParam& mask,
                                                 std::int64_t y, std::int64_t x) {
  float acc = 0.0f;
#pragma unroll
  for (int j = 0; j < MH; ++j) {
    const std::int64_t ym = border_index(y - MH / 2 + j, a.height, a.border);
    const auto* row = reinterpret_cast<const float*>(a.in + (ym < 0 ? 0 : ym) * a.in_pitch);
#pragma unroll
    for (int i = 0; i < MW; ++i) {
      const std::int64_t xm = border_index(x - MW / 2 + i, a.width, a.border);
      acc = __fmaf_rn(mask.w[j * MW + i], ym < 0 || xm < 0 ? 0.0f : row[xm], acc);
    }
  }
  return acc;
}

// Row reuse in registers: input row r of a thread's window applied as mask row r - o to each of
// its RY output rows o that it feeds, taps left to right. The thread's K output scalars are
// interleaved channels of K / C pixels: tap i of output scalar k is w[k + i C] (C scalars to the
// next pixel of the same channel). r is a compile-time constant once the caller's row loop is
// unrolled.
template <int MW, int C = 1, int RY, int K>
__device__ __forceinline__ void apply_input_row(float (&acc)[RY][K], const MaskParam& mask,
                                                const float* w, int r) {
#pragma unroll
  for (int o = 0; o < RY; ++o) {
    const int j = r - o; // input row r is mask row j of output row o
    if (j >= 0 && j < MW) {
#pragma unroll
      for (int i = 0; i < MW; ++i)
#pragma unroll
        for (int k = 0; k < K; ++k)
          acc[o][k] = __fmaf_rn(mask.w[j * MW + i], w[k + i * C], acc[o][k]);
    }
  }
}

template <int MW, int U> struct Window1d {
  static_assert(MW % 2 == 1 && MW <= max_convolution_mask, "odd mask widths up to 31");
  static constexpr int threads = 256;
  static constexpr int halo = MW / 2;
  static constexpr int h4 = (halo + 3) / 4;     // float4s of halo on each side
  static constexpr int d = 4 * h4 - halo;       // the first tap's offset in the window
  static constexpr int loads = 2 * h4 + 1;      // float4s per output float4
  static constexpr int per_block = threads * U * 4; // outputs of one block
};

template <int MW, int U>
__global__ void __launch_bounds__(256)
    convolve_window_1d(ImageArgs a, const __grid_constant__ MaskParam mask) {
  using W = Window1d<MW, U>;
  const auto* in = reinterpret_cast<const float*>(a.in);
  auto* out = reinterpret_cast<float*>(a.out);
  const std::int64_t n = a.width;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * W::per_block;
  const bool aligned =
      ((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) & 15) == 0;
  const bool inside = first - 4 * W::h4 >= 0 && first + W::per_block + 4 * W::h4 <= n;
  if (aligned && inside) {
    const auto* in4 = reinterpret_cast<const float4*>(in);
    float4 win[U][W::loads];
    // Every load of the thread in flight before the first use.
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t q = first / 4 + u * W::threads + threadIdx.x;
#pragma unroll
      for (int j = 0; j < W::loads; ++j)
        win[u][j] = __ldg(in4 + q - W::h4 + j);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const float* w = reinterpret_cast<const float*>(win[u]);
      float acc[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        acc[k] = 0.0f;
#pragma unroll
        for (int i = 0; i < MW; ++i)
          acc[k] = __fmaf_rn(mask.w[i], w[W::d + k + i], acc[k]);
      }
      const std::int64_t q = first / 4 + u * W::threads + threadIdx.x;
      reinterpret_cast<float4*>(out)[q] = make_float4(acc[0], acc[1], acc[2], acc[3]);
    }
    return;
  }
  // The edges of the signal, or pointers off 16-byte boundaries: element by element.
#pragma unroll 1
  for (int u = 0; u < U; ++u)
#pragma unroll 1
    for (int k = 0; k < 4; ++k) {
      const std::int64_t i = first + (static_cast<std::int64_t>(u) * W::threads + threadIdx.x) * 4 + k;
      if (i < n)
        out[i] = bordered_output<MW, 1>(a, mask, 0, i);
    }
}

// Launches convolve_window_1d for mask.width (odd, 1 .. 31) on the signal a.width x 1 (n > 0).
template <int U, int MW = 1>
void launch_window_1d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  if constexpr (MW < max_convolution_mask) {
    if (mask.width != MW)
      return launch_window_1d<U, MW + 2>(a, mask, stream);
  }
  using W = Window1d<MW, U>;
  const std::int64_t blocks = (a.width + W::per_block - 1) / W::per_block;
  convolve_window_1d<MW, U><<<static_cast<unsigned>(blocks), W::threads, 0, stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}

// 2D: blocks of 32 x 8 threads, each thread one float4 of RY rows: tiles of 128 x 8 RY outputs.
template <int MW, int RY> struct Window2d {
  static_assert(MW % 2 == 1, "odd mask widths");
  static constexpr int tx = 32, ty = 8, threads = tx * ty;
  static constexpr int halo = MW / 2;
  static constexpr int h4 = (halo + 3) / 4;
  static constexpr int d = 4 * h4 - halo;
  static constexpr int loads = 2 * h4 + 1;
  static constexpr int tile_w = tx * 4, tile_h = ty * RY;
};

// Square masks of width MW on float images of one channel.
template <int MW, int RY>
__global__ void __launch_bounds__(256)
    convolve_window_2d(ImageArgs a, const __grid_constant__ MaskParam mask) {
  using W = Window2d<MW, RY>;
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * W::tile_w;
  const std::int64_t y0 = static_cast<std::int64_t>(blockIdx.y) * W::tile_h;
  const std::int64_t x = x0 + threadIdx.x * 4, y = y0 + threadIdx.y * RY;
  const bool aligned = ((reinterpret_cast<std::uintptr_t>(a.in) |
                         reinterpret_cast<std::uintptr_t>(a.out) |
                         static_cast<std::uintptr_t>(a.in_pitch) |
                         static_cast<std::uintptr_t>(a.out_pitch)) & 15) == 0;
  const bool inside = x0 - 4 * W::h4 >= 0 && x0 + W::tile_w + 4 * W::h4 <= a.width &&
                      y0 - W::halo >= 0 && y0 + W::tile_h + W::halo <= a.height;
  if (aligned && inside) {
    float acc[RY][4];
#pragma unroll
    for (int o = 0; o < RY; ++o)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        acc[o][k] = 0.0f;
    const unsigned char* first_row = a.in + (y - W::halo) * a.in_pitch;
#pragma unroll
    for (int r = 0; r < RY + MW - 1; ++r) {
      const auto* row = reinterpret_cast<const float4*>(first_row + r * a.in_pitch);
      float4 win4[W::loads];
#pragma unroll
      for (int j = 0; j < W::loads; ++j)
        win4[j] = __ldg(row + x / 4 - W::h4 + j);
      apply_input_row<MW>(acc, mask, reinterpret_cast<const float*>(win4) + W::d, r);
    }
#pragma unroll
    for (int o = 0; o < RY; ++o)
      *reinterpret_cast<float4*>(a.out + (y + o) * a.out_pitch + x * 4) =
          make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]);
    return;
  }
  // The image's edges, or rows off 16-byte boundaries: element by element.
#pragma unroll 1
  for (int o = 0; o < RY; ++o)
#pragma unroll 1
    for (int k = 0; k < 4; ++k)
      if (y + o < a.height && x + k < a.width)
        reinterpret_cast<float*>(a.out + (y + o) * a.out_pitch)[x + k] =
            bordered_output<MW, MW>(a, mask, y + o, x + k);
}

// Launches convolve_window_2d for a square mask of width MW (width, height > 0). Grid: tiles
// along x, tiles along y (at most 65535 rows of tiles).
template <int MW, int RY>
void launch_window_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  using W = Window2d<MW, RY>;
  const std::int64_t tiles_x = (a.width + W::tile_w - 1) / W::tile_w;
  const std::int64_t tiles_y = (a.height + W::tile_h - 1) / W::tile_h;
  if (tiles_y > 65535)
    throw std::invalid_argument("window_2d: more than 65535 rows of tiles");
  convolve_window_2d<MW, RY><<<dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(tiles_y)),
                               dim3(W::tx, W::ty), 0, stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}


// 2D with the halo from the neighbouring lanes (float images of one channel, uint8 images of 1,
// 3 or 4 interleaved channels; square masks up to 9 x 9): each thread loads only the four pixels
// of its own columns from each input row, and the H = MW / 2 pixels on either side come from the
// lanes left and right of it by warp shuffles. A warp reads 128 columns and writes the middle
// 120: its lanes 0 and 31 only load, the halo of lanes 1 and 30 (so no lane loads twice, and no
// register holds a second window). A row costs C vector loads per thread (one 16-byte load for
// float, 32-bit words of four uint8: the window kernel above takes 2 H4 + 1, the staged kernels a
// trip through shared memory and a barrier), and every load of the thread is in flight before its
// first FMA. uint8 is converted to float once per scalar, by the lane that loaded it, and the
// shuffles carry floats. A warp is one row of threads (blocks of 32 x 8), so its lanes share their
// rows and shuffle partners. Rows outside the image are mapped through the border policy once per
// row; four pixels that are not wholly inside the image (its edges) or whose rows are not aligned
// to the vector are gathered scalar by scalar through the border policy, and the shuffles carry
// those values on as the neighbours' halo. The sums run mask rows in order and taps left to
// right, as every other path: bit for bit the same.

// Four scalars of T in one global access: a float4, or a 32-bit word of four uint8.
template <class T> struct LaneVector;
template <> struct LaneVector<float> { using type = float4; };
template <> struct LaneVector<std::uint8_t> { using type = unsigned; };
template <class T> using lane_vector_t = typename LaneVector<T>::type;

__device__ __forceinline__ void unpack4(float4 v, float* f) {
  f[0] = v.x;
  f[1] = v.y;
  f[2] = v.z;
  f[3] = v.w;
}
__device__ __forceinline__ void unpack4(unsigned v, float* f) { unpack4(bytes_to_float4(v), f); }
__device__ __forceinline__ float4 pack4(const float* e) {
  return make_float4(e[0], e[1], e[2], e[3]);
}
__device__ __forceinline__ unsigned pack4(const std::uint8_t* e) {
  return e[0] | (unsigned{e[1]} << 8) | (unsigned{e[2]} << 16) | (unsigned{e[3]} << 24);
}

// Four sums as the vector of T that stores them: floats as they are; uint8 rounded to nearest
// (ties to even) and saturated to 0 .. 255, as from_float, by two cvt.pack.sat (sm_72 on) rather
// than a clamp, shift and or per byte.
template <class T> __device__ __forceinline__ lane_vector_t<T> results4(const float* v) {
  if constexpr (sizeof(T) == 4) {
    return pack4(v);
  } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 720
    const int a = __float2int_rn(v[0]), b = __float2int_rn(v[1]), c = __float2int_rn(v[2]),
              d = __float2int_rn(v[3]);
    unsigned high, word; // cvt.pack.sat.u8 d, a, b, c: bytes (b, a, c's low two)
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(high) : "r"(d), "r"(c));
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(word) : "r"(b), "r"(a), "r"(high));
    return word;
#else
    const T e[4] = {from_float<T>(v[0]), from_float<T>(v[1]), from_float<T>(v[2]),
                    from_float<T>(v[3])};
    return pack4(e);
#endif
  }
}

template <class T, int C, int MW, int RY> struct Lanes2d {
  static_assert(MW % 2 == 1 && MW <= 9, "odd masks up to 9 wide: a halo of four pixels at most");
  static_assert(C == 1 || C == 3 || C == 4, "1, 3 or 4 interleaved channels");
  using Vector = lane_vector_t<T>;
  static constexpr int tx = 32, ty = 8, threads = tx * ty;
  static constexpr int halo = MW / 2;
  static constexpr int rows = RY + MW - 1;  // input rows a thread reads
  static constexpr int scalars = 4 * C;     // of a row, per thread: four pixels
  static constexpr int tile_w = 4 * (tx - 2), tile_h = ty * RY; // pixels: lanes 1 .. 30
};

// The library's lane-halo kernels (api.cu): masks up to lanes_widest<T> wide, RY rows per thread
// and registers for min_blocks blocks per SM at each width. Float, `ladder tune convolution`,
// 8192^2 against the copy's 181.5 us, H100, 2026-11-26 (bench/results/
// convolution-tune-h100-2026-11-26-r3.md): 3 x 3 182.6 us at RY 2, 184.6 at RY 4, 185.9 at RY 8;
// 5 x 5 185.0 at RY 4, 203.7 at RY 2, 188.5 at RY 8; the staged kernel 201.8 and 203.6 us. From
// 7 x 7 on the staged kernel wins (7 x 7: 214.4 against 229.0 us at RY 4; 9 x 9: 251.5 against
// 360.7): the arithmetic dominates there, and the lanes 0 and 31 that only load, the shuffles and
// the three blocks per SM that 72 registers allow cost more than staging does. No width spills
// (58 to 84 registers a thread), so no cap is set.
//
// uint8 (tuned on RGB), `ladder tune convolution --image` on a 3840 x 2160 RGB picture against the
// staged kernel (row_reuse), H100, 2026-11-26 (bench/results/
// convolution-image-tune-h100-2026-11-26-r2.md):
// 3 x 3 30.02 us at RY 2 (29.87 at RY 4 capped for 3 blocks per SM) against 51.52; 5 x 5 47.94 at
// RY 4 for 3 blocks per SM (80 registers, no spill), 49.38 at RY 2, 51.87 at RY 4 uncapped (120
// registers, 2 blocks) against 59.62; 7 x 7 78.66 at RY 2 against 84.74 (RY 4: 91.66); 9 x 9
// the staged kernel's 105.4 against 128.2 at RY 2. uint8 sums 4C scalars a thread per row (12 for
// RGB) where float sums 4: the arithmetic, not the memory, bounds it, and each extra halo row
// costs a row of conversions and shuffles.
//
// Float 3 x 3 on the H200 (4.2 TB/s, where the copy takes 129.1 us: `ladder tune convolution`,
// 2026-11-26, bench/results/convolution-tune-h200-2026-11-26-r9.md and -r10.md, two machines):
// 4 rows a thread with registers for 3 blocks per SM (56 a thread) 132.2 and 132.1 us, against
// 136.8 and 145.2 at 2 rows and 134.0 at 8; so 3 x 3 takes 4 rows for 3 blocks. At 5 x 5 the
// cap changes nothing there (144.2 against 143.8 us).
//
// Float 5 x 5 on the H200 since the rows' addresses are stepped by the pitch (lanes_load_rows),
// against the copy's 129.1 us (2026-11-27, bench/results/convolution-lanes-tune-h200-2026-11-27.md):
// 8 rows a thread (80 registers, 3 blocks per SM) 140.4 us, 4 rows 142.1, 6 rows for 3 blocks
// 143.3, 3 rows 151.9; 8 rows read 12 input rows for 8 outputs where 4 read 8 for 4, and the
// stepped addresses made the extra rows cheap. So float 5 x 5 takes 8 rows.
template <class T> inline constexpr int lanes_widest = 5;
template <> inline constexpr int lanes_widest<std::uint8_t> = 7;
template <class T, int C, int MW> struct LanesShape {
  static constexpr bool u8 = sizeof(T) == 1;
  static constexpr int ry = u8 && (MW == 3 || MW == 7) ? 2 : !u8 && MW == 5 ? 8 : 4;
  static constexpr int min_blocks = (u8 && MW == 5) || (!u8 && MW == 3) ? 3 : 1;
};

// The four pixels at columns x .. x + 3 of image row ym (border_index's result: -1 reads zeros)
// as C vectors: C vector loads when `vector` (the caller knows they lie inside and are aligned),
// else scalar by scalar through the border policy.
template <class T, int C>
__device__ __forceinline__ void lanes_load(const ImageArgs& a, std::int64_t ym, std::int64_t x,
                                           bool vector, lane_vector_t<T> (&v)[C]) {
  using V = lane_vector_t<T>;
  const auto* row = reinterpret_cast<const T*>(a.in + (ym < 0 ? 0 : ym) * a.in_pitch);
  if (vector) {
#pragma unroll
    for (int c = 0; c < C; ++c)
      v[c] = __ldg(reinterpret_cast<const V*>(row + x * C) + c);
    return;
  }
  T e[4 * C];
#pragma unroll
  for (int s = 0; s < 4 * C; ++s) {
    const std::int64_t xm = border_index(x + s / C, a.width, a.border);
    e[s] = ym < 0 || xm < 0 ? T(0) : row[xm * C + s % C];
  }
#pragma unroll
  for (int c = 0; c < C; ++c)
    v[c] = pack4(e + 4 * c);
}

// The RY + MW - 1 input rows of a thread whose first output row is y, into `own`: the warp's
// rows wholly inside the image take no border map (a test per warp). StepRows: where the rows are
// also this lane's to load as vectors (the common case), one pointer steps down them by the
// pitch, two integer adds a row; otherwise each row's address is built from its index (a 64-bit
// multiply by the pitch, a clamp and a branch: about 20 instructions a row in the SASS at 5 x 5,
// nvcc 13.0, against the 50 FMAs the row feeds).
template <class T, int C, int MW, int RY, bool StepRows = true>
__device__ __forceinline__ void lanes_load_rows(const ImageArgs& a, std::int64_t x, std::int64_t y,
                                                bool vector,
                                                lane_vector_t<T> (&own)[RY + MW - 1][C]) {
  using V = lane_vector_t<T>;
  constexpr int rows = RY + MW - 1, halo = MW / 2;
  const bool rows_inside = y - halo >= 0 && y - halo + rows <= a.height;
  if (StepRows && rows_inside && vector) {
    const unsigned char* row = a.in + (y - halo) * a.in_pitch + x * C * sizeof(T);
#pragma unroll
    for (int r = 0; r < rows; ++r, row += a.in_pitch)
#pragma unroll
      for (int c = 0; c < C; ++c)
        own[r][c] = __ldg(reinterpret_cast<const V*>(row) + c);
  } else if (rows_inside) {
#pragma unroll
    for (int r = 0; r < rows; ++r)
      lanes_load<T, C>(a, y - halo + r, x, vector, own[r]);
  } else {
#pragma unroll
    for (int r = 0; r < rows; ++r) {
      const std::int64_t ym = border_index(y - halo + r, a.height, a.border);
      lanes_load<T, C>(a, ym, x, vector && ym >= 0, own[r]);
    }
  }
}

// One input row's window for a thread: HS = MW / 2 x C scalars of the left neighbour, this lane's
// S = 4 C (its own vectors, unpacked), HS of the right one, by shuffles (every lane takes part).
template <class T, int C, int MW>
__device__ __forceinline__ void lanes_window(const lane_vector_t<T> (&own)[C],
                                             float (&w)[4 * C + 2 * (MW / 2) * C]) {
  constexpr int S = 4 * C, HS = MW / 2 * C;
  float mine[S];
#pragma unroll
  for (int c = 0; c < C; ++c)
    unpack4(own[c], mine + 4 * c);
#pragma unroll
  for (int t = 0; t < HS; ++t) {
    w[t] = __shfl_up_sync(0xffffffffu, mine[S - HS + t], 1);
    w[S + HS + t] = __shfl_down_sync(0xffffffffu, mine[t], 1);
  }
#pragma unroll
  for (int k = 0; k < S; ++k)
    w[HS + k] = mine[k];
}

// Stores the 4 C sums `acc` of a thread's four pixels at column x of the output row that starts at
// `out_row` (a lane 1 .. 30 whose pixels start inside the image, the row inside it): C vectors
// where `out_vector` (the row is aligned and the four pixels inside), else scalar by scalar up to
// the image's edge.
template <class T, int C>
__device__ __forceinline__ void lanes_store_row(const ImageArgs& a, std::int64_t x,
                                                unsigned char* out_row, bool out_vector,
                                                const float* acc) {
  using V = lane_vector_t<T>;
  T* row = reinterpret_cast<T*>(out_row) + x * C;
  if (out_vector) {
#pragma unroll
    for (int c = 0; c < C; ++c)
      reinterpret_cast<V*>(row)[c] = results4<T>(acc + 4 * c);
  } else {
#pragma unroll
    for (int k = 0; k < 4 * C; ++k)
      if (x + k / C < a.width)
        row[k] = from_float<T>(acc[k]);
  }
}

// The RY output rows from y of a thread's four pixels at column x, from its input rows `own`:
// each row's window from the neighbouring lanes, then the stores of lanes 1 .. 30 inside the
// image.
template <class T, int C, int MW, int RY, bool StepRows = true>
__device__ __forceinline__ void lanes_compute_store(const ImageArgs& a, const MaskParam& mask,
                                                    std::int64_t x, std::int64_t y, int lane,
                                                    const lane_vector_t<T> (&own)[RY + MW - 1][C]) {
  using L = Lanes2d<T, C, MW, RY>;
  using V = typename L::Vector;
  constexpr int S = L::scalars, HS = L::halo * C;
  float acc[RY][S];
#pragma unroll
  for (int o = 0; o < RY; ++o)
#pragma unroll
    for (int k = 0; k < S; ++k)
      acc[o][k] = 0.0f;
#pragma unroll
  for (int r = 0; r < L::rows; ++r) {
    float w[S + 2 * HS];
    lanes_window<T, C, MW>(own[r], w);
    apply_input_row<MW, C>(acc, mask, w, r);
  }
  if (lane == 0 || lane == 31 || x >= a.width)
    return;
  const bool out_vector = rows_aligned_to<V>(a.out, a.out_pitch) && x + 4 <= a.width;
  unsigned char* out_row = a.out + y * a.out_pitch;
#pragma unroll
  for (int o = 0; o < RY; ++o) {
    if (y + o >= a.height)
      break;
    lanes_store_row<T, C>(a, x, StepRows ? out_row : a.out + (y + o) * a.out_pitch, out_vector,
                          acc[o]);
    out_row += a.out_pitch;
  }
}

// Asks L2 for the input rows of a thread whose first output row is y (no registers, no wait):
// one prefetch per row of the thread's own four pixels, clamped into the image; rows outside it
// are skipped. A hint only: the loads that follow are what the results come from.
template <class T, int C, int MW, int RY>
__device__ __forceinline__ void lanes_prefetch_rows(const ImageArgs& a, std::int64_t x,
                                                    std::int64_t y) {
  constexpr int rows = RY + MW - 1, halo = MW / 2;
  const std::int64_t xc = x < 0 ? 0 : x < a.width ? x : a.width - 1;
#pragma unroll
  for (int r = 0; r < rows; ++r) {
    const std::int64_t ym = y - halo + r;
    if (ym >= 0 && ym < a.height) {
      const auto* p = reinterpret_cast<const T*>(a.in + ym * a.in_pitch) + xc * C;
      asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
    }
  }
}

// Walk: tiles per block, down its column of tiles; with Walk > 1 a thread asks L2 for the next
// tile's input rows right after requesting this one's, so that DRAM fetches them while it
// computes this one and their loads then wait for L2 rather than DRAM (no register holds them).
// The walk is unrolled: as a loop ptxas kept about twice the registers (156 against 74 a thread
// at 7 x 7, nvcc 13.0). Ahead (Walk 1 only): the rows of the tile Ahead rows of blocks below are
// asked for instead, for the block that will compute them (launched later in the grid's order).
// StepRows: the input and output rows' addresses stepped by the pitch (lanes_load_rows).
template <class T, int C, int MW, int RY, int MinBlocks, int Walk = 1, int Ahead = 0,
          bool StepRows = true>
__global__ void __launch_bounds__(256, MinBlocks)
    convolve_lanes_2d(ImageArgs a, const __grid_constant__ MaskParam mask) {
  static_assert(Walk >= 1 && Ahead >= 0 && (Walk == 1 || Ahead == 0), "walk or prefetch ahead");
  using L = Lanes2d<T, C, MW, RY>;
  using V = typename L::Vector;
  const int lane = threadIdx.x;
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * L::tile_w - 4 + 4 * lane;
  const std::int64_t y0 =
      static_cast<std::int64_t>(blockIdx.y) * Walk * L::tile_h + threadIdx.y * RY;
  if (y0 >= a.height)
    return; // the whole warp: its lanes share y
  const bool vector = rows_aligned_to<V>(a.in, a.in_pitch) && x >= 0 && x + 4 <= a.width;
#pragma unroll
  for (int t = 0; t < Walk; ++t) {
    const std::int64_t y = y0 + t * L::tile_h;
    if (t > 0 && y >= a.height)
      return;
    V own[L::rows][C];
    lanes_load_rows<T, C, MW, RY, StepRows>(a, x, y, vector, own);
    if (t + 1 < Walk)
      lanes_prefetch_rows<T, C, MW, RY>(a, x, y + L::tile_h);
    if constexpr (Ahead > 0)
      lanes_prefetch_rows<T, C, MW, RY>(a, x, y + Ahead * L::tile_h);
    lanes_compute_store<T, C, MW, RY, StepRows>(a, mask, x, y, lane, own);
  }
}

// Blocks along y of convolve_lanes_2d for an image of this height.
template <class T, int C, int MW, int RY, int Walk>
std::int64_t lanes_2d_blocks_y(std::int64_t height) {
  using L = Lanes2d<T, C, MW, RY>;
  const std::int64_t tiles_y = (height + L::tile_h - 1) / L::tile_h;
  return (tiles_y + Walk - 1) / Walk;
}

// Whether convolve_lanes_2d can take an image of this height (its grid's rows of blocks).
template <class T, int C, int MW, int RY, int Walk = 1> bool lanes_2d_fits(std::int64_t height) {
  return lanes_2d_blocks_y<T, C, MW, RY, Walk>(height) <= 65535;
}

// Launches convolve_lanes_2d (width, height > 0; lanes_2d_fits).
template <class T, int C, int MW, int RY, int MinBlocks, int Walk = 1, int Ahead = 0,
          bool StepRows = true>
void launch_lanes_2d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  using L = Lanes2d<T, C, MW, RY>;
  if (!lanes_2d_fits<T, C, MW, RY, Walk>(a.height))
    throw std::invalid_argument("lanes_2d: more than 65535 rows of blocks");
  const std::int64_t tiles_x = (a.width + L::tile_w - 1) / L::tile_w;
  const std::int64_t blocks_y = lanes_2d_blocks_y<T, C, MW, RY, Walk>(a.height);
  convolve_lanes_2d<T, C, MW, RY, MinBlocks, Walk, Ahead, StepRows>
      <<<dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(blocks_y)), dim3(L::tx, L::ty),
         0, stream>>>(a, mask);
  LADDER_CUDA(cudaGetLastError());
}

// 2D streamed down strips (written for the lanes' element types and channels, square masks up to
// 9 x 9; instantiated and tested for float images of one channel only). The lane-halo kernel above
// loads all of a thread's rows, then computes, then stores: while an SM's warps are in their FMAs,
// DRAM has nothing of theirs to fetch, and from 7 x 7 on that is most of the time. Here a warp
// walks `strip` output rows down its 128 columns one input row at a time, asks for the row Ahead
// rows below before this row's FMAs, and stores an output row as soon as its last mask row is in,
// so loads, arithmetic and stores overlap within every warp. Input row r is mask row j of output
// row r - j: the MW output rows a thread has open live in a ring of accumulators (slot (r - j) mod
// MW), the rows in flight in a ring of loads, and the row loop is unrolled by `period` rows (a
// multiple of MW above Ahead) so that every slot is a register known at compile time. Each input
// row is read once, apart from the MW - 1 halo rows a strip shares with the next. The slots of
// output rows above the strip and below the image take sums that are never stored (MW - 1 rows'
// worth a strip; cheaper than a test per mask row). Sums run mask rows in order and taps left to
// right, as every other path. Measured slower than the lane-halo kernel at every width on an H100,
// 5-10% at 3 x 3 and 5 x 5 and 37% and more from 7 x 7 (2026-11-27, docs/convolution.md): the loop
// holds 114-128 registers a thread where the unrolled kernel holds 58-84 (not profiled further).
template <class T, int C, int MW, int Ahead> struct LanesStream {
  static_assert(Ahead >= 0, "rows requested ahead");
  using Lanes = Lanes2d<T, C, MW, 1>;
  static constexpr int period = MW * (Ahead / MW + 1); // rows per unrolled step of the walk
  static constexpr int tx = 32, ty = 8;                // a warp per strip, 8 strips per block
};

// One period of the streamed walk: input rows base .. base + period - 1, each requesting the row
// Ahead below it (load), applied to the MW output rows it feeds, then the output row it completes
// stored (store). Checked: only the rows below rows_in, only the requests inside the strip, only
// the outputs from row 0 (the walk's first and last periods, and every period of a warp at the
// image's edges); unchecked, the request is clamped to the strip's last row (read again, never
// used) and nothing is tested.
template <class T, int C, int MW, int Ahead, bool Checked, class Load, class Store>
__device__ __forceinline__ void stream_period(
    const MaskParam& mask, int base, int rows_in,
    lane_vector_t<T> (&ring)[LanesStream<T, C, MW, Ahead>::period][C], float (&acc)[MW][4 * C],
    const Load& load, const Store& store) {
  constexpr int period = LanesStream<T, C, MW, Ahead>::period, S = 4 * C, HS = MW / 2 * C;
#pragma unroll
  for (int s = 0; s < period; ++s) {
    const int r = base + s;
    if constexpr (Checked) {
      if (r >= rows_in)
        break;
      if (r + Ahead < rows_in)
        load(r + Ahead, ring[(s + Ahead) % period]);
    } else {
      load(r + Ahead < rows_in ? r + Ahead : rows_in - 1, ring[(s + Ahead) % period]);
    }
    float w[S + 2 * HS];
    lanes_window<T, C, MW>(ring[s], w);
#pragma unroll
    for (int j = 0; j < MW; ++j) {
      float(&o)[S] = acc[(s - j + period) % MW];
#pragma unroll
      for (int i = 0; i < MW; ++i)
#pragma unroll
        for (int k = 0; k < S; ++k) // mask row 0's first tap opens the output row's sum
          o[k] = __fmaf_rn(mask.w[j * MW + i], w[k + i * C], j == 0 && i == 0 ? 0.0f : o[k]);
    }
    if (!Checked || r >= MW - 1) // output row r - (MW - 1) has its last mask row
      store(r - (MW - 1), acc[(s + 1) % MW]);
  }
}

// Warps whose strip lies inside the image with every lane's four pixels inside and aligned (the
// interior: all but the image's edges) walk with plain vector loads and stores and test nothing
// between the first and the last period; the others map every row and pixel through the border
// policy. Each path is its own copy of the unrolled period, so the interior's loop holds no
// border code (with it inline, the loop's hot instructions lay spread over some 90 KB of SASS at
// 7 x 7).
template <class T, int C, int MW, int Ahead, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    convolve_lanes_stream_2d(ImageArgs a, const __grid_constant__ MaskParam mask, int strip) {
  using P = LanesStream<T, C, MW, Ahead>;
  using L = typename P::Lanes;
  using V = typename L::Vector;
  constexpr int S = L::scalars, period = P::period;
  const int lane = threadIdx.x;
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * L::tile_w - 4 + 4 * lane;
  const std::int64_t y0 =
      (static_cast<std::int64_t>(blockIdx.y) * P::ty + threadIdx.y) * strip;
  if (y0 >= a.height)
    return; // the whole warp: its lanes share y
  const int rows_out = static_cast<int>(a.height - y0 < strip ? a.height - y0 : strip);
  const int rows_in = rows_out + MW - 1;
  const std::int64_t top = y0 - L::halo; // the image row of input row 0
  const bool inside = x >= 0 && x + 4 <= a.width;
  const bool vector = rows_aligned_to<V>(a.in, a.in_pitch) && inside;
  const bool out_vector = rows_aligned_to<V>(a.out, a.out_pitch) && inside;
  const bool stores = lane != 0 && lane != 31 && x < a.width;
  V ring[period][C]; // input row r in slot r mod period
  float acc[MW][S];  // output row q in slot q mod MW
#pragma unroll
  for (int o = 0; o < MW; ++o)
#pragma unroll
    for (int k = 0; k < S; ++k)
      acc[o][k] = 0.0f;
  const bool interior = __all_sync(0xffffffffu, vector && out_vector) && top >= 0 &&
                        top + rows_in <= a.height;
  if (interior) {
    const T* in0 = reinterpret_cast<const T*>(a.in + top * a.in_pitch) + x * C;
    T* out0 = reinterpret_cast<T*>(a.out + y0 * a.out_pitch) + x * C;
    const auto load = [&](int r, V(&v)[C]) {
      const auto* p = reinterpret_cast<const V*>(reinterpret_cast<const unsigned char*>(in0) +
                                                 r * a.in_pitch);
#pragma unroll
      for (int c = 0; c < C; ++c)
        v[c] = __ldg(p + c);
    };
    const auto store = [&](int q, const float(&sums)[S]) {
      if (stores) {
        auto* p = reinterpret_cast<V*>(reinterpret_cast<unsigned char*>(out0) + q * a.out_pitch);
#pragma unroll
        for (int c = 0; c < C; ++c)
          p[c] = results4<T>(sums + 4 * c);
      }
    };
#pragma unroll
    for (int r = 0; r < Ahead; ++r)
      load(r < rows_in ? r : rows_in - 1, ring[r]);
    stream_period<T, C, MW, Ahead, true>(mask, 0, rows_in, ring, acc, load, store);
    int base = period;
#pragma unroll 1
    for (; base + period <= rows_in; base += period)
      stream_period<T, C, MW, Ahead, false>(mask, base, rows_in, ring, acc, load, store);
    if (base < rows_in)
      stream_period<T, C, MW, Ahead, true>(mask, base, rows_in, ring, acc, load, store);
    return;
  }
  const auto load = [&](int r, V(&v)[C]) {
    const std::int64_t yy = top + r;
    const std::int64_t ym = yy >= 0 && yy < a.height ? yy : border_index(yy, a.height, a.border);
    lanes_load<T, C>(a, ym, x, vector && ym >= 0, v);
  };
  const auto store = [&](int q, const float(&sums)[S]) {
    if (stores)
      lanes_store_row<T, C>(a, x, a.out + (y0 + q) * a.out_pitch, out_vector, sums);
  };
#pragma unroll
  for (int r = 0; r < Ahead; ++r)
    if (r < rows_in)
      load(r, ring[r]);
#pragma unroll 1
  for (int base = 0; base < rows_in; base += period)
    stream_period<T, C, MW, Ahead, true>(mask, base, rows_in, ring, acc, load, store);
}

// Rows requested ahead and blocks per SM of the streamed kernel per mask width (float, one
// channel). ptxas keeps the taps of the loop's mask and several rows' loads and shuffles in
// registers: capped for 2 blocks per SM (128 a thread, nvcc 13.0) 3 x 3 takes 114, 5 x 5 123, and
// 7 x 7 spills 52 bytes with 3 rows ahead (264 with 4); 9 x 9 takes 235 uncapped (it spills 768
// bytes capped) and runs one block per SM.
template <int MW> struct StreamShape {
  static constexpr int ahead = MW == 7 ? 3 : 4;
  static constexpr int min_blocks = MW <= 7 ? 2 : 1;
};

// Strips of convolve_lanes_stream_2d for an image of this height: `strip` rows, or more where
// the grid would need more than 65535 rows of blocks.
template <class T, int C, int MW, int Ahead>
int lanes_stream_strip(std::int64_t height, int strip) {
  constexpr std::int64_t most = std::int64_t{65535} * LanesStream<T, C, MW, Ahead>::ty;
  const std::int64_t needed = (height + most - 1) / most;
  return static_cast<int>(needed > strip ? needed : strip);
}

// Launches convolve_lanes_stream_2d with strips of at least `strip` rows (width, height > 0).
template <class T, int C, int MW, int Ahead, int MinBlocks>
void launch_lanes_stream_2d(const ImageArgs& a, const MaskParam& mask, int strip,
                            cudaStream_t stream) {
  using P = LanesStream<T, C, MW, Ahead>;
  if (strip < 1)
    throw std::invalid_argument("lanes_stream_2d: strip must be >= 1");
  strip = lanes_stream_strip<T, C, MW, Ahead>(a.height, strip);
  const std::int64_t tiles_x = (a.width + P::Lanes::tile_w - 1) / P::Lanes::tile_w;
  const std::int64_t strips = (a.height + strip - 1) / strip;
  const std::int64_t blocks_y = (strips + P::ty - 1) / P::ty;
  convolve_lanes_stream_2d<T, C, MW, Ahead, MinBlocks>
      <<<dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(blocks_y)), dim3(P::tx, P::ty),
         0, stream>>>(a, mask, strip);
  LADDER_CUDA(cudaGetLastError());
}

} // namespace ladder::conv_detail
