// The wide tile in persistent blocks fed by the bulk tensor copy (wide_tensor.cuh), in a
// translation unit of its own: each kernel unrolls the wide tile twice (the staged tiles and the
// edges' global path).
#include "convolution/api_dispatch.hpp"
#include "convolution/variants_parts.hpp"
#include "convolution/wide_tensor.cuh"

namespace ladder::lab::convolution {

template <int Stages, int MinBlocks, bool Persistent, bool ProxyFence>
void launch_wide_ring_rung(const Buffers2d& b, cudaStream_t s) {
  const Problem2d& p = b.problem;
  const auto mask = conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height);
  const conv_detail::ImageArgs a = image_args(b, Border::zero);
  with_wide_width(mask.width, [&](auto width) {
    constexpr int MW = decltype(width)::value;
    using Shape = conv_detail::WideShape<MW>;
    conv_detail::launch_wide_ring_2d<MW, Shape::kv, Shape::ry, Stages, MinBlocks, Persistent,
                                     ProxyFence>(a, mask, s);
  });
}

template void launch_wide_ring_rung<2, 2, true, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_ring_rung<2, 3, true, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_ring_rung<3, 2, true, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_ring_rung<1, 3, true, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_ring_rung<1, 3, false, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_ring_rung<2, 2, true, true>(const Buffers2d&, cudaStream_t);

} // namespace ladder::lab::convolution
