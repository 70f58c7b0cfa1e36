#include "core/cublas.hpp"

#include <stdexcept>
#include <string>

namespace ladder::lab {

cublasHandle_t cublas_handle() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    check_cublas(cublasCreate(&h), "cublasCreate");
    return h;
  }();
  return handle;
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed with cuBLAS status " +
                             std::to_string(status));
}

} // namespace ladder::lab
