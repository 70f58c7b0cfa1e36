// The rungs staged by the bulk copy engine: row reuse (tiled.cuh's compute) on stages that one
// warp hands to cp.async.bulk, one copy per staged row (bulk.cuh). Measured against row_reuse
// (`ladder tune convolution -s 8192x8192`, float, 2026-11-27; bench/results/
// convolution-bulk-tune-h100-2026-11-27.md, -h200-): 1-2% faster at 3 x 3, and at 5 x 5 on the
// H100 (3% slower on the H200), level (H100) or 10% slower (H200) at 7 x 7, slower from 9 x 9;
// the rings slower everywhere. Kept as the measured case (docs/convolution.md); the library
// stages with the threads.
// Beside them, the threads' own staging pipelined across tiles (pipelined.cuh): the other way to
// keep a block's copies in flight while it computes. Measured slower too (`ladder tune
// convolution`, H100, 2026-11-27, bench/results/convolution-lean-tune-h100-2026-11-27-r2.md):
// 223.4, 226.3, 238.5, 246.8 and 678.1 us at 3 x 3 .. 15 x 15 against row_reuse's 201.2, 203.0,
// 208.8, 247.7 and 613.8; registers for 4 blocks per SM instead of 5 were slower still (228.9 ..
// 692.2 us).
#include "convolution/api_dispatch.hpp"
#include "convolution/bulk.cuh"
#include "convolution/pipelined.cuh"
#include "convolution/variants_parts.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

namespace ladder::lab::convolution {

namespace {

template <int MW, int Stages, bool LibraryShape>
void launch_bulk_width(const conv_detail::ImageArgs& a, const conv_detail::MaskParam& mask,
                       cudaStream_t s) {
  using conv_detail::ShapeF32;
  // Registers for 6 blocks per SM (40 a thread): capped for 8 as the tiled kernel is, the walk
  // spills (64 bytes a thread at 7 x 7, nvcc 13.0).
  using Capped = conv_detail::TileShape<32, 8, 4, 4, 6>;
  using Shape = std::conditional_t<LibraryShape && (MW == 7 || MW == 9), Capped, ShapeF32>;
  conv_detail::launch_bulk<MW, Shape, Stages>(a, mask, s);
}

// This file's rungs compile the widths float_square_masks_fit accepts: calls
// launch(std::integral_constant<int, MW>{}, args, mask) for the problem's mask width MW.
template <class Launch>
void launch_square_width(const Buffers2d& b, const char* rung, Launch&& launch) {
  const Problem2d& p = b.problem;
  const conv_detail::ImageArgs a = image_args(b, Border::zero);
  const auto mask = conv_detail::make_mask_param(b.host_mask, p.mask_width, p.mask_height);
  switch (p.mask_width) {
  case 3: return launch(std::integral_constant<int, 3>{}, a, mask);
  case 5: return launch(std::integral_constant<int, 5>{}, a, mask);
  case 7: return launch(std::integral_constant<int, 7>{}, a, mask);
  case 9: return launch(std::integral_constant<int, 9>{}, a, mask);
  case 15: return launch(std::integral_constant<int, 15>{}, a, mask);
  default: throw std::logic_error(std::string(rung) + ": unsupported mask");
  }
}

} // namespace

template <int Stages, bool LibraryShape>
void launch_bulk_2d(const Buffers2d& b, cudaStream_t s) {
  launch_square_width(b, "bulk", [&](auto mw, const auto& a, const auto& mask) {
    launch_bulk_width<decltype(mw)::value, Stages, LibraryShape>(a, mask, s);
  });
}

template <int MinBlocks> void launch_pipelined_2d(const Buffers2d& b, cudaStream_t s) {
  using Shape = conv_detail::TileShape<32, 8, 4, 4, MinBlocks>;
  launch_square_width(b, "pipelined", [&](auto mw, const auto& a, const auto& mask) {
    conv_detail::launch_pipelined<decltype(mw)::value, Shape>(a, mask, s);
  });
}

template void launch_pipelined_2d<5>(const Buffers2d&, cudaStream_t);

template void launch_bulk_2d<1, true>(const Buffers2d&, cudaStream_t);
template void launch_bulk_2d<1, false>(const Buffers2d&, cudaStream_t);
template void launch_bulk_2d<2, false>(const Buffers2d&, cudaStream_t);
template void launch_bulk_2d<3, false>(const Buffers2d&, cudaStream_t);

} // namespace ladder::lab::convolution
