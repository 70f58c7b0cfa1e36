// The joint bound of a 2D case: the copy's bytes and the mask's fused multiply-adds, nothing else.
// Each scalar of the pitched image (padding included) is read once with 16-byte loads, run through
// every tap of the mask on its own (acc = fma(tap, x, acc), taps in order: as many FMAs per
// output as the convolution does), and written once. No kernel that convolves can issue fewer
// loads, stores or FMAs, so this row's time is what the case's two bounds cost when one kernel
// overlaps them as well as a streaming kernel can: where the copy alone and the FMAs alone each
// take about the same time (float 7 x 7 on an H200), it says how close to the copy any
// convolution can come.
#include "convolution/variants_parts.hpp"
#include "convolution/window.cuh"
#include "core/resident_grid.hpp"
#include "ladder/detail/bulk_copy.cuh"

#include <algorithm>
#include <cstdint>

namespace ladder::lab::convolution {

namespace {

using conv_detail::lane_vector_t;
using conv_detail::MaskParam;
using conv_detail::results4;

constexpr int own_taps_block = 256;

// Masks up to this many taps are held in registers, loaded once a thread (FFMA on registers
// alone); larger ones are read from the kernel's parameter bank, which ptxas stages through
// uniform registers (ULDC), a few instructions per tap and word.
constexpr int own_taps_in_registers = 49;

// The taps of a mask: registers loaded once from the device copy, or the parameter bank.
template <int Taps, bool InRegisters = (Taps <= own_taps_in_registers)> struct OwnTaps {
  float w[Taps];
  __device__ __forceinline__ OwnTaps(const float* device_mask, const MaskParam&) {
#pragma unroll
    for (int k = 0; k < Taps; ++k)
      w[k] = __ldg(device_mask + k); // from memory, so that the compiler keeps them in registers
  }
};
template <int Taps> struct OwnTaps<Taps, false> {
  const MaskParam& mask;
  const float* w;
  __device__ __forceinline__ OwnTaps(const float*, const MaskParam& m) : mask(m), w(m.w) {}
};

// x through every tap, in order, from 0: what the CPU reference (cpu_own_taps) computes.
template <int Taps, class Source> __device__ __forceinline__ float own_taps(const Source& t, float x) {
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < Taps; ++k)
    acc = __fmaf_rn(t.w[k], x, acc);
  return acc;
}

// Four scalars of one 32-bit (uint8) or 128-bit (float) lane vector through the taps.
template <class T, int Taps, class Source>
__device__ __forceinline__ lane_vector_t<T> own_taps4(const Source& t, lane_vector_t<T> v) {
  float x[4];
  if constexpr (sizeof(T) == 4) {
    x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
  } else {
    const float4 f = conv_detail::bytes_to_float4(v);
    x[0] = f.x, x[1] = f.y, x[2] = f.z, x[3] = f.w;
  }
  float r[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) // four independent chains, interleaved by the compiler
    r[i] = own_taps<Taps>(t, x[i]);
  return results4<T>(r);
}

// One 16-byte word through the taps: a float4, or four 32-bit words of four uint8.
template <class T, int Taps, class Source>
__device__ __forceinline__ uint4 own_taps_word(const Source& t, uint4 v) {
  if constexpr (sizeof(T) == 4) {
    const float4 f = own_taps4<T, Taps>(t, make_float4(__uint_as_float(v.x), __uint_as_float(v.y),
                                                      __uint_as_float(v.z), __uint_as_float(v.w)));
    return make_uint4(__float_as_uint(f.x), __float_as_uint(f.y), __float_as_uint(f.z),
                      __float_as_uint(f.w));
  } else {
    return make_uint4(own_taps4<T, Taps>(t, v.x), own_taps4<T, Taps>(t, v.y),
                      own_taps4<T, Taps>(t, v.z), own_taps4<T, Taps>(t, v.w));
  }
}

// A block takes 256 x Batch x rounds consecutive 16-byte words: rounds of Batch words a thread,
// each round's loads issued together, each load instruction of a warp 512 contiguous bytes. The
// taps are loaded once for all the rounds, so that the loop issues little besides its FFMAs:
// Batch loads and stores, and the round's addresses. Ahead false: a round's loads are issued
// after the round before has stored, so a thread has nothing in flight while it computes (other
// warps cover the wait). Ahead true: the next round's loads are issued before this round's
// arithmetic, so every thread keeps a round in flight while its FMAs run. Streaming: the results
// stored with the evict-first hint (st.global.cs), as a copy that is not read back would be.
template <class T, int Taps, int Batch, bool Ahead, bool Streaming>
__global__ void __launch_bounds__(own_taps_block)
    own_taps_words(const uint4* __restrict__ in, uint4* __restrict__ out, std::int64_t words,
                   int rounds, const float* __restrict__ device_mask,
                   const __grid_constant__ MaskParam mask) {
  const OwnTaps<Taps> taps(device_mask, mask);
  constexpr std::int64_t round_words = std::int64_t{own_taps_block} * Batch;
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * round_words * rounds + threadIdx.x;
  const auto load_round = [&](uint4 (&v)[Batch], std::int64_t at) {
#pragma unroll
    for (int b = 0; b < Batch; ++b)
      if (at + b * own_taps_block < words)
        v[b] = __ldg(in + at + b * own_taps_block);
  };
  uint4 v[Batch];
  if constexpr (Ahead)
    load_round(v, i);
#pragma unroll 1
  for (int round = 0; round < rounds && i < words; ++round, i += round_words) {
    uint4 next[Batch];
    if constexpr (Ahead) {
      if (round + 1 < rounds)
        load_round(next, i + round_words);
    } else {
      load_round(v, i);
    }
#pragma unroll
    for (int b = 0; b < Batch; ++b)
      if (i + b * own_taps_block < words) {
        const uint4 r = own_taps_word<T, Taps>(taps, v[b]);
        if constexpr (Streaming)
          __stcs(out + i + b * own_taps_block, r);
        else
          out[i + b * own_taps_block] = r;
      }
    if constexpr (Ahead) {
#pragma unroll
      for (int b = 0; b < Batch; ++b)
        v[b] = next[b];
    }
  }
}

// The same words staged by the bulk copy engine through a ring of shared-memory stages: a
// producer warp (the block's last) copies the block's chunks of ring_chunk_words words, one
// cp.async.bulk each, as far ahead as the ring has free stages; the 8 consumer warps take each
// chunk from shared memory (a 16-byte load a word), run it through the taps and store it to
// global memory straight from registers, then hand the stage back. The bytes in flight are no
// longer bounded by registers (Stages x 8 KiB a block), and the consumers issue nothing for
// them but one shared load a word. Persistent blocks take the chunks in a grid-stride order, so
// that the resident grid streams through the image together. Below sm_90 (no bulk copies) the
// consumers read their words from global memory instead.
constexpr int ring_consumer_warps = 8;
constexpr int ring_consumers = ring_consumer_warps * 32;
constexpr int ring_words_a_thread = 2;
constexpr int ring_chunk_words = ring_consumers * ring_words_a_thread; // 8 KiB a stage

template <class T, int Taps, int Stages, int MinBlocks>
__global__ void __launch_bounds__(ring_consumers + 32, MinBlocks)
    own_taps_ring(const uint4* __restrict__ in, uint4* __restrict__ out, std::int64_t words,
                  const float* __restrict__ device_mask, const __grid_constant__ MaskParam mask) {
  extern __shared__ __align__(128) uint4 ring[]; // Stages x ring_chunk_words
  __shared__ std::uint64_t landed[Stages], freed[Stages];
  namespace bulk = ladder::detail::bulk;
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      bulk::barrier_init(&landed[s], 1);
      bulk::barrier_init(&freed[s], ring_consumer_warps);
    }
  }
  __syncthreads();
  const std::int64_t chunks = (words + ring_chunk_words - 1) / ring_chunk_words;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (warp == ring_consumer_warps) { // the producer
    if (lane != 0 || !bulk::available)
      return;
    int k = 0;
    for (std::int64_t c = blockIdx.x; c < chunks; c += gridDim.x, ++k) {
      const int s = k % Stages;
      if (k >= Stages) // the stage's previous chunk must have been read
        bulk::wait(&freed[s], ((k / Stages) - 1) & 1);
      const std::int64_t first = c * ring_chunk_words;
      const auto n = static_cast<unsigned>(std::min<std::int64_t>(ring_chunk_words, words - first));
      bulk::expect_bytes(&landed[s], n * 16u);
      bulk::copy_counted(ring + s * ring_chunk_words, in + first, n * 16u, &landed[s]);
    }
    return;
  }
  const OwnTaps<Taps> taps(device_mask, mask);
  int k = 0;
  for (std::int64_t c = blockIdx.x; c < chunks; c += gridDim.x, ++k) {
    const int s = k % Stages;
    bulk::wait(&landed[s], (k / Stages) & 1);
    const std::int64_t first = c * ring_chunk_words;
    const std::int64_t n = std::min<std::int64_t>(ring_chunk_words, words - first);
    uint4 v[ring_words_a_thread];
#pragma unroll
    for (int b = 0; b < ring_words_a_thread; ++b) {
      const int w = threadIdx.x + b * ring_consumers;
      if (w < n)
        v[b] = bulk::available ? ring[s * ring_chunk_words + w] : __ldg(in + first + w);
    }
#pragma unroll
    for (int b = 0; b < ring_words_a_thread; ++b) {
      const int w = threadIdx.x + b * ring_consumers;
      if (w < n)
        out[first + w] = own_taps_word<T, Taps>(taps, v[b]);
    }
    // The stage goes back only after the arithmetic has used every word read from it: an
    // arrive right after the shared loads let the next copy overwrite words still in flight to
    // the registers (wrong sums at 3 x 3 on an H200, where the arithmetic is shortest).
    __syncwarp();
    if (lane == 0)
      bulk::arrive(&freed[s]);
  }
}

// Scalars [first, count) one a thread: the tail past the last whole word, and images whose
// pointers are not 16-byte aligned (the tests' offsets; never the timed images).
template <class T, int Taps>
__global__ void __launch_bounds__(own_taps_block)
    own_taps_scalars(const T* __restrict__ in, T* __restrict__ out, std::int64_t first,
                     std::int64_t count, const __grid_constant__ MaskParam mask) {
  const std::int64_t i = first + static_cast<std::int64_t>(blockIdx.x) * own_taps_block +
                         threadIdx.x;
  if (i < count)
    out[i] = conv_detail::from_float<T>(
        own_taps<Taps>(OwnTaps<Taps, false>(nullptr, mask), conv_detail::to_float(in[i])));
}

// The whole 16-byte words through the ring of bulk-copied stages, in the resident grid.
template <class T, int Taps, OwnTapsShape Shape>
void launch_own_taps_ring(const uint4* in, uint4* out, std::int64_t words,
                          const float* device_mask, const MaskParam& mask, cudaStream_t s) {
  const auto kernel = own_taps_ring<T, Taps, Shape.ring_stages, Shape.ring_blocks>;
  constexpr auto shared =
      static_cast<std::size_t>(Shape.ring_stages) * ring_chunk_words * sizeof(uint4);
  static core::PerDevice resident;
  const std::int64_t chunks = (words + ring_chunk_words - 1) / ring_chunk_words;
  const std::int64_t grid =
      std::min(chunks, core::resident_blocks(resident, reinterpret_cast<const void*>(kernel),
                                             ring_consumers + 32, shared));
  kernel<<<static_cast<unsigned>(grid), ring_consumers + 32, shared, s>>>(in, out, words,
                                                                          device_mask, mask);
}

// The whole 16-byte words in rounds of Shape.batch a thread.
template <class T, int Taps, OwnTapsShape Shape>
void launch_own_taps_rounds(const uint4* in, uint4* out, std::int64_t words,
                            const float* device_mask, const MaskParam& mask, cudaStream_t s) {
  // Up to 16 words a thread, fewer where that would leave under 2048 blocks (two waves of
  // 8 blocks on 132 SMs): the taps' loads are then shared by fewer words.
  constexpr int batch = Shape.batch;
  const std::int64_t per_round = std::int64_t{own_taps_block} * batch;
  const int rounds = static_cast<int>(
      std::clamp<std::int64_t>(words / (per_round * 2048), 1, 16 / batch));
  const std::int64_t per_block = per_round * rounds;
  own_taps_words<T, Taps, batch, Shape.ahead, Shape.streaming>
      <<<static_cast<unsigned>((words + per_block - 1) / per_block), own_taps_block, 0, s>>>(
          in, out, words, rounds, device_mask, mask);
}

template <class T, int Taps, OwnTapsShape Shape>
void launch_own_taps(const Buffers2d& b, const MaskParam& mask, cudaStream_t s) {
  const Problem2d& p = b.problem;
  const std::int64_t bytes = p.pitch * p.height;
  const bool aligned = ((reinterpret_cast<std::uintptr_t>(b.in) |
                         reinterpret_cast<std::uintptr_t>(b.out)) & 15u) == 0;
  const std::int64_t words = aligned ? bytes / 16 : 0;
  const auto* in = static_cast<const uint4*>(b.in);
  auto* out = static_cast<uint4*>(b.out);
  if (words > 0) {
    if constexpr (Shape.ring_stages > 0)
      launch_own_taps_ring<T, Taps, Shape>(in, out, words, b.device_mask, mask, s);
    else
      launch_own_taps_rounds<T, Taps, Shape>(in, out, words, b.device_mask, mask, s);
  }
  const std::int64_t first = words * 16 / static_cast<std::int64_t>(sizeof(T));
  const std::int64_t count = bytes / static_cast<std::int64_t>(sizeof(T));
  if (count > first)
    own_taps_scalars<T, Taps><<<static_cast<unsigned>((count - first + own_taps_block - 1) /
                                                      own_taps_block),
                                own_taps_block, 0, s>>>(static_cast<const T*>(b.in),
                                                        static_cast<T*>(b.out), first, count,
                                                        mask);
}

template <class T, OwnTapsShape Shape>
void launch_own_taps_element(const Buffers2d& b, const MaskParam& mask, cudaStream_t s) {
  switch (b.problem.mask_width) {
  case 3: return launch_own_taps<T, 9, Shape>(b, mask, s);
  case 5: return launch_own_taps<T, 25, Shape>(b, mask, s);
  case 7: return launch_own_taps<T, 49, Shape>(b, mask, s);
  case 9: return launch_own_taps<T, 81, Shape>(b, mask, s);
  case 15: return launch_own_taps<T, 225, Shape>(b, mask, s);
  default: throw std::logic_error("own taps: unsupported mask");
  }
}

} // namespace

const char* own_taps_fit(const Problem2d& p) {
  const int w = p.mask_width;
  return p.mask_height == w && (w == 3 || w == 5 || w == 7 || w == 9 || w == 15)
             ? nullptr
             : "square masks 3, 5, 7, 9 and 15 (the sweep's widths)";
}

template <OwnTapsShape Shape> void launch_own_taps_rung(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  if (own_taps_fit(p))
    throw std::logic_error(std::string("own taps: ") + own_taps_fit(p));
  const MaskParam mask = conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height);
  if (p.element == Element::f32)
    launch_own_taps_element<float, Shape>(b, mask, s);
  else
    launch_own_taps_element<std::uint8_t, Shape>(b, mask, s);
}

// The registry's shapes (variants.cu).
template void launch_own_taps_rung<OwnTapsShape{}>(const Buffers2d&, cudaStream_t);
template void launch_own_taps_rung<OwnTapsShape{.batch = 1}>(const Buffers2d&, cudaStream_t);
template void launch_own_taps_rung<OwnTapsShape{.batch = 4}>(const Buffers2d&, cudaStream_t);
template void launch_own_taps_rung<OwnTapsShape{.ahead = true}>(const Buffers2d&, cudaStream_t);
template void launch_own_taps_rung<OwnTapsShape{.batch = 1, .ahead = true}>(const Buffers2d&,
                                                                            cudaStream_t);
template void launch_own_taps_rung<OwnTapsShape{.ring_stages = 6, .ring_blocks = 2}>(
    const Buffers2d&, cudaStream_t);
template void launch_own_taps_rung<OwnTapsShape{.ring_stages = 4, .ring_blocks = 3}>(
    const Buffers2d&, cudaStream_t);
template void launch_own_taps_rung<OwnTapsShape{.batch = 1, .streaming = true}>(const Buffers2d&,
                                                                                cudaStream_t);
template void launch_own_taps_rung<OwnTapsShape{.ahead = true, .streaming = true}>(
    const Buffers2d&, cudaStream_t);

} // namespace ladder::lab::convolution
