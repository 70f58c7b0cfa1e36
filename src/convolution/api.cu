// ladder::convolve2d and ladder::convolve1d: argument checks, then in 2D the lane-halo kernel
// (src/convolution/window.cuh) for float images of one channel and uint8 images of 1, 3 or 4
// channels with small square masks, the walked tile in pairs (src/convolution/walk.cuh) for float
// images of one channel at 7 x 7 with aligned rows, at least 136 pixels wide and 22 rows high, the
// wide register tile (src/convolution/wide.cuh) for the other float images of one channel at
// 7 x 7, and the tiled register-blocked kernel with 16-byte staging and
// row reuse (src/convolution/tiled.cuh) for everything else, its mask width fixed at compile time
// where the window fits in registers; in 1D the unstaged window kernel (window.cuh).
#include "convolution/api_dispatch.hpp"
#include "convolution/tiled.cuh"
#include "convolution/walk.cuh"
#include "convolution/wide.cuh"
#include "convolution/window.cuh"

#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <string>

namespace ladder::conv_detail {

namespace {

std::string named(const char* call, const char* what) { return std::string(call) + ": " + what; }

void check_mask(const char* call, const float* mask, int mask_width, int mask_height) {
  for (auto [name, size] : {std::pair{"mask_width", mask_width}, {"mask_height", mask_height}}) {
    if (size < 1 || size > max_convolution_mask || size % 2 == 0)
      throw std::invalid_argument(std::string(call) + ": " + name +
                                  " must be odd, 1 .. 31, got " + std::to_string(size));
  }
  if (mask == nullptr)
    throw std::invalid_argument(named(call, "mask is null"));
}

void check_border(const char* call, Border border) {
  switch (border) {
  case Border::zero:
  case Border::clamp:
  case Border::reflect:
  case Border::wrap:
    return;
  }
  throw std::invalid_argument(named(call, "border is not a ladder::Border value"));
}

} // namespace

MaskParam make_mask_param(const float* mask, int mask_width, int mask_height) {
  MaskParam p{};
  std::memcpy(p.w, mask, sizeof(float) * static_cast<std::size_t>(mask_width * mask_height));
  p.width = mask_width;
  p.height = mask_height;
  return p;
}

namespace {

// The widest mask whose tiles stage through Staging::vector_interior (interior tiles copied with
// no per-chunk test). `ladder tune convolution` on two H200s (2026-11-26): on the first it was
// 1.03x to 1.04x faster at float 5 x 5, 7 x 7 and 9 x 9 and uint8 RGB 5 x 5 and level at 3 x 3;
// on the second, where the tested staging ran those cases 4-5% faster itself, level at all of
// them; at 15 x 15 it was 0.96x on both. Float images take Staging::interior_lean instead
// (below), float images of one channel up to lean_widest.
inline constexpr int interior_staging_widest = 9;

// The widest mask whose float one-channel kernel stages by Staging::interior_lean (15 x 15 is
// measured, below). Wider ones keep Staging::vector: there ptxas gives the lean kernels more
// registers (21 x 21: 124 a thread against 80, nvcc 13.0), and none is measured.
inline constexpr int lean_widest = 15;

// The widths whose float one-channel kernels take ShapeF32Capped (registers for 8 blocks per
// SM). `ladder tune convolution`, H200, 2026-11-26, 8192^2, capped against uncapped in one run:
// 7 x 7 184.8 against 192.6 us (64 registers uncapped), 9 x 9 244.9 against 250.8 us; 3 x 3 and
// 5 x 5 lost (152.9 against 148.7 us, 154.4 against 152.1); 15 x 15 (609.9 against 615.5 us)
// spilled 56 bytes a thread capped and stayed uncapped until the lean staging: capped, it spills
// 48 bytes and still runs faster (`ladder tune convolution`, H100, 2026-11-27,
// bench/results/convolution-lean-tune-h100-2026-11-27-r4.md: row_reuse_lean_8_blocks, whose
// 15 x 15 kernel's SASS is this one's (its 7-float halo rounds to 8 floats with 16- or 32-byte
// row starts), 583.5 us against the uncapped library's 610.4).
template <class T, int C, int MW> constexpr bool capped_registers() {
  return sizeof(T) == 4 && C == 1 && (MW == 7 || MW == 9 || MW == 15);
}

// Row reuse (bit for bit the mask-row loop, faster at every case timed: H200, 2026-11-25, float
// 8192^2 masks 3 to 15 by 1.01x to 1.18x, uint8 RGB 4K 5 x 5 by 1.74x). Float images are staged
// by Staging::interior_lean up to interior_staging_widest, and up to lean_widest with one
// channel: Staging::vector_interior's tiles, with their chunks' addresses and the stores cut to a
// few instructions each. `ladder tune convolution`, H100,
// 2026-11-27, two runs (bench/results/convolution-lean-tune-h100-2026-11-27*.md): 7 x 7 208.9 and
// 209.0 us against 214.3 and 214.4 with vector_interior, 9 x 9 247.3 and 247.3 against 252.9 and
// 253.8, 15 x 15 605.1 and 601.4 against 618.4 and 613.8 with Staging::vector. uint8 keeps
// vector_interior up to interior_staging_widest and Staging::vector above: with interior_lean
// ptxas spills its RGB 3 x 3 and 7 x 7 kernels.
template <class T, int C, class S, int MW = 1>
void launch_library_width(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  if constexpr (MW <= interior_staging_widest || (sizeof(T) == 4 && C == 1 && MW <= lean_widest)) {
    using Shape = std::conditional_t<capped_registers<T, C, MW>(), ShapeF32Capped, S>;
    constexpr Staging interior = sizeof(T) == 4 ? Staging::interior_lean : Staging::vector_interior;
    if (mask.width == MW)
      return launch_tiled<T, C, MW, Shape, interior, true>(a, mask, stream);
    return launch_library_width<T, C, S, MW + 2>(a, mask, stream);
  } else {
    launch_tiled_width<T, C, S, Staging::vector, true, MW>(a, mask, stream);
  }
}

template <class T, class S>
void launch_library_channels(int channels, const ImageArgs& a, const MaskParam& mask,
                             cudaStream_t stream) {
  switch (channels) {
  case 1: return launch_library_width<T, 1, S>(a, mask, stream);
  case 3: return launch_library_width<T, 3, S>(a, mask, stream);
  default: return launch_library_width<T, 4, S>(a, mask, stream);
  }
}

// Float4s of outputs per thread of the 1D library kernel (see launch_library_1d).
inline constexpr int library_1d_unroll = 2;

} // namespace

// Outputs per block of the 1D library kernel (the same at every mask width).
using Library1d = Window1d<1, library_1d_unroll>;

// Float images of one channel and uint8 images of 1, 3 or 4 channels, with square masks up to
// lanes_widest<T> wide whose rows are aligned to the kernel's vector (16 bytes for float, 4 for
// uint8), take the lane-halo kernel (window.cuh: no shared memory, the halo by warp shuffles),
// its rows per thread and blocks per SM from LanesShape; returns false for any other image.
template <class T, int C, int MW = 1>
bool launch_library_lanes(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  if constexpr (MW <= lanes_widest<T>) {
    if (mask.width != MW)
      return launch_library_lanes<T, C, MW + 2>(a, mask, stream);
    using Shape = LanesShape<T, C, MW>;
    using V = lane_vector_t<T>;
    const bool aligned =
        rows_aligned_to<V>(a.in, a.in_pitch) && rows_aligned_to<V>(a.out, a.out_pitch);
    if (mask.height != MW || !aligned || !lanes_2d_fits<T, C, MW, Shape::ry>(a.height))
      return false;
    launch_lanes_2d<T, C, MW, Shape::ry, Shape::min_blocks>(a, mask, stream);
    return true;
  } else {
    return false;
  }
}

bool launch_library_lanes(detail::ConvElement element, const ImageArgs& a, int channels,
                          const MaskParam& mask, cudaStream_t stream) {
  if (element == detail::ConvElement::f32)
    return channels == 1 && launch_library_lanes<float, 1>(a, mask, stream);
  switch (channels) {
  case 1: return launch_library_lanes<std::uint8_t, 1>(a, mask, stream);
  case 3: return launch_library_lanes<std::uint8_t, 3>(a, mask, stream);
  default: return launch_library_lanes<std::uint8_t, 4>(a, mask, stream);
  }
}

// Float images of one channel with square masks wide_narrowest .. wide_widest wide whose rows are
// 16-byte aligned take the wide register tile (wide.cuh), its shape from WideShape; returns false
// for any other image. (Misaligned rows would gather every window scalar by scalar there: the
// staged kernel takes them.)
template <int MW = wide_narrowest>
bool launch_library_wide(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  if constexpr (MW <= wide_widest) {
    if (mask.width != MW)
      return launch_library_wide<MW + 2>(a, mask, stream);
    using Shape = WideShape<MW>;
    const bool aligned =
        rows_aligned_to<float4>(a.in, a.in_pitch) && rows_aligned_to<float4>(a.out, a.out_pitch);
    if (mask.height != MW || !aligned || a.width > std::numeric_limits<int>::max() / 2 ||
        !wide_2d_fits<MW, Shape::kv, Shape::ry>(a.height))
      return false;
    launch_wide_2d<MW, Shape::kv, Shape::ry, Shape::min_blocks, Shape::row_loop,
                   Shape::prefetch_l2>(a, mask, stream);
    return true;
  } else {
    return false;
  }
}

// Float images of one channel with 7 x 7 masks whose rows are 16-byte aligned, at least 136
// pixels wide and a warp's rows high, take the walked tile in pairs (walk.cuh), its shape from
// WalkShape; returns false for any other image. At float 8192^2 on an H200 it took 141.5 us against
// the wide tile's 163.1 and the copy's 127.6 in `ladder run convolution` (2026-11-30, bench/results/
// convolution-walk-evict-last-h200-2026-11-30.md); its upward warps add the mask's rows bottom first.
bool launch_library_walk(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  return mask.width == 7 && mask.height == 7 && try_launch_walk_shape<7>(a, mask, stream);
}

void launch_library_2d(detail::ConvElement element, const ImageArgs& a, int channels,
                       const MaskParam& mask, cudaStream_t stream) {
  if (launch_library_lanes(element, a, channels, mask, stream))
    return;
  if (element == detail::ConvElement::f32 && channels == 1 &&
      (launch_library_walk(a, mask, stream) || launch_library_wide(a, mask, stream)))
    return;
  launch_library_staged_2d(element, a, channels, mask, stream);
}

void launch_library_staged_2d(detail::ConvElement element, const ImageArgs& a, int channels,
                              const MaskParam& mask, cudaStream_t stream) {
  if (element == detail::ConvElement::f32)
    launch_library_channels<float, ShapeF32>(channels, a, mask, stream);
  else
    launch_library_channels<std::uint8_t, ShapeU8>(channels, a, mask, stream);
}

// No staging (window.cuh): 2 float4s of outputs per thread, each window read as 16-byte loads
// with the halo from L1. At mask 9 on 2^28 floats it took 523.7 us against the copy's 507.7 us
// (1.03x), where the staged kernel took 663.3 us (H200, `ladder tune convolution`, 2026-11-26);
// 16 outputs per thread were level (521.8 us), 4 slower (553.2 us).
void launch_library_1d(const ImageArgs& a, const MaskParam& mask, cudaStream_t stream) {
  launch_window_1d<library_1d_unroll>(a, mask, stream);
}

} // namespace ladder::conv_detail

namespace ladder::detail {

void convolve2d_dispatch(ConvElement element, const void* in, std::int64_t in_pitch_bytes,
                         void* out, std::int64_t out_pitch_bytes, std::int64_t width,
                         std::int64_t height, int channels, const float* mask, int mask_width,
                         int mask_height, Border border, cudaStream_t stream) {
  using namespace conv_detail;
  constexpr const char* call = "ladder::convolve2d";
  const std::int64_t scalar = element == ConvElement::f32 ? 4 : 1;
  if (width < 0)
    throw std::invalid_argument(named(call, "width must be >= 0, got ") + std::to_string(width));
  if (height < 0)
    throw std::invalid_argument(named(call, "height must be >= 0, got ") +
                                std::to_string(height));
  if (channels != 1 && channels != 3 && channels != 4)
    throw std::invalid_argument(named(call, "channels must be 1, 3 or 4, got ") +
                                std::to_string(channels));
  check_mask(call, mask, mask_width, mask_height);
  check_border(call, border);
  if (width == 0 || height == 0)
    return;
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  if (width > max / (channels * scalar))
    throw std::invalid_argument(named(call, "width x channels overflows 64-bit byte counts"));
  const std::int64_t row_bytes = width * channels * scalar;
  for (auto [name, pitch] : {std::pair{"in_pitch_bytes", in_pitch_bytes}, {"out_pitch_bytes", out_pitch_bytes}}) {
    if (pitch < row_bytes)
      throw std::invalid_argument(std::string(call) + ": " + name + " (" + std::to_string(pitch) +
                                  ") is less than a row's bytes (" + std::to_string(row_bytes) +
                                  ")");
    if (pitch % scalar != 0)
      throw std::invalid_argument(std::string(call) + ": " + name +
                                  " must be a multiple of the element size");
    if (height - 1 > (max - row_bytes) / pitch)
      throw std::invalid_argument(std::string(call) + ": height x " + name +
                                  " overflows 64-bit byte counts");
  }
  if (in == nullptr)
    throw std::invalid_argument(named(call, "in is null with a non-empty image"));
  if (out == nullptr)
    throw std::invalid_argument(named(call, "out is null with a non-empty image"));
  const auto a = reinterpret_cast<std::uintptr_t>(in), b = reinterpret_cast<std::uintptr_t>(out);
  if (a % scalar != 0)
    throw std::invalid_argument(named(call, "in is not aligned to its element type"));
  if (b % scalar != 0)
    throw std::invalid_argument(named(call, "out is not aligned to its element type"));
  const auto in_span = static_cast<std::uintptr_t>((height - 1) * in_pitch_bytes + row_bytes);
  const auto out_span = static_cast<std::uintptr_t>((height - 1) * out_pitch_bytes + row_bytes);
  if (a < b + out_span && b < a + in_span)
    throw std::invalid_argument(named(call, "in and out overlap (out-of-place only)"));
  const std::int64_t tiles_x =
      (width * channels + (element == ConvElement::f32 ? ShapeF32::tile_w : ShapeU8::tile_w) - 1) /
      (element == ConvElement::f32 ? ShapeF32::tile_w : ShapeU8::tile_w);
  if (tiles_x > std::numeric_limits<int>::max())
    throw std::invalid_argument(named(call, "width is too large for one launch"));

  ImageArgs args;
  args.in = static_cast<const unsigned char*>(in);
  args.in_pitch = in_pitch_bytes;
  args.out = static_cast<unsigned char*>(out);
  args.out_pitch = out_pitch_bytes;
  args.width = width;
  args.height = height;
  args.border = border;
  launch_library_2d(element, args, channels, make_mask_param(mask, mask_width, mask_height),
                    stream);
}

} // namespace ladder::detail

namespace ladder {

void convolve1d(const float* in, float* out, std::int64_t n, const float* mask, int mask_width,
                Border border, cudaStream_t stream) {
  using namespace conv_detail;
  constexpr const char* call = "ladder::convolve1d";
  if (n < 0)
    throw std::invalid_argument(named(call, "n must be >= 0, got ") + std::to_string(n));
  check_mask(call, mask, mask_width, 1);
  check_border(call, border);
  if (n == 0)
    return;
  if (n > std::numeric_limits<std::int64_t>::max() / 4 ||
      (n + Library1d::per_block - 1) / Library1d::per_block > std::numeric_limits<int>::max())
    throw std::invalid_argument(named(call, "n is too large"));
  if (in == nullptr)
    throw std::invalid_argument(named(call, "in is null with n > 0"));
  if (out == nullptr)
    throw std::invalid_argument(named(call, "out is null with n > 0"));
  const auto a = reinterpret_cast<std::uintptr_t>(in), b = reinterpret_cast<std::uintptr_t>(out);
  const auto bytes = static_cast<std::uintptr_t>(n) * 4;
  if (a < b + bytes && b < a + bytes)
    throw std::invalid_argument(named(call, "in and out overlap (out-of-place only)"));
  ImageArgs args;
  args.in = reinterpret_cast<const unsigned char*>(in);
  args.in_pitch = n * 4;
  args.out = reinterpret_cast<unsigned char*>(out);
  args.out_pitch = n * 4;
  args.width = n;
  args.height = 1;
  args.border = border;
  launch_library_1d(args, make_mask_param(mask, mask_width, 1), stream);
}

} // namespace ladder
