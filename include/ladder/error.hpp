// ladder/error.hpp: how ladder reports failures.
//
// Bad arguments throw std::invalid_argument naming the argument, before anything is launched.
// A failing CUDA runtime call throws ladder::CudaError naming the call and CUDA's error string.
#pragma once

#include <stdexcept>
#include <string>

namespace ladder {

class CudaError : public std::runtime_error {
public:
  CudaError(int code, std::string call, const std::string& detail);
  int code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }

private:
  int code_;
  std::string call_;
};

namespace detail {
// Throws CudaError when `status` (a cudaError_t) is not cudaSuccess.
void throw_on_cuda_error(int status, const char* call, const char* file, int line);
} // namespace detail

} // namespace ladder

// Checks a CUDA runtime call: LADDER_CUDA(cudaMalloc(&p, n));
#define LADDER_CUDA(call)                                                                          \
  ::ladder::detail::throw_on_cuda_error(static_cast<int>(call), #call, __FILE__, __LINE__)
