#include "core/tensor_map.hpp"

#include "ladder/error.hpp"

#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <string>

namespace ladder::core {

namespace {

// Asked of the driver once per process; null where it has no such entry point.
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 entry = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    const cudaError_t asked = cudaGetDriverEntryPointByVersion(
        "cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found);
#else // the versioned query arrived in CUDA 12.5
    const cudaError_t asked =
        cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &function, cudaEnableDefault, &found);
#endif
    if (asked != cudaSuccess || found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError(); // the query's failure is an answer, not a sticky error
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  return entry;
}

} // namespace

bool tensor_maps_available() { return encode_tiled() != nullptr; }

CUtensorMap tensor_map_2d_f32(const void* base, std::int64_t width, std::int64_t height,
                              std::int64_t pitch_bytes, int box_width, int box_height) {
  const auto encode = encode_tiled();
  if (encode == nullptr)
    throw CudaError(static_cast<int>(cudaErrorNotSupported), "cuTensorMapEncodeTiled",
                    "the driver has no tensor maps");
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(width), static_cast<cuuint64_t>(height)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(pitch_bytes)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_width),
                             static_cast<cuuint32_t>(box_height)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult result = encode(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<void*>(base), dims, strides, box,
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    throw CudaError(static_cast<int>(result), "cuTensorMapEncodeTiled",
                    "CUresult " + std::to_string(static_cast<int>(result)));
  return map;
}

} // namespace ladder::core
