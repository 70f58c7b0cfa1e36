// main() of the GPU tests: exits 77 (CTest's "skipped") when there is no CUDA device, so a
// machine without a GPU never reports these tests as passed. `--small` cuts the sizes for runs
// under compute-sanitizer.
#include "gpu_test.hpp"

#include "ladder/device.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <iostream>

namespace ladder::test {
namespace {
bool small_sizes = false;
}
bool small_mode() { return small_sizes; }
} // namespace ladder::test

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--small") == 0)
      ladder::test::small_sizes = true;
  if (ladder::device_count() == 0) {
    std::cout << "[  SKIPPED ] no CUDA device: every GPU test is skipped\n";
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
