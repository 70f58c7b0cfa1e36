// The wide register tile with early stores and taller tiles (wide.cuh), in a translation unit of
// its own: each kernel unrolls up to 30 input rows twice (the interior and the edges).
#include "convolution/variants_parts.hpp"
#include "convolution/wide.cuh"

namespace ladder::lab::convolution {

template <int RY, int MinBlocks, bool Across>
void launch_wide_early_rung(const Buffers2d& b, cudaStream_t s) {
  with_wide_rung(b, [&](auto width, const auto& a, const auto& mask) {
    conv_detail::launch_wide_2d<decltype(width)::value, 1, RY, MinBlocks, false, true, true,
                                Across>(a, mask, s);
  });
}

template void launch_wide_early_rung<8, 3, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_early_rung<8, 4, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_early_rung<16, 3, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_early_rung<16, 4, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_early_rung<24, 3, false>(const Buffers2d&, cudaStream_t);
template void launch_wide_early_rung<8, 3, true>(const Buffers2d&, cudaStream_t);
template void launch_wide_early_rung<16, 3, true>(const Buffers2d&, cudaStream_t);
template void launch_wide_early_rung<16, 4, true>(const Buffers2d&, cudaStream_t);
template void launch_wide_early_rung<24, 3, true>(const Buffers2d&, cudaStream_t);

} // namespace ladder::lab::convolution
