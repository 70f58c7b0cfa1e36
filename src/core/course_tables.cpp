#include "core/course_tables.hpp"

namespace ladder::lab {

const std::vector<CourseTable>& course_tables() {
  static const std::vector<CourseTable> tables = {
      {.study = "transpose",
       .title = "Matrix transpose, 2048 x 2048 float, loop over kernel",
       .gpu = "GeForce GTX 280",
       .peak_gbs = 141.7, // 1107 MHz x 512 bits x 2 / 8, "Optimizing CUDA" (NVIDIA)
       .citation = "\"Optimizing CUDA code\" (Moreno Maza, UWO CS4402), after Ruetsch and Micikevicius, "
                   "\"Optimizing Matrix Transpose in CUDA\" (NVIDIA)",
       .rows = {{"Simple Copy", 96.9},
                {"Shared Memory Copy", 80.9},
                {"Naive Transpose", 2.2},
                {"Coalesced Transpose", 16.5},
                {"Bank Conflict Free Transpose", 16.6},
                {"Fine-grained Transpose", 80.4},
                {"Coarse-grained Transpose", 16.7},
                {"Diagonal", 69.5}}},
      {.study = "reduce",
       .title = "Parallel reduction, 2^22 int32, 128 threads per block",
       .gpu = "GeForce 8800 GTX (G80)",
       .peak_gbs = 86.4, // 384 bits x 1800 MHz / 8, as the course computes it
       .citation = "Harris, \"Optimizing Parallel Reduction in CUDA\" (NVIDIA), as taught in \"Optimizing "
                   "CUDA code\" (Moreno Maza, UWO CS4402) and the reduction slides of Hui Liu",
       .rows = {{"Kernel 1: interleaved addressing with divergent branching", 2.083, 8.054},
                {"Kernel 2: interleaved addressing with bank conflicts", 4.854, 3.456},
                {"Kernel 3: sequential addressing", 9.741, 1.722},
                {"Kernel 4: first add during global load", 17.377, 0.965},
                {"Kernel 5: unroll last warp", 31.289, 0.536},
                {"Kernel 6: completely unrolled", 43.996, 0.381},
                {"Kernel 7: multiple elements per thread", 62.671, 0.268}}},
  };
  return tables;
}

} // namespace ladder::lab
