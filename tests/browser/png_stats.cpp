// Reads a PNG (libpng) and prints "WIDTH HEIGHT DISTINCT_COLOURS INKED_FRACTION": the browser test
// uses it to tell a drawn page from a blank one. INKED_FRACTION is the share of pixels that differ
// from the most common colour (the page's background).
#include <png.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: png_stats FILE.png\n");
    return 2;
  }
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, argv[1])) {
    std::fprintf(stderr, "png_stats: %s: %s\n", argv[1], image.message);
    return 1;
  }
  image.format = PNG_FORMAT_RGBA;
  std::vector<png_byte> pixels(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) {
    std::fprintf(stderr, "png_stats: %s: %s\n", argv[1], image.message);
    return 1;
  }
  std::map<unsigned, long> counts;
  for (std::size_t i = 0; i + 3 < pixels.size(); i += 4)
    ++counts[pixels[i] << 16 | pixels[i + 1] << 8 | pixels[i + 2]];
  long most = 0;
  for (const auto& [colour, count] : counts)
    most = count > most ? count : most;
  const double total = static_cast<double>(image.width) * image.height;
  std::printf("%u %u %zu %.4f\n", image.width, image.height, counts.size(),
              total > 0 ? 1.0 - most / total : 0.0);
  return 0;
}
