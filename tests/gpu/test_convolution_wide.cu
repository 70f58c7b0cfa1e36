// GPU tests of the wide register tiles of the convolution study (convolution/wide.cuh,
// wide_tensor.cuh, wide_stream.cuh) against the CPU reference, bit for bit: they sum in the
// reference's order.
#include "convolution_harness.hpp"
#include "gpu_test.hpp"

#include "convolution/api_dispatch.hpp"
#include "convolution/variants.hpp"
#include "convolution/wide.cuh"
#include "convolution/wide_stream.cuh"
#include "convolution/wide_tensor.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace ladder::test {
namespace {

using namespace conv_harness;

// The wide register tiles (convolution/wide.cuh) at the shapes the lab and the library use,
// unrolled, looping over the mask's rows, and staged by bulk copies (Bulk; RowLoop unused): warps
// wholly inside the image (the interior path) beside edge warps whose lanes load vectors or gather
// through the border policy, widths that end inside a thread's 4 KV pixels, a pointer 4 bytes off
// and a pitch off 16 bytes (every lane gathers), padded pitches, images narrower than a thread's
// window and shorter than the mask, 1 x 1. With Bulk, the 600 x 300 and 1100 x 150 images hold
// blocks whose stage lies inside (staged) beside edge blocks (the registers' path); the pointer 4
// bytes off stages none.
// How wide_cases runs the wide tile: from L1, staged by bulk copies a row, or in persistent
// blocks through a ring of stages that tensor copies fill.
// early: from L1 with each output row stored once complete; across: the same with the block's
// warps side by side along the row.
enum class WideRun { global, early, across, bulk, ring2, ring3, ring1 };

template <int KV, int RY, int MinBlocks, bool RowLoop, WideRun Run = WideRun::global>
void wide_cases(std::mt19937& rng) {
  std::vector<Case> cases = {{1, 1, 1, 3, 3, 0, 0},       {67, 45, 1, 5, 5, 0, 0},
                                   {528, 101, 1, 7, 7, 0, 0},   {528, 101, 1, 7, 7, 0, 4},
                                   {1100, 150, 1, 9, 9, 64, 0}, {1100, 150, 1, 7, 7, 0, 0},
                                   {777, 130, 1, 7, 7, 0, 0},   {781, 77, 1, 9, 9, 8, 0},
                                   {5, 97, 1, 7, 7, 0, 0},      {130, 3, 1, 9, 9, 0, 0},
                                   {3, 2, 1, 5, 5, 0, 0},       {1030, 70, 1, 3, 3, 16, 0},
                                   {600, 300, 1, 7, 7, 0, 0},   {600, 300, 1, 5, 5, 48, 0},
                                   {600, 300, 1, 3, 3, 0, 4},   {600, 300, 1, 9, 9, 0, 0}};
  // More tiles than a ring's resident blocks take in two rounds (the stages' phases wrap), with
  // the edge tiles between the copied ones, aligned rows padded.
  if (Run >= WideRun::ring2 && !small_mode())
    cases.insert(cases.end(), {{4100, 2050, 1, 7, 7, 0, 0}, {3000, 1700, 1, 5, 5, 32, 0}});
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (const Case& c : cases) {
      Harness<float> h(c, rng);
      const conv_detail::ImageArgs a = h.image_args(border);
      const auto mask = conv_detail::make_mask_param(h.mask.data(), c.mw, c.mh);
      const auto launch = [&](auto width, cudaStream_t s) {
        constexpr int MW = decltype(width)::value;
        if constexpr (Run == WideRun::bulk)
          conv_detail::launch_wide_bulk_2d<MW, KV, RY, MinBlocks>(a, mask, s);
        else if constexpr (Run == WideRun::global)
          conv_detail::launch_wide_2d<MW, KV, RY, MinBlocks, RowLoop>(a, mask, s);
        else if constexpr (Run == WideRun::early || Run == WideRun::across)
          conv_detail::launch_wide_2d<MW, KV, RY, MinBlocks, false, true, true,
                                      Run == WideRun::across>(a, mask, s);
        else
          conv_detail::launch_wide_ring_2d<MW, KV, RY,
                                           Run == WideRun::ring1   ? 1
                                           : Run == WideRun::ring2 ? 2
                                                                   : 3,
                                           MinBlocks>(a, mask, s);
      };
      const auto got = h.run([&](cudaStream_t s) {
        switch (c.mw) {
        case 3: return launch(std::integral_constant<int, 3>{}, s);
        case 5: return launch(std::integral_constant<int, 5>{}, s);
        case 7: return launch(std::integral_constant<int, 7>{}, s);
        default: return launch(std::integral_constant<int, 9>{}, s);
        }
      });
      EXPECT_EQ(lab::convolution::compare_images<float>(got, h.expected(border), c.width, 0.0), "")
          << h.label() << " " << 4 * KV << " pixels x " << RY << " rows a thread"
          << (Run == WideRun::bulk     ? ", bulk-staged "
              : Run == WideRun::early  ? ", early stores "
              : Run == WideRun::across ? ", early stores, warps across "
              : Run != WideRun::global ? ", ring of tensor copies "
              : RowLoop                ? ", row loop "
                                       : " ")
          << lab::convolution::border_name(border);
    }
}

TEST(ConvolutionWide, EveryBorderWidthPitchAndAlignment) {
  std::mt19937 rng(84);
  wide_cases<1, 8, 3, false>(rng);
  wide_cases<2, 8, 2, false>(rng);
  wide_cases<2, 4, 3, false>(rng);
  wide_cases<2, 8, 2, true>(rng);
}

// Early stores at the lab's tile heights, warps one above the other and side by side: the
// 600 x 300 and 1100 x 150 images hold interior warps beside edge warps at every height, 3 x 2
// and 130 x 3 are shorter than one thread's rows.
TEST(ConvolutionWide, EarlyStoresEveryBorderWidthPitchAndAlignment) {
  std::mt19937 rng(87);
  wide_cases<1, 8, 3, false, WideRun::early>(rng);
  wide_cases<1, 16, 4, false, WideRun::early>(rng);
  wide_cases<1, 24, 3, false, WideRun::early>(rng);
  wide_cases<1, 8, 3, false, WideRun::across>(rng);
  wide_cases<1, 16, 3, false, WideRun::across>(rng);
}

TEST(ConvolutionWide, BulkStagedEveryBorderWidthPitchAndAlignment) {
  std::mt19937 rng(85);
  wide_cases<1, 8, 3, false, WideRun::bulk>(rng);
  wide_cases<1, 8, 4, false, WideRun::bulk>(rng);
}

// The ring (convolution/wide_tensor.cuh) at the lab's stage and block counts.
TEST(ConvolutionWide, RingOfTensorCopiesEveryBorderWidthPitchAndAlignment) {
  std::mt19937 rng(86);
  wide_cases<1, 8, 2, false, WideRun::ring2>(rng);
  wide_cases<1, 8, 3, false, WideRun::ring2>(rng);
  wide_cases<1, 8, 2, false, WideRun::ring3>(rng);
  wide_cases<1, 8, 3, false, WideRun::ring1>(rng);
}

// The streamed wide tile (convolution/wide_stream.cuh) under every border policy with strips of
// 8, 9, 13 and 64 rows and one wave's: strips shorter than the mask's prologue and epilogue
// together, a last strip shorter than the mask (the 8-row fallback), strips whose steady walk
// ends in the checked turns, interior warps beside edge warps (600 x 300, 2100 x 150), rows off
// 16 bytes and a pointer 4 bytes off (every warp gathers), padded pitches, 1 x 1.
template <int Ahead, int PrefetchRows, int MinBlocks> void wide_stream_cases(std::mt19937& rng) {
  const std::vector<Case> cases = {{1, 1, 1, 3, 3, 0, 0},       {67, 45, 1, 5, 5, 0, 0},
                                   {2100, 150, 1, 7, 7, 0, 0},  {2100, 150, 1, 9, 9, 64, 0},
                                   {1030, 70, 1, 7, 7, 0, 4},   {777, 130, 1, 7, 7, 0, 0},
                                   {600, 300, 1, 7, 7, 0, 0},   {600, 300, 1, 5, 5, 48, 0},
                                   {600, 300, 1, 3, 3, 0, 0},   {5, 97, 1, 7, 7, 0, 0},
                                   {1100, 3, 1, 9, 9, 0, 0},    {1024, 71, 1, 9, 9, 0, 0}};
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (int strip : {8, 9, 13, 64, 0})
      for (const Case& c : cases) {
        if (strip != 0 && strip < std::max(8, c.mw))
          continue;
        Harness<float> h(c, rng);
        const conv_detail::ImageArgs a = h.image_args(border);
        const auto mask = conv_detail::make_mask_param(h.mask.data(), c.mw, c.mh);
        const auto launch = [&](auto width, cudaStream_t s) {
          conv_detail::launch_wide_stream_2d<decltype(width)::value, Ahead, PrefetchRows,
                                             MinBlocks>(a, mask, strip, s);
        };
        const auto got = h.run([&](cudaStream_t s) {
          switch (c.mw) {
          case 3: return launch(std::integral_constant<int, 3>{}, s);
          case 5: return launch(std::integral_constant<int, 5>{}, s);
          case 7: return launch(std::integral_constant<int, 7>{}, s);
          default: return launch(std::integral_constant<int, 9>{}, s);
          }
        });
        EXPECT_EQ(lab::convolution::compare_images<float>(got, h.expected(border), c.width, 0.0),
                  "")
            << h.label() << " streamed, strip " << strip << ", " << Ahead << " ahead, "
            << PrefetchRows << " to L2 " << lab::convolution::border_name(border);
      }
}

TEST(ConvolutionWide, StreamedEveryBorderStripWidthPitchAndAlignment) {
  std::mt19937 rng(88);
  wide_stream_cases<1, 8, 3>(rng);
  wide_stream_cases<2, 8, 3>(rng);
  wide_stream_cases<1, 0, 3>(rng);
}

// Strips below the smallest the walk takes are refused before anything runs.
TEST(ConvolutionWide, StreamedRefusesShortStrips) {
  const conv_detail::ImageArgs a{};
  const auto mask = conv_detail::make_mask_param(std::vector<float>(49, 0.0f).data(), 7, 7);
  EXPECT_THROW((conv_detail::launch_wide_stream_2d<7, 1, 8, 3>(a, mask, 7, nullptr)),
               std::invalid_argument);
}

} // namespace
} // namespace ladder::test
