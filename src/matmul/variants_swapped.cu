// The lab's rung gemm_swapped (variants.cu): an untransposed product C = A B computed as its
// transpose C^T = B^T A^T on the huge tile's instance for A as stored and B k-contiguous, C stored
// transposed. Its own translation unit, so that the build compiles its kernels beside the
// policy groups'.
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
