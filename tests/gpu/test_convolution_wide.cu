// GPU tests of the wide register tiles of the convolution study (convolution/wide.cuh,
// wide_tensor.cuh) against the CPU reference, bit for bit: they sum in the reference's order.
#include "convolution_harness.hpp"
#include "gpu_test.hpp"

#include "convolution/api_dispatch.hpp"
#include "convolution/strip.cuh"
#include "convolution/variants.hpp"
#include "convolution/wide.cuh"
#include "convolution/wide_tensor.cuh"

#include <gtest/gtest.h>

#include <random>
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
// launch(std::integral_constant<int, MW>{}, s) for a mask width MW of 3, 5, 7 or 9.
template <class Launch> void with_mask_width(int mw, Launch& launch, cudaStream_t s) {
  switch (mw) {
  case 3: return launch(std::integral_constant<int, 3>{}, s);
  case 5: return launch(std::integral_constant<int, 5>{}, s);
  case 7: return launch(std::integral_constant<int, 7>{}, s);
  default: return launch(std::integral_constant<int, 9>{}, s);
  }
}

// How wide_cases runs the wide tile: from L1, staged by bulk copies a row, or in persistent
// blocks through a ring of stages that tensor copies fill.
enum class WideRun { global, bulk, ring2, ring3, ring1 };

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
        else
          conv_detail::launch_wide_ring_2d<MW, KV, RY,
                                           Run == WideRun::ring1   ? 1
                                           : Run == WideRun::ring2 ? 2
                                                                   : 3,
                                           MinBlocks>(a, mask, s);
      };
      const auto got = h.run([&](cudaStream_t s) { with_mask_width(c.mw, launch, s); });
      EXPECT_EQ(lab::convolution::compare_images<float>(got, h.expected(border), c.width, 0.0), "")
          << h.label() << " " << 4 * KV << " pixels x " << RY << " rows a thread"
          << (Run == WideRun::bulk   ? ", bulk-staged "
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

// The window streamed down strips from a ring of bulk-copied rows (convolution/strip.cuh), at the
// rung's shape (StripShape) and with short strips and a short ring (the stages' phases wrap many times):
// rows 16-byte aligned (what the kernel takes), widths that end inside a thread's pixels or
// inside the last float4, images narrower than a float4, shorter than the mask, several strips
// and several blocks of rows, padded pitches and an offset start; every border.
template <int CW, int PX, int S, int D, int MinBlocks, bool Library = false>
void strips_cases(std::mt19937& rng) {
  std::vector<Case> cases = {{1, 1, 1, 3, 3, 0, 0},     {3, 2, 1, 5, 5, 0, 0},
                             {5, 97, 1, 7, 7, 0, 0},    {67, 45, 1, 5, 5, 0, 16},
                             {528, 101, 1, 7, 7, 64, 0}, {777, 130, 1, 7, 7, 0, 0},
                             {781, 77, 1, 9, 9, 0, 0},  {1100, 150, 1, 9, 9, 64, 0},
                             {1030, 70, 1, 3, 3, 0, 0}, {600, 300, 1, 7, 7, 0, 0},
                             {1028, 250, 1, 5, 5, 0, 0}, {130, 3, 1, 9, 9, 0, 0}};
  if (!small_mode())
    cases.push_back({2100, 520, 1, 7, 7, 32, 0});
  for (Case& c : cases) // pad each row to whole 16-byte words
    c.pitch_extra += (16 - c.width * 4 % 16) % 16;
  for (Border border : {Border::zero, Border::clamp, Border::reflect, Border::wrap})
    for (const Case& c : cases) {
      Harness<float> h(c, rng);
      const conv_detail::ImageArgs a = h.image_args(border);
      const auto mask = conv_detail::make_mask_param(h.mask.data(), c.mw, c.mh);
      bool ran = true;
      const auto launch = [&](auto width, cudaStream_t s) {
        constexpr int MW = decltype(width)::value;
        using Shape = conv_detail::StripShape<MW>;
        constexpr int cw = Library ? Shape::consumer_warps : CW, px = Library ? Shape::float4s : PX;
        constexpr int rows = Library ? Shape::rows : S, stages = Library ? Shape::stages : D;
        constexpr int min_blocks = Library ? Shape::min_blocks : MinBlocks;
        EXPECT_TRUE((conv_detail::strips_2d_fits<MW, cw, px, rows, stages>(a))) << h.label();
        ran = conv_detail::strips_2d_runs_here<MW, cw, px, rows, stages, min_blocks>();
        if (ran)
          conv_detail::launch_strips_2d<MW, cw, px, rows, stages, min_blocks>(a, mask, s);
      };
      const auto got = h.run([&](cudaStream_t s) { with_mask_width(c.mw, launch, s); });
      if (!ran)
        GTEST_SKIP() << "the streamed strips need sm_90's bulk copies";
      EXPECT_EQ(lab::convolution::compare_images<float>(got, h.expected(border), c.width, 0.0), "")
          << h.label() << " strips" << (Library ? " (the rung's shape)" : "") << " "
          << lab::convolution::border_name(border);
    }
}

TEST(ConvolutionStrips, EveryBorderWidthPitchAndAlignment) {
  std::mt19937 rng(87);
  strips_cases<0, 0, 0, 0, 0, true>(rng);
  strips_cases<4, 2, 16, 4, 2>(rng);
  strips_cases<8, 1, 64, 8, 2>(rng);
  strips_cases<2, 1, 5, 2, 4>(rng);
}

} // namespace
} // namespace ladder::test
