#include "convolution/reference.hpp"

#include "convolution/border.hpp"
#include "core/sizes.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace ladder::lab::convolution {

namespace {

using conv_detail::border_index;
using conv_detail::floor_div;

std::uint8_t round_saturate(float v) {
  const float r = std::nearbyint(v); // the default rounding mode: to nearest, ties to even
  return static_cast<std::uint8_t>(r < 0.0f ? 0.0f : r > 255.0f ? 255.0f : r);
}

// Calls body(first, last) on contiguous slices of [0, count) on the hardware threads.
template <class Body> void parallel_rows(std::int64_t count, Body&& body) {
  const auto threads = static_cast<std::int64_t>(
      std::clamp<unsigned>(std::thread::hardware_concurrency(), 1u, 64u));
  const std::int64_t parts = std::min<std::int64_t>(threads, std::max<std::int64_t>(count, 1));
  if (parts <= 1) {
    body(std::int64_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  for (std::int64_t p = 0; p < parts; ++p)
    pool.emplace_back(
        [&body, p, parts, count] { body(count * p / parts, count * (p + 1) / parts); });
  for (auto& t : pool)
    t.join();
}

// One output row. Compiled twice, with and without the FMA instruction set, and picked at load
// time (GCC's target_clones): std::fma is then one instruction instead of a libm call, which makes
// the 15 x 15 reference of an 8192 x 8192 image ten times faster, with the same results.
template <class T>
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("fma", "default")))
#endif
void convolve_row(const T* const* rows, T* orow, std::int64_t W, int C, const float* mask,
                  int mask_width, int mask_height, Border border) {
  const int rw = mask_width / 2;
  for (std::int64_t x = 0; x < W; ++x) {
    const bool inside = x - rw >= 0 && x + rw < W;
    for (int c = 0; c < C; ++c) {
      float acc = 0.0f;
      for (int j = 0; j < mask_height; ++j) {
        const T* row = rows[j];
        const float* m = mask + static_cast<std::size_t>(j) * mask_width;
        for (int i = 0; i < mask_width; ++i) {
          float v = 0.0f;
          if (row != nullptr) {
            if (inside) {
              v = static_cast<float>(row[(x - rw + i) * C + c]);
            } else {
              const std::int64_t xm = border_index(x - rw + i, W, border);
              v = xm < 0 ? 0.0f : static_cast<float>(row[xm * C + c]);
            }
          }
          acc = std::fma(m[i], v, acc);
        }
      }
      if constexpr (sizeof(T) == 1)
        orow[x * C + c] = round_saturate(acc);
      else
        orow[x * C + c] = acc;
    }
  }
}

// Scalars [first, last) through every tap on their own (cpu_own_taps), compiled like
// convolve_row for the FMA instruction set.
template <class T>
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("fma", "default")))
#endif
void own_taps_range(const T* in, T* out, std::int64_t first, std::int64_t last,
                    const float* mask, std::int64_t taps) {
  for (std::int64_t i = first; i < last; ++i) {
    const float v = static_cast<float>(in[i]);
    float acc = 0.0f;
    for (std::int64_t k = 0; k < taps; ++k)
      acc = std::fma(mask[k], v, acc);
    if constexpr (sizeof(T) == 1)
      out[i] = round_saturate(acc);
    else
      out[i] = acc;
  }
}

} // namespace

template <class T>
void cpu_convolve2d(HostImage<const T> in, HostImage<T> out, std::span<const float> mask,
                    int mask_width, int mask_height, Border border) {
  if (static_cast<std::int64_t>(mask.size()) != std::int64_t{mask_width} * mask_height)
    throw std::invalid_argument("cpu_convolve2d: mask must hold mask_width x mask_height taps");
  const std::int64_t H = in.height;
  const int rh = mask_height / 2;
  parallel_rows(H, [&](std::int64_t first, std::int64_t last) {
    std::vector<const T*> rows(static_cast<std::size_t>(mask_height));
    for (std::int64_t y = first; y < last; ++y) {
      for (int j = 0; j < mask_height; ++j) {
        const std::int64_t ym = border_index(y - rh + j, H, border);
        rows[static_cast<std::size_t>(j)] = ym < 0 ? nullptr : in.data + ym * in.pitch;
      }
      convolve_row<T>(rows.data(), out.data + y * out.pitch, in.width, in.channels, mask.data(),
                      mask_width, mask_height, border);
    }
  });
}

template void cpu_convolve2d<float>(HostImage<const float>, HostImage<float>,
                                    std::span<const float>, int, int, Border);
template void cpu_convolve2d<std::uint8_t>(HostImage<const std::uint8_t>, HostImage<std::uint8_t>,
                                           std::span<const float>, int, int, Border);

template <class T>
void cpu_own_taps(std::span<const T> in, std::span<T> out, std::span<const float> mask) {
  if (in.size() != out.size())
    throw std::invalid_argument("cpu_own_taps: in and out must have the same length");
  parallel_rows(static_cast<std::int64_t>(in.size()), [&](std::int64_t first, std::int64_t last) {
    own_taps_range<T>(in.data(), out.data(), first, last, mask.data(),
                      static_cast<std::int64_t>(mask.size()));
  });
}

template void cpu_own_taps<float>(std::span<const float>, std::span<float>,
                                  std::span<const float>);
template void cpu_own_taps<std::uint8_t>(std::span<const std::uint8_t>, std::span<std::uint8_t>,
                                         std::span<const float>);

void cpu_convolve1d(std::span<const float> in, std::span<float> out, std::span<const float> mask,
                    Border border) {
  if (in.size() != out.size())
    throw std::invalid_argument("cpu_convolve1d: in and out must have the same length");
  const auto n = static_cast<std::int64_t>(in.size());
  cpu_convolve2d<float>({in.data(), n, n, n == 0 ? 0 : 1, 1}, {out.data(), n, n, n == 0 ? 0 : 1, 1},
                        mask, static_cast<int>(mask.size()), 1, border);
}

double float_error_bound(std::span<const float> mask, double max_abs_input) {
  double sum = 0;
  for (float m : mask)
    sum += std::fabs(static_cast<double>(m));
  return 2.0 * static_cast<double>(mask.size()) * 0x1p-24 * sum * max_abs_input;
}

template <class T>
std::string compare_images(std::span<const T> got, std::span<const T> expected,
                           std::int64_t row_length, double tolerance) {
  if (got.size() != expected.size())
    return "size mismatch";
  std::int64_t bad = 0, first = -1;
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]), e = static_cast<double>(expected[i]);
    const double diff = std::fabs(g - e);
    if (!(diff <= tolerance)) { // NaN (a poisoned output) fails too
      if (first < 0)
        first = static_cast<std::int64_t>(i);
      ++bad;
      worst = std::isnan(diff) ? diff : std::max(worst, diff);
    }
  }
  if (bad == 0)
    return "";
  const std::int64_t row = row_length > 0 ? first / row_length : 0;
  const std::int64_t col = row_length > 0 ? first % row_length : first;
  return std::to_string(bad) + " of " + std::to_string(got.size()) + " differ; first at row " +
         std::to_string(row) + ", scalar " + std::to_string(col) + ": got " +
         std::to_string(static_cast<double>(got[static_cast<std::size_t>(first)])) +
         ", expected " + std::to_string(static_cast<double>(expected[static_cast<std::size_t>(first)])) +
         " (worst difference " + std::to_string(worst) + ", tolerance " +
         std::to_string(tolerance) + ")";
}

template std::string compare_images<float>(std::span<const float>, std::span<const float>,
                                           std::int64_t, double);
template std::string compare_images<std::uint8_t>(std::span<const std::uint8_t>,
                                                  std::span<const std::uint8_t>, std::int64_t,
                                                  double);

namespace {

int parse_width(std::string_view text, std::string_view spec, std::string_view what) {
  int w = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), w);
  if (ec != std::errc() || end != text.data() + text.size() || w < 1 ||
      w > max_convolution_mask || w % 2 == 0)
    throw std::invalid_argument(std::string(what) + ": the width in '" + std::string(spec) +
                                "' must be odd, 1 .. 31");
  return w;
}

} // namespace

ImageSize parse_image_size(std::string_view text, std::string_view what) {
  const auto colon = text.find(':');
  const Extent2d e = parse_extent(text.substr(0, colon), what);
  ImageSize size{e.rows, e.cols};
  if (colon != std::string_view::npos)
    size.mask = parse_width(text.substr(colon + 1), text, what);
  return size;
}

NamedMask named_mask(std::string_view spec, std::string_view what) {
  const auto colon = spec.find(':');
  const std::string_view kind = spec.substr(0, colon);
  if (kind == "gaussian" || kind == "box") {
    if (colon == std::string_view::npos)
      throw std::invalid_argument(std::string(what) + ": '" + std::string(spec) +
                                  "' needs a width, e.g. " + std::string(kind) + ":5");
    const int w = parse_width(spec.substr(colon + 1), spec, what);
    NamedMask m{std::vector<float>(static_cast<std::size_t>(w * w)), w, w};
    if (kind == "box") {
      std::fill(m.taps.begin(), m.taps.end(), 1.0f / static_cast<float>(w * w));
      return m;
    }
    const double sigma = std::max(w / 6.0, 0.5);
    std::vector<double> g(static_cast<std::size_t>(w));
    double sum = 0;
    for (int i = 0; i < w; ++i) {
      const double d = i - w / 2;
      g[static_cast<std::size_t>(i)] = std::exp(-d * d / (2 * sigma * sigma));
      sum += g[static_cast<std::size_t>(i)];
    }
    for (int j = 0; j < w; ++j)
      for (int i = 0; i < w; ++i)
        m.taps[static_cast<std::size_t>(j * w + i)] = static_cast<float>(
            g[static_cast<std::size_t>(j)] * g[static_cast<std::size_t>(i)] / (sum * sum));
    return m;
  }
  if (colon == std::string_view::npos) {
    if (spec == "sharpen")
      return {{0, -1, 0, -1, 5, -1, 0, -1, 0}, 3, 3};
    if (spec == "edge")
      return {{-1, -1, -1, -1, 8, -1, -1, -1, -1}, 3, 3};
    if (spec == "emboss")
      return {{-2, -1, 0, -1, 1, 1, 0, 1, 2}, 3, 3};
    if (spec == "identity")
      return {{1}, 1, 1};
  }
  throw std::invalid_argument(std::string(what) + ": unknown mask '" + std::string(spec) +
                              "' (gaussian:W, box:W, sharpen, edge, emboss, identity)");
}

Border parse_border(std::string_view name, std::string_view what) {
  for (Border b : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    if (name == border_name(b))
      return b;
  throw std::invalid_argument(std::string(what) + ": unknown border '" + std::string(name) +
                              "' (zero, clamp, reflect, wrap)");
}

std::string_view border_name(Border border) {
  switch (border) {
  case Border::zero: return "zero";
  case Border::clamp: return "clamp";
  case Border::reflect: return "reflect";
  case Border::wrap: return "wrap";
  }
  return "?";
}

bool separable(std::span<const float> mask, int mask_width, int mask_height,
               std::vector<float>& column, std::vector<float>& row) {
  // Pivot on the largest tap: if the mask is column x row, its pivot row and column span it.
  std::size_t pivot = 0;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (std::fabs(mask[i]) > std::fabs(mask[pivot]))
      pivot = i;
  const float p = mask.empty() ? 0.0f : mask[pivot];
  if (p == 0.0f)
    return false;
  const int pj = static_cast<int>(pivot) / mask_width, pi = static_cast<int>(pivot) % mask_width;
  row.assign(mask.begin() + pj * mask_width, mask.begin() + (pj + 1) * mask_width);
  column.resize(static_cast<std::size_t>(mask_height));
  for (int j = 0; j < mask_height; ++j)
    column[static_cast<std::size_t>(j)] = mask[static_cast<std::size_t>(j * mask_width + pi)] / p;
  for (int j = 0; j < mask_height; ++j)
    for (int i = 0; i < mask_width; ++i)
      if (std::fabs(column[static_cast<std::size_t>(j)] * row[static_cast<std::size_t>(i)] -
                    mask[static_cast<std::size_t>(j * mask_width + i)]) > 1e-6f * std::fabs(p))
        return false;
  return true;
}

} // namespace ladder::lab::convolution
