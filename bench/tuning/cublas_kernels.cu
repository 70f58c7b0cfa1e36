// Which kernels cublasSgemm runs for the matmul study's shapes (row-major C = op(A) op(B), called as
// the study calls it: column-major C^T = op(B)^T op(A)^T). Run it under Nsight Compute to see their
// names (tile, stages, warp layout), grids and registers: bench/results/matmul-cublas-kernels-h200-2026-11-25.md.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cstdio>
int main() {
  struct S { long m, n, k; bool at, bt; };
  S shapes[] = {{1000,1000,1000,0,0},{2000,2000,2000,0,0},{4097,4095,4093,0,0},{4096,4096,4096,0,1},
                {4096,4096,4096,0,0},{128,128,128,0,0},{512,512,512,0,0},{65536,64,4096,0,0},{64,65536,4096,0,0}};
  cublasHandle_t h; cublasCreate(&h);
  float *a, *b, *c; size_t big = 65536ul * 4096 + 4096ul * 4096;
  cudaMalloc(&a, big * 4); cudaMalloc(&b, big * 4); cudaMalloc(&c, big * 4);
  cudaMemset(a, 0, big * 4); cudaMemset(b, 0, big * 4);
  const float one = 1, zero = 0;
  for (auto s : shapes) {
    // row-major A m x k (lda k) or k x m (lda m); B k x n (ldb n) or n x k (ldb k); C m x n
    long lda = s.at ? s.m : s.k, ldb = s.bt ? s.k : s.n;
    for (int rep = 0; rep < 2; ++rep)
      cublasSgemm(h, s.bt ? CUBLAS_OP_T : CUBLAS_OP_N, s.at ? CUBLAS_OP_T : CUBLAS_OP_N, (int)s.n,
                  (int)s.m, (int)s.k, &one, b, (int)ldb, a, (int)lda, &zero, c, (int)s.n);
    cudaDeviceSynchronize();
    printf("shape %ldx%ldx%ld at=%d bt=%d done\n", s.m, s.n, s.k, s.at, s.bt);
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
