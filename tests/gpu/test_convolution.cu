// GPU tests of the convolution ladder and of ladder::convolve2d / convolve1d. Registry-driven:
// every rung over element types x channels x awkward shapes (1 x 1, 1 x n, n x 1, primes, widths
// that are no multiple of any tile, pitch > row) x mask sizes, outputs poisoned, against the CPU
// reference. uint8 results are exact; float results of rungs that sum in the reference's order are
// exact too (the same fused multiply-adds in the same order), others within float_error_bound.
#include "convolution_harness.hpp"
#include "gpu_test.hpp"

#include "convolution/api_dispatch.hpp"
#include "convolution/image_io.hpp"
#include "convolution/reference.hpp"
#include "convolution/variants.hpp"
#include "convolution/bulk.cuh"
#include "convolution/column.cuh"
#include "convolution/pipelined.cuh"
#include "convolution/walk.cuh"
#include "convolution/window.cuh"
#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "ladder/convolve.hpp"

#include <gtest/gtest.h>

#include <string_view>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace ladder::test {
namespace {

using namespace conv_harness;
using lab::convolution::Element;
using lab::convolution::Problem2d;

// ---- the registry ----------------------------------------------------------------------------

std::vector<Case> registry_cases(int channels, std::int64_t elem) {
  std::vector<Case> cases = {
      {1, 1, channels, 3, 3, 0, 0},      {1, 37, channels, 5, 5, 0, 0},
      {67, 1, channels, 5, 5, 0, 0},     {67, 45, channels, 3, 3, 0, 0},
      {131, 37, channels, 7, 7, 4 * elem, 0}, {257, 193, channels, 9, 9, 0, 0},
      {200, 70, channels, 15, 15, 0, 0}, {61, 83, channels, 3, 7, 0, 0},
      {129, 33, channels, 1, 1, 0, 0},
      // 16-byte aligned rows (528 x C x element bytes) with tiles wholly inside the image, so
      // that the interior fast paths (Staging::vector_interior, interior_lean) run beside the
      // tested ones at the edges.
      {528, 101, channels, 5, 5, 0, 0},
      // Whole 128 x 64 tiles (the rings that copy their edge tiles too take only these).
      {512, 128, channels, 7, 7, 0, 0}};
  if (!small_mode()) {
    cases.push_back({1031, 517, channels, 5, 5, 64, 0});
    cases.push_back({2048, 300, channels, 15, 15, 0, 0});
  }
  return cases;
}

class Convolution2dRungTest : public ::testing::TestWithParam<std::size_t> {};

template <class T> void test_rung(const lab::convolution::Rung2d& rung, int channels, int& tested) {
  std::mt19937 rng(1234 + static_cast<unsigned>(channels));
  for (const Case& c : registry_cases(channels, sizeof(T))) {
    Harness<T> h(c, rng);
    if (rung.needs_separable_mask) { // a column times a row
      const auto column = random_mask(c.mh, false, rng), row = random_mask(c.mw, false, rng);
      for (int j = 0; j < c.mh; ++j)
        for (int i = 0; i < c.mw; ++i)
          h.mask[static_cast<std::size_t>(j * c.mw + i)] =
              column[static_cast<std::size_t>(j)] * row[static_cast<std::size_t>(i)];
    }
    std::vector<float> reversed(h.mask.rbegin(), h.mask.rend());
    lab::DeviceBuffer<float> mask_d(h.mask.size()), reversed_d(h.mask.size());
    ASSERT_EQ(cudaMemcpy(mask_d.data(), h.mask.data(), mask_d.bytes(), cudaMemcpyHostToDevice),
              cudaSuccess);
    ASSERT_EQ(cudaMemcpy(reversed_d.data(), reversed.data(), reversed_d.bytes(),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
    const Problem2d p{sizeof(T) == 4 ? Element::f32 : Element::u8,
                      c.channels,
                      c.width,
                      c.height,
                      h.pitch,
                      c.mw,
                      c.mh,
                      rung.needs_separable_mask};
    if (rung.unsupported(p))
      continue;
    const lab::convolution::Buffers2d b{p, h.in.data, h.out.data, h.mask.data(), mask_d.data(),
                                        reversed_d.data()};
    const auto got = h.run([&](cudaStream_t s) { rung.launch(b, s); });
    std::vector<T> want = rung.copies ? h.host_in : h.expected(rung.border);
    if (rung.own_taps)
      lab::convolution::cpu_own_taps<T>(h.host_in, want, h.mask);
    const double tol = sizeof(T) == 1 ? (rung.reference_order || rung.copies ? 0.0 : 1.0)
                       : rung.reference_order || rung.copies || rung.own_taps
                           ? 0.0
                           : lab::convolution::float_error_bound(h.mask, 1.0);
    EXPECT_EQ(lab::convolution::compare_images<T>(got, want, c.width * c.channels, tol), "")
        << rung.info.name << " on " << h.label();
    ++tested;
  }
}

TEST_P(Convolution2dRungTest, MatchesCpuReferenceOnEveryProblemItSupports) {
  const auto& rung = lab::convolution::registry_2d()[GetParam()];
  // On the H200 test machine (cuDNN 9.14) this row's algorithm search crashed the test process on
  // the registry's small images; `ladder run convolution` checks it against the CPU reference on
  // every image it times (a wrong result is reported WRONG there and gets no time).
  if (std::string_view(rung.info.name) == "cudnnConvolutionForward")
    GTEST_SKIP() << "cuDNN: checked by ladder run convolution, not on the registry's small images";
  int tested = 0;
  for (int channels : {1, 3, 4}) {
    test_rung<float>(rung, channels, tested);
    test_rung<std::uint8_t>(rung, channels, tested);
  }
  if (rung.info.vendor && tested == 0)
    GTEST_SKIP() << rung.info.name << " is not available in this build";
  EXPECT_GT(tested, 0) << rung.info.name << " supports none of the test problems";
}

INSTANTIATE_TEST_SUITE_P(Registry, Convolution2dRungTest,
                         ::testing::Range<std::size_t>(0, lab::convolution::registry_2d().size()),
                         [](const auto& info) {
                           return test_name(lab::convolution::registry_2d()[info.param].info.name);
                         });

class Convolution1dRungTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Convolution1dRungTest, MatchesCpuReference) {
  const auto& rung = lab::convolution::registry_1d()[GetParam()];
  std::mt19937 rng(99);
  std::vector<std::int64_t> sizes = {1, 2, 7, 31, 1000, 1023, 1024, 1025, 4097, 100003};
  if (!small_mode())
    sizes.push_back(3000017);
  int tested = 0;
  for (std::int64_t n : sizes)
    for (int mw : {1, 3, 5, 9, 15, 31}) {
      const lab::convolution::Problem1d p{n, mw};
      if (rung.unsupported(p))
        continue;
      auto host = random_host<float>(static_cast<std::size_t>(n), rng);
      const auto mask = random_mask(mw, false, rng);
      lab::DeviceBuffer<float> in(host.size()), out(host.size()), mask_d(mask.size());
      ASSERT_EQ(cudaMemcpy(in.data(), host.data(), in.bytes(), cudaMemcpyHostToDevice),
                cudaSuccess);
      ASSERT_EQ(cudaMemcpy(mask_d.data(), mask.data(), mask_d.bytes(), cudaMemcpyHostToDevice),
                cudaSuccess);
      lab::poison(out.data(), out.bytes(), nullptr);
      rung.launch({p, in.data(), out.data(), mask.data(), mask_d.data()}, nullptr);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      std::vector<float> got(host.size()), want(host.size());
      ASSERT_EQ(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost),
                cudaSuccess);
      if (rung.copies)
        want = host;
      else
        lab::convolution::cpu_convolve1d(host, want, mask, rung.border);
      const double tol =
          rung.reference_order || rung.copies ? 0.0 : lab::convolution::float_error_bound(mask, 1.0);
      EXPECT_EQ(lab::convolution::compare_images<float>(got, want, n, tol), "")
          << rung.info.name << " n " << n << " mask " << mw;
      ++tested;
    }
  if (rung.info.vendor && tested == 0)
    GTEST_SKIP() << rung.info.name << " is not available in this build";
  EXPECT_GT(tested, 0);
}

INSTANTIATE_TEST_SUITE_P(Registry, Convolution1dRungTest,
                         ::testing::Range<std::size_t>(0, lab::convolution::registry_1d().size()),
                         [](const auto& info) {
                           return test_name(lab::convolution::registry_1d()[info.param].info.name);
                         });

// ---- the library call ------------------------------------------------------------------------

// Exact, except float images of one channel under 7 x 7 masks, which may take the walked pairs
// (convolution/walk.cuh): their upward warps add the mask's rows bottom first, so within
// float_error_bound.
template <class T> void library_case(const Case& c, Border border, std::mt19937& rng) {
  Harness<T> h(c, rng);
  const auto got = h.run([&](cudaStream_t s) {
    ladder::convolve2d(reinterpret_cast<const T*>(h.in.data), h.pitch,
                       reinterpret_cast<T*>(h.out.data), h.pitch, c.width, c.height, c.channels,
                       h.mask.data(), c.mw, c.mh, border, s);
  });
  const bool walked = sizeof(T) == 4 && c.channels == 1 && c.mw == 7 && c.mh == 7;
  const double tol = walked ? lab::convolution::float_error_bound(h.mask, 1.0) : 0.0;
  EXPECT_EQ(lab::convolution::compare_images<T>(got, h.expected(border), c.width * c.channels, tol),
            "")
      << (sizeof(T) == 4 ? "float " : "uint8 ") << h.label() << " border "
      << lab::convolution::border_name(border);
}

TEST(Convolve2d, EveryBorderChannelCountAndMaskShapeMatchesTheReference) {
  std::mt19937 rng(7);
  std::vector<std::pair<int, int>> masks = {{1, 1}, {3, 3}, {5, 5}, {7, 7}, {9, 9}, {11, 11},
                                            {15, 15}, {3, 9}, {9, 3}, {17, 17}, {31, 31}, {1, 31}};
  std::vector<std::array<std::int64_t, 2>> shapes = {{1, 1}, {1, 29}, {29, 1}, {2, 2},  {67, 45},
                                                     {131, 37}, {513, 17}, {5, 130}};
  if (!small_mode()) {
    shapes.push_back({1029, 263});
    shapes.push_back({4099, 70});
  }
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (int channels : {1, 3, 4})
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        // Each shape with two masks (all masks over the shapes), pitch > row on odd shapes and a
        // misaligned start on some.
        for (std::size_t k = 0; k < 2; ++k) {
          const auto [mw, mh] = masks[(s * 2 + k + static_cast<std::size_t>(channels)) % masks.size()];
          const std::int64_t extra = s % 2 ? 12 : 0;
          const Case c{shapes[s][0], shapes[s][1], channels, mw, mh, extra, s % 3 == 2 ? 4 : 0};
          library_case<float>(c, border, rng);
          const Case odd{c.width, c.height, c.channels, mw, mh,
                         extra + static_cast<std::int64_t>(s % 2), s % 3 == 2 ? 1 : 0};
          library_case<std::uint8_t>(odd, border, rng);
        }
      }
}

TEST(Convolve2d, EveryMaskWidthOnAFloatAndAnRgbImage) {
  std::mt19937 rng(11);
  for (int w = 1; w <= 31; w += 2) {
    library_case<float>({300, 41, 1, w, 5, 0, 0}, Border::reflect, rng);
    library_case<float>({77, 40, 3, w, 3, 0, 0}, Border::clamp, rng);
    library_case<std::uint8_t>({130, 35, 3, w, 7, 3, 1}, Border::zero, rng);
    library_case<std::uint8_t>({90, 36, 4, w, 1, 0, 0}, Border::wrap, rng);
    library_case<std::uint8_t>({333, 20, 1, w, w, 0, 0}, Border::clamp, rng);
  }
}

// The walked pairs, which float images of one channel under 7 x 7 masks take when their rows are
// 16-byte aligned and they are at least 136 x 22: the smallest such image, widths that leave 4 to
// 7 columns of frame on the right and a last column of warps moved back, heights that move the last
// row of warps back, padded pitches, every border.
TEST(Convolve2d, WalkedPairsEveryBorderAndEdgeShape) {
  std::mt19937 rng(2029);
  std::vector<std::array<std::int64_t, 2>> shapes = {{136, 22}, {137, 23},  {139, 37},
                                                     {255, 40}, {256, 64},  {257, 65}};
  if (!small_mode()) {
    shapes.push_back({383, 131});
    shapes.push_back({1040, 140});
  }
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (const auto& [w, h] : shapes)
      for (std::int64_t pad : {0, 32})
        library_case<float>({w, h, 1, 7, 7, (16 - w * 4 % 16) % 16 + pad, 0}, border, rng);
}

// The walked pairs with their last rows of blocks walking 6 rows a warp (the library's tail,
// called with the tail's length given): tails of one row of blocks to the whole image, which end
// past the image's bottom or exactly at it, every border, padded pitches.
TEST(ConvolutionWalk, TailsOfEveryLengthAndBorder) {
  std::mt19937 rng(2031);
  using Shape = conv_detail::WalkShape<7>;
  std::vector<std::array<std::int64_t, 2>> shapes = {{136, 22}, {257, 65}, {139, 200}, {383, 131}};
  if (!small_mode())
    shapes.push_back({1040, 517});
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (const auto& [w, h] : shapes)
      for (std::int64_t tail : {1, 2, 3, 1000}) {
        const Case c{w, h, 1, 7, 7, (16 - w * 4 % 16) % 16 + (tail % 2 ? 32 : 0), 0};
        Harness<float> harness(c, rng);
        const conv_detail::ImageArgs a = harness.image_args(border);
        const auto mask = conv_detail::make_mask_param(harness.mask.data(), 7, 7);
        const auto got = harness.run([&](cudaStream_t s) {
          conv_detail::launch_walk_2d<7, Shape::rows, Shape::warps_x, Shape::warps_y, Shape::min_blocks,
                                      Shape::pairs, 1, Shape::tail_rows, Shape::ask_level, Shape::ahead>(
              a, mask, s, conv_detail::WalkTail{tail});
        });
        EXPECT_EQ(lab::convolution::compare_images<float>(
                      got, harness.expected(border), c.width,
                      lab::convolution::float_error_bound(harness.mask, 1.0)),
                  "")
            << harness.label() << " tail " << tail << " " << lab::convolution::border_name(border);
      }
}

// An image of more than two waves of the walked pairs' blocks on this GPU, so that the library
// call gives its last wave the tail.
TEST(Convolve2d, WalkedPairsTakeTheTailOnLargeImages) {
  if (small_mode())
    GTEST_SKIP() << "a 1040 x 13,000-row image or so: not at --small";
  std::mt19937 rng(2033);
  using Shape = conv_detail::WalkShape<7>;
  conv_detail::ImageArgs a;
  a.width = 1040; // (the blocks across depend on the width alone)
  const std::int64_t blocks_x = conv_detail::walk_2d_counts<7, Shape::rows, Shape::warps_x, Shape::warps_y>(a).blocks_x;
  const std::int64_t tile_rows = 2 * conv_detail::walk_shape_resident<7>() / blocks_x + 3;
  a.height = tile_rows * Shape::rows * Shape::warps_y + 1;
  ASSERT_GT(conv_detail::walk_shape_tail<7>(a).block_rows, 0);
  for (Border border : {Border::zero, Border::reflect})
    library_case<float>({a.width, a.height, 1, 7, 7, 0, 0}, border, rng);
}

TEST(Convolve2d, EmptyImagesAreNoOps) {
  const float mask[1] = {1};
  EXPECT_NO_THROW(ladder::convolve2d<float>(nullptr, 0, nullptr, 0, 0, 5, 1, mask, 1, 1,
                                            Border::zero));
  EXPECT_NO_THROW(ladder::convolve2d<std::uint8_t>(nullptr, 0, nullptr, 0, 5, 0, 3, mask, 1, 1,
                                                   Border::zero));
  EXPECT_NO_THROW(ladder::convolve1d(nullptr, nullptr, 0, mask, 1, Border::zero));
}

// Images whose inner tiles take the library's interior staging and stores (convolution/tiled.cuh,
// Staging::interior_lean: masks up to 9 wide), or its wide register tiles' interior path: aligned starts, pitches a multiple of 16 bytes
// (with and without padding) and several tiles each way, so that interior and edge tiles meet.
TEST(Convolve2d, InteriorTilesOfAlignedImagesMatchTheReference) {
  std::mt19937 rng(11);
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (int channels : {1, 3, 4})
      for (int mw : {1, 3, 5, 7, 9, 11})
        for (std::int64_t extra : {0, 64}) {
          const int mh = mw == 7 ? 3 : mw; // one rectangular mask
          // Widths whose rows are whole 16-byte words for both element types.
          const Case c{304, 100, channels, mw, mh, extra, 0};
          library_case<float>(c, border, rng);
          library_case<std::uint8_t>(c, border, rng);
          // Float square masks of 7 take the walked pairs (convolution/walk.cuh), 9 the wide
          // register tile (convolution/wide.cuh): their warps span 128 and 256 columns, and
          // interior warps need a wider image.
          if (channels == 1)
            library_case<float>({1040, 140, 1, mw, mw, extra, 0}, border, rng);
        }
}

// The window kernels (convolution/window.cuh) called directly, under every border policy, with
// pointers off 16-byte boundaries and padded pitches: their bordered path and their 16-byte path
// must both give the reference exactly (their rungs run them on aligned buffers with zero borders
// only).
TEST(ConvolutionWindow, OneDimensionalEveryBorderWidthAndOffset) {
  std::mt19937 rng(77);
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (std::int64_t n : {1, 5, 1000, 4097, 100003})
      for (int mw : {1, 3, 9, 31})
        for (std::int64_t offset : {0, 1}) {
          const auto host = random_host<float>(static_cast<std::size_t>(n), rng);
          const auto mask = random_mask(mw, false, rng);
          lab::DeviceBuffer<float> in(static_cast<std::size_t>(n + 1)),
              out(static_cast<std::size_t>(n + 1));
          ASSERT_EQ(cudaMemcpy(in.data() + offset, host.data(), host.size() * 4,
                               cudaMemcpyHostToDevice),
                    cudaSuccess);
          lab::poison(out.data(), out.bytes(), nullptr);
          conv_detail::ImageArgs a;
          a.in = reinterpret_cast<const unsigned char*>(in.data() + offset);
          a.out = reinterpret_cast<unsigned char*>(out.data() + offset);
          a.in_pitch = a.out_pitch = n * 4;
          a.width = n;
          a.height = 1;
          a.border = border;
          conv_detail::launch_window_1d<2>(a, conv_detail::make_mask_param(mask.data(), mw, 1),
                                           nullptr);
          std::vector<float> got(host.size()), want(host.size());
          ASSERT_EQ(cudaMemcpy(got.data(), out.data() + offset, got.size() * 4,
                               cudaMemcpyDeviceToHost),
                    cudaSuccess);
          lab::convolution::cpu_convolve1d(host, want, mask, border);
          EXPECT_EQ(lab::convolution::compare_images<float>(got, want, n, 0.0), "")
              << "n " << n << " mask " << mw << " offset " << offset << " "
              << lab::convolution::border_name(border);
        }
}

TEST(ConvolutionWindow, TwoDimensionalEveryBorderWidthAndPitch) {
  std::mt19937 rng(78);
  // 16-byte aligned rows with tiles inside the image (the 16-byte path beside the bordered one),
  // a pointer 4 bytes off (the bordered path everywhere), padded pitches, 1 x 1.
  const std::vector<Case> cases = {{1, 1, 1, 3, 3, 0, 0},      {67, 45, 1, 5, 5, 0, 0},
                                   {528, 101, 1, 3, 3, 0, 0},  {528, 101, 1, 7, 7, 0, 4},
                                   {300, 200, 1, 9, 9, 64, 0}, {529, 70, 1, 5, 5, 12, 0},
                                   {260, 90, 1, 1, 1, 0, 0}};
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (const Case& c : cases) {
      Harness<float> h(c, rng);
      const conv_detail::ImageArgs a = h.image_args(border);
      const auto mask = conv_detail::make_mask_param(h.mask.data(), c.mw, c.mh);
      const auto got = h.run([&](cudaStream_t s) {
        switch (c.mw) {
        case 1: return conv_detail::launch_window_2d<1, 4>(a, mask, s);
        case 3: return conv_detail::launch_window_2d<3, 4>(a, mask, s);
        case 5: return conv_detail::launch_window_2d<5, 4>(a, mask, s);
        case 7: return conv_detail::launch_window_2d<7, 4>(a, mask, s);
        default: return conv_detail::launch_window_2d<9, 4>(a, mask, s);
        }
      });
      EXPECT_EQ(lab::convolution::compare_images<float>(got, h.expected(border), c.width, 0.0), "")
          << h.label() << " " << lab::convolution::border_name(border);
    }
}

// The lane-halo kernel (convolution/window.cuh) at the row counts the lab and the library use, on
// float images of one channel and uint8 images of 1, 3 and 4 channels: the vector path beside the
// gathered one (image edges, pointers and pitches off the vector's alignment: 16 bytes for float,
// 4 for uint8), images narrower than a warp's 128 columns or the halo, shorter than the mask,
// 1 x 1.
template <class T, int C, int RY, int MinBlocks> void lanes_cases(std::mt19937& rng) {
  std::vector<Case> cases = {{1, 1, C, 3, 3, 0, 0},     {67, 45, C, 5, 5, 0, 0},
                             {528, 101, C, 3, 3, 0, 0}, {528, 101, C, 7, 7, 0, 4},
                             {300, 200, C, 9, 9, 64, 0}, {529, 70, C, 5, 5, 12, 0},
                             {260, 90, C, 1, 1, 0, 0},  {5, 97, C, 7, 7, 0, 0},
                             {130, 3, C, 9, 9, 0, 0},   {3, 2, C, 5, 5, 0, 0},
                             {257, 33, C, 3, 3, 16, 0}};
  if constexpr (sizeof(T) == 1) // off 4-byte words: the start, the pitch
    cases.insert(cases.end(), {{300, 50, C, 5, 5, 0, 1}, {260, 41, C, 3, 3, 2, 0},
                               {512, 37, C, 9, 9, 0, 2}});
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (const Case& c : cases) {
      Harness<T> h(c, rng);
      const conv_detail::ImageArgs a = h.image_args(border);
      const auto mask = conv_detail::make_mask_param(h.mask.data(), c.mw, c.mh);
      const auto got = h.run([&](cudaStream_t s) {
        switch (c.mw) {
        case 1: return conv_detail::launch_lanes_2d<T, C, 1, RY, MinBlocks>(a, mask, s);
        case 3: return conv_detail::launch_lanes_2d<T, C, 3, RY, MinBlocks>(a, mask, s);
        case 5: return conv_detail::launch_lanes_2d<T, C, 5, RY, MinBlocks>(a, mask, s);
        case 7: return conv_detail::launch_lanes_2d<T, C, 7, RY, MinBlocks>(a, mask, s);
        default: return conv_detail::launch_lanes_2d<T, C, 9, RY, MinBlocks>(a, mask, s);
        }
      });
      EXPECT_EQ(lab::convolution::compare_images<T>(got, h.expected(border), c.width * C, 0.0), "")
          << h.label() << " rows per thread " << RY << " " << lab::convolution::border_name(border);
    }
}

TEST(ConvolutionLanes, EveryBorderWidthPitchAndAlignment) {
  std::mt19937 rng(81);
  lanes_cases<float, 1, 4, 1>(rng);
  lanes_cases<float, 1, 2, 4>(rng);
  lanes_cases<float, 1, 8, 2>(rng);
}

TEST(ConvolutionLanes, Uint8EveryChannelCountBorderWidthPitchAndAlignment) {
  std::mt19937 rng(82);
  lanes_cases<std::uint8_t, 1, 4, 1>(rng);
  lanes_cases<std::uint8_t, 3, 4, 1>(rng);
  lanes_cases<std::uint8_t, 3, 2, 1>(rng);
  lanes_cases<std::uint8_t, 3, 8, 1>(rng);
  lanes_cases<std::uint8_t, 4, 4, 1>(rng);
}

// The streamed lanes (convolution/window.cuh) under every border policy: strips of 1, 3, 20 and
// 64 rows (a warp's last strip cut short by the image, strips shorter than the mask, one strip per
// image, interior warps that walk unchecked periods between their first and last), rows ahead
// beyond a strip, the vector path beside the gathered one (edges, a pointer 4 bytes off, padded
// pitches), images narrower than a warp and shorter than the mask, 1 x 1.
template <int MW, int Ahead, int MinBlocks> void stream_cases(std::mt19937& rng) {
  const std::vector<Case> cases = {{1, 1, 1, MW, MW, 0, 0},     {67, 45, 1, MW, MW, 0, 0},
                                   {528, 101, 1, MW, MW, 0, 0}, {528, 101, 1, MW, MW, 0, 4},
                                   {300, 200, 1, MW, MW, 64, 0}, {529, 70, 1, MW, MW, 12, 0},
                                   {5, 97, 1, MW, MW, 0, 0},    {130, 3, 1, MW, MW, 0, 0},
                                   {528, 300, 1, MW, MW, 0, 0}};
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (int strip : {1, 3, 20, 64})
      for (const Case& c : cases) {
        Harness<float> h(c, rng);
        const conv_detail::ImageArgs a = h.image_args(border);
        const auto mask = conv_detail::make_mask_param(h.mask.data(), c.mw, c.mh);
        const auto got = h.run([&](cudaStream_t s) {
          conv_detail::launch_lanes_stream_2d<float, 1, MW, Ahead, MinBlocks>(a, mask, strip, s);
        });
        EXPECT_EQ(lab::convolution::compare_images<float>(got, h.expected(border), c.width, 0.0),
                  "")
            << h.label() << " strip " << strip << " ahead " << Ahead << " "
            << lab::convolution::border_name(border);
      }
}

TEST(ConvolutionLanesStream, EveryBorderStripWidthPitchAndAlignment) {
  std::mt19937 rng(83);
  stream_cases<1, 4, 2>(rng);
  stream_cases<3, 4, 2>(rng);
  stream_cases<5, 4, 2>(rng);
  stream_cases<7, 3, 2>(rng);
  stream_cases<7, 2, 2>(rng);
  stream_cases<7, 6, 2>(rng);
  stream_cases<9, 4, 1>(rng);
}

// Row reuse staged by the bulk copy engine (convolution/bulk.cuh) with grids of a few blocks, so
// that each block walks many tiles and its ring of stages wraps (and the barriers' phases turn)
// with interior tiles (bulk-copied) and edge tiles (staged by the threads through the border
// policy) interleaved, under every border policy, with aligned, padded and misaligned images.
template <int MW, int Stages, class Shape = conv_detail::ShapeF32>
void bulk_case(const Case& c, Border border, int blocks, std::mt19937& rng) {
  Harness<float> h(c, rng);
  const conv_detail::ImageArgs a = h.image_args(border);
  const auto mask = conv_detail::make_mask_param(h.mask.data(), MW, MW);
  const auto got = h.run([&](cudaStream_t s) {
    conv_detail::launch_bulk<MW, Shape, Stages>(a, mask, s, blocks);
  });
  EXPECT_EQ(lab::convolution::compare_images<float>(got, h.expected(border), c.width, 0.0), "")
      << h.label() << " stages " << Stages << " blocks " << blocks << " "
      << lab::convolution::border_name(border);
}

TEST(ConvolutionBulk, EveryBorderGridStageCountAndPitch) {
  std::mt19937 rng(89);
  using Capped = conv_detail::TileShape<32, 8, 4, 4, 6>;
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (int blocks : {0, 1, 2, 3, 7}) {
      bulk_case<7, 1>({1040, 300, 1, 7, 7, 0, 0}, border, blocks, rng);
      bulk_case<7, 2>({1040, 300, 1, 7, 7, 0, 0}, border, blocks, rng);
      bulk_case<7, 3>({1040, 300, 1, 7, 7, 0, 0}, border, blocks, rng);
      bulk_case<7, 1, Capped>({1040, 300, 1, 7, 7, 0, 0}, border, blocks, rng);
      bulk_case<3, 2>({528, 301, 1, 3, 3, 0, 0}, border, blocks, rng);
      bulk_case<5, 3>({529, 130, 1, 5, 5, 12, 0}, border, blocks, rng);
      bulk_case<9, 3, Capped>({300, 200, 1, 9, 9, 64, 4}, border, blocks, rng);
      bulk_case<15, 2>({700, 150, 1, 15, 15, 64, 0}, border, blocks, rng);
      bulk_case<5, 2>({1, 1, 1, 5, 5, 0, 0}, border, blocks, rng);
    }
}

// Row reuse with the threads' staging pipelined across tiles (convolution/pipelined.cuh) with
// grids of a few blocks, so that each block walks many tiles and its two stages swap many times,
// interior tiles (Staging::interior_lean, stored with no per-row test) and edge tiles (the border
// policy) interleaved, under every border policy, with aligned, padded and misaligned images.
template <int MW, class Shape = conv_detail::TileShape<32, 8, 4, 4, 5>>
void pipelined_case(const Case& c, Border border, int blocks, std::mt19937& rng) {
  Harness<float> h(c, rng);
  const conv_detail::ImageArgs a = h.image_args(border);
  const auto mask = conv_detail::make_mask_param(h.mask.data(), MW, MW);
  const auto got = h.run([&](cudaStream_t s) {
    conv_detail::launch_pipelined<MW, Shape>(a, mask, s, blocks);
  });
  EXPECT_EQ(lab::convolution::compare_images<float>(got, h.expected(border), c.width, 0.0), "")
      << h.label() << " blocks " << blocks << " " << lab::convolution::border_name(border);
}

TEST(ConvolutionPipelined, EveryBorderGridSizeAndPitch) {
  std::mt19937 rng(91);
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (int blocks : {0, 1, 2, 3, 7}) {
      pipelined_case<7>({1040, 300, 1, 7, 7, 0, 0}, border, blocks, rng);
      pipelined_case<3>({528, 301, 1, 3, 3, 0, 0}, border, blocks, rng);
      pipelined_case<5>({529, 130, 1, 5, 5, 12, 0}, border, blocks, rng);
      pipelined_case<9>({300, 200, 1, 9, 9, 64, 4}, border, blocks, rng);
      pipelined_case<15>({700, 150, 1, 15, 15, 64, 0}, border, blocks, rng);
      pipelined_case<5>({1, 1, 1, 5, 5, 0, 0}, border, blocks, rng);
    }
}

// The column walks (convolution/column.cuh) with few tiles per block, so that blocks walk several
// tiles (the run's ring of staged rows wraps, the interleaved walk swaps its two windows), under
// every border policy, with 1, 3 and 4 channels, aligned and misaligned pointers and padded
// pitches (the walks that fill the GPU are one tile long on small images), and with streaming
// stores.
template <int C, int MW, conv_detail::ColumnWalk W, class Shape = conv_detail::ShapeF32>
void column_case(const Case& c, Border border, int run, std::mt19937& rng) {
  Harness<float> h(c, rng);
  const conv_detail::ImageArgs a = h.image_args(border);
  const auto mask = conv_detail::make_mask_param(h.mask.data(), MW, MW);
  const auto got = h.run([&](cudaStream_t s) {
    conv_detail::launch_column<float, C, MW, Shape, W>(a, mask, s, run);
  });
  EXPECT_EQ(lab::convolution::compare_images<float>(got, h.expected(border), c.width * C, 0.0), "")
      << h.label() << " run " << run << " "
      << (W == conv_detail::ColumnWalk::run ? "run walk " : "interleaved walk ")
      << lab::convolution::border_name(border);
}

template <conv_detail::ColumnWalk W> void every_column_case(std::mt19937& rng) {
  using StreamingShape = conv_detail::TileShape<32, 8, 4, 4, 1, true>;
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (int run : {0, 1, 2, 3, 7}) {
      column_case<1, 3, W>({528, 301, 1, 3, 3, 0, 0}, border, run, rng);
      column_case<1, 5, W>({529, 130, 1, 5, 5, 12, 0}, border, run, rng);
      column_case<1, 9, W>({300, 200, 1, 9, 9, 64, 4}, border, run, rng);
      column_case<1, 1, W>({260, 90, 1, 1, 1, 0, 0}, border, run, rng);
      column_case<1, 7, W>({5, 97, 1, 7, 7, 0, 0}, border, run, rng);
      column_case<3, 5, W>({176, 99, 3, 5, 5, 0, 0}, border, run, rng);
      column_case<4, 3, W>({64, 70, 4, 3, 3, 16, 4}, border, run, rng);
      column_case<1, 3, W>({1, 1, 1, 3, 3, 0, 0}, border, run, rng);
      column_case<1, 3, W, StreamingShape>({531, 133, 1, 3, 3, 0, 4}, border, run, rng);
    }
}

TEST(ConvolutionColumn, EveryBorderRunLengthChannelCountAndPitch) {
  std::mt19937 rng(79);
  every_column_case<conv_detail::ColumnWalk::run>(rng);
}

TEST(ConvolutionColumn, InterleavedEveryBorderTileCountChannelCountAndPitch) {
  std::mt19937 rng(81);
  every_column_case<conv_detail::ColumnWalk::interleaved>(rng);
}

// Images with more tiles than the GPU has resident blocks: the walks that fill the GPU (run 0)
// take several tiles per block.
template <conv_detail::ColumnWalk W> void large_column_cases(std::mt19937& rng) {
  for (Border border : {Border::zero, Border::reflect}) {
    column_case<1, 3, W>({100, 40000, 1, 3, 3, 0, 0}, border, 0, rng);
    column_case<3, 9, W>({40, 30001, 3, 9, 9, 16, 0}, border, 0, rng);
    if (!small_mode())
      column_case<1, 5, W>({4000, 2000, 1, 5, 5, 16, 0}, border, 0, rng);
  }
}

TEST(ConvolutionColumn, LargeImagesWalkTheRunsThatFillTheGpu) {
  std::mt19937 rng(80);
  large_column_cases<conv_detail::ColumnWalk::run>(rng);
}

TEST(ConvolutionColumn, InterleavedLargeImagesWalkSeveralTilesPerBlock) {
  std::mt19937 rng(82);
  large_column_cases<conv_detail::ColumnWalk::interleaved>(rng);
}

TEST(Convolve1d, EveryBorderAndWidthIsExact) {
  std::mt19937 rng(5);
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (std::int64_t n : {1, 2, 3, 17, 1024, 1025, 65537})
      for (int mw : {1, 3, 9, 15, 31}) {
        auto host = random_host<float>(static_cast<std::size_t>(n), rng);
        const auto mask = random_mask(mw, false, rng);
        lab::DeviceBuffer<float> in(host.size()), out(host.size());
        ASSERT_EQ(cudaMemcpy(in.data(), host.data(), in.bytes(), cudaMemcpyHostToDevice),
                  cudaSuccess);
        lab::poison(out.data(), out.bytes(), nullptr);
        ladder::convolve1d(in.data(), out.data(), n, mask.data(), mw, border);
        std::vector<float> got(host.size()), want(host.size());
        ASSERT_EQ(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        lab::convolution::cpu_convolve1d(host, want, mask, border);
        EXPECT_EQ(lab::convolution::compare_images<float>(got, want, n, 0.0), "")
            << "n " << n << " mask " << mw << " " << lab::convolution::border_name(border);
      }
}

// Eight host threads, each on its own stream with its own mask, call at once: each result must be
// its own mask's (a shared __constant__ mask would mix them). Each mask is changed on the host
// right after the call returns, which must not matter either.
TEST(Convolve2d, ConcurrentCallsWithDifferentMasksOnEightStreams) {
  constexpr int workers = 8;
  const std::int64_t w = small_mode() ? 300 : 2000, h = small_mode() ? 200 : 1000;
  std::mt19937 rng(21);
  const auto host = random_host<float>(static_cast<std::size_t>(w * h), rng);
  lab::DeviceBuffer<float> in(host.size());
  ASSERT_EQ(cudaMemcpy(in.data(), host.data(), in.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  // The workers' streams are not ordered after the legacy stream's copy, which may still be
  // landing when cudaMemcpy returns (pageable source).
  ASSERT_EQ(cudaStreamSynchronize(cudaStreamLegacy), cudaSuccess);
  std::vector<std::vector<float>> masks, results(workers);
  for (int i = 0; i < workers; ++i)
    masks.push_back(random_mask(25, false, rng));
  const auto original = masks;
  std::vector<std::thread> threads;
  std::vector<std::string> errors(workers);
  for (int t = 0; t < workers; ++t)
    threads.emplace_back([&, t] {
      try {
        lab::Stream stream;
        lab::DeviceBuffer<float> out(host.size());
        for (int rep = 0; rep < 20; ++rep) {
          ladder::convolve2d(in.data(), w * 4, out.data(), w * 4, w, h, 1, masks[t].data(), 5, 5,
                             Border::clamp, stream);
          // The call has copied the mask: overwriting it at once must not leak into the result.
          std::fill(masks[t].begin(), masks[t].end(), 1e6f);
          masks[t] = original[t];
        }
        results[t].resize(host.size());
        LADDER_CUDA(cudaMemcpyAsync(results[t].data(), out.data(), out.bytes(),
                                    cudaMemcpyDeviceToHost, stream));
        LADDER_CUDA(cudaStreamSynchronize(stream));
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& t : threads)
    t.join();
  for (int t = 0; t < workers; ++t) {
    ASSERT_EQ(errors[t], "");
    std::vector<float> want(host.size());
    lab::convolution::cpu_convolve2d<float>({host.data(), w, w, h, 1}, {want.data(), w, w, h, 1},
                                            original[t], 5, 5, Border::clamp);
    EXPECT_EQ(lab::convolution::compare_images<float>(results[t], want, w, 0.0), "")
        << "stream " << t;
  }
}

TEST(Convolve2d, WorksInsideStreamCapture) {
  std::mt19937 rng(3);
  Harness<std::uint8_t> h({640, 480, 3, 5, 5, 0, 0}, rng);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  lab::poison(h.out.storage.data(), h.out.storage.bytes(), h.stream);
  ASSERT_EQ(cudaStreamSynchronize(h.stream), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(h.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  ladder::convolve2d(h.in.data, h.pitch, h.out.data, h.pitch, 640, 480, 3, h.mask.data(), 5, 5,
                     Border::reflect, h.stream);
  ASSERT_EQ(cudaStreamEndCapture(h.stream, &graph), cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, h.stream), cudaSuccess);
  std::vector<std::uint8_t> got(h.host_in.size());
  ASSERT_EQ(cudaMemcpy2DAsync(got.data(), 640 * 3, h.out.data, static_cast<std::size_t>(h.pitch),
                              640 * 3, 480, cudaMemcpyDeviceToHost, h.stream),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(h.stream), cudaSuccess);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  EXPECT_EQ(lab::convolution::compare_images<std::uint8_t>(got, h.expected(Border::reflect),
                                                           640 * 3, 0.0),
            "");
}

// `ladder convolve` end to end: a generated RGB picture through a PNG file, filtered on the GPU,
// written and read back, equal to the CPU reference on the same pixels.
TEST(ConvolvePng, FiltersAPictureFileExactly) {
  if (!lab::convolution::have_png())
    GTEST_SKIP() << "built without libpng";
  lab::convolution::PngImage picture{157, 91, 3, {}};
  picture.pixels.resize(157 * 91 * 3);
  for (std::int64_t y = 0; y < 91; ++y) // a gradient with a sharp square: edges to filter
    for (std::int64_t x = 0; x < 157; ++x)
      for (int c = 0; c < 3; ++c)
        picture.pixels[static_cast<std::size_t>((y * 157 + x) * 3 + c)] = static_cast<std::uint8_t>(
            (x > 50 && x < 100 && y > 20 && y < 60) ? 255 - 40 * c : (x + 2 * y + 60 * c) % 256);
  const auto dir = std::filesystem::temp_directory_path();
  const std::string in = (dir / "ladder_conv_in.png").string(), out = (dir / "ladder_conv_out.png").string();
  lab::convolution::write_png(in, picture);
  const std::string summary = lab::convolution::convolve_png_file(in, out, "gaussian:5", "reflect");
  EXPECT_NE(summary.find("157 x 91"), std::string::npos) << summary;
  const auto filtered = lab::convolution::read_png(out);
  std::filesystem::remove(in);
  std::filesystem::remove(out);
  std::vector<std::uint8_t> want(picture.pixels.size());
  const auto mask = lab::convolution::named_mask("gaussian:5");
  lab::convolution::cpu_convolve2d<std::uint8_t>({picture.pixels.data(), 157 * 3, 157, 91, 3},
                                                 {want.data(), 157 * 3, 157, 91, 3}, mask.taps, 5,
                                                 5, Border::reflect);
  EXPECT_EQ(lab::convolution::compare_images<std::uint8_t>(filtered.pixels, want, 157 * 3, 0.0),
            "");
}

} // namespace
} // namespace ladder::test
