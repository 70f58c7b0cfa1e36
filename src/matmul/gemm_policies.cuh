// The tile shapes ladder::gemm chooses between on Hopper (sm_90), and the lab's tuning shapes.
// Each library policy's comment gives the measurement that chose it; `ladder tune matmul` times
// every one of them side by side (bench/results/, NVIDIA H200).
#pragma once

#include "matmul/gemm_kernel.cuh"

namespace ladder::gemm_detail {

//                          bm   bn  bk  warps  thread  stages quadrants blocks/SM steady
// The largest tile: 256 x 128, 8 warps of 64 x 64, 16 x 8 per thread (128 FMAs per 6 LDS.128),
// one block per SM with up to 255 registers a thread. H200, 4096^3: 0.83x cuBLAS where Large was
// 0.77x (ladder tune matmul, 2026-11-24); then 0.89x in `ladder run` (the same kernel). The
// steady k-loop (gemm_kernel.cuh) is every library tile's loop: Nsight Compute put a tenth of
// the stall samples of the loop before it at the per-step branches and barrier.
using Huge = Policy<256, 128, 8, 4, 2, 16, 8, 2, true, 1, true>;
// The large tile: 128 x 128, 8 warps of 64 x 32, 8 x 8 per thread, two shared buffers.
using Large = Policy<128, 128, 8, 2, 4, 8, 8, 2, true, 2, true>;
// Half tiles for a narrow side (n or m of about 64) or too few large tiles to fill the GPU.
using Wide = Policy<64, 128, 8, 2, 2, 8, 8, 2, true, 3, true>; // 4 warps of 32 x 64
using Tall = Policy<128, 64, 8, 2, 2, 8, 8, 2, true, 3, true>; // 4 warps of 64 x 32
// The small tile: 64 x 64, 4 warps of 32 x 32, 8 x 4 per thread.
using Small = Policy<64, 64, 8, 2, 2, 8, 4, 2, true, 4, true>;

// The story's tiles before the steady loop (the matmul ladder's rungs 9-11).
using LargeStepped = Policy<128, 128, 8, 2, 4, 8, 8, 2, true, 2>;
using HugeStepped = Policy<256, 128, 8, 4, 2, 16, 8, 2, true, 1>;

// Tuning shapes the lab times beside the library's (ladder tune matmul).
using LargeK16 = Policy<128, 128, 16, 2, 4, 8, 8, 2, true, 2, true>;
using HugeK16 = Policy<256, 128, 16, 4, 2, 16, 8, 2, true, 1, true>;
using Wide256 = Policy<128, 256, 8, 2, 4, 8, 16, 2, true, 1, true>; // 8 warps of 64 x 64, 8 x 16
using Large4Warps = Policy<128, 128, 8, 2, 2, 8, 16, 2, true, 2, true>; // 4 warps of 64 x 64
// 128 x 64 and 64 x 128 tiles of 4 warps at two blocks per SM (more registers a thread), and a
// 128 x 128 tile of 4 warps at 8 x 16 per thread: the shapes cuBLAS picks for small products.
using WideTwo = Policy<64, 128, 8, 2, 2, 8, 8, 2, true, 2, true>;
using TallTwo = Policy<128, 64, 8, 2, 2, 8, 8, 2, true, 2, true>;
// Asynchronous copies (cp.async) into 3 or 4 shared buffers: the library's tiles and the
// 4-warp 8 x 16 tile.
using HugeAsync3 = Policy<256, 128, 8, 4, 2, 16, 8, 3, true, 1>;
using HugeAsync4 = Policy<256, 128, 8, 4, 2, 16, 8, 4, true, 1>;
using Wide256Async3 = Policy<128, 256, 8, 2, 4, 8, 16, 3, true, 1>;
using Large4WarpsAsync3 = Policy<128, 128, 8, 2, 2, 8, 16, 3, true, 2>;
using LargeAsync3 = Policy<128, 128, 8, 2, 4, 8, 8, 3, true, 2>;
using WideAsync3 = Policy<64, 128, 8, 2, 2, 8, 8, 3, true, 3>;
using TallAsync3 = Policy<128, 64, 8, 2, 2, 8, 8, 3, true, 3>;
using WideTwoAsync3 = Policy<64, 128, 8, 2, 2, 8, 8, 3, true, 2>;
using TallTwoAsync3 = Policy<128, 64, 8, 2, 2, 8, 8, 3, true, 2>;
using SmallAsync3 = Policy<64, 64, 8, 2, 2, 8, 4, 3, true, 4>;

} // namespace ladder::gemm_detail
