// The lab's rung tensor_copies (variants.cu): the huge tile's stages filled by the bulk tensor
// copy engine (sm_90's TMA) instead of cp.async. Its own translation unit: the tensor maps are
// the lab's (core/tensor_map.hpp), and the kernel is the only instance of its policy.
#include "core/tensor_map.hpp"
#include "matmul/gemm_policies.cuh"

#include <climits>
#include <stdexcept>

namespace ladder::gemm_detail {

void launch_huge_tensor_copies(const Params& prm, Schedule schedule, cudaStream_t stream) {
  using P = HugeAsync3TensorCopies;
  using S = Shared<P, false, false, true>;
  if (!vector_ok(prm.a, prm.lda) || !vector_ok(prm.b, prm.ldb))
    throw std::invalid_argument("tensor copies: A and B need 16-byte aligned rows");
  Params x = prm;
  const std::int64_t splits = fill_launch_params<P>(x, schedule);
  if (x.tiles_m * x.tiles_n > INT_MAX)
    throw std::invalid_argument("tensor copies: more than 2^31 - 1 tiles");
  if (splits > 1) // the splits add into C by atomics (the kernel's epilogue)
    scale(x.c, x.m, x.n, x.ldc, x.beta, stream);
  // A^T is stored k x m (rows of m floats, lda apart), B k x n: each step's boxes are a stage's
  // two tiles as the kernel reads them (bk rows of bm and of bn floats).
  const CUtensorMap a_map = core::tensor_map_2d_f32(prm.a, prm.m, prm.k,
                                                    prm.lda * std::int64_t{4}, P::bm, P::bk);
  const CUtensorMap b_map = core::tensor_map_2d_f32(prm.b, prm.n, prm.k,
                                                    prm.ldb * std::int64_t{4}, P::bn, P::bk);
  const dim3 grid(static_cast<unsigned>(x.tiles_m * x.tiles_n), static_cast<unsigned>(splits));
  gemm_kernel_tensor<P><<<grid, P::threads, S::bytes, stream>>>(x, a_map, b_map);
  LADDER_CUDA(cudaGetLastError());
}

const void* huge_tensor_copies_kernel() {
  return reinterpret_cast<const void*>(gemm_kernel_tensor<HugeAsync3TensorCopies>);
}

} // namespace ladder::gemm_detail
