#include "core/course_tables.hpp"

namespace ladder::lab {

const std::vector<CourseTable>& course_tables() {
  static const std::vector<CourseTable> tables = {
      {.study = "transpose",
       .title = "Matrix transpose, 2048 x 2048 float, loop over kernel",
       .gpu = "GeForce GTX 280",
       .peak_gbs = 141.7, // 1107 MHz x 512 bits x 2 / 8, "Optimizing CUDA" (NVIDIA)
       .citation =
           "\"Optimizing CUDA code\" (Moreno Maza, UWO CS4402), after Ruetsch and Micikevicius, "
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
       .citation =
           "Harris, \"Optimizing Parallel Reduction in CUDA\" (NVIDIA), as taught in \"Optimizing "
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

const std::vector<CourseSpeedupTable>& course_speedup_tables() {
  static const std::vector<CourseSpeedupTable> tables = {
      {.study = "scan",
       .title = "Exclusive scan, the work-efficient bank-conflict-free GPU scan against a "
                "sequential C++ scan",
       .machine = "GeForce 8800 GTX against one core of a Core 2",
       .citation = "\"Optimizing CUDA code\" (Moreno Maza, UWO CS4402), \"Parallel scan: "
                   "performance\", after Harris, "
                   "Sengupta and Owens (GPU Gems 3, chapter 39)",
       .cpu_series = "CPU",
       .gpu_series = "ladder",
       // The course prints 8388688 for the tenth size, a typo for 2^23 (its CPU time doubles as the
       // others do).
       .rows = {{1024, 0.002231, 0.079492},
                {32768, 0.072663, 0.106159},
                {65536, 0.146326, 0.137006},
                {131072, 0.726429, 0.200257},
                {262144, 1.454742, 0.326900},
                {524288, 2.911067, 0.624104},
                {1048576, 5.900097, 1.118091},
                {2097152, 11.848376, 2.099666},
                {4194304, 23.835931, 4.062923},
                {8388608, 47.390906, 7.987311},
                {16777216, 94.794598, 15.854781}}},
  };
  return tables;
}

} // namespace ladder::lab
