// GPU tests of ladder::copy_to_device / copy_to_host: every size class (0, 1, odd, direct, staged,
// > 4 GiB), host and device offsets, pageable / pinned / registered / partly registered memory,
// the path each takes, ordering on the stream, 8 threads in both directions at once, argument
// checks that need the GPU (which pointer is which), and recovery after a failing copy. Guard
// bytes around every destination catch a copy that writes past its range.
#include "gpu_test.hpp"

#include "core/buffer.hpp"
#include "ladder/error.hpp"
#include "ladder/transfer.hpp"
#include "transfers/staging.hpp"
#include "transfers/variants.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace ladder::test {
namespace {

using transfers::Path;
using transfers::StagingConfig;

constexpr std::size_t KiB = 1024, MiB = 1024 * 1024, GiB = 1024 * MiB;
constexpr std::size_t guard = 64; // bytes before and after every destination range

// What a call's std::invalid_argument says ("" when it throws none).
template <class Body> std::string invalid_argument_message(Body body) {
  try {
    body();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Fresh bytes that depend on the seed and the index, filled by several threads (GiBs in tests).
void fill_bytes(std::byte* p, std::size_t n, std::uint64_t seed) {
  const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  const std::size_t per = (n / threads + 7) / 8 * 8;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      const std::size_t b = std::min(n, per * t), e = std::min(n, b + per);
      for (std::size_t i = b; i < e; i += 8) {
        const std::uint64_t v = splitmix(seed ^ (i / 8));
        std::memcpy(p + i, &v, std::min<std::size_t>(8, e - i));
      }
    });
  for (auto& t : pool)
    t.join();
}

// Host memory of one kind, with `guard` bytes either side of `bytes` at offset `offset`.
enum class HostKind { pageable, pinned, registered };
const char* kind_name(HostKind k) {
  return k == HostKind::pageable ? "pageable" : k == HostKind::pinned ? "pinned" : "registered";
}

class HostRange {
public:
  HostRange(HostKind kind, std::size_t bytes, std::size_t offset)
      : kind_(kind), total_(bytes + offset + 2 * guard) {
    if (kind == HostKind::pinned) {
      void* p = nullptr;
      if (cudaMallocHost(&p, total_) != cudaSuccess)
        throw std::runtime_error("cudaMallocHost failed");
      base_ = static_cast<std::byte*>(p);
    } else {
      owned_.reset(new std::byte[total_]);
      base_ = owned_.get();
      if (kind == HostKind::registered &&
          cudaHostRegister(base_, total_, cudaHostRegisterDefault) != cudaSuccess)
        throw std::runtime_error("cudaHostRegister failed");
    }
    data_ = base_ + guard + offset;
    std::memset(base_, 0xA5, total_);
  }
  HostRange(const HostRange&) = delete;
  HostRange& operator=(const HostRange&) = delete;
  ~HostRange() {
    if (kind_ == HostKind::pinned)
      cudaFreeHost(base_);
    else if (kind_ == HostKind::registered)
      cudaHostUnregister(base_);
  }
  std::byte* data() const { return data_; }
  // Guard bytes (everything outside [data, data + bytes)) still 0xA5.
  bool guards_intact(std::size_t bytes) const {
    for (std::byte* p = base_; p < data_; ++p)
      if (*p != std::byte{0xA5})
        return false;
    for (std::byte* p = data_ + bytes; p < base_ + total_; ++p)
      if (*p != std::byte{0xA5})
        return false;
    return true;
  }

private:
  HostKind kind_;
  std::size_t total_;
  std::unique_ptr<std::byte[]> owned_;
  std::byte* base_ = nullptr;
  std::byte* data_ = nullptr;
};

std::vector<std::size_t> sizes() {
  std::vector<std::size_t> s = {0,        1,          3, 4 * KiB, 65537, 512 * KiB, 512 * KiB + 1,
                                MiB + 13, 4 * MiB + 7};
  if (!small_mode()) {
    s.push_back(33 * MiB + 5);
    s.push_back(130 * MiB + 1);
  }
  return s;
}

// Round trip through the library: host -> device (into a guarded, poisoned device range), then
// device -> host (into a guarded, poisoned host range); both compared with the source.
void round_trip(HostKind kind, std::size_t bytes, std::size_t host_offset,
                std::size_t device_offset, cudaStream_t stream, const StagingConfig& config = {},
                Path expected_path = Path::none) {
  SCOPED_TRACE(std::string(kind_name(kind)) + " " + std::to_string(bytes) + " B, host offset " +
               std::to_string(host_offset) + ", device offset " + std::to_string(device_offset));
  HostRange src(kind, bytes, host_offset), dst(kind, bytes, host_offset);
  fill_bytes(src.data(), bytes, splitmix(bytes * 31 + host_offset));
  const std::size_t device_total = bytes + device_offset + 2 * guard;
  lab::DeviceBuffer<std::byte> device(device_total);
  ASSERT_EQ(cudaMemset(device.data(), 0x5C, device_total), cudaSuccess);
  std::byte* d = device.data() + guard + device_offset;

  const Path up = transfers::copy_to_device_with(d, src.data(), bytes, stream, config);
  const Path down = transfers::copy_to_host_with(dst.data(), d, bytes, stream, config);
  if (expected_path != Path::none) {
    EXPECT_EQ(static_cast<int>(up), static_cast<int>(expected_path));
    EXPECT_EQ(static_cast<int>(down), static_cast<int>(expected_path));
  }
  // copy_to_host returns with the data in place: no synchronize before reading it.
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), bytes), 0);
  EXPECT_TRUE(dst.guards_intact(bytes)) << "copy_to_host wrote outside its range";
  // The device range's guards: nothing written around it.
  std::vector<std::byte> around(device_total);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(around.data(), device.data(), device_total, cudaMemcpyDeviceToHost),
            cudaSuccess);
  for (std::size_t i = 0; i < guard + device_offset; ++i)
    ASSERT_EQ(around[i], std::byte{0x5C}) << "copy_to_device wrote before its range";
  for (std::size_t i = guard + device_offset + bytes; i < device_total; ++i)
    ASSERT_EQ(around[i], std::byte{0x5C}) << "copy_to_device wrote after its range";
  EXPECT_EQ(std::memcmp(around.data() + guard + device_offset, src.data(), bytes), 0);
}

TEST(Transfer, EverySizeAndOffsetFromEveryKindOfHostMemory) {
  lab::Stream stream;
  for (HostKind kind : {HostKind::pageable, HostKind::pinned, HostKind::registered})
    for (std::size_t bytes : sizes())
      for (auto [host_offset, device_offset] :
           {std::pair<std::size_t, std::size_t>{0, 0}, {1, 3}, {7, 0}, {4093, 16}}) {
        if (small_mode() && bytes > MiB && host_offset == 4093)
          continue;
        round_trip(kind, bytes, host_offset, device_offset, stream);
      }
}

TEST(Transfer, DefaultStreamWorks) {
  round_trip(HostKind::pageable, 3 * MiB + 1, 5, 0, nullptr);
  round_trip(HostKind::pageable, 100, 5, 0, nullptr);
}

TEST(Transfer, PathFollowsMemoryKindAndSize) {
  lab::Stream stream;
  round_trip(HostKind::pageable, 4 * KiB, 0, 0, stream, {}, Path::direct);
  round_trip(HostKind::pageable, transfer_direct_max_bytes, 0, 0, stream, {}, Path::direct);
  round_trip(HostKind::pageable, transfer_direct_max_bytes + 1, 0, 0, stream, {}, Path::staged);
  round_trip(HostKind::pinned, 4 * MiB, 0, 0, stream, {}, Path::pinned);
  round_trip(HostKind::registered, 4 * MiB, 1, 0, stream, {}, Path::pinned);
}

// Small pageable copies to the device through kernel parameters (a tuning option, off by
// default): every payload size class and its edges, destinations off 16-byte alignment, and the
// direction back (direct) unaffected.
TEST(Transfer, SmallCopiesThroughKernelParameters) {
  lab::Stream stream;
  StagingConfig c;
  c.parameter_max_bytes = transfers::parameter_copy_max_bytes;
  for (std::size_t bytes : {std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17},
                            std::size_t{256}, std::size_t{257}, std::size_t{1024}, std::size_t{1025},
                            std::size_t{4096}, std::size_t{4097}, std::size_t{16384},
                            std::size_t{16385}, transfers::parameter_copy_max_bytes})
    for (auto [host_offset, device_offset] :
         {std::pair<std::size_t, std::size_t>{0, 0}, {7, 1}, {0, 3}, {5, 16}})
      round_trip(HostKind::pageable, bytes, host_offset, device_offset, stream, c);
  // The path: parameters up to the limit, the direct path past it and from pinned memory the
  // copy engine, as before.
  HostRange src(HostKind::pageable, 4 * KiB, 0);
  lab::DeviceBuffer<std::byte> d(64 * KiB);
  EXPECT_EQ(static_cast<int>(transfers::copy_to_device_with(d.data(), src.data(), 4 * KiB,
                                                            stream, c)),
            static_cast<int>(Path::parameters));
  HostRange big(HostKind::pageable, 64 * KiB, 0);
  EXPECT_EQ(static_cast<int>(transfers::copy_to_device_with(d.data(), big.data(), 64 * KiB,
                                                            stream, c)),
            static_cast<int>(Path::direct));
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
}

// Tiny chunks, few slots and two threads: the ring wraps around many times within one copy, with
// one task per thread or more queued ahead (more tasks than slots: posting waits for free slots).
TEST(Transfer, StagedRingWrapsAroundWithTinyChunks) {
  lab::Stream stream;
  for (int slots : {1, 2, 3, 8})
    for (int threads : {1, 2, 5})
      for (int ahead : {0, 2}) {
        StagingConfig c;
        c.chunk_bytes = 4 * KiB;
        c.slots = slots;
        c.threads = threads;
        c.ahead_per_thread = ahead;
        c.direct_max_bytes = 0; // stage every pageable copy, however small
        for (std::size_t bytes : {std::size_t{1}, 4 * KiB, 4 * KiB + 1, 300 * KiB + 17})
          round_trip(HostKind::pageable, bytes, 3, 5, stream, c, Path::staged);
      }
}

// A pinned range that ends in pageable memory is not pinned: it must be staged, and be right.
TEST(Transfer, PartlyRegisteredBufferIsStaged) {
  lab::Stream stream;
  const std::size_t bytes = 4 * MiB;
  std::unique_ptr<std::byte[]> src(new std::byte[bytes]), dst(new std::byte[bytes]);
  fill_bytes(src.get(), bytes, 99);
  ASSERT_EQ(cudaHostRegister(src.get(), bytes / 2, cudaHostRegisterDefault), cudaSuccess);
  lab::DeviceBuffer<std::byte> device(bytes);
  EXPECT_EQ(
      static_cast<int>(transfers::copy_to_device_with(device.data(), src.get(), bytes, stream, {})),
      static_cast<int>(Path::staged));
  copy_to_host(dst.get(), device.data(), bytes, stream);
  EXPECT_EQ(std::memcmp(dst.get(), src.get(), bytes), 0);
  // Small too (below the direct path's limit), and pinned at the far end only.
  const std::size_t small = 64 * KiB;
  EXPECT_EQ(static_cast<int>(
                transfers::copy_to_device_with(device.data(), src.get() + bytes / 2 - small / 2,
                                               small, stream, {})),
            static_cast<int>(Path::staged));
  ASSERT_EQ(cudaHostUnregister(src.get()), cudaSuccess);
  ASSERT_EQ(cudaHostRegister(src.get() + bytes / 2, bytes / 2, cudaHostRegisterDefault),
            cudaSuccess);
  fill_bytes(dst.get(), bytes, 7);
  for (std::size_t n : {small, bytes}) {
    copy_to_device(device.data(), src.get() + bytes / 2 - n / 2, n, stream);
    copy_to_host(dst.get(), device.data(), n, stream);
    EXPECT_EQ(std::memcmp(dst.get(), src.get() + bytes / 2 - n / 2, n), 0) << n;
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess); // a refused direct copy leaves no error behind
  ASSERT_EQ(cudaHostUnregister(src.get() + bytes / 2), cudaSuccess);
}

__global__ void slow_fill(unsigned char* p, std::size_t n, unsigned char value, long long cycles) {
  // One block waits, then every thread writes: later copies on the stream must see the writes.
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x)
    p[i] = value;
}

TEST(Transfer, OrderedAfterEarlierWorkOnTheStream) {
  lab::Stream stream;
  const std::size_t bytes = small_mode() ? MiB + 1 : 16 * MiB + 1;
  lab::DeviceBuffer<std::byte> device(bytes);
  std::vector<std::byte> host(bytes, std::byte{0});
  const long long cycles = small_mode() ? 100000 : 20000000; // ~10 ms on an H200
  for (std::size_t n : {bytes, std::size_t{1000}}) {         // staged and direct
    slow_fill<<<1, 256, 0, stream>>>(reinterpret_cast<unsigned char*>(device.data()), n, 0x3C,
                                     cycles);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    copy_to_host(host.data(), device.data(), n, stream);
    EXPECT_EQ(host[0], std::byte{0x3C});
    EXPECT_EQ(host[n - 1], std::byte{0x3C});
    // And to the device: the slow kernel's writes come first, the copy's bytes last.
    std::vector<std::byte> src(n, std::byte{0x77});
    slow_fill<<<1, 256, 0, stream>>>(reinterpret_cast<unsigned char*>(device.data()), n, 0x3C,
                                     cycles);
    copy_to_device(device.data(), src.data(), n, stream);
    std::vector<std::byte> back(n);
    ASSERT_EQ(cudaMemcpyAsync(back.data(), device.data(), n, cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(back[0], std::byte{0x77});
    EXPECT_EQ(back[n - 1], std::byte{0x77});
  }
}

// 8 threads at once, both directions, staged and direct sizes, each on its own stream or two
// sharing one: every result right, and the pool bounded (nothing here can make it grow).
TEST(Transfer, EightThreadsBothDirectionsAtOnce) {
  constexpr int threads = 8;
  const int rounds = small_mode() ? 2 : 6;
  std::vector<lab::Stream> streams(threads / 2);
  std::vector<std::string> failures(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        cudaStream_t stream = streams[static_cast<std::size_t>(t / 2)];
        for (int r = 0; r < rounds; ++r) {
          const std::size_t bytes =
              (t % 3 == 0) ? 100 * KiB + t : (small_mode() ? 3 : 24) * MiB + 7 * t + r;
          std::vector<std::byte> src(bytes), dst(bytes);
          fill_bytes(src.data(), bytes, splitmix(t * 1000 + r));
          lab::DeviceBuffer<std::byte> device(bytes);
          // Odd threads copy to the device through the library and back with cudaMemcpy; even
          // ones the reverse: the two directions' rings are busy at the same time.
          if (t % 2) {
            copy_to_device(device.data(), src.data(), bytes, stream);
            if (cudaMemcpyAsync(dst.data(), device.data(), bytes, cudaMemcpyDeviceToHost, stream) !=
                    cudaSuccess ||
                cudaStreamSynchronize(stream) != cudaSuccess)
              throw std::runtime_error("cudaMemcpyAsync back failed");
          } else {
            if (cudaMemcpyAsync(device.data(), src.data(), bytes, cudaMemcpyHostToDevice, stream) !=
                cudaSuccess)
              throw std::runtime_error("cudaMemcpyAsync up failed");
            copy_to_host(dst.data(), device.data(), bytes, stream);
          }
          if (std::memcmp(dst.data(), src.data(), bytes) != 0)
            throw std::runtime_error("thread " + std::to_string(t) + " round " + std::to_string(r) +
                                     ": data differs");
        }
      } catch (const std::exception& e) {
        failures[static_cast<std::size_t>(t)] = e.what();
      }
    });
  for (auto& t : pool)
    t.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(failures[static_cast<std::size_t>(t)], "") << "thread " << t;
}

TEST(Transfer, PointersOnTheWrongSideAreRejectedByName) {
  lab::DeviceBuffer<std::byte> device(4096);
  lab::PinnedBuffer<std::byte> pinned(4096);
  std::vector<std::byte> pageable(4096);
  // Device memory where host memory is expected.
  EXPECT_NE(invalid_argument_message([&] {
              copy_to_device(device.data(), device.data(), 16);
            }).find("src_host"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              copy_to_host(device.data(), device.data(), 16);
            }).find("dst_host"),
            std::string::npos);
  // Host memory (pageable or pinned) where device memory is expected.
  for (void* host : {static_cast<void*>(pageable.data()), static_cast<void*>(pinned.data())}) {
    EXPECT_NE(invalid_argument_message([&] {
                copy_to_device(host, pageable.data(), 16);
              }).find("dst_device"),
              std::string::npos);
    EXPECT_NE(invalid_argument_message([&] {
                copy_to_host(pageable.data(), host, 16);
              }).find("src_device"),
              std::string::npos);
  }
}

TEST(Transfer, CapturingStreamIsRefused) {
  lab::Stream stream;
  lab::DeviceBuffer<std::byte> device(MiB);
  std::vector<std::byte> host(MiB);
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  const std::string up =
      invalid_argument_message([&] { copy_to_device(device.data(), host.data(), MiB, stream); });
  const std::string down =
      invalid_argument_message([&] { copy_to_host(host.data(), device.data(), MiB, stream); });
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  if (graph)
    cudaGraphDestroy(graph);
  EXPECT_NE(up.find("captured"), std::string::npos) << up;
  EXPECT_NE(down.find("captured"), std::string::npos) << down;
}

// A staged copy that fails half-way (a CudaError once some chunks are on the stream and others
// are with the workers) throws, waits for what is in flight, releases its ring, and the next
// copies in both directions work: nothing is left behind.
TEST(Transfer, FailedStagedCopyLeavesTheRingUsable) {
  lab::Stream stream;
  const std::size_t bytes = 2 * MiB + 5;
  lab::DeviceBuffer<std::byte> device(bytes);
  std::vector<std::byte> host(bytes, std::byte{1});
  for (std::int64_t fail_after : {1, 3, 20}) {
    StagingConfig c;
    c.chunk_bytes = 64 * KiB;
    c.slots = 4;
    c.threads = 2;
    c.fail_after_chunks = fail_after;
    c.direct_max_bytes = 0; // staged, however small
    EXPECT_THROW(transfers::copy_to_device_with(device.data(), host.data(), bytes, stream, c),
                 CudaError);
    EXPECT_THROW(transfers::copy_to_host_with(host.data(), device.data(), bytes, stream, c),
                 CudaError);
  }
  round_trip(HostKind::pageable, bytes, 0, 0, stream);
  StagingConfig tiny;
  tiny.chunk_bytes = 64 * KiB;
  tiny.slots = 4;
  tiny.direct_max_bytes = 0;
  round_trip(HostKind::pageable, bytes, 1, 1, stream, tiny, Path::staged);
}

std::size_t available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:")
      return kib * 1024;
  return 0;
}

TEST(Transfer, MoreThanFourGiB) {
  if (small_mode())
    GTEST_SKIP() << "--small: the > 4 GiB copy is left to the full run";
  const std::size_t bytes = 4 * GiB + 4099;
  std::size_t free_device = 0, total_device = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_device, &total_device), cudaSuccess);
  if (free_device < bytes + 256 * MiB)
    GTEST_SKIP() << "the GPU has " << (free_device >> 20) << " MiB free, the test needs "
                 << ((bytes >> 20) + 256);
  if (available_host_bytes() < 3 * bytes)
    GTEST_SKIP() << "the host has " << (available_host_bytes() >> 20)
                 << " MiB available, the test needs " << (3 * bytes >> 20);
  lab::Stream stream;
  std::unique_ptr<std::byte[]> src(new std::byte[bytes]), dst(new std::byte[bytes]);
  fill_bytes(src.get(), bytes, 4242);
  std::memset(dst.get(), 0xEE, bytes);
  lab::DeviceBuffer<std::byte> device(bytes);
  copy_to_device(device.data(), src.get() + 0, bytes, stream);
  // Bytes around 4 GiB read back with cudaMemcpy, independent of the library.
  std::byte probe[64];
  ASSERT_EQ(cudaMemcpy(probe, device.data() + 4 * GiB - 32, 64, cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(std::memcmp(probe, src.get() + 4 * GiB - 32, 64), 0);
  ASSERT_EQ(cudaMemcpy(probe, device.data() + bytes - 64, 64, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::memcmp(probe, src.get() + bytes - 64, 64), 0);
  copy_to_host(dst.get(), device.data(), bytes, stream);
  EXPECT_EQ(std::memcmp(dst.get(), src.get(), bytes), 0);
}

// The study's kernels: the zero-copy copy at odd sizes and offsets (vector and byte paths).
TEST(Transfer, ZeroCopyKernelCopiesEveryByte) {
  lab::Stream stream;
  for (std::size_t bytes : {std::size_t{1}, std::size_t{17}, std::size_t{4096}, MiB + 3})
    for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
      void* mapped = nullptr;
      ASSERT_EQ(cudaHostAlloc(&mapped, bytes + 16, cudaHostAllocMapped), cudaSuccess);
      void* mapped_device = nullptr;
      ASSERT_EQ(cudaHostGetDevicePointer(&mapped_device, mapped, 0), cudaSuccess);
      auto* host = static_cast<std::byte*>(mapped) + offset;
      fill_bytes(host, bytes, bytes + offset);
      lab::DeviceBuffer<std::byte> device(bytes);
      lab::transfers::launch_sm_copy(device.data(), static_cast<std::byte*>(mapped_device) + offset,
                                     bytes, stream);
      std::vector<std::byte> back(bytes);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(back.data(), device.data(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ(std::memcmp(back.data(), host, bytes), 0) << bytes << " at offset " << offset;
      cudaFreeHost(mapped);
    }
}

} // namespace
} // namespace ladder::test
