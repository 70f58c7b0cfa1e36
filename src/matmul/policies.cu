// One group of the matmul lab's tile policies (gemm_policies.cuh): the build compiles this file
// once per group, LADDER_MATMUL_LAB_POLICY_GROUP set to 0 .. 8, so that the groups' kernels
// compile side by side rather than one after another in the registry's file.
#include "matmul/gemm_policies.cuh"

#ifndef LADDER_MATMUL_LAB_POLICY_GROUP
#error "LADDER_MATMUL_LAB_POLICY_GROUP (0 .. 8) names the group this translation unit compiles"
#endif

#define LADDER_MATMUL_CAT_(a, b) a##b
#define LADDER_MATMUL_CAT(a, b) LADDER_MATMUL_CAT_(a, b)

namespace ladder::gemm_detail {
LADDER_MATMUL_CAT(LADDER_MATMUL_LAB_POLICIES_, LADDER_MATMUL_LAB_POLICY_GROUP)
(LADDER_MATMUL_DEFINE_POLICY_INSTANCES)
} // namespace ladder::gemm_detail
