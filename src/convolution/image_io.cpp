#include "convolution/image_io.hpp"

#include "core/buffer.hpp"
#include "ladder/convolve.hpp"
#include "ladder/error.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#if defined(LADDER_HAVE_PNG)
#include <png.h>
#endif

namespace ladder::lab::convolution {

bool have_png() {
#if defined(LADDER_HAVE_PNG)
  return true;
#else
  return false;
#endif
}

#if defined(LADDER_HAVE_PNG)
namespace {

struct File {
  std::FILE* f = nullptr;
  File(const std::string& path, const char* mode) : f(std::fopen(path.c_str(), mode)) {}
  ~File() {
    if (f)
      std::fclose(f);
  }
};

// libpng reports errors through longjmp by default; this handler throws instead (libpng allows a
// handler that does not return), so that every exit from a read or write runs the destructors.
[[noreturn]] void throw_png_error(png_structp, png_const_charp message) {
  throw std::runtime_error(message);
}
void ignore_png_warning(png_structp, png_const_charp) {}

} // namespace

PngImage read_png(const std::string& path) {
  File file(path, "rb");
  if (!file.f)
    throw std::runtime_error("cannot open '" + path + "' for reading");
  png_byte header[8] = {};
  if (std::fread(header, 1, 8, file.f) != 8 || png_sig_cmp(header, 0, 8) != 0)
    throw std::runtime_error("'" + path + "' is not a PNG file");
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, throw_png_error,
                                           ignore_png_warning);
  if (!png)
    throw std::runtime_error("libpng: out of memory");
  png_infop info = png_create_info_struct(png);
  struct Guard {
    png_structp* png;
    png_infop* info;
    ~Guard() { png_destroy_read_struct(png, info, nullptr); }
  } guard{&png, &info};
  try {
    png_init_io(png, file.f);
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);
    const int color = png_get_color_type(png, info);
    // Everything to 8-bit gray, RGB or RGBA.
    if (png_get_bit_depth(png, info) == 16)
      png_set_strip_16(png);
    if (color == PNG_COLOR_TYPE_PALETTE)
      png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8)
      png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS))
      png_set_tRNS_to_alpha(png);
    if (color == PNG_COLOR_TYPE_GRAY_ALPHA)
      png_set_gray_to_rgb(png);
    png_read_update_info(png, info);
    PngImage image;
    image.width = png_get_image_width(png, info);
    image.height = png_get_image_height(png, info);
    image.channels = png_get_channels(png, info);
    if (image.channels == 2) // gray + alpha expanded above; anything else is unexpected
      throw std::runtime_error("unsupported channel layout");
    const auto row_bytes = static_cast<std::size_t>(png_get_rowbytes(png, info));
    if (row_bytes != static_cast<std::size_t>(image.width * image.channels))
      throw std::runtime_error("unexpected row size after conversion to 8 bits");
    image.pixels.resize(row_bytes * static_cast<std::size_t>(image.height));
    std::vector<png_bytep> rows(static_cast<std::size_t>(image.height));
    for (std::size_t y = 0; y < rows.size(); ++y)
      rows[y] = image.pixels.data() + y * row_bytes;
    png_read_image(png, rows.data());
    png_read_end(png, nullptr);
    return image;
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("reading '" + path + "': " + e.what());
  }
}

void write_png(const std::string& path, const PngImage& image) {
  if (image.channels != 1 && image.channels != 3 && image.channels != 4)
    throw std::runtime_error("write_png: channels must be 1, 3 or 4");
  if (image.pixels.size() !=
      static_cast<std::size_t>(image.width * image.height * image.channels))
    throw std::runtime_error("write_png: pixels do not match width x height x channels");
  File file(path, "wb");
  if (!file.f)
    throw std::runtime_error("cannot open '" + path + "' for writing");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, throw_png_error,
                                            ignore_png_warning);
  if (!png)
    throw std::runtime_error("libpng: out of memory");
  png_infop info = png_create_info_struct(png);
  struct Guard {
    png_structp* png;
    png_infop* info;
    ~Guard() { png_destroy_write_struct(png, info); }
  } guard{&png, &info};
  try {
    png_init_io(png, file.f);
    const int color = image.channels == 1   ? PNG_COLOR_TYPE_GRAY
                      : image.channels == 3 ? PNG_COLOR_TYPE_RGB
                                            : PNG_COLOR_TYPE_RGBA;
    png_set_IHDR(png, info, static_cast<png_uint_32>(image.width),
                 static_cast<png_uint_32>(image.height), 8, color, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    const auto row_bytes = static_cast<std::size_t>(image.width * image.channels);
    for (std::int64_t y = 0; y < image.height; ++y)
      png_write_row(png, image.pixels.data() + static_cast<std::size_t>(y) * row_bytes);
    png_write_end(png, nullptr);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("writing '" + path + "': " + e.what());
  }
}
#else
PngImage read_png(const std::string& path) {
  throw std::runtime_error("cannot read '" + path + "': ladder was built without libpng");
}
void write_png(const std::string& path, const PngImage&) {
  throw std::runtime_error("cannot write '" + path + "': ladder was built without libpng");
}
#endif

NamedMask load_mask(std::string_view spec, std::string_view what) {
  const std::string path(spec);
  std::error_code ec;
  if (spec.find(':') == std::string_view::npos && std::filesystem::is_regular_file(path, ec)) {
    std::ifstream in(path);
    NamedMask m;
    std::string line;
    while (std::getline(in, line)) {
      line = line.substr(0, line.find('#'));
      std::replace(line.begin(), line.end(), ',', ' ');
      std::istringstream row(line);
      std::vector<float> values;
      for (std::string word; row >> word;) {
        try {
          std::size_t used = 0;
          values.push_back(std::stof(word, &used));
          if (used != word.size())
            throw std::invalid_argument(word);
        } catch (const std::exception&) {
          throw std::invalid_argument(std::string(what) + ": '" + word + "' in " + path +
                                      " is not a number");
        }
      }
      if (values.empty())
        continue;
      if (m.width == 0)
        m.width = static_cast<int>(values.size());
      else if (static_cast<int>(values.size()) != m.width)
        throw std::invalid_argument(std::string(what) + ": the rows of " + path +
                                    " have different lengths");
      m.taps.insert(m.taps.end(), values.begin(), values.end());
      ++m.height;
    }
    if (m.width % 2 == 0 || m.height % 2 == 0 || m.width > max_convolution_mask ||
        m.height > max_convolution_mask)
      throw std::invalid_argument(std::string(what) + ": the mask in " + path +
                                  " must have an odd number of rows and columns, 1 .. 31 (it has " +
                                  std::to_string(m.height) + " x " + std::to_string(m.width) + ")");
    return m;
  }
  return named_mask(spec, what);
}

std::string convolve_png_file(const std::string& in_path, const std::string& out_path,
                              std::string_view mask_spec, std::string_view border_text) {
  const NamedMask mask = load_mask(mask_spec);
  const Border border = parse_border(border_text);
  PngImage image = read_png(in_path);
  const auto bytes = image.pixels.size();
  DeviceBuffer<std::uint8_t> in(bytes), out(bytes);
  Stream stream;
  const auto start = std::chrono::steady_clock::now();
  LADDER_CUDA(cudaMemcpyAsync(in.data(), image.pixels.data(), bytes, cudaMemcpyHostToDevice,
                              stream));
  cudaEvent_t begin{}, end{};
  LADDER_CUDA(cudaEventCreate(&begin));
  LADDER_CUDA(cudaEventCreate(&end));
  LADDER_CUDA(cudaEventRecord(begin, stream));
  const std::int64_t pitch = image.width * image.channels;
  convolve2d(in.data(), pitch, out.data(), pitch, image.width, image.height, image.channels,
             mask.taps.data(), mask.width, mask.height, border, stream);
  LADDER_CUDA(cudaEventRecord(end, stream));
  LADDER_CUDA(cudaMemcpyAsync(image.pixels.data(), out.data(), bytes, cudaMemcpyDeviceToHost,
                              stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  float kernel_ms = 0;
  LADDER_CUDA(cudaEventElapsedTime(&kernel_ms, begin, end));
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  const double total_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  write_png(out_path, image);
  std::ostringstream line;
  line << in_path << " (" << image.width << " x " << image.height << ", " << image.channels
       << (image.channels == 1 ? " channel" : " channels") << ") -> " << out_path << ": mask "
       << mask.width << " x " << mask.height << ", border " << border_name(border)
       << "; ladder::convolve2d " << kernel_ms << " ms on the GPU (" << total_ms
       << " ms with the transfers)";
  return line.str();
}

} // namespace ladder::lab::convolution
