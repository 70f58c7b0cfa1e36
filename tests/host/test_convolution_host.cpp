// Host tests of the convolution study: the CPU reference on hand-checked cases and against a
// direct double-precision sum, border policies, named masks, the comparison, and the library
// call's argument checks (which throw before any CUDA call, so they run without a GPU).
#include "cli_invoke.hpp"
#include "invalid_argument.hpp"

#include "convolution/border.hpp"
#include "convolution/frame.hpp"
#include "convolution/image_io.hpp"
#include "convolution/reference.hpp"
#include "convolution/variants.hpp"
#include "convolution/walk_tail.hpp"
#include "ladder/convolve.hpp"
#include "ladder/device.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace ladder::test {
namespace {

using namespace lab::convolution;
using conv_detail::border_index;

TEST(ConvolutionBorder, EveryPolicyMapsOutsideCoordinates) {
  // abcd (n = 4): zero -1; clamp aaa|abcd|ddd; reflect dcb|abcd|cba; wrap bcd|abcd|abc.
  EXPECT_EQ(border_index(-1, 4, Border::zero), -1);
  EXPECT_EQ(border_index(4, 4, Border::zero), -1);
  EXPECT_EQ(border_index(2, 4, Border::zero), 2);
  EXPECT_EQ(border_index(-3, 4, Border::clamp), 0);
  EXPECT_EQ(border_index(6, 4, Border::clamp), 3);
  EXPECT_EQ(border_index(-1, 4, Border::reflect), 1);
  EXPECT_EQ(border_index(-3, 4, Border::reflect), 3);
  EXPECT_EQ(border_index(4, 4, Border::reflect), 2);
  EXPECT_EQ(border_index(6, 4, Border::reflect), 0);
  EXPECT_EQ(border_index(-1, 4, Border::wrap), 3);
  EXPECT_EQ(border_index(5, 4, Border::wrap), 1);
  EXPECT_EQ(border_index(-9, 4, Border::wrap), 3);
  // Masks wider than the image: reflect keeps bouncing, a single pixel reflects to itself.
  EXPECT_EQ(border_index(-15, 2, Border::reflect), 1);
  EXPECT_EQ(border_index(7, 1, Border::reflect), 0);
}

// The walked pairs' frame (frame.hpp), walked down columns of quads: the top and bottom rows, and
// the side columns in runs of 1 to 16 rows (the last run shorter, runs shorter than the mask):
// every frame pixel of images of awkward widths, under every border and mask width the walk takes,
// bit for bit the reference; nothing written inside the frame, past a row's end or into the
// pitch's padding.
TEST(ConvolutionFrame, WalksWriteTheFrameBitForBitAndNothingElse) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> d(-1, 1);
  const auto check = [&](auto mask_width) {
    constexpr int MW = decltype(mask_width)::value, H = MW / 2;
    struct {
      float w[MW * MW];
    } taps{};
    for (auto& v : taps.w)
      v = d(rng);
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{136, 2 * H}, {137, 13}, {139, 22}, {141, 2 * H + 1}, {143, 30}, {200, 9}};
    for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
      for (const auto& [w, h] : sizes)
        for (const int side_rows : {1, 2, 5, 16}) {
          if (h < 2 * H)
            continue;
          const std::int64_t pitch = w + 3; // floats: rows padded
          std::vector<float> in(static_cast<std::size_t>(pitch * h)), out(in.size(), std::nanf("")), want(in.size());
          for (auto& v : in)
            v = d(rng);
          cpu_convolve2d<float>({in.data(), pitch, w, h, 1}, {want.data(), pitch, w, h, 1}, taps.w, MW, MW, border);
          ladder::conv_detail::ImageArgs a;
          a.in = reinterpret_cast<const unsigned char*>(in.data());
          a.out = reinterpret_cast<unsigned char*>(out.data());
          a.in_pitch = a.out_pitch = pitch * 4;
          a.width = w;
          a.height = h;
          a.border = border;
          const auto f = ladder::conv_detail::frame_walks(w, h, H, side_rows);
          ASSERT_TRUE(f.right + 4 <= w && f.right + 8 > w) << w;
          for (std::int64_t q = 0; q < f.count; ++q)
            ladder::conv_detail::frame_part<MW>(a, taps, f, q);
          std::size_t wrong = 0;
          for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < pitch; ++x) {
              const std::size_t i = static_cast<std::size_t>(y * pitch + x);
              const bool frame = x < w && (x < 4 || x >= f.right || y < H || y >= h - H);
              const bool ok = frame ? std::memcmp(&out[i], &want[i], sizeof(float)) == 0 : std::isnan(out[i]);
              if (!ok && wrong++ < 3)
                ADD_FAILURE() << "MW " << MW << " " << border_name(border) << " " << w << " x " << h << " side rows "
                              << side_rows << " at " << x
                              << "," << y << (frame ? ": frame pixel " : ": written outside the frame ") << out[i]
                              << " against " << want[i];
            }
          EXPECT_EQ(wrong, 0u) << "MW " << MW << " " << border_name(border) << " " << w << " x " << h << " side rows "
                               << side_rows;
        }
  };
  check(std::integral_constant<int, 3>{});
  check(std::integral_constant<int, 5>{});
  check(std::integral_constant<int, 7>{});
  check(std::integral_constant<int, 9>{});
}

// The walked pairs' tail (walk_tail.hpp): none under two waves of blocks, else a wave's whole
// rows, at least one, and never more rows than the grid has.
TEST(ConvolutionWalkTail, OneWaveOfRowsInGridsOfTwoWavesOrMore) {
  using conv_detail::walk_tail_rows;
  EXPECT_EQ(walk_tail_rows(32, 129, 528), 16); // float 8192^2 on 132 SMs, 4 blocks each
  EXPECT_EQ(walk_tail_rows(32, 33, 528), 16);  // just two waves
  EXPECT_EQ(walk_tail_rows(32, 32, 528), 0);   // under two
  EXPECT_EQ(walk_tail_rows(5, 212, 528), 105);
  EXPECT_EQ(walk_tail_rows(1000, 2, 528), 1);  // rows wider than a wave
  EXPECT_EQ(walk_tail_rows(0, 100, 528), 0);
  EXPECT_EQ(walk_tail_rows(8, 100, 0), 0);
  for (std::int64_t bx : {1, 2, 7, 32, 600})
    for (std::int64_t rows : {1, 10, 100, 1000, 10000})
      for (std::int64_t resident : {1, 8, 264, 528}) {
        const std::int64_t tail = walk_tail_rows(bx, rows, resident);
        EXPECT_GE(tail, 0);
        EXPECT_LE(tail, rows);
        EXPECT_EQ(tail > 0, bx * rows >= 2 * resident) << bx << " " << rows << " " << resident;
      }
}

// The reference against a direct double-precision sum with explicit border lookups.
TEST(ConvolutionReference, MatchesADirectSumForEveryBorderAndChannelCount) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> d(-1, 1);
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (int channels : {1, 3, 4}) {
      const std::int64_t w = 13, h = 7;
      const int mw = 5, mh = 3;
      std::vector<float> in(static_cast<std::size_t>(w * h * channels)), out(in.size()),
          mask(static_cast<std::size_t>(mw * mh));
      for (auto& v : in)
        v = d(rng);
      for (auto& v : mask)
        v = d(rng);
      cpu_convolve2d<float>({in.data(), w * channels, w, h, channels},
                            {out.data(), w * channels, w, h, channels}, mask, mw, mh, border);
      for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
          for (int c = 0; c < channels; ++c) {
            double want = 0;
            for (int j = 0; j < mh; ++j)
              for (int i = 0; i < mw; ++i) {
                const auto yy = border_index(y - mh / 2 + j, h, border);
                const auto xx = border_index(x - mw / 2 + i, w, border);
                if (yy >= 0 && xx >= 0)
                  want += static_cast<double>(mask[static_cast<std::size_t>(j * mw + i)]) *
                          in[static_cast<std::size_t>((yy * w + xx) * channels + c)];
              }
            EXPECT_NEAR(out[static_cast<std::size_t>((y * w + x) * channels + c)], want, 1e-5)
                << border_name(border) << " C" << channels << " at " << x << "," << y;
          }
    }
}

TEST(ConvolutionReference, Uint8RoundsToNearestEvenAndSaturates) {
  const std::vector<std::uint8_t> in = {10, 20, 200};
  std::vector<std::uint8_t> out(3);
  // 0.25 x 10 = 2.5 -> 2 (ties to even); 0.25 x 20 = 5; 0.25 x 200 = 50.
  cpu_convolve2d<std::uint8_t>({in.data(), 3, 3, 1, 1}, {out.data(), 3, 3, 1, 1},
                               std::vector<float>{0.25f}, 1, 1, Border::zero);
  EXPECT_EQ(out, (std::vector<std::uint8_t>{2, 5, 50}));
  cpu_convolve2d<std::uint8_t>({in.data(), 3, 3, 1, 1}, {out.data(), 3, 3, 1, 1},
                               std::vector<float>{2.0f}, 1, 1, Border::zero);
  EXPECT_EQ(out, (std::vector<std::uint8_t>{20, 40, 255}));
  cpu_convolve2d<std::uint8_t>({in.data(), 3, 3, 1, 1}, {out.data(), 3, 3, 1, 1},
                               std::vector<float>{-1.0f}, 1, 1, Border::zero);
  EXPECT_EQ(out, (std::vector<std::uint8_t>{0, 0, 0}));
}

// The joint bound's reference: each scalar through every tap on its own, in order, with fused
// multiply-adds from 0; uint8 rounded to nearest-even and saturated.
TEST(ConvolutionReference, OwnTapsRunsEachScalarThroughEveryTapInOrder) {
  const std::vector<float> in = {1.0f, -2.0f, 0.5f};
  std::vector<float> out(3);
  cpu_own_taps<float>(in, out, std::vector<float>{0.5f, 0.25f, 2.0f});
  EXPECT_EQ(out, (std::vector<float>{2.75f, -5.5f, 1.375f}));
  // The order is the reference's: 1 + 2^-24 + ... rounds at each step, so the taps' sum in
  // another order would differ in the last place.
  const float tiny = std::ldexp(1.0f, -24);
  std::vector<float> one(1);
  cpu_own_taps<float>(std::vector<float>{1.0f}, one, std::vector<float>{1.0f, tiny, tiny});
  EXPECT_EQ(one[0], 1.0f); // each 2^-24 is lost to round-to-even on its own
  cpu_own_taps<float>(std::vector<float>{1.0f}, one, std::vector<float>{tiny, tiny, 1.0f});
  EXPECT_EQ(one[0], 1.0f + 2 * tiny);
  const std::vector<std::uint8_t> bytes = {10, 20, 200, 0};
  std::vector<std::uint8_t> got(4);
  cpu_own_taps<std::uint8_t>(bytes, got, std::vector<float>{0.125f, 0.125f}); // 2.5 -> 2
  EXPECT_EQ(got, (std::vector<std::uint8_t>{2, 5, 50, 0}));
  cpu_own_taps<std::uint8_t>(bytes, got, std::vector<float>{1.0f, 1.0f});
  EXPECT_EQ(got, (std::vector<std::uint8_t>{20, 40, 255, 0}));
  std::vector<float> short_out(2);
  EXPECT_THROW(cpu_own_taps<float>(in, short_out, std::vector<float>{1.0f}),
               std::invalid_argument);
}

TEST(ConvolutionReference, OneDimensionalBoxOfOnes) {
  const std::vector<float> in = {1, 2, 3, 4};
  std::vector<float> out(4);
  cpu_convolve1d(in, out, std::vector<float>{1, 1, 1}, Border::zero);
  EXPECT_EQ(out, (std::vector<float>{3, 6, 9, 7}));
  cpu_convolve1d(in, out, std::vector<float>{1, 1, 1}, Border::clamp);
  EXPECT_EQ(out, (std::vector<float>{4, 6, 9, 11}));
  cpu_convolve1d(in, out, std::vector<float>{1, 1, 1}, Border::reflect);
  EXPECT_EQ(out, (std::vector<float>{5, 6, 9, 10}));
  cpu_convolve1d(in, out, std::vector<float>{1, 1, 1}, Border::wrap);
  EXPECT_EQ(out, (std::vector<float>{7, 6, 9, 8}));
  // No flip: an asymmetric mask picks the left neighbour with its first tap.
  cpu_convolve1d(in, out, std::vector<float>{1, 0, 0}, Border::zero);
  EXPECT_EQ(out, (std::vector<float>{0, 1, 2, 3}));
}

TEST(ConvolutionReference, CompareReportsTheFirstMismatchAndNaN) {
  const std::vector<float> a = {1, 2, 3, 4}, b = {1, 2, 3.5f, 4};
  EXPECT_EQ(compare_images<float>(a, a, 2, 0.0), "");
  EXPECT_NE(compare_images<float>(a, b, 2, 0.1).find("row 1, scalar 0"), std::string::npos);
  EXPECT_EQ(compare_images<float>(a, b, 2, 0.5), "");
  const std::vector<float> nan = {1, 2, std::nanf(""), 4};
  EXPECT_NE(compare_images<float>(nan, a, 2, 1e9), "");
}

TEST(ConvolutionMasks, NamedMasksAndBorders) {
  const NamedMask g = named_mask("gaussian:5");
  EXPECT_EQ(g.width, 5);
  double sum = 0;
  for (float v : g.taps)
    sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-6);
  EXPECT_GT(g.taps[12], g.taps[0]);
  std::vector<float> col, row;
  EXPECT_TRUE(separable(g.taps, 5, 5, col, row));
  EXPECT_FALSE(separable(named_mask("sharpen").taps, 3, 3, col, row));
  EXPECT_EQ(named_mask("box:3").taps.size(), 9u);
  EXPECT_NE(invalid_argument_message([] { named_mask("box:4"); }).find("--mask"), std::string::npos);
  EXPECT_NE(invalid_argument_message([] { named_mask("blur"); }).find("unknown mask"),
            std::string::npos);
  EXPECT_EQ(parse_border("reflect"), Border::reflect);
  EXPECT_NE(invalid_argument_message([] { parse_border("mirror"); }).find("--border"),
            std::string::npos);
}

// `-s ROWSxCOLS` runs the mask sweep on the image; `-s ROWSxCOLS:MASK` one square mask of that
// width; anything else is a usage error naming --size before anything runs.
TEST(ConvolutionSizes, AnImageWithOrWithoutOneMaskWidth) {
  const ImageSize sweep = parse_image_size("512x1024");
  EXPECT_EQ(sweep.rows, 512);
  EXPECT_EQ(sweep.cols, 1024);
  EXPECT_EQ(sweep.mask, 0);
  const ImageSize one = parse_image_size("8192x4096:7");
  EXPECT_EQ(one.rows, 8192);
  EXPECT_EQ(one.cols, 4096);
  EXPECT_EQ(one.mask, 7);
  EXPECT_EQ(parse_image_size("3x5:31").mask, 31);
  for (const char* bad : {"512x512:8", "512x512:33", "512x512:", "512x512:7x", "512x512:-3",
                          "512:7", "x512:3"})
    EXPECT_NE(invalid_argument_message([&] { parse_image_size(bad, "--size"); }).find("--size"),
              std::string::npos)
        << bad;
  const auto r = cli::test::invoke({"tune", "convolution", "-s", "256x256:4"});
  EXPECT_EQ(r.code, cli::exit_usage) << r.err;
  EXPECT_NE(r.err.find("--size"), std::string::npos) << r.err;
}

// The argument checks throw before any CUDA call, so fake device pointers are enough.
TEST(ConvolveArguments, BadArgumentsAreNamedBeforeAnythingRuns) {
  alignas(16) static float image[64];
  float* in = image;
  float* out = image + 32;
  const float mask[9] = {};
  auto msg = [&](auto body) { return invalid_argument_message(body); };
  EXPECT_NE(msg([&] { convolve2d(in, 16, out, 16, -1, 2, 1, mask, 3, 3, Border::zero); })
                .find("width"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d(in, 16, out, 16, 4, -2, 1, mask, 3, 3, Border::zero); })
                .find("height"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d(in, 16, out, 16, 4, 2, 2, mask, 3, 3, Border::zero); })
                .find("channels"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d(in, 16, out, 16, 4, 2, 1, mask, 4, 3, Border::zero); })
                .find("mask_width"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d(in, 16, out, 16, 4, 2, 1, mask, 3, 33, Border::zero); })
                .find("mask_height"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d(in, 16, out, 16, 4, 2, 1, mask, -1, 3, Border::zero); })
                .find("mask_width"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d(in, 16, out, 16, 4, 2, 1, nullptr, 3, 3, Border::zero); })
                .find("mask is null"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d(in, 12, out, 16, 4, 2, 1, mask, 3, 3, Border::zero); })
                .find("in_pitch_bytes"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d(in, 16, out, 8, 4, 2, 1, mask, 3, 3, Border::zero); })
                .find("out_pitch_bytes"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d(in, 18, out, 16, 4, 2, 1, mask, 3, 3, Border::zero); })
                .find("multiple of the element size"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d<float>(nullptr, 16, out, 16, 4, 2, 1, mask, 3, 3, Border::zero); })
                .find("in is null"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d(in, 16, in + 4, 16, 4, 2, 1, mask, 3, 3, Border::zero); })
                .find("overlap"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve2d(in, 16, in, 16, 4, 2, 1, mask, 3, 3, Border::zero); })
                .find("overlap"),
            std::string::npos);
  EXPECT_NE(msg([&] {
              convolve2d(in, 16, out, 16, 4, 2, 1, mask, 3, 3, static_cast<Border>(9));
            }).find("border"),
            std::string::npos);
  EXPECT_NE(msg([&] {
              convolve2d(reinterpret_cast<const float*>(reinterpret_cast<char*>(in) + 1), 16, out,
                         16, 4, 2, 1, mask, 3, 3, Border::zero);
            }).find("aligned"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve1d(in, out, -5, mask, 3, Border::zero); }).find("n must be"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve1d(in, out, 5, mask, 2, Border::zero); }).find("mask_width"),
            std::string::npos);
  EXPECT_NE(msg([&] { convolve1d(in, in + 2, 5, mask, 3, Border::zero); }).find("overlap"),
            std::string::npos);
  // Bad mask sizes are refused even for an empty image; an empty image is otherwise a no-op.
  EXPECT_NE(msg([&] { convolve2d<float>(nullptr, 0, nullptr, 0, 0, 0, 1, mask, 2, 3, Border::zero); })
                .find("mask_width"),
            std::string::npos);
  EXPECT_EQ(msg([&] { convolve2d<float>(nullptr, 0, nullptr, 0, 0, 0, 1, mask, 3, 3, Border::zero); }),
            "");
}

// The 2D story past the course, in the order its step ratios assume: row reuse is measured against
// the staged kernel it changes, and its clamp row against row reuse (the price of the policy).
// Every tuning variant names a story rung (or a reference: the joint bound's shapes) listed
// before it.
TEST(ConvolutionRegistry, StoryOrderAndVariantsTuneEarlierStoryRungs) {
  std::vector<std::string_view> story, tunable;
  for (const Rung2d& rung : registry_2d()) {
    if (lab::in_story(rung.info.role))
      story.push_back(rung.info.name);
    if (lab::in_story(rung.info.role) || rung.info.role == lab::Role::reference)
      tunable.push_back(rung.info.name);
    if (rung.info.role == lab::Role::variant)
      EXPECT_NE(std::find(tunable.begin(), tunable.end(), rung.info.variant_of), tunable.end())
          << rung.info.name << " tunes '" << rung.info.variant_of
          << "', no earlier story rung or reference";
  }
  const auto at = [&](std::string_view name) { return std::find(story.begin(), story.end(), name); };
  ASSERT_NE(at("staged_v16"), story.end());
  ASSERT_NE(at("row_reuse"), story.end());
  EXPECT_EQ(at("row_reuse") - at("staged_v16"), 1);
  EXPECT_EQ(at("row_reuse_clamp") - at("row_reuse"), 1);
}

} // namespace
} // namespace ladder::test

namespace ladder::test {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("ladder_conv_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(ConvolutionPng, RoundTripOfGrayRgbAndRgba) {
  if (!lab::convolution::have_png())
    GTEST_SKIP() << "built without libpng";
  std::mt19937 rng(8);
  for (int channels : {1, 3, 4}) {
    lab::convolution::PngImage image{37, 23, channels, {}};
    image.pixels.resize(static_cast<std::size_t>(37 * 23 * channels));
    for (auto& p : image.pixels)
      p = static_cast<std::uint8_t>(rng());
    const std::string path = temp_path("round" + std::to_string(channels) + ".png");
    lab::convolution::write_png(path, image);
    const auto back = lab::convolution::read_png(path);
    std::filesystem::remove(path);
    EXPECT_EQ(back.width, 37);
    EXPECT_EQ(back.height, 23);
    EXPECT_EQ(back.channels, channels);
    EXPECT_EQ(back.pixels, image.pixels) << channels << " channels";
  }
}

TEST(ConvolutionPng, ReadingANonPngFileSaysSo) {
  if (!lab::convolution::have_png())
    GTEST_SKIP() << "built without libpng";
  const std::string path = temp_path("not.png");
  std::ofstream(path) << "not a picture";
  try {
    lab::convolution::read_png(path);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a PNG"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(ConvolutionPng, MasksFromTextFiles) {
  const std::string path = temp_path("mask.txt");
  std::ofstream(path) << "# a 3 x 5 mask\n1 2 3 4 5\n6, 7, 8, 9, 10\n\n11 12 13 14 15\n";
  const auto m = lab::convolution::load_mask(path);
  EXPECT_EQ(m.width, 5);
  EXPECT_EQ(m.height, 3);
  EXPECT_EQ(m.taps[7], 8.0f);
  std::ofstream(path) << "1 2\n3 4\n";
  EXPECT_NE(invalid_argument_message([&] { lab::convolution::load_mask(path); }).find("odd"),
            std::string::npos);
  std::ofstream(path) << "1 x 3\n";
  EXPECT_NE(invalid_argument_message([&] { lab::convolution::load_mask(path); })
                .find("not a number"),
            std::string::npos);
  std::filesystem::remove(path);
  EXPECT_EQ(lab::convolution::load_mask("gaussian:3").width, 3);
}

// `ladder convolve`: every argument checked, and named, before the device or the files are used.
TEST(ConvolveCommand, BadArgumentsAreUsageErrorsNamingThem) {
  const std::string in = temp_path("cli-in.png");
  if (lab::convolution::have_png())
    lab::convolution::write_png(in, {4, 3, 1, std::vector<std::uint8_t>(12, 7)});
  struct Case {
    std::vector<std::string> args;
    const char* named;
  };
  for (const Case& c : {Case{{"convolve", in, "out.png", "--mask", "blur:3"}, "--mask"},
                        Case{{"convolve", in, "out.png", "--border", "mirror"}, "--border"},
                        Case{{"convolve", "/nonexistent/in.png", "out.png"}, "input"},
                        Case{{"convolve", in}, "output"}}) {
    const auto r = cli::test::invoke(c.args);
    EXPECT_EQ(r.code, cli::exit_usage) << c.args.back();
    if (lab::convolution::have_png())
      EXPECT_NE(r.err.find(c.named), std::string::npos) << r.err;
  }
  std::filesystem::remove(in);
}

TEST(ConvolveCommand, FiltersAPictureOrSaysThereIsNoDevice) {
  if (!lab::convolution::have_png())
    GTEST_SKIP() << "built without libpng";
  const std::string in = temp_path("cli-rgb.png"), out = temp_path("cli-out.png");
  std::mt19937 rng(3);
  lab::convolution::PngImage image{21, 13, 3, {}};
  image.pixels.resize(21 * 13 * 3);
  for (auto& p : image.pixels)
    p = static_cast<std::uint8_t>(rng());
  lab::convolution::write_png(in, image);
  const auto r = cli::test::invoke({"convolve", in, out, "--mask", "box:3", "--border", "reflect"});
  if (device_count() > 0) {
    ASSERT_EQ(r.code, cli::exit_ok) << r.err;
    const auto back = lab::convolution::read_png(out);
    EXPECT_EQ(back.width, 21);
    EXPECT_EQ(back.height, 13);
    EXPECT_EQ(back.channels, 3);
    // The picture the GPU wrote is the CPU reference's, exactly (uint8 sums in reference order).
    std::vector<std::uint8_t> expected(image.pixels.size());
    const auto mask = lab::convolution::named_mask("box:3");
    cpu_convolve2d<std::uint8_t>({image.pixels.data(), 63, 21, 13, 3},
                                 {expected.data(), 63, 21, 13, 3}, mask.taps, 3, 3,
                                 Border::reflect);
    EXPECT_EQ(back.pixels, expected);
  } else {
    EXPECT_EQ(r.code, cli::exit_no_device);
    EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
  }
  std::filesystem::remove(in);
  std::filesystem::remove(out);
}

// `ladder run convolution --image PATH`: the picture is checked, and named, before the device.
TEST(RunImageOption, OnlyTheConvolutionStudyTakesAReadablePicture) {
  const std::string png = temp_path("run-image.png"), text = temp_path("run-image.txt");
  if (lab::convolution::have_png())
    lab::convolution::write_png(png, {5, 4, 3, std::vector<std::uint8_t>(60, 9)});
  std::ofstream(text) << "not a picture\n";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "transpose", "--image", png},
        std::vector<std::string>{"run", "--image", png},
        std::vector<std::string>{"run", "convolution", "--image", "/nonexistent/p.png"},
        std::vector<std::string>{"run", "convolution", "--image", text}}) {
    const auto r = cli::test::invoke(args);
    EXPECT_EQ(r.code, cli::exit_usage) << args[1] << " " << args.back();
    EXPECT_NE(r.err.find("--image"), std::string::npos) << r.err;
  }
  if (lab::convolution::have_png() && device_count() == 0) {
    const auto r = cli::test::invoke({"run", "convolution", "--image", png});
    EXPECT_EQ(r.code, cli::exit_no_device) << r.err;
  }
  std::filesystem::remove(png);
  std::filesystem::remove(text);
}

} // namespace
} // namespace ladder::test
