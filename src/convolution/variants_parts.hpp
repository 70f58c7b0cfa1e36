// The registry's rungs compiled in translation units of their own, so that the build runs their
// kernels beside the rest of variants.cu's: the lane-halo rungs (variants_lanes.cu), the rungs
// staged by the bulk copy engine (variants_bulk.cu), the wide tiles (variants_wide.cu) and their
// ring (variants_ring.cu); and the registry's helpers they share.
#pragma once

#include "convolution/api_dispatch.hpp"
#include "convolution/tiled.cuh"
#include "convolution/variants.hpp"

#include <stdexcept>
#include <type_traits>

namespace ladder::lab::convolution {

// The launch arguments of a 2D rung's buffers, with the border policy it computes.
conv_detail::ImageArgs image_args(const Buffers2d& b, Border border);

// nullptr for float images of one channel with a square mask 3, 5, 7, 9 or 15 wide (the widths
// the column walk and the bulk-staged rungs compile), else why not.
const char* float_square_masks_fit(const Problem2d& p);

// The lane-halo fits: float images of one channel or uint8 of three (lanes_fit), float only
// (lanes_float_fit); square masks up to 9 x 9. nullptr, else why not.
const char* lanes_fit(const Problem2d& p);
const char* lanes_float_fit(const Problem2d& p);

// The halo from the neighbouring lanes: the library's shape per mask width (RY == 0) or RY rows a
// thread with registers for MinBlocks blocks per SM; Walk tiles per block and Ahead rows
// prefetched (float only). U8: the uint8 RGB kernels compiled too (the float-only variants leave
// them out: each is some tens of thousands of instructions). StepRows: rows' addresses stepped by
// the pitch (false: built from each row's index, as the lanes were first measured).
template <int RY, int MinBlocks, int Walk = 1, int Ahead = 0, bool U8 = Walk == 1 && Ahead == 0,
          bool StepRows = true>
void launch_lanes_2d_rung(const Buffers2d& b, cudaStream_t stream);

// The lanes streamed down strips of Strip output rows (float, one channel).
template <int Strip> void launch_lanes_stream_rung(const Buffers2d& b, cudaStream_t stream);

// The wide register tiles straight from L1 (wide.cuh): KV float4s a row and RY rows a thread with
// registers for MinBlocks blocks per SM, unrolled or looping over the mask's rows (RowLoop), each
// warp first asking L2 for its own rows or not (PrefetchL2), or the library's shape per width
// (KV, RY, MinBlocks 0). Float images of one channel, square masks 3 .. 9 (wide_fit: nullptr,
// else why not).
const char* wide_fit(const Problem2d& p);

// f(std::integral_constant<int, MW>{}) for the mask width MW of a problem wide_fit takes.
template <int MW = 3, class F> void with_wide_width(int width, F&& f) {
  if constexpr (MW < 9) {
    if (width != MW)
      return with_wide_width<MW + 2>(width, f);
  }
  if (width != MW)
    throw std::logic_error("wide tiles: unsupported mask");
  f(std::integral_constant<int, MW>{});
}

// f(std::integral_constant<int, MW>{}, args, mask) for a wide-tile rung's buffers: its mask
// width MW, the zero-border image arguments and the mask's parameter.
template <class F> void with_wide_rung(const Buffers2d& b, F&& f) {
  const Problem2d& p = b.problem;
  const auto mask = conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height);
  const conv_detail::ImageArgs a = image_args(b, Border::zero);
  with_wide_width(mask.width, [&](auto width) { f(width, a, mask); });
}

template <int KV, int RY, int MinBlocks, bool RowLoop, bool PrefetchL2>
void launch_wide_rung(const Buffers2d& b, cudaStream_t stream);
// The window streamed down strips from a ring of bulk-copied rows (strip.cuh): CW consumer warps
// of PX float4s a thread, strips of S rows, registers for MinBlocks blocks per SM, or the
// rung's shape per width (CW 0: StripShape); the wide tile where the strips do not run (rows not 16-byte
// aligned, below sm_90). Float images of one channel, square masks 3 .. 9 (wide_fit).
template <int CW, int PX, int S, int MinBlocks>
void launch_strips_rung(const Buffers2d& b, cudaStream_t stream);
// The walked tile in pairs (walk.cuh) in the library's shape (WalkShape); the wide tile where it
// does not run (images narrower than 136 pixels or lower than a warp's rows, rows not 16-byte
// aligned). Float images of one channel, 7 x 7 masks (walk_fit).
void launch_walk_rung(const Buffers2d& b, cudaStream_t stream);
const char* walk_fit(const Problem2d& p);
// The same tiles staged by the bulk copy engine (convolve_wide_bulk_2d).
template <int KV, int RY, int MinBlocks>
void launch_wide_bulk_rung(const Buffers2d& b, cudaStream_t stream);
// The same tiles in persistent blocks through a ring of Stages stages that the bulk tensor copy
// fills (wide_tensor.cuh, variants_ring.cu), registers for MinBlocks blocks per SM; Persistent
// false: a block per tile, its one stage copied by the tensor copy; StageEdges: the edge tiles
// copied too (a measurement: zero border, whole tiles only, wide_ring_whole_tiles_fit).
template <int Stages, int MinBlocks, bool Persistent, bool StageEdges>
void launch_wide_ring_rung(const Buffers2d& b, cudaStream_t stream);
const char* wide_ring_whole_tiles_fit(const Problem2d& p);

// The joint bound (variants_bound.cu): every scalar of the pitched image through every tap of
// the mask on its own; float or uint8, square masks of the sweep (own_taps_fit: nullptr, else
// why not). Checked against cpu_own_taps. OwnTapsShape says how a variant streams its words.
struct OwnTapsShape {
  int batch = 2;          // 16-byte words a thread a round
  bool ahead = false;     // the next round loaded before this round's arithmetic
  bool streaming = false; // results stored evict-first (st.global.cs)
  int ring_stages = 0;    // > 0: the words staged through a ring of this many bulk-copied stages
  int ring_blocks = 2;    // the ring's blocks per SM, its registers capped for that many
};
const char* own_taps_fit(const Problem2d& p);
template <OwnTapsShape Shape> void launch_own_taps_rung(const Buffers2d& b, cudaStream_t stream);

// Row reuse staged by bulk copies, a ring of Stages stages per block (1: one tile per block).
// LibraryShape: registers capped at 7 x 7 and 9 x 9, as the library's staged kernel's are (for 6
// blocks per SM here, where 8 spills); otherwise the compiler's own choice at every width.
template <int Stages, bool LibraryShape>
void launch_bulk_2d(const Buffers2d& b, cudaStream_t stream);

// Row reuse with the threads' staging pipelined across tiles (pipelined.cuh): the resident grid,
// two stages per block, registers capped for MinBlocks blocks per SM.
template <int MinBlocks> void launch_pipelined_2d(const Buffers2d& b, cudaStream_t stream);

} // namespace ladder::lab::convolution
