// The convolution GPU tests' harness: a pitched, offset device image pair with random contents
// and mask, the CPU reference's expected output under a border policy, and a run that poisons
// the output first.
#pragma once

#include "convolution/reference.hpp"
#include "convolution/tiled.cuh"
#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "ladder/convolve.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace ladder::test::conv_harness {

// A device image with a chosen pitch (not cudaMallocPitch's) and an offset from the allocation,
// so that odd pitches and misaligned rows are tested.
struct TestImage {
  lab::DeviceBuffer<unsigned char> storage;
  unsigned char* data = nullptr;
  TestImage(std::int64_t pitch, std::int64_t height, std::int64_t offset)
      : storage(static_cast<std::size_t>(pitch * std::max<std::int64_t>(height, 1) + offset)),
        data(storage.data() + offset) {}
};

template <class T> std::vector<T> random_host(std::size_t n, std::mt19937& rng) {
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, float>) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (auto& x : v)
      x = d(rng);
  } else {
    std::uniform_int_distribution<int> d(0, 255);
    for (auto& x : v)
      x = static_cast<T>(d(rng));
  }
  return v;
}

inline std::vector<float> random_mask(int taps, bool u8, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(u8 ? -0.6f : -1.0f, u8 ? 2.0f : 1.0f);
  std::vector<float> m(static_cast<std::size_t>(taps));
  for (auto& x : m)
    x = d(rng) / static_cast<float>(taps) * (u8 ? 1.4f : 1.0f);
  return m;
}

// An image and mask of a test: sizes, channels, mask, padding past each row, misalignment.
struct Case {
  std::int64_t width, height;
  int channels;
  int mw, mh;
  std::int64_t pitch_extra; // bytes past the row
  std::int64_t offset;      // bytes from the allocation's start (a multiple of the element size)
};

template <class T> struct Harness {
  Case c;
  std::int64_t row_bytes, pitch;
  std::vector<T> host_in;
  std::vector<float> mask;
  TestImage in, out;
  lab::Stream stream;

  Harness(const Case& cs, std::mt19937& rng)
      : c(cs), row_bytes(cs.width * cs.channels * static_cast<std::int64_t>(sizeof(T))),
        pitch(row_bytes + cs.pitch_extra),
        host_in(random_host<T>(static_cast<std::size_t>(cs.width * cs.height * cs.channels), rng)),
        mask(random_mask(cs.mw * cs.mh, sizeof(T) == 1, rng)), in(pitch, cs.height, cs.offset),
        out(pitch, cs.height, cs.offset) {
    // On the harness's stream, then waited for: a cudaMemcpy2D from pageable memory may return
    // before its last rows reach the device, and the kernels run on a non-blocking stream that
    // is not ordered after it (600 x 300 images were read half uploaded on an H100).
    if (row_bytes > 0 && c.height > 0)
      EXPECT_EQ(cudaMemcpy2DAsync(in.data, static_cast<std::size_t>(pitch), host_in.data(),
                                  static_cast<std::size_t>(row_bytes),
                                  static_cast<std::size_t>(row_bytes),
                                  static_cast<std::size_t>(c.height), cudaMemcpyHostToDevice,
                                  stream),
                cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }

  std::vector<T> expected(Border border) const {
    std::vector<T> e(host_in.size());
    const std::int64_t row = c.width * c.channels;
    lab::convolution::cpu_convolve2d<T>({host_in.data(), row, c.width, c.height, c.channels},
                                        {e.data(), row, c.width, c.height, c.channels}, mask,
                                        c.mw, c.mh, border);
    return e;
  }

  // The kernels' view of the pitched input and output under `border`.
  conv_detail::ImageArgs image_args(Border border) const {
    conv_detail::ImageArgs a;
    a.in = in.data;
    a.out = out.data;
    a.in_pitch = a.out_pitch = pitch;
    a.width = c.width;
    a.height = c.height;
    a.border = border;
    return a;
  }

  template <class Launch> std::vector<T> run(Launch&& launch) {
    lab::poison(out.storage.data(), out.storage.bytes(), stream);
    launch(stream.get());
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<T> got(host_in.size());
    if (row_bytes > 0 && c.height > 0)
      EXPECT_EQ(cudaMemcpy2DAsync(got.data(), static_cast<std::size_t>(row_bytes), out.data,
                                  static_cast<std::size_t>(pitch),
                                  static_cast<std::size_t>(row_bytes),
                                  static_cast<std::size_t>(c.height), cudaMemcpyDeviceToHost,
                                  stream),
                cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    return got;
  }

  std::string label() const {
    return std::to_string(c.width) + "x" + std::to_string(c.height) + " C" +
           std::to_string(c.channels) + " mask " + std::to_string(c.mw) + "x" +
           std::to_string(c.mh) + " pitch +" + std::to_string(c.pitch_extra) + " offset " +
           std::to_string(c.offset);
  }
};

} // namespace ladder::test::conv_harness
