// The lab's cuBLAS handle (the vendor reference of the transpose and matmul studies), created on
// first use, and the check of a cuBLAS status. The lab runs its studies on one host thread.
#pragma once

#include <cublas_v2.h>

namespace ladder::lab {

cublasHandle_t cublas_handle();
// Throws std::runtime_error naming `what` and the status.
void check_cublas(cublasStatus_t status, const char* what);

} // namespace ladder::lab
