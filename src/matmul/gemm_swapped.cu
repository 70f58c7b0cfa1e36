// The huge tile's untransposed product computed as its transpose, C^T = B^T A^T: the instance
// for A as stored and B k-contiguous (HugeAsync3SerpentineFragments8), C stored transposed.
// ladder::gemm runs it for untransposed products on the huge tile with 16-byte loads (api.cu,
// launch_tile), the lab's rung gemm_swapped on any loads. Its own translation unit, so that the
// build compiles its kernels beside api.cu's.
#include "matmul/gemm_policies.cuh"

namespace ladder::gemm_detail {

void launch_huge_swapped_untransposed(const Params& prm, bool vector_loads, Schedule schedule,
                                      cudaStream_t stream) {
  using P = HugeAsync3SerpentineFragments8;
  if (vector_loads)
    launch_swapped<P, true, false, true>(prm, schedule, stream);
  else
    launch_swapped<P, true, false, false>(prm, schedule, stream);
}

} // namespace ladder::gemm_detail
