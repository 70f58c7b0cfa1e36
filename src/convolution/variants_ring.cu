// The wide tile in persistent blocks fed by the bulk tensor copy (wide_tensor.cuh), in a
// translation unit of its own: each kernel unrolls the wide tile twice (the staged tiles and the
// edges' global path).
#include "convolution/variants_parts.hpp"
#include "convolution/wide_tensor.cuh"

namespace ladder::lab::convolution {

template <int Stages, int MinBlocks, bool Persistent, bool StageEdges>
void launch_wide_ring_rung(const Buffers2d& b, cudaStream_t s) {
  with_wide_rung(b, [&](auto width, const auto& a, const auto& mask) {
    constexpr int MW = decltype(width)::value;
    using Shape = conv_detail::WideShape<MW>;
    conv_detail::launch_wide_ring_2d<MW, Shape::kv, Shape::ry, Stages, MinBlocks, Persistent,
                                     StageEdges>(a, mask, s);
  });
}

template void launch_wide_ring_rung<2, 2, true, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_ring_rung<1, 3, true, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_ring_rung<1, 3, false, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_ring_rung<2, 2, true, true>(const Buffers2d&, cudaStream_t);
template void launch_wide_ring_rung<1, 3, true, true>(const Buffers2d&, cudaStream_t);

// Images the rings that copy their edge tiles too compute right: whole tiles, zero border (the
// tuning rungs' border).
const char* wide_ring_whole_tiles_fit(const Problem2d& p) {
  if (const char* why = wide_fit(p))
    return why;
  return p.width % 128 == 0 && p.height % 64 == 0 && p.pitch % 16 == 0
             ? nullptr
             : "sides of whole 128 x 64 tiles, 16-byte aligned rows";
}

} // namespace ladder::lab::convolution
