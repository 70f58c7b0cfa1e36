#include "ladder/error.hpp"

#include <cuda_runtime_api.h>

#include <filesystem>

namespace ladder {

CudaError::CudaError(int code, std::string call, const std::string& detail)
    : std::runtime_error(call + " failed: " + detail), code_(code), call_(std::move(call)) {}

namespace detail {

void throw_on_cuda_error(int status, const char* call, const char* file, int line) {
  if (status == cudaSuccess)
    return;
  auto error = static_cast<cudaError_t>(status);
  std::string detail = std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) +
                       ") at " + std::filesystem::path(file).filename().string() + ":" +
                       std::to_string(line);
  throw CudaError(status, call, detail);
}

} // namespace detail
} // namespace ladder
