// Host-clock timing in rounds (time_on_host_interleaved): every body gets its own samples, the
// order rotates from round to round, and each median is its own body's.
#include "core/harness.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace ladder::lab {
namespace {

TEST(HostTimingInRounds, RotatesTheOrderAndKeepsEachBodysSamples) {
  std::vector<int> calls;
  std::vector<std::function<void()>> bodies;
  for (int b = 0; b < 3; ++b)
    bodies.push_back([&calls, b] { calls.push_back(b); });
  const auto times = time_on_host_interleaved(bodies);
  ASSERT_EQ(times.size(), 3u);
  // A warm-up round in order, then rounds r = 0, 1, ... each starting at body r mod 3.
  ASSERT_GE(calls.size(), 3u * 4u);
  ASSERT_EQ(calls.size() % 3, 0u);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(calls[i], static_cast<int>(i));
  for (std::size_t i = 3; i < calls.size(); ++i) {
    const std::size_t round = i / 3 - 1, j = i % 3;
    EXPECT_EQ(calls[i], static_cast<int>((j + round) % 3)) << "call " << i;
  }
  const int rounds = static_cast<int>(calls.size() / 3) - 1;
  for (const Measurement& m : times)
    EXPECT_EQ(m.samples, rounds);
}

TEST(HostTimingInRounds, EachMedianIsItsOwnBodys) {
  using namespace std::chrono_literals;
  const auto times = time_on_host_interleaved({[] { std::this_thread::sleep_for(6ms); },
                                               [] {},
                                               [] { std::this_thread::sleep_for(2ms); }});
  ASSERT_EQ(times.size(), 3u);
  EXPECT_GE(times[0].median_ms, 6.0);
  EXPECT_LT(times[1].median_ms, 1.0);
  EXPECT_GE(times[2].median_ms, 2.0);
  EXPECT_LT(times[2].median_ms, times[0].median_ms);
  EXPECT_GE(times[0].samples, 3);
}

TEST(HostTimingInRounds, OneBodyIsTimeOnHost) {
  int calls = 0;
  const Measurement m = time_on_host([&calls] { ++calls; });
  EXPECT_EQ(calls, 1 + 51); // a warm-up run, then 51 runs of well under 300 ms
  EXPECT_EQ(m.samples, 51);
}

TEST(HostTimingInRounds, NoBodiesNoTimes) {
  EXPECT_TRUE(time_on_host_interleaved({}).empty());
}

} // namespace
} // namespace ladder::lab
