// ladder/convolve.hpp: 2D convolution of images (1, 3 or 4 interleaved channels, float or uint8)
// and 1D convolution of float signals, with the border policy image code expects.
//
//   const float gauss[9] = {1/16.f, 2/16.f, 1/16.f, 2/16.f, 4/16.f, 2/16.f, 1/16.f, 2/16.f, 1/16.f};
//   ladder::convolve2d(in, in_pitch, out, out_pitch, width, height, 3, gauss, 3, 3,
//                      ladder::Border::clamp, stream);
//
// out(x, y, c) = sum over j < mask_height, i < mask_width of
//                mask[j * mask_width + i] * in(x - mask_width / 2 + i, y - mask_height / 2 + j, c)
// (the course's definition and OpenCV's filter2D: no flip), each channel separately. Inputs
// outside the image come from `border`:
//   zero    0 (the course's ghost cells)
//   clamp   the nearest edge pixel (aaa|abcd|ddd; OpenCV's BORDER_REPLICATE, NPP's REPLICATE)
//   reflect mirrored without repeating the edge (dcb|abcd|cba; OpenCV's BORDER_REFLECT_101)
//   wrap    periodic (bcd|abcd|abc)
// The sum runs in float with fused multiply-adds, rows of the mask in order and taps left to
// right within a row, except for float images of one channel under 7 x 7 masks with 16-byte
// aligned rows, at least 136 pixels wide and 22 rows high: there about half the outputs take the
// mask's rows bottom first (taps still left to right), so results agree with the in-order sum
// within float rounding, not bit for bit. uint8 results are rounded to nearest (ties to even) and
// saturated to [0, 255], always from the in-order sum.
//
// Images are row-major with `pitch` bytes between rows (any pitch >= width * channels *
// sizeof(T); any alignment T allows; 16-byte aligned rows are fastest). Odd mask sizes 1 .. 31,
// rectangular allowed. `mask` is host memory, read before the call returns: the caller may change
// or free it at once. Each call carries its own mask in its launch parameters, so concurrent calls
// with different masks on different streams and threads never share one.
//
// Asynchronous on `stream`, capture-safe (a few kernel launches, no allocation, no
// synchronization). Throws std::invalid_argument naming the argument before anything runs
// (negative sizes, even or out-of-range mask sizes, pitch too small, channels not 1, 3 or 4, null
// pointers with a non-empty image, in and out overlapping), and ladder::CudaError if a launch
// fails. An empty image (width or height 0) is a no-op.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

namespace ladder {

enum class Border { zero, clamp, reflect, wrap };

// The largest mask width or height: 31 (a 31 x 31 float mask fills 3.8 KiB of launch parameters).
inline constexpr int max_convolution_mask = 31;

namespace detail {
enum class ConvElement { f32, u8 };
void convolve2d_dispatch(ConvElement element, const void* in, std::int64_t in_pitch_bytes,
                         void* out, std::int64_t out_pitch_bytes, std::int64_t width,
                         std::int64_t height, int channels, const float* mask, int mask_width,
                         int mask_height, Border border, cudaStream_t stream);
} // namespace detail

template <class T>
void convolve2d(const T* in, std::int64_t in_pitch_bytes, T* out, std::int64_t out_pitch_bytes,
                std::int64_t width, std::int64_t height, int channels, const float* mask,
                int mask_width, int mask_height, Border border, cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, std::uint8_t>,
                "ladder::convolve2d: T must be float or std::uint8_t");
  detail::convolve2d_dispatch(std::is_same_v<T, float> ? detail::ConvElement::f32
                                                       : detail::ConvElement::u8,
                              in, in_pitch_bytes, out, out_pitch_bytes, width, height, channels,
                              mask, mask_width, mask_height, border, stream);
}

// out[x] = sum over i < mask_width of mask[i] * in[x - mask_width / 2 + i], n >= 0 (0 is a
// no-op), odd mask_width 1 .. 31, the same border policies, checks and guarantees as convolve2d.
void convolve1d(const float* in, float* out, std::int64_t n, const float* mask, int mask_width,
                Border border, cudaStream_t stream = nullptr);

} // namespace ladder
