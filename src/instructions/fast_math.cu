// The instructions study's kernels compiled with -use_fast_math (CMakeLists.txt sets the flag on
// this file alone): the same sources as variants.cu, so the difference in speed and accuracy is
// the flag's. -use_fast_math implies -ftz=true -prec-div=false -prec-sqrt=false and maps sinf,
// expf, ... to __sinf, __expf, ...
#include "instructions/accuracy.cuh"
#include "instructions/throughput.cuh"

namespace ladder::lab::instructions {

std::vector<ThroughputRung> fast_math_throughput_rungs() {
  return {
      throughput_rung<SinLibrary, 8>(
          {"sinf_fast_math", "sinf compiled with -use_fast_math: becomes __sinf",
           "-use_fast_math forces every func() to compile to __func()", Role::beyond},
          "sfu", "FMUL.RZ + MUFU.SIN", 2),
      throughput_rung<ExpLibrary, 8>(
          {"expf_fast_math", "expf compiled with -use_fast_math: becomes __expf", {}, Role::beyond},
          "sfu", "FMUL + MUFU.EX2", 2),
      throughput_rung<DivIeee, 8>({"fdiv_fast_math",
                                   "a / x compiled with -use_fast_math (-prec-div=false)",
                                   {},
                                   Role::beyond},
                                  "", "MUFU.RCP + FMUL", 3),
  };
}

void launch_accuracy_fast_math(MathFunction f, const float* x, float* y, int n,
                               cudaStream_t stream) {
  launch_accuracy_as<false>(f, x, y, n, stream);
}

} // namespace ladder::lab::instructions
