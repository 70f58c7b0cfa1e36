// The wide tile's window streamed down strips in a loop of one input row (wide_stream.cuh), in a
// translation unit of its own.
#include "convolution/variants_parts.hpp"
#include "convolution/wide_stream.cuh"

namespace ladder::lab::convolution {

template <int Ahead, int PrefetchRows, int MinBlocks, int Strip>
void launch_wide_stream_rung(const Buffers2d& b, cudaStream_t s) {
  with_wide_rung(b, [&](auto width, const auto& a, const auto& mask) {
    conv_detail::launch_wide_stream_2d<decltype(width)::value, Ahead, PrefetchRows, MinBlocks>(
        a, mask, Strip, s);
  });
}

template void launch_wide_stream_rung<1, 8, 3, 64>(const Buffers2d&, cudaStream_t);
template void launch_wide_stream_rung<1, 8, 3, 32>(const Buffers2d&, cudaStream_t);
template void launch_wide_stream_rung<1, 8, 3, 128>(const Buffers2d&, cudaStream_t);
template void launch_wide_stream_rung<1, 8, 3, 0>(const Buffers2d&, cudaStream_t);
template void launch_wide_stream_rung<2, 8, 3, 64>(const Buffers2d&, cudaStream_t);
template void launch_wide_stream_rung<1, 0, 3, 64>(const Buffers2d&, cudaStream_t);
template void launch_wide_stream_rung<1, 16, 3, 64>(const Buffers2d&, cudaStream_t);
template void launch_wide_stream_rung<1, 8, 4, 64>(const Buffers2d&, cudaStream_t);

} // namespace ladder::lab::convolution
