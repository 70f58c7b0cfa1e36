// CPU references of the convolution ladder: the multi-threaded reference every rung is checked
// against (and timed as the CPU row), the comparison with its error bound, and the named masks of
// `ladder convolve`. Host-only, so the host tests check them without a GPU.
#pragma once

#include "ladder/convolve.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::lab::convolution {

// A host image: row-major, `pitch` elements between rows, `channels` interleaved.
template <class T> struct HostImage {
  T* data = nullptr;
  std::int64_t pitch = 0; // elements
  std::int64_t width = 0;
  std::int64_t height = 0;
  int channels = 1;
};

// out = in convolved with the mask (ladder/convolve.hpp's definition) under `border`, in the
// library's arithmetic: float fused multiply-adds, mask rows in order, taps left to right; uint8
// rounded to nearest-even and saturated. Rows are split over the machine's hardware threads.
template <class T>
void cpu_convolve2d(HostImage<const T> in, HostImage<T> out, std::span<const float> mask,
                    int mask_width, int mask_height, Border border);

// The joint bound's output (the rung that moves the copy's bytes and does the mask's FMAs, nothing
// else): each scalar on its own through every tap in order, acc = fma(tap, x, acc) from 0, uint8
// rounded and saturated as above.
template <class T>
void cpu_own_taps(std::span<const T> in, std::span<T> out, std::span<const float> mask);

// The same for a signal of n floats.
void cpu_convolve1d(std::span<const float> in, std::span<float> out, std::span<const float> mask,
                    Border border);

// The worst error of a float result computed in another order (separable passes, cuDNN, NPP):
// each output is a sum of mask_width x mask_height products, each rounding at most once more per
// addition, so |error| <= taps x 2^-24 x sum |mask| x max |input| (Higham's gamma_n bound),
// doubled for headroom.
double float_error_bound(std::span<const float> mask, double max_abs_input);

// "" when every element of `got` is within `tolerance` of `expected` (exact when 0), else the
// first mismatch (row, scalar) and how many there are. `row_length` is scalars per row.
template <class T>
std::string compare_images(std::span<const T> got, std::span<const T> expected,
                           std::int64_t row_length, double tolerance);

// Masks by name, as `ladder convolve --mask` takes them: "gaussian:W" (sigma = W / 6, sums to 1),
// "box:W" (1 / W^2 each), "sharpen" (3 x 3), "edge" (3 x 3 Laplacian), "emboss" (3 x 3).
// Throws std::invalid_argument naming `what` for anything else.
struct NamedMask {
  std::vector<float> taps;
  int width = 0;
  int height = 0;
};
NamedMask named_mask(std::string_view spec, std::string_view what = "--mask");

// A 2D size of the study: "ROWSxCOLS" (the mask sweep runs on the image) or "ROWSxCOLS:MASK"
// (one square mask, its width odd, 1 .. 31). Throws std::invalid_argument naming `what`.
struct ImageSize {
  std::int64_t rows = 0, cols = 0;
  int mask = 0; // 0: every width of the sweep
};
ImageSize parse_image_size(std::string_view text, std::string_view what = "--size");

// The border named "zero", "clamp", "reflect" or "wrap".
Border parse_border(std::string_view name, std::string_view what = "--border");
std::string_view border_name(Border border);

// Whether the mask is the outer product of a column and a row (to 1e-6 of its largest tap):
// then `column` (height) and `row` (width) reproduce it.
bool separable(std::span<const float> mask, int mask_width, int mask_height,
               std::vector<float>& column, std::vector<float>& row);

} // namespace ladder::lab::convolution
