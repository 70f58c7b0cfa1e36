// The tile shapes ladder::gemm chooses between on Hopper (sm_90), and the lab's tuning shapes.
// Each library policy's comment gives the measurement that chose it; `ladder tune matmul` times
// every one of them side by side (bench/results/, NVIDIA H200).
#pragma once

#include "matmul/gemm_kernel.cuh"
#include "matmul/gemm_plan.hpp"

namespace ladder::gemm_detail {

//                          bm   bn  bk  warps  thread  stages quadrants blocks/SM steady
// The library's tiles (gemm_plan.hpp chooses between them; its rates are these tiles' measured
// times). All run the steady k-loop (gemm_kernel.cuh): Nsight Compute put a tenth of the stall
// samples of the loop before it at the per-step branches and the barrier.
// The huge tile (256 x 128, cp.async in 3 stages) is HugeAsync3 below, and
// HugeAsync3SerpentineFragments8 where A is stored m-contiguous.
// The large tile: 128 x 128, 4 warps of 64 x 64, 8 x 16 per thread (128 FMAs per 6 LDS.128),
// two blocks per SM. H200, 4096^3: 2.858 ms = 0.94x cuBLAS, ahead of 256 x 128 with 8 warps
// (2.935 ms), 128 x 256 (2.876) and 128 x 128 with 8 warps of 8 x 8 (2.979); `ladder tune
// matmul`, 2026-11-25.
using Large4Warps = Policy<128, 128, 8, 2, 2, 8, 16, 2, true, 2, true>;
// Half tiles for a narrow side (n or m of about 64), too few large tiles to fill the GPU, or
// element loads (3 blocks per SM hide them best). The library's are their cp.async versions
// (WideAsync3, TallAsync3 below): 4097 x 4095 x 4093 in 3.274 and 3.248 ms against 3.602 and
// 3.489 ms with these, 1000^3 in 75.2 us against 86.4 (wide), 65536 x 64 x 4096 in 824 us
// against 962.5 (tall); `ladder tune matmul`, H200, 2026-11-25.
using Wide = Policy<64, 128, 8, 2, 2, 8, 8, 2, true, 3, true>; // 4 warps of 32 x 64
using Tall = Policy<128, 64, 8, 2, 2, 8, 8, 2, true, 3, true>; // 4 warps of 64 x 32
// The same at two blocks per SM (up to 255 registers a thread): 64 x 65536 x 4096 in 830.8 us
// (Wide: 912.6), 65536 x 64 x 4096 in 889.8 us (Tall: 962.6). The library's are their cp.async
// versions (WideTwoAsync3, TallTwoAsync3 below).
using WideTwo = Policy<64, 128, 8, 2, 2, 8, 8, 2, true, 2, true>;
using TallTwo = Policy<128, 64, 8, 2, 2, 8, 8, 2, true, 2, true>;
// The small tile: 64 x 64, 4 warps of 32 x 32, 8 x 4 per thread.
using Small = Policy<64, 64, 8, 2, 2, 8, 4, 2, true, 4, true>;

// The story's steps on the same 128 x 128 x 8 tile, 8 x 8 per thread:
//   vectorized: 16-byte global loads, A turned into k-major shared memory, fragments read as
//     16-byte shared loads (contiguous micro-tiles: lanes 32 bytes apart);
//   warp_tiled: micro-tiles split into 4 x 4 pieces a warp's width apart (conflict-free LDS.128);
//   double_buffered: two shared buffers, the next step loaded into registers during the FMAs;
//   tile_order: blocks walk groups of 8 tile rows (L2 reuse of B's panels).
using Vectorized = Policy<128, 128, 8, 2, 4, 8, 8, 1, false, 2>;
using WarpTiled = Policy<128, 128, 8, 2, 4, 8, 8, 1, true, 2>;
// The story's tiles: before the steady loop (rungs 9-11), and the 256 x 128 tile with it.
using LargeStepped = Policy<128, 128, 8, 2, 4, 8, 8, 2, true, 2>;
using HugeStepped = Policy<256, 128, 8, 4, 2, 16, 8, 2, true, 1>;
using Huge = Policy<256, 128, 8, 4, 2, 16, 8, 2, true, 1, true>;

// Tuning shapes the lab times beside the library's (ladder tune matmul).
using LargeK16 = Policy<128, 128, 16, 2, 4, 8, 8, 2, true, 2, true>;
using HugeK16 = Policy<256, 128, 16, 4, 2, 16, 8, 2, true, 1, true>;
using Wide256 = Policy<128, 256, 8, 2, 4, 8, 16, 2, true, 1, true>; // 8 warps of 64 x 64, 8 x 16
using Large = Policy<128, 128, 8, 2, 4, 8, 8, 2, true, 2, true>; // 8 warps of 8 x 8
// Asynchronous copies (cp.async) into 3 or 4 shared buffers (the matmul ladder's rung 13 and
// its variants). HugeAsync3 is the library's huge tile: 4096^3 in 2.735 ms = 0.98x cuBLAS
// (84.5% of the measured FP32 peak), the fastest tile of all at that size (ladder run matmul,
// H200, 2026-11-25).
using HugeAsync3 = Policy<256, 128, 8, 4, 2, 16, 8, 3, true, 1>;
using HugeAsync4 = Policy<256, 128, 8, 4, 2, 16, 8, 4, true, 1>;
// Faster than Large4Warps at 4096^3 (2.729 against 2.86 ms, H200, 2026-11-26) and on element
// loads (4097 x 4095 x 4093: 3.096 against 3.497 ms, -r4), but not taken: as the library's
// large tile (with the edge masks compiled beside its loop) it ran 8192 x 8192 x 128 in 556.2 us
// against Large4Warps' 483.7 (H100, 2026-11-26), and without masks it was not measured again.
using Large4WarpsAsync3 = Policy<128, 128, 8, 2, 2, 8, 16, 3, true, 2>;
using WideAsync3 = Policy<64, 128, 8, 2, 2, 8, 8, 3, true, 3>;
using TallAsync3 = Policy<128, 64, 8, 2, 2, 8, 8, 3, true, 3>;
// The library's two-blocks-per-SM half tiles: 64 x 65536 x 4096 in 744.4 us = 0.99x cuBLAS
// (WideTwo 830.7 us), 65536 x 64 x 4096 in 820.4 us = 0.93x (TallTwo 884.5 us; all four
// transposes 0.93-0.99x), 1000^3 in 72.6 us (WideTwo 79.3); `ladder tune matmul`, H200,
// 2026-11-25.
using WideTwoAsync3 = Policy<64, 128, 8, 2, 2, 8, 8, 3, true, 2>;
using TallTwoAsync3 = Policy<128, 64, 8, 2, 2, 8, 8, 3, true, 2>;
// Shapes for products of one block per SM (1000^3: 128 tiles of 64 x 128; 2000^3: 128 of
// 256 x 128), where cuBLAS is furthest ahead: its 1000^3 kernel is named 64 x 128 with warps
// 1 x 4 (bench/results/matmul-cublas-kernels-h200-2026-11-25.md); 16-deep k-steps halve the
// barriers a block waits at; a fourth buffer keeps one more step in flight.
// WideTwoAsync3Warps1x4 reads those names in ladder's row-major terms; cuBLAS's are column-major
// (it computes C^T), so its tile is 128 x 64 here with its 4 warps stacked along m:
// TallTwoAsync3Warps4x1 (1000^3: 63.74 us against 62.18 for WideTwoAsync3, `ladder tune matmul`,
// H200, 2026-11-26-r5: not faster either).
using WideTwoAsync3Warps1x4 = Policy<64, 128, 8, 1, 4, 8, 8, 3, true, 2>;
using TallTwoAsync3Warps4x1 = Policy<128, 64, 8, 4, 1, 8, 8, 3, true, 2>;
using WideTwoAsync3K16 = Policy<64, 128, 16, 2, 2, 8, 8, 3, true, 2>;
using WideTwoAsync4 = Policy<64, 128, 8, 2, 2, 8, 8, 4, true, 2>;
// Twice the warps on the same tile (8 x 4 per thread): at 1000^3 an SM holds one block, and its
// 4 warps are all that hide the loop's latencies (k 16: 256 threads copy a 64 x 8 step unevenly).
using WideAsync3Warps8K16 = Policy<64, 128, 16, 2, 4, 8, 4, 3, true, 2>;
// The same with a fourth buffer: 8 warps at 1000^3 ran 59.26 us against the library tile's 60.06
// (H100, 2026-11-26), still waiting on their copies at one block per SM.
using WideAsync4Warps8K16 = Policy<64, 128, 16, 2, 4, 8, 4, 4, true, 2>;
// The same with up to 255 registers a thread (one block per SM, as at 1000^3).
using WideAsync4Warps8K16Solo = Policy<64, 128, 16, 2, 4, 8, 4, 4, true, 1>;
// Two more shapes of the same 8 warps: stacked 4 x 2 (16 x 64 each, 4 x 8 per thread), and
// k-steps of 32 (half the barriers again, 3 buffers of 25 KB).
using WideAsync4Warps8x4x2K16 = Policy<64, 128, 16, 4, 2, 4, 8, 4, true, 2>;
using WideAsync3Warps8K32 = Policy<64, 128, 32, 2, 4, 8, 4, 3, true, 2>;
using HugeAsync3K16 = Policy<256, 128, 16, 4, 2, 16, 8, 3, true, 1>;
// A untransposed (k-contiguous) copied as stored, 16 bytes at a time, its rows kept in shared
// memory and read 4 k at a time, instead of turned k-major by 4-byte copies (Policy::a_rows).
// At 1000^3 the 8-warp tile ran 58.98 us untransposed against 55.62 us with A^T (whose A needs
// no turning), H100, matmul-tune-h100-2026-11-26-r8.md. Rows need k-steps of 16 or more.
using WideAsync4Warps8K16Rows =
    Policy<64, 128, 16, 2, 4, 8, 4, 4, true, 2, false, true, true>;
using WideAsync3Warps8K16Rows =
    Policy<64, 128, 16, 2, 4, 8, 4, 3, true, 2, false, true, true>;
// The same 8 warps with up to 255 registers a thread (one block per SM, as at 1000^3).
using WideAsync4Warps8K16RowsSolo =
    Policy<64, 128, 16, 2, 4, 8, 4, 4, true, 1, false, true, true>;
// The huge tile's k-step written in other orders (Policy::fragment_row, Policy::serpentine):
// the same sums in the same order, each its own register assignment and schedule from ptxas (254
// registers, no spill in any). `ladder tune matmul -s 4096` (twice) and `-s 8192`, NVIDIA H100,
// 2026-11-28 (bench/results/matmul-orders-tune-*, matmul-fragments-tune-*; the other orders were
// tuning variants at commits 84e06ff and a7b4c43):
//   - untransposed, none is faster than HugeAsync3 beyond the runs' noise (fragments at row 4:
//     2.709-2.710 against 2.713-2.714 ms at 4096^3, 21.38 against 21.43 at 8192^3; row 8 level;
//     row 12, serpentine rows and this one 2-5% slower);
//   - with A stored m-contiguous (A^T, and A^T with B^T), this one is the fastest: 4096^3 A^T
//     2.602-2.621 against 2.679-2.680 as shipped before (serpentine rows alone: 2.614-2.633),
//     A^T B^T 2.631-2.636 against 2.762 (2.680) (cuBLAS 2.634-2.653 and 2.793-2.798). The
//     library takes it there (api.cu).
using HugeAsync3SerpentineFragments8 =
    Policy<256, 128, 8, 4, 2, 16, 8, 3, true, 1, false, true, false, 8, true>;
// The same tile, order and stages filled by the bulk tensor copy engine (Policy::tensor_copies):
// A^T and B as stored only, 16-byte rows; edge tiles and the last partial step take the same
// copies (zeros arrive from outside the operands), so no edge masks. The lab's rung
// `tensor_copies` (src/matmul/variants_tensor.cu, launch_huge_tensor_copies): 3.8% slower than
// the same tile on cp.async at 4096^3 A^T on an H200 (2.743 against 2.642 ms,
// bench/results/matmul-tensor-copies-tune-h200-2026-11-28.md), so the library keeps cp.async.
using HugeAsync3TensorCopies =
    Policy<256, 128, 8, 4, 2, 16, 8, 3, true, 1, false, false, false, 8, true, true>;
// Edge tiles on guarded loads at every k-step (as before masks): the same-run comparison.
using HugeAsync3GuardedEdges = Policy<256, 128, 8, 4, 2, 16, 8, 3, true, 1, false, false>;
using WideAsync3GuardedEdges = Policy<64, 128, 8, 2, 2, 8, 8, 3, true, 3, false, false>;

// An untransposed product computed as its transpose on HugeAsync3SerpentineFragments8
// (launch_swapped, gemm_kernel.cuh; defined in src/matmul/gemm_swapped.cu). Measured against the
// untransposed instance (`ladder tune matmul`, NVIDIA H100, 2026-11-28,
// bench/results/matmul-swapped-tune-h100-2026-11-28*.md): 4096^3 2.633 against 2.713 ms (cuBLAS
// 2.659), 8192^3 20.78 against 21.44 ms (cuBLAS 21.29).
void launch_huge_swapped_untransposed(const Params& prm, bool vector_loads, Schedule schedule,
                                      cudaStream_t stream);

// A product with A stored m-contiguous (A^T) and B as stored, both with 16-byte rows, on
// HugeAsync3TensorCopies (defined in src/matmul/variants_tensor.cu, for the lab: the tensor maps
// come from core/tensor_map.hpp). Throws std::invalid_argument for other operands.
void launch_huge_tensor_copies(const Params& prm, Schedule schedule, cudaStream_t stream);
const void* huge_tensor_copies_kernel(); // its kernel, for the registry's resource report

// ladder::gemm's launch of one tile shape of the plan (gemm_plan.hpp) on operands in any layout
// (defined in api.cu): the tile's policy, and on the huge tile an untransposed product with
// 16-byte loads computed as its transpose (above). The GPU tests run every tile through it.
void launch_tile(Tile tile, const Params& prm, bool a_k_contiguous, bool b_k_contiguous,
                 bool vector_loads, Schedule schedule, cudaStream_t stream);

// The kernel a lab rung's registry entry describes (registers, shared memory, occupancy): the
// instance for A untransposed and B untransposed with 16-byte loads.
template <class P> const void* kernel_address() {
  return reinterpret_cast<const void*>(gemm_kernel<P, true, false, true>);
}

} // namespace ladder::gemm_detail

// The lab's policies in nine groups, each compiled in a translation unit of its own
// (src/matmul/policies.cu, once per group) so that a build compiles them side by side: in one
// file their 450 kernels kept nvcc busy for over ten minutes. The matmul registry
// (src/matmul/variants.cu) declares their instances extern, so it compiles none of them itself;
// a policy it names that no group lists fails at link time.
#define LADDER_MATMUL_LAB_POLICIES_0(X)                                                            \
  X(Vectorized) X(WarpTiled) X(LargeStepped) X(HugeStepped) X(WideAsync4Warps8K16Rows)
#define LADDER_MATMUL_LAB_POLICIES_1(X) X(Huge) X(HugeK16) X(HugeAsync3) X(HugeAsync4)
#define LADDER_MATMUL_LAB_POLICIES_2(X)                                                            \
  X(HugeAsync3K16) X(HugeAsync3GuardedEdges) X(WideAsync3GuardedEdges) X(Large4WarpsAsync3)      \
  X(WideAsync4Warps8K16RowsSolo)
#define LADDER_MATMUL_LAB_POLICIES_3(X)                                                            \
  X(WideAsync3) X(TallAsync3) X(WideTwoAsync3) X(TallTwoAsync3)
#define LADDER_MATMUL_LAB_POLICIES_4(X)                                                            \
  X(TallTwoAsync3Warps4x1) X(WideTwoAsync3Warps1x4) X(WideTwoAsync3K16) X(WideTwoAsync4)          \
  X(WideAsync3Warps8K16Rows)
#define LADDER_MATMUL_LAB_POLICIES_5(X) X(Large4Warps) X(Wide256) X(Large) X(LargeK16)
#define LADDER_MATMUL_LAB_POLICIES_6(X)                                                            \
  X(Wide) X(WideTwo) X(Tall) X(TallTwo) X(WideAsync4Warps8K16Solo)
#define LADDER_MATMUL_LAB_POLICIES_7(X)                                                            \
  X(Small) X(WideAsync3Warps8K16) X(WideAsync4Warps8K16) X(WideAsync4Warps8x4x2K16)                \
  X(WideAsync3Warps8K32)
#define LADDER_MATMUL_LAB_POLICIES_8(X) X(HugeAsync3SerpentineFragments8)
#define LADDER_MATMUL_LAB_POLICIES(X)                                                              \
  LADDER_MATMUL_LAB_POLICIES_0(X) LADDER_MATMUL_LAB_POLICIES_1(X)                                  \
  LADDER_MATMUL_LAB_POLICIES_2(X) LADDER_MATMUL_LAB_POLICIES_3(X)                                  \
  LADDER_MATMUL_LAB_POLICIES_4(X) LADDER_MATMUL_LAB_POLICIES_5(X)                                  \
  LADDER_MATMUL_LAB_POLICIES_6(X) LADDER_MATMUL_LAB_POLICIES_7(X)                                  \
  LADDER_MATMUL_LAB_POLICIES_8(X)

// The instances of policy P that the lab calls, declared (EXTERN: extern) or defined (empty);
// used inside namespace ladder::gemm_detail.
#define LADDER_MATMUL_POLICY_INSTANCES(EXTERN, P)                                                  \
  EXTERN template void launch_any_layout<P>(const Params&, bool, bool, bool, Schedule,            \
                                            cudaStream_t);                                         \
  EXTERN template const void* kernel_address<P>();
#define LADDER_MATMUL_EXTERN_POLICY_INSTANCES(P) LADDER_MATMUL_POLICY_INSTANCES(extern, P)
#define LADDER_MATMUL_DEFINE_POLICY_INSTANCES(P) LADDER_MATMUL_POLICY_INSTANCES(, P)
