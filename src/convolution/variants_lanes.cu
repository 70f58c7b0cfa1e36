// The lane-halo rungs (window.cuh: the halo from the neighbouring lanes by warp shuffles, and the
// lanes streamed down strips), compiled in their own translation unit: their kernels, float and
// uint8 at every width and shape, are the larger part of the registry's compile time.
#include "convolution/api_dispatch.hpp"
#include "convolution/variants_parts.hpp"
#include "convolution/window.cuh"

#include <cstdint>
#include <stdexcept>

namespace ladder::lab::convolution {

using conv_detail::ImageArgs;

// 11, 11a-11d. The halo from the neighbouring lanes by shuffles (window.cuh): the library's
// shape per mask width (LanesShape), or RY rows per thread with registers for MinBlocks blocks.
// Compiled for the study's images (float one channel, uint8 three channels), square masks up to
// 9 x 9.
const char* lanes_fit(const Problem2d& p) {
  return ((p.element == Element::f32 && p.channels == 1) ||
          (p.element == Element::u8 && p.channels == 3)) &&
                 p.mask_width == p.mask_height && p.mask_width <= 9
             ? nullptr
             : "float images of one channel or uint8 of three, square masks up to 9 x 9";
}

// 11d-11g. Float images of one channel only (uint8 is bound by its arithmetic, not its loads).
// Rows prefetched into L2: the walk (Walk tiles per block, the next tile's rows asked for before
// this one's FMAs) and the prefetch for a later block (Ahead rows of blocks below); both lost at
// every width on the H200 (bench/results/convolution-tune-h200-2026-11-26-r10.md, with the walks
// of 4 tiles and the prefetch 6 and 8 rows ahead that were dropped after it). And 3 or 6 rows a
// thread: at 5 x 5 on the H200 2 rows took 170 us, 4 rows 144 us (both 4 blocks per SM) and
// 8 rows 145 us (3 blocks), against the copy's 129 us; 6 reads 10 rows for 6 outputs with
// registers for 3 blocks. (4 rows capped for 5 blocks, 48 registers, spills 320 bytes a thread
// at 5 x 5 with nvcc 13.0, so it is not in the grid.)
const char* lanes_float_fit(const Problem2d& p) {
  return p.element == Element::f32 && p.channels == 1 && p.mask_width == p.mask_height &&
                 p.mask_width <= 9
             ? nullptr
             : "float images of one channel, square masks up to 9 x 9";
}

namespace {

template <class T, int C, int RY, int MinBlocks, int Walk, int Ahead, bool StepRows, int MW = 1>
void launch_lanes_width(const ImageArgs& a, const conv_detail::MaskParam& mask, cudaStream_t s) {
  if constexpr (MW < 9) {
    if (mask.width != MW)
      return launch_lanes_width<T, C, RY, MinBlocks, Walk, Ahead, StepRows, MW + 2>(a, mask, s);
  }
  using Shape = conv_detail::LanesShape<T, C, MW>;
  constexpr int ry = RY == 0 ? Shape::ry : RY;
  constexpr int min_blocks = RY == 0 ? Shape::min_blocks : MinBlocks;
  conv_detail::launch_lanes_2d<T, C, MW, ry, min_blocks, Walk, Ahead, StepRows>(a, mask, s);
}

// 11h-11j. The lanes streamed down strips of Strip output rows (window.cuh), StreamShape's rows
// ahead and blocks per SM; float images of one channel, square masks up to 9 x 9. Slower than
// lane_halo at every width on an H100 (2026-11-27, bench/results/
// convolution-tune-h100-2026-11-27-r3.md; strips of 128 rows and 2 or 6 rows ahead were dropped
// after it); kept as the measured case for streaming (docs/convolution.md).
template <int Strip, int MW = 1>
void launch_lanes_stream_width(const ImageArgs& a, const conv_detail::MaskParam& mask,
                               cudaStream_t s) {
  if constexpr (MW < 9) {
    if (mask.width != MW)
      return launch_lanes_stream_width<Strip, MW + 2>(a, mask, s);
  }
  using Shape = conv_detail::StreamShape<MW>;
  conv_detail::launch_lanes_stream_2d<float, 1, MW, Shape::ahead, Shape::min_blocks>(a, mask,
                                                                                    Strip, s);
}

} // namespace

template <int Strip> void launch_lanes_stream_rung(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  const auto mask = conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height);
  launch_lanes_stream_width<Strip>(image_args(b, Border::zero), mask, s);
}

template <int RY, int MinBlocks, int Walk, int Ahead, bool U8, bool StepRows>
void launch_lanes_2d_rung(const Buffers2d& b, cudaStream_t s) {
  static_assert(!U8 || (Walk == 1 && Ahead == 0), "uint8: no prefetch variants");
  const Problem2d& p = b.problem;
  const ImageArgs a = image_args(b, Border::zero);
  const auto mask = conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height);
  if (p.element == Element::f32)
    return launch_lanes_width<float, 1, RY, MinBlocks, Walk, Ahead, StepRows>(a, mask, s);
  if constexpr (U8)
    launch_lanes_width<std::uint8_t, 3, RY, MinBlocks, 1, 0, StepRows>(a, mask, s);
  else
    throw std::logic_error("lanes variant: float images only");
}

template void launch_lanes_2d_rung<0, 0, 1, 0, true, true>(const Buffers2d&, cudaStream_t);
template void launch_lanes_2d_rung<0, 0, 1, 0, true, false>(const Buffers2d&, cudaStream_t);
template void launch_lanes_2d_rung<2, 1, 1, 0, true, true>(const Buffers2d&, cudaStream_t);
template void launch_lanes_2d_rung<4, 3, 1, 0, true, true>(const Buffers2d&, cudaStream_t);
template void launch_lanes_2d_rung<8, 1, 1, 0, true, true>(const Buffers2d&, cudaStream_t);
template void launch_lanes_2d_rung<0, 0, 2, 0, false, true>(const Buffers2d&, cudaStream_t);
template void launch_lanes_2d_rung<0, 0, 1, 4, false, true>(const Buffers2d&, cudaStream_t);
template void launch_lanes_2d_rung<3, 1, 1, 0, false, true>(const Buffers2d&, cudaStream_t);
template void launch_lanes_2d_rung<6, 3, 1, 0, false, true>(const Buffers2d&, cudaStream_t);
template void launch_lanes_stream_rung<16>(const Buffers2d&, cudaStream_t);
template void launch_lanes_stream_rung<32>(const Buffers2d&, cudaStream_t);
template void launch_lanes_stream_rung<64>(const Buffers2d&, cudaStream_t);

} // namespace ladder::lab::convolution
