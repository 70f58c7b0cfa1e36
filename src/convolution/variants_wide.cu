// The wide register tiles straight from L1 (wide.cuh), compiled in their own translation unit
// (each kernel is a few thousand fused multiply-adds unrolled, twice: the interior and the
// edges): the library's shape and the shapes it was chosen from, with and without the L2 prefetch;
// the window streamed down strips from bulk-copied rows (strip.cuh); and the walked tile in pairs
// (walk.cuh).
#include "convolution/strip.cuh"
#include "convolution/variants_parts.hpp"
#include "convolution/walk.cuh"
#include "convolution/wide.cuh"

namespace ladder::lab::convolution {

// KV, RY, MinBlocks == 0: the library's shape at the problem's width (WideShape), RowLoop and
// PrefetchL2 included.
template <int KV, int RY, int MinBlocks, bool RowLoop, bool PrefetchL2>
void launch_wide_rung(const Buffers2d& b, cudaStream_t s) {
  with_wide_rung(b, [&](auto width, const auto& a, const auto& mask) {
    constexpr int MW = decltype(width)::value;
    using Shape = conv_detail::WideShape<MW>;
    constexpr bool library = KV == 0;
    constexpr int kv = library ? Shape::kv : KV, ry = library ? Shape::ry : RY;
    constexpr int min_blocks = library ? Shape::min_blocks : MinBlocks;
    constexpr bool row_loop = library ? Shape::row_loop : RowLoop;
    constexpr bool prefetch = library ? Shape::prefetch_l2 : PrefetchL2;
    conv_detail::launch_wide_2d<MW, kv, ry, min_blocks, row_loop, prefetch>(a, mask, s);
  });
}

template <int KV, int RY, int MinBlocks>
void launch_wide_bulk_rung(const Buffers2d& b, cudaStream_t s) {
  with_wide_rung(b, [&](auto width, const auto& a, const auto& mask) {
    conv_detail::launch_wide_bulk_2d<decltype(width)::value, KV, RY, MinBlocks>(a, mask, s);
  });
}

template <int CW, int PX, int S, int MinBlocks>
void launch_strips_rung(const Buffers2d& b, cudaStream_t s) {
  with_wide_rung(b, [&](auto width, const auto& a, const auto& mask) {
    constexpr int MW = decltype(width)::value;
    using Shape = conv_detail::StripShape<MW>;
    constexpr bool rung_shape = CW == 0;
    constexpr int cw = rung_shape ? Shape::consumer_warps : CW;
    constexpr int px = rung_shape ? Shape::float4s : PX;
    constexpr int rows = rung_shape ? Shape::rows : S, stages = Shape::stages;
    constexpr int min_blocks = rung_shape ? Shape::min_blocks : MinBlocks;
    if (conv_detail::strips_2d_fits<MW, cw, px, rows, stages>(a) &&
        conv_detail::strips_2d_runs_here<MW, cw, px, rows, stages, min_blocks>())
      return conv_detail::launch_strips_2d<MW, cw, px, rows, stages, min_blocks>(a, mask, s);
    using Wide = conv_detail::WideShape<MW>;
    conv_detail::launch_wide_2d<MW, Wide::kv, Wide::ry, Wide::min_blocks, Wide::row_loop,
                                Wide::prefetch_l2>(a, mask, s);
  });
}

void launch_walk_rung(const Buffers2d& b, cudaStream_t s) {
  with_wide_rung(b, [&](auto width, const auto& a, const auto& mask) {
    constexpr int MW = decltype(width)::value;
    if constexpr (MW == 7)
      if (conv_detail::try_launch_walk_shape<MW>(a, mask, s))
        return;
    using Wide = conv_detail::WideShape<MW>;
    conv_detail::launch_wide_2d<MW, Wide::kv, Wide::ry, Wide::min_blocks, Wide::row_loop,
                                Wide::prefetch_l2>(a, mask, s);
  });
}

const char* walk_fit(const Problem2d& p) {
  return p.element == Element::f32 && p.channels == 1 && p.mask_width == 7 && p.mask_height == 7
             ? nullptr
             : "float images of one channel, 7 x 7 masks";
}

// Float images of one channel, square masks 3 .. 9 wide (one float4 of halo a side).
const char* wide_fit(const Problem2d& p) {
  return p.element == Element::f32 && p.channels == 1 && p.mask_width == p.mask_height &&
                 p.mask_width >= 3 && p.mask_width <= 9
             ? nullptr
             : "float images of one channel, square masks 3 x 3 to 9 x 9";
}

template void launch_wide_rung<0, 0, 0, false, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<2, 8, 2, false, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<2, 4, 3, false, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<2, 8, 2, true, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<1, 8, 4, false, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<1, 8, 3, false, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<1, 8, 4, false, true>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<1, 16, 2, false, true>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<2, 8, 2, false, true>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<1, 6, 4, false, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<1, 6, 4, false, true>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<1, 4, 5, false, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_rung<1, 4, 5, false, true>(const Buffers2d&, cudaStream_t);
template void launch_wide_bulk_rung<1, 8, 3>(const Buffers2d&, cudaStream_t);
template void launch_strips_rung<0, 0, 0, 0>(const Buffers2d&, cudaStream_t);
template void launch_strips_rung<8, 1, 248, 2>(const Buffers2d&, cudaStream_t);
template void launch_strips_rung<4, 2, 64, 2>(const Buffers2d&, cudaStream_t);
template void launch_wide_bulk_rung<1, 8, 4>(const Buffers2d&, cudaStream_t);

} // namespace ladder::lab::convolution
