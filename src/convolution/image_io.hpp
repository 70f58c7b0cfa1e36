// Real pictures in and out of the convolution study: 8-bit PNG files (gray, RGB, RGBA; palette,
// gray + alpha and 16-bit files are converted to 8-bit gray, RGB or RGBA on reading) through
// libpng, masks from names or text files, and the whole `ladder convolve` run (read, filter with
// ladder::convolve2d on the GPU, write). Built where libpng is found (LADDER_HAVE_PNG).
#pragma once

#include "convolution/reference.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::lab::convolution {

// Whether this build reads and writes PNG files.
bool have_png();

struct PngImage {
  std::int64_t width = 0;
  std::int64_t height = 0;
  int channels = 0; // 1 gray, 3 RGB, 4 RGBA
  std::vector<std::uint8_t> pixels; // packed rows, channels interleaved
};

// Throws std::runtime_error naming the file when it cannot be read or written as a PNG.
PngImage read_png(const std::string& path);
void write_png(const std::string& path, const PngImage& image);

// A named mask (see named_mask) or, when `spec` names a file, its rows of numbers (one mask row
// per line, separated by spaces or commas; '#' starts a comment). Throws std::invalid_argument
// naming `what`.
NamedMask load_mask(std::string_view spec, std::string_view what = "--mask");

// `ladder convolve`: filters `in_path` with the mask and border on the GPU (ladder::convolve2d,
// uint8, every channel) and writes `out_path`. Returns a one-line summary (size, mask, time).
std::string convolve_png_file(const std::string& in_path, const std::string& out_path,
                              std::string_view mask_spec, std::string_view border_name);

} // namespace ladder::lab::convolution
