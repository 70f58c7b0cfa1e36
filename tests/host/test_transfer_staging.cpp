// Host tests of the transfers study and of ladder::copy_to_device / copy_to_host without a GPU:
// how a copy is split into chunks for the pinned ring, which path a copy takes, the argument
// checks that come before any CUDA call, and the CPU references.
#include "invalid_argument.hpp"

#include "ladder/transfer.hpp"
#include "transfers/reference.hpp"
#include "transfers/staging.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

namespace ladder::test {
namespace {

using transfers::ChunkPlan;
using transfers::HostMemory;
using transfers::Path;
using transfers::plan_chunks;
using transfers::StagingConfig;

constexpr std::size_t KiB = 1024, MiB = 1024 * 1024, GiB = 1024 * MiB;

// Every plan must cover [0, bytes) exactly once with chunks that fit a slot, and never use more
// slots or pinned bytes than the ring has.
void expect_valid(const ChunkPlan& plan, std::size_t bytes, int pool) {
  ASSERT_GT(plan.chunk_bytes, 0u);
  ASSERT_GT(plan.chunks, 0);
  std::size_t covered = 0;
  for (std::int64_t i = 0; i < plan.chunks; ++i) {
    EXPECT_EQ(transfers::chunk_offset(plan, i), covered);
    const std::size_t len = transfers::chunk_length(plan, bytes, i);
    ASSERT_GT(len, 0u) << "chunk " << i << " of " << bytes;
    ASSERT_LE(len, plan.chunk_bytes);
    covered += len;
  }
  EXPECT_EQ(covered, bytes);
  EXPECT_GE(plan.slots, 1);
  EXPECT_LE(plan.slots, transfers::max_slots);
  EXPECT_LE(static_cast<std::int64_t>(plan.slots), plan.chunks);
  EXPECT_LE(static_cast<std::size_t>(plan.slots) * plan.chunk_bytes, transfer_ring_bytes);
  EXPECT_GE(plan.threads, 1);
  EXPECT_LE(plan.threads, pool);
  EXPECT_GE(plan.max_pending, plan.threads);
  EXPECT_LE(plan.max_pending, 4 * plan.threads);
}

TEST(TransferStaging, PlansCoverEverySizeExactly) {
  for (int pool : {1, 2, 3, 16})
    for (std::size_t bytes : {std::size_t{1}, std::size_t{7}, 4 * KiB, 512 * KiB + 1, MiB + 13,
                              33 * MiB - 1, GiB, 4 * GiB + 4099, (std::size_t{1} << 40) + 1})
      expect_valid(plan_chunks(bytes, pool, {}), bytes, pool);
}

TEST(TransferStaging, AutomaticChunksKeepEveryThreadBusyWithinBounds) {
  // Large copies: the largest automatic chunk, as many slots as the ring holds.
  const ChunkPlan big = plan_chunks(GiB, 16, {});
  EXPECT_EQ(big.chunk_bytes, transfers::max_auto_chunk);
  EXPECT_EQ(big.slots, static_cast<int>(transfer_ring_bytes / transfers::max_auto_chunk));
  EXPECT_EQ(big.threads, 16);
  // A mid-size copy is cut so that each of 16 threads gets about two chunks.
  const ChunkPlan mid = plan_chunks(16 * MiB, 16, {});
  EXPECT_EQ(mid.chunk_bytes, 512 * KiB);
  EXPECT_EQ(mid.chunks, 32);
  // Never below the smallest automatic chunk.
  EXPECT_EQ(plan_chunks(600 * KiB, 16, {}).chunk_bytes, transfers::min_auto_chunk);
  // Chunks are 64 KiB multiples.
  for (std::size_t bytes : {MiB + 1, 5 * MiB + 3, 9 * MiB})
    EXPECT_EQ(plan_chunks(bytes, 16, {}).chunk_bytes % (64 * KiB), 0u) << bytes;
}

TEST(TransferStaging, ExplicitShapeWins) {
  StagingConfig c;
  c.chunk_bytes = 4 * KiB;
  c.threads = 2;
  c.slots = 3;
  const ChunkPlan p = plan_chunks(100 * KiB + 5, 16, c);
  EXPECT_EQ(p.chunk_bytes, 4 * KiB);
  EXPECT_EQ(p.chunks, 26);
  EXPECT_EQ(p.slots, 3);
  EXPECT_EQ(p.threads, 2);
  // A chunk larger than the ring is cut to the ring; threads are capped by the pool.
  c.chunk_bytes = 2 * transfer_ring_bytes;
  c.threads = 64;
  c.slots = 0;
  const ChunkPlan q = plan_chunks(GiB, 16, c);
  EXPECT_EQ(q.chunk_bytes, transfer_ring_bytes);
  EXPECT_EQ(q.slots, 1);
  EXPECT_EQ(q.threads, 16);
  expect_valid(q, GiB, 16);
}

TEST(TransferStaging, TasksAheadOfTheThreadsAreBounded) {
  // The default: one more task per thread queued, so that a worker finds its next chunk waiting.
  EXPECT_EQ(plan_chunks(GiB, 16, {}).max_pending, 32);
  StagingConfig c;
  c.threads = 12;
  EXPECT_EQ(plan_chunks(GiB, 16, c).max_pending, 24);
  // None ahead: one task per thread in flight.
  c.ahead_per_thread = 0;
  EXPECT_EQ(plan_chunks(GiB, 16, c).max_pending, 12);
  // Clamped to 0 .. 3 ahead: the queue stays a few tasks per thread.
  c.ahead_per_thread = 100;
  EXPECT_EQ(plan_chunks(GiB, 16, c).max_pending, 48);
  c.ahead_per_thread = -5;
  EXPECT_EQ(plan_chunks(GiB, 16, c).max_pending, 12);
  for (int ahead : {0, 1, 3}) {
    c.ahead_per_thread = ahead;
    expect_valid(plan_chunks(MiB + 13, 3, c), MiB + 13, 3);
  }
}

// The streaming-store copy (a tuning option of the host threads' copies) must equal memcpy for
// every length and both pointers' offsets from a 16-byte boundary, and write nothing outside.
TEST(TransferStaging, StreamingCopyMatchesMemcpyAtEveryOffset) {
  constexpr std::size_t guard = 64;
  const std::vector<std::size_t> lengths = {0,  1,   15,  16,   17,         63,         64,
                                            65, 127, 128, 1000, 4 * KiB + 7, MiB + 3};
  std::vector<std::byte> src(MiB + 3 + 2 * guard), dst(MiB + 3 + 2 * guard);
  for (std::size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<std::byte>((i * 131 + 7) % 251);
  for (std::size_t length : lengths)
    for (std::size_t src_offset = 0; src_offset < 16; ++src_offset)
      for (std::size_t dst_offset = 0; dst_offset < 16; ++dst_offset) {
        if (length > 4 * KiB && (src_offset % 5 != 0 || dst_offset % 3 != 0))
          continue; // the long lengths at a spread of offsets only
        std::fill(dst.begin(), dst.end(), std::byte{0xAB});
        transfers::copy_streaming(dst.data() + guard + dst_offset, src.data() + guard + src_offset,
                                  length);
        const std::byte* got = dst.data() + guard + dst_offset;
        ASSERT_EQ(std::memcmp(got, src.data() + guard + src_offset, length), 0)
            << length << " bytes, offsets " << src_offset << " / " << dst_offset;
        for (std::size_t i = 0; i < guard + dst_offset; ++i)
          ASSERT_EQ(dst[i], std::byte{0xAB}) << "before the copy, " << length << " bytes";
        for (std::size_t i = guard + dst_offset + length; i < dst.size(); ++i)
          ASSERT_EQ(dst[i], std::byte{0xAB}) << "after the copy, " << length << " bytes";
      }
}

TEST(TransferStaging, PoolSizeIsBounded) {
  EXPECT_EQ(transfers::pool_threads(0), 2);
  EXPECT_EQ(transfers::pool_threads(1), 2);
  EXPECT_EQ(transfers::pool_threads(8), 8);
  EXPECT_EQ(transfers::pool_threads(16), transfer_max_threads);
  EXPECT_EQ(transfers::pool_threads(256), transfer_max_threads);
}

TEST(TransferStaging, PathByMemoryAndSize) {
  const StagingConfig d;
  EXPECT_EQ(transfers::choose_path(0, HostMemory::pageable, d), Path::none);
  EXPECT_EQ(transfers::choose_path(0, HostMemory::pinned, d), Path::none);
  EXPECT_EQ(transfers::choose_path(4, HostMemory::pageable, d), Path::direct);
  EXPECT_EQ(transfers::choose_path(transfer_direct_max_bytes, HostMemory::pageable, d),
            Path::direct);
  EXPECT_EQ(transfers::choose_path(transfer_direct_max_bytes + 1, HostMemory::pageable, d),
            Path::staged);
  EXPECT_EQ(transfers::choose_path(GiB, HostMemory::pinned, d), Path::pinned);
  EXPECT_EQ(transfers::choose_path(GiB, HostMemory::managed, d), Path::pinned);
  EXPECT_EQ(transfers::choose_path(4, HostMemory::pinned, d), Path::pinned);
  // A range pinned at one end only: cudaMemcpyAsync refuses it, whatever its size.
  EXPECT_EQ(transfers::choose_path(4, HostMemory::partly_pinned, d), Path::staged);
  EXPECT_EQ(transfers::choose_path(GiB, HostMemory::partly_pinned, d), Path::staged);
}

TEST(TransferStaging, KernelParameterPathOnlyToTheDeviceAndOnlyWhenAsked) {
  StagingConfig c;
  c.parameter_max_bytes = 4096;
  EXPECT_EQ(transfers::choose_path(4096, HostMemory::pageable, c, true), Path::parameters);
  EXPECT_EQ(transfers::choose_path(1, HostMemory::pageable, c, true), Path::parameters);
  EXPECT_EQ(transfers::choose_path(4097, HostMemory::pageable, c, true), Path::direct);
  EXPECT_EQ(transfers::choose_path(4096, HostMemory::pageable, c, false), Path::direct);
  EXPECT_EQ(transfers::choose_path(4096, HostMemory::pinned, c, true), Path::pinned);
  EXPECT_EQ(transfers::choose_path(4096, HostMemory::partly_pinned, c, true), Path::staged);
  EXPECT_EQ(transfers::choose_path(0, HostMemory::pageable, c, true), Path::none);
  // Never past what one launch carries, whatever the config asks.
  c.parameter_max_bytes = GiB;
  EXPECT_EQ(transfers::choose_path(transfers::parameter_copy_max_bytes, HostMemory::pageable, c,
                                   true),
            Path::parameters);
  EXPECT_EQ(transfers::choose_path(transfers::parameter_copy_max_bytes + 1, HostMemory::pageable,
                                   c, true),
            Path::direct);
  // The library's default: off.
  EXPECT_EQ(transfers::choose_path(4, HostMemory::pageable, StagingConfig{}, true), Path::direct);
}

// These checks come before any CUDA call, so they hold on a machine without a GPU.
TEST(TransferArguments, NullPointersWithBytesAreRejectedByName) {
  std::vector<char> host(16);
  void* fake_device = host.data(); // never reached: the null check on the other side comes first
  EXPECT_NE(invalid_argument_message([&] {
              copy_to_device(nullptr, host.data(), 16);
            }).find("dst_device"),
            std::string::npos);
  EXPECT_NE(
      invalid_argument_message([&] { copy_to_device(fake_device, nullptr, 16); }).find("src_host"),
      std::string::npos);
  EXPECT_NE(
      invalid_argument_message([&] { copy_to_host(nullptr, fake_device, 16); }).find("dst_host"),
      std::string::npos);
  EXPECT_NE(
      invalid_argument_message([&] { copy_to_host(host.data(), nullptr, 16); }).find("src_device"),
      std::string::npos);
}

TEST(TransferArguments, ZeroBytesIsANoOpThatTouchesNoGpu) {
  EXPECT_NO_THROW(copy_to_device(nullptr, nullptr, 0));
  EXPECT_NO_THROW(copy_to_host(nullptr, nullptr, 0));
  char c = 0;
  EXPECT_NO_THROW(copy_to_device(&c, &c, 0));
  EXPECT_NO_THROW(copy_to_host(&c, &c, 0));
}

TEST(TransferReference, CompareBytesFindsTheFirstDifference) {
  std::vector<std::byte> a(1000, std::byte{7}), b = a;
  EXPECT_EQ(lab::transfers::compare_bytes(a, b), "");
  b[613] = std::byte{8};
  b[900] = std::byte{9};
  const std::string what = lab::transfers::compare_bytes(a, b);
  EXPECT_NE(what.find("2 of 1000"), std::string::npos) << what;
  EXPECT_NE(what.find("offset 613"), std::string::npos) << what;
  EXPECT_NE(lab::transfers::compare_bytes(std::span(a).first(999), b), "");
  EXPECT_EQ(lab::transfers::compare_bytes({}, {}), "");
}

TEST(TransferReference, PipelineStageIsTheFmaChain) {
  std::vector<float> in = {0.5f, 1.0f, 3.25f, -2.0f}, out(4), again(4);
  lab::transfers::cpu_pipeline_stage(in, out, 3, 0.999f, 0.001f);
  for (std::size_t i = 0; i < in.size(); ++i) {
    float x = in[i];
    for (int k = 0; k < 3; ++k)
      x = std::fma(x, 0.999f, 0.001f);
    EXPECT_EQ(out[i], x);
  }
  lab::transfers::cpu_pipeline_stage(in, again, 0, 0.999f, 0.001f);
  EXPECT_EQ(again, in);
  EXPECT_EQ(lab::transfers::compare_floats_exact(out, out), "");
  std::vector<float> other = out;
  other[2] = std::nextafter(other[2], 10.0f);
  EXPECT_NE(lab::transfers::compare_floats_exact(other, out).find("first at 2"), std::string::npos);
}

} // namespace
} // namespace ladder::test
