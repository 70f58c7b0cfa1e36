// GPU tests of the scan ladder and of ladder::exclusive_scan / inclusive_scan / compact.
// Registry-driven: every rung x int32 and float over the sizes it supports. Outputs are poisoned
// before every run; integers must match the CPU exactly, floats must lie within the rounding bound
// of reference.hpp (it scales with each element's prefix of |x|, because reassociating a sum of k
// terms moves it by at most depth x eps x sum |x_i|, and the GPU associates differently from the
// sequential loop).
#include "gpu_test.hpp"

#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "ladder/scan.hpp"
#include "scan/reduce_ahead_scan.cuh"
#include "scan/reference.hpp"
#include "scan/variants.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace ladder::test {
namespace {

using lab::DeviceBuffer;
using ScanRung = lab::scan::Rung;

std::vector<std::int64_t> rung_sizes() {
  std::vector<std::int64_t> sizes = {1, 2, 31, 32, 33, 1023, 1024, 1025, 2047, 2048,
                                     4095, 4096, 4097, 65539};
  if (!small_mode()) {
    sizes.push_back((1 << 20) + 7);       // 257 look-back tiles of 4096
    sizes.push_back(1000003);             // a large prime
    sizes.push_back((1 << 24) + 12345);   // thousands of tiles on the look-back chain
  }
  return sizes;
}

template <class T> void fill(T* data, std::int64_t n, std::uint64_t seed, cudaStream_t stream) {
  if constexpr (std::is_floating_point_v<T>)
    lab::fill_random<T>(data, n, seed, -1.0, 1.0, stream);
  else
    lab::fill_random<T>(data, n, seed, -1000.0, 1000.0, stream);
}

template <class T> std::vector<T> to_host(const T* device, std::int64_t n, cudaStream_t stream) {
  std::vector<T> host(static_cast<std::size_t>(n));
  if (n > 0)
    EXPECT_EQ(cudaMemcpyAsync(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost, stream), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  return host;
}

// "" when `got` is the scan of `in` (exact for integers, within the bound for floats).
template <class T>
std::string check_scan(const std::vector<T>& got, const std::vector<T>& in, bool inclusive,
                       std::int64_t chain_tile) {
  const auto n = static_cast<std::int64_t>(in.size());
  if constexpr (std::is_floating_point_v<T>) {
    return lab::scan::compare_prefix_sums<T>(got, in, inclusive, lab::scan::scan_error_depth(n, chain_tile > 0 ? chain_tile : n));
  } else {
    std::vector<T> expected(in.size());
    if (inclusive)
      lab::scan::cpu_inclusive_scan<T>(in, expected);
    else
      lab::scan::cpu_exclusive_scan<T>(in, expected);
    return lab::scan::compare_exact<T>(got, expected);
  }
}

// --- every rung of the registry -------------------------------------------------------------------

class ScanRungTest : public ::testing::TestWithParam<std::size_t> {};

template <class T> void test_rung(const ScanRung& v) {
  lab::Stream stream;
  const auto launch = [&] {
    if constexpr (std::is_same_v<T, float>)
      return v.launch_f32;
    else
      return v.launch_i32;
  }();
  int tested = 0;
  for (const std::int64_t n : rung_sizes()) {
    if (v.unsupported(n))
      continue;
    DeviceBuffer<T> in(n), out(n);
    fill<T>(in.data(), n, lab::fresh_seed(), stream);
    const auto host_in = to_host(in.data(), n, stream);
    lab::poison(out.data(), out.bytes(), stream);
    launch(in.data(), out.data(), n, stream);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess) << v.info.name;
    const auto got = to_host(out.data(), n, stream);
    if (v.computes_scan)
      EXPECT_EQ(check_scan<T>(got, host_in, false, v.chain_tile), "") << v.info.name << " n = " << n;
    else
      EXPECT_EQ(lab::scan::compare_exact<T>(got, host_in), "") << v.info.name << " n = " << n;
    ++tested;
  }
  EXPECT_GT(tested, 0) << v.info.name << " supports none of the test sizes";
}

TEST_P(ScanRungTest, Int32MatchesCpuOnEverySizeItSupports) {
  const ScanRung& v = lab::scan::registry()[GetParam()];
  if (v.on_cpu)
    GTEST_SKIP() << "the CPU rung is the reference (host tests check it)";
  test_rung<std::int32_t>(v);
}

TEST_P(ScanRungTest, FloatWithinRoundingBoundOnEverySizeItSupports) {
  const ScanRung& v = lab::scan::registry()[GetParam()];
  if (v.on_cpu)
    GTEST_SKIP() << "the CPU rung is the reference (host tests check it)";
  test_rung<float>(v);
}

INSTANTIATE_TEST_SUITE_P(Registry, ScanRungTest,
                         ::testing::Range<std::size_t>(0, lab::scan::registry().size()),
                         [](const auto& info) { return test_name(lab::scan::registry()[info.param].info.name); });

// --- the library call over types, in place, alignments --------------------------------------------

template <class T> class ScanLibraryTest : public ::testing::Test {};
using ScanTypes = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(ScanLibraryTest, ScanTypes);

std::vector<std::int64_t> library_sizes() {
  std::vector<std::int64_t> sizes = {1, 2, 7, 33, 2047, 2048, 2049, 4096, 4097, 8191, 8192, 8193, 16383, 16384, 16385, 100003};
  if (!small_mode()) {
    sizes.push_back((1 << 20) + 7);
    sizes.push_back(scan_detail::library_reduce_ahead_min + 7); // the reduce-ahead kernel
  }
  return sizes;
}

TYPED_TEST(ScanLibraryTest, ExclusiveAndInclusiveInPlaceAndMisaligned) {
  using T = TypeParam;
  lab::Stream stream;
  // Tolerance depth from the look-back tile (8192 4-byte or 4096 8-byte elements): the smallest
  // tile the library uses, so the loosest chain; the reduce-ahead chain is shorter.
  const std::int64_t tile = 16 / sizeof(T) * 8 * 256;
  for (const std::int64_t n : library_sizes()) {
    DeviceBuffer<T> in_buffer(n + 4), out_buffer(n + 4);
    for (int in_offset : {0, 1}) {
      for (int out_offset : {0, 1}) {
        T* in = in_buffer.data() + in_offset;
        T* out = out_buffer.data() + out_offset;
        fill<T>(in, n, lab::fresh_seed(), stream);
        const auto host_in = to_host(in, n, stream);
        for (bool inclusive : {false, true}) {
          lab::poison(out_buffer.data(), out_buffer.bytes(), stream);
          if (inclusive)
            inclusive_scan(static_cast<const T*>(in), out, n, stream);
          else
            exclusive_scan(static_cast<const T*>(in), out, n, stream);
          EXPECT_EQ(check_scan<T>(to_host(out, n, stream), host_in, inclusive, tile), "")
              << "n = " << n << (inclusive ? " inclusive" : " exclusive") << " in+" << in_offset
              << " out+" << out_offset;
          // The element after the output must be untouched (still poison).
          const auto after = to_host(out + n, 1, stream);
          std::vector<T> poison_value(1);
          std::memset(poison_value.data(), 0xFF, sizeof(T));
          EXPECT_EQ(std::memcmp(after.data(), poison_value.data(), sizeof(T)), 0) << "wrote past n = " << n;
        }
        if (in_offset != out_offset)
          continue;
        // In place: out == in.
        for (bool inclusive : {false, true}) {
          ASSERT_EQ(cudaMemcpyAsync(out, host_in.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream), cudaSuccess);
          if (inclusive)
            inclusive_scan(static_cast<const T*>(out), out, n, stream);
          else
            exclusive_scan(static_cast<const T*>(out), out, n, stream);
          EXPECT_EQ(check_scan<T>(to_host(out, n, stream), host_in, inclusive, tile), "")
              << "in place, n = " << n << (inclusive ? " inclusive" : " exclusive") << " offset " << in_offset;
        }
      }
    }
  }
}

TEST(ScanLibrary, BadArgumentsThrowBeforeAnyLaunch) {
  DeviceBuffer<int> a(100), b(100);
  EXPECT_THROW(exclusive_scan(a.data(), b.data(), -1), std::invalid_argument);
  EXPECT_THROW(exclusive_scan(static_cast<const int*>(nullptr), b.data(), 10), std::invalid_argument);
  EXPECT_THROW(inclusive_scan(a.data(), static_cast<int*>(nullptr), 10), std::invalid_argument);
  EXPECT_THROW(exclusive_scan(a.data(), a.data() + 1, 50), std::invalid_argument);
  EXPECT_THROW(inclusive_scan(a.data() + 10, a.data(), 50), std::invalid_argument);
  try {
    exclusive_scan(a.data(), a.data() + 1, 50);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("overlap"), std::string::npos) << e.what();
  }
  try {
    exclusive_scan(static_cast<const int*>(nullptr), b.data(), 10);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("in is null"), std::string::npos) << e.what();
  }
  // n = 0 is a no-op, null pointers included; adjacent ranges do not overlap.
  EXPECT_NO_THROW(exclusive_scan(static_cast<const int*>(nullptr), static_cast<int*>(nullptr), 0));
  EXPECT_NO_THROW(exclusive_scan(a.data(), a.data() + 50, 50));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// Counts the nodes one call puts on a stream (stream capture): kernel launches and memsets.
std::pair<int, int> captured_nodes(std::int64_t n) {
  lab::Stream stream;
  DeviceBuffer<int> in(n), out(n);
  exclusive_scan(in.data(), out.data(), n, stream.get()); // kernels loaded before capture
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  exclusive_scan(in.data(), out.data(), n, stream.get());
  EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  std::size_t count = 0;
  cudaGraphGetNodes(graph, nullptr, &count);
  std::vector<cudaGraphNode_t> nodes(count);
  cudaGraphGetNodes(graph, nodes.data(), &count);
  int kernels = 0, memsets = 0;
  for (auto node : nodes) {
    cudaGraphNodeType type{};
    cudaGraphNodeGetType(node, &type);
    kernels += type == cudaGraphNodeTypeKernel;
    memsets += type == cudaGraphNodeTypeMemset;
  }
  cudaGraphDestroy(graph);
  return {kernels, memsets};
}

TEST(ScanLibrary, SmallSizesTakeOneLaunchAndNoScratch) {
  constexpr std::int64_t tile = scan_detail::library_single_launch_max<int>; // 16384 int32
  EXPECT_EQ(captured_nodes(1), std::make_pair(1, 0));
  EXPECT_EQ(captured_nodes(tile), std::make_pair(1, 0)); // one library tile
  EXPECT_EQ(captured_nodes(tile + 1), std::make_pair(1, 1)); // the kernel + zeroing the tile status
  // Above 2^22 a captured call takes the look-back kernel too (a cooperative launch cannot be
  // captured): still one kernel and one memset.
  EXPECT_EQ(captured_nodes(scan_detail::library_reduce_ahead_min + 1), std::make_pair(1, 1));
}

// The reduce-ahead kernel with a grid of a few blocks: many rows per block, so the ring of
// stages wraps and the windows span rows, at sizes the sanitizers can afford. Its own shape type
// (Tag 2): no other translation unit instantiates these kernels.
template <class T, bool Inclusive> void check_reduce_ahead_rows(std::int64_t n, std::int64_t blocks) {
  using Shape = scan_detail::AheadShape<128, 2, 3, 2, false, 2>; // 4 KB tiles
  DeviceBuffer<T> in(n), out(n);
  fill<T>(in.data(), n, lab::fresh_seed(), nullptr);
  lab::poison(out.data(), out.bytes(), nullptr);
  ASSERT_TRUE((scan_detail::launch_reduce_ahead_scan<T, Shape, Inclusive>(in.data(), out.data(), n, nullptr, blocks)));
  EXPECT_EQ(check_scan<T>(to_host(out.data(), n, nullptr), to_host(in.data(), n, nullptr), Inclusive,
                          scan_detail::AheadTile<T, Shape>::items),
            "")
      << "n = " << n << ", " << blocks << " blocks";
}

TEST(ScanReduceAhead, ManyRowsOnAFewBlocks) {
  for (std::int64_t blocks : {1, 2, 3, 7})
    for (std::int64_t n : {2049, 10000, 65539}) {
      check_reduce_ahead_rows<std::int32_t, false>(n, blocks);
      check_reduce_ahead_rows<double, true>(n, blocks);
    }
}

// A misaligned call's head (the elements before a 128-byte boundary, a lane each) on the
// reduce-ahead kernel with many rows per block, in place too: the head's sum must reach every
// tile once.
template <class T, bool Inclusive> void check_reduce_ahead_head(std::int64_t n, std::int64_t blocks, int head) {
  using Shape = scan_detail::LibraryAheadShape;
  constexpr int per_line = 128 / sizeof(T);
  ASSERT_LE(head, scan_detail::ScanHead<T>::max_count);
  ASSERT_LE(head, n);
  for (bool in_place : {false, true}) {
    // The call starts `head` elements before a 128-byte boundary, where its body begins (the
    // kernel's aligned loads and stores need 16 bytes), in `in` and in `out` alike.
    DeviceBuffer<T> in(n + per_line), out(n + per_line);
    T* src = in.data() + per_line - head;
    fill<T>(src, n, lab::fresh_seed(), nullptr);
    const auto host_in = to_host(src, n, nullptr);
    T* dst = in_place ? src : out.data() + per_line - head;
    if (!in_place)
      lab::poison(out.data(), out.bytes(), nullptr);
    const scan_detail::ScanHead<T> h{src, dst, head};
    ASSERT_TRUE((scan_detail::launch_reduce_ahead_scan<T, Shape, Inclusive>(
        src + head, dst + head, n - head, nullptr, blocks, h)));
    EXPECT_EQ(check_scan<T>(to_host(dst, n, nullptr), host_in, Inclusive,
                            scan_detail::AheadTile<T, Shape>::items),
              "")
        << "n = " << n << ", " << blocks << " blocks, head " << head << (in_place ? ", in place" : "");
  }
}

TEST(ScanReduceAhead, HeadOfAMisalignedCallOnAFewBlocks) {
  for (std::int64_t blocks : {1, 2, 3})
    for (std::int64_t n : {5, 16387, 65539})
      for (int head : {1, 3, 17, 31}) {
        if (head > n)
          continue;
        check_reduce_ahead_head<std::int32_t, false>(n, blocks, head);
        check_reduce_ahead_head<std::uint32_t, true>(n, blocks, head);
      }
  check_reduce_ahead_head<std::int64_t, false>(65539, 2, 1);
  check_reduce_ahead_head<std::int64_t, true>(65539, 3, 15);
}

// The reduce-ahead kernel with an aligned input and an output OutShift elements past a 16-byte
// boundary (shifted 16-byte stores), many rows per block, a head too.
template <class T, bool Inclusive, int OutShift> void check_reduce_ahead_shifted(std::int64_t n, std::int64_t blocks, int head) {
  using Shape = scan_detail::LibraryAheadShape;
  constexpr int per_vector = 16 / sizeof(T);
  DeviceBuffer<T> in(n + per_vector), out(n + 2 * per_vector);
  fill<T>(in.data(), n, lab::fresh_seed(), nullptr);
  const auto host_in = to_host(in.data(), n, nullptr);
  // The head's first element sits `head` elements before the boundary in `in`, and the body's
  // output OutShift elements past one.
  T* dst = out.data() + per_vector + OutShift - head;
  lab::poison(out.data(), out.bytes(), nullptr);
  const T* src = in.data() + per_vector - head;
  ASSERT_EQ(cudaMemcpy(const_cast<T*>(src), host_in.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  const scan_detail::ScanHead<T> h{src, dst, head};
  ASSERT_TRUE((scan_detail::launch_reduce_ahead_scan<T, Shape, Inclusive, OutShift>(
      src + head, dst + head, n - head, nullptr, blocks, h)));
  EXPECT_EQ(check_scan<T>(to_host(dst, n, nullptr), host_in, Inclusive, scan_detail::AheadTile<T, Shape>::items), "")
      << "n = " << n << ", " << blocks << " blocks, head " << head << ", out shift " << OutShift;
  const auto all = to_host(out.data(), n + 2 * per_vector, nullptr);
  const std::int64_t begin = dst - out.data();
  for (std::int64_t i = 0; i < n + 2 * per_vector; ++i)
    if (i < begin || i >= begin + n)
      ASSERT_EQ(all[i], all[0]) << "wrote outside [out, out + n) at " << i - begin;
}

TEST(ScanReduceAhead, ShiftedOutputOnAFewBlocks) {
  for (std::int64_t blocks : {1, 2, 3})
    for (std::int64_t n : {16383, 65539, 100003}) {
      check_reduce_ahead_shifted<std::int32_t, false, 1>(n, blocks, 0);
      check_reduce_ahead_shifted<std::int32_t, true, 2>(n, blocks, 3);
      check_reduce_ahead_shifted<std::uint32_t, false, 3>(n, blocks, 1);
      check_reduce_ahead_shifted<std::int64_t, true, 1>(n, blocks, 1);
    }
}

// Every offset of in and out within 16 bytes (4-byte types: 0-3 elements; 8-byte: 0-1), and two
// 16-byte aligned offsets that are not 128-byte aligned (the head then runs to out's next 128-byte
// boundary), exact, at sizes around one tile and, outside --small, on the reduce-ahead path;
// equal offsets in place.
template <class T> void check_every_alignment() {
  lab::Stream stream;
  constexpr int per_vector = 16 / sizeof(T), per_line = 128 / sizeof(T);
  std::vector<int> offsets;
  for (int k = 0; k < per_vector; ++k)
    offsets.push_back(k);
  offsets.push_back(per_vector);            // 16 bytes
  offsets.push_back(per_line - per_vector); // 112 bytes
  offsets.push_back(per_line - 1);          // one element short of a line
  const int room = per_line; // past the largest offset
  std::vector<std::int64_t> sizes = {1, 3, 4, 5, 40, 4100, 16387, 100003};
  if (!small_mode())
    sizes.push_back(scan_detail::library_reduce_ahead_min + 5);
  for (const std::int64_t n : sizes) {
    DeviceBuffer<T> in_buffer(n + room), out_buffer(n + room + 1);
    for (const int in_offset : offsets)
      for (const int out_offset : offsets) {
        T* in = in_buffer.data() + in_offset;
        T* out = out_buffer.data() + out_offset;
        fill<T>(in, n, lab::fresh_seed(), stream);
        const auto host_in = to_host(in, n, stream);
        for (bool inclusive : {false, true}) {
          lab::poison(out_buffer.data(), out_buffer.bytes(), stream);
          if (inclusive)
            inclusive_scan(static_cast<const T*>(in), out, n, stream);
          else
            exclusive_scan(static_cast<const T*>(in), out, n, stream);
          EXPECT_EQ(check_scan<T>(to_host(out, n, stream), host_in, inclusive, 0), "")
              << "n = " << n << " in+" << in_offset << " out+" << out_offset
              << (inclusive ? " inclusive" : " exclusive");
          const auto around = to_host(out_buffer.data(), n + room + 1, stream);
          for (int k = 0; k < out_offset; ++k) // nothing before out, nothing after out + n
            EXPECT_EQ(around[k], around[n + room]) << "wrote before out, n = " << n;
          for (std::int64_t k = out_offset + n; k < n + room + 1; ++k)
            EXPECT_EQ(around[k], around[n + room]) << "wrote past n = " << n;
        }
        if (in_offset == out_offset) {
          ASSERT_EQ(cudaMemcpyAsync(out, host_in.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream), cudaSuccess);
          exclusive_scan(static_cast<const T*>(out), out, n, stream);
          EXPECT_EQ(check_scan<T>(to_host(out, n, stream), host_in, false, 0), "")
              << "in place, n = " << n << " offset " << in_offset;
        }
      }
  }
}

TEST(ScanLibrary, EveryAlignmentInt32) { check_every_alignment<std::int32_t>(); }
TEST(ScanLibrary, EveryAlignmentUint64) { check_every_alignment<std::uint64_t>(); }

// The library's fast path is the reduce-ahead kernel for 16-byte aligned pointers; a silent
// fallback to the look-back kernel would still give right answers, so count fallbacks.
template <class T> void expect_reduce_ahead(std::int64_t n) {
  DeviceBuffer<T> in(n), out(n);
  lab::fill_random<T>(in.data(), n, lab::fresh_seed(), -100, 100, nullptr);
  const long before = scan_detail::reduce_ahead_fallbacks.load();
  exclusive_scan(in.data(), out.data(), n);
  inclusive_scan(in.data(), in.data(), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(scan_detail::reduce_ahead_fallbacks.load(), before)
      << "fell back to the look-back kernel; last reason " << scan_detail::reduce_ahead_fallback_reason.load()
      << " (-1: no cooperative launch, else a cudaError_t)";
}

TEST(ScanLibrary, AlignedCallsTakeTheReduceAheadKernel) {
  constexpr std::int64_t n = scan_detail::library_reduce_ahead_min;
  expect_reduce_ahead<int>(n + 7);
  expect_reduce_ahead<double>(n + 7);
  expect_reduce_ahead<float>(3 * n + 1);
  expect_reduce_ahead<std::uint32_t>(n);
}

// --- look-back stress ---------------------------------------------------------------------------

TEST(ScanLookbackStress, ManySizesInARowOnOneStream) {
  lab::Stream stream;
  std::mt19937_64 rng(lab::fresh_seed());
  const int calls = small_mode() ? 8 : 40;
  std::vector<std::int64_t> sizes;
  for (int i = 0; i < calls; ++i)
    sizes.push_back(1 + static_cast<std::int64_t>(rng() % (small_mode() ? 20000 : 400000)));
  std::vector<DeviceBuffer<std::int32_t>> ins, outs;
  for (auto n : sizes) {
    ins.emplace_back(n);
    outs.emplace_back(n);
    fill<std::int32_t>(ins.back().data(), n, lab::fresh_seed(), stream);
    lab::poison(outs.back().data(), outs.back().bytes(), stream);
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) // back to back, no synchronization
    exclusive_scan(static_cast<const std::int32_t*>(ins[i].data()), outs[i].data(), sizes[i], stream);
  for (std::size_t i = 0; i < sizes.size(); ++i)
    EXPECT_EQ(check_scan<std::int32_t>(to_host(outs[i].data(), sizes[i], stream),
                                       to_host(ins[i].data(), sizes[i], stream), false, 8192),
              "")
        << "call " << i << " n = " << sizes[i];
}

TEST(ScanLookbackStress, ConcurrentCallsOnSeveralStreamsAndThreads) {
  const int threads = 4, calls = small_mode() ? 3 : 12;
  // Above 2^22: concurrent cooperative launches of the reduce-ahead kernel, each sized to fill
  // the GPU, must all finish (a cooperative grid runs only when all its blocks fit).
  const std::int64_t n = small_mode() ? 50000 : scan_detail::library_reduce_ahead_min + 3001;
  std::vector<std::string> failures(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        lab::Stream stream;
        std::vector<DeviceBuffer<std::int64_t>> ins, outs;
        for (int c = 0; c < calls; ++c) {
          ins.emplace_back(n);
          outs.emplace_back(n);
          fill<std::int64_t>(ins.back().data(), n, lab::fresh_seed(), stream);
          lab::poison(outs.back().data(), outs.back().bytes(), stream);
        }
        for (int c = 0; c < calls; ++c)
          inclusive_scan(static_cast<const std::int64_t*>(ins[c].data()), outs[c].data(), n, stream);
        for (int c = 0; c < calls; ++c) {
          const std::string m = check_scan<std::int64_t>(to_host(outs[c].data(), n, stream),
                                                         to_host(ins[c].data(), n, stream), true, 2048);
          if (!m.empty() && failures[t].empty())
            failures[t] = "call " + std::to_string(c) + ": " + m;
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  }
  for (auto& th : pool)
    th.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
}

__global__ void fill_mod7(std::int32_t* x, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    x[i] = static_cast<std::int32_t>(i % 7) + 1;
}

// Exclusive prefix of (j mod 7) + 1: 28 per full period of 7, plus r (r + 1) / 2, modulo 2^32.
__global__ void count_wrong_mod7(const std::int32_t* x, std::int64_t n, unsigned long long* wrong,
                                 long long* first) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t r = static_cast<std::uint64_t>(i % 7);
    const auto expected = static_cast<std::uint32_t>(28ull * static_cast<std::uint64_t>(i / 7) + r * (r + 1) / 2);
    if (static_cast<std::uint32_t>(x[i]) != expected) {
      atomicAdd(wrong, 1ull);
      atomicMin(first, static_cast<long long>(i));
    }
  }
}

TEST(ScanLibrary, MoreThan2To31ElementsInPlace) {
  if (small_mode())
    GTEST_SKIP() << "8 GiB: not under --small";
  const std::int64_t n = (std::int64_t{1} << 31) + 4099;
  std::size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  if (free_bytes < static_cast<std::size_t>(n) * 4 + (std::size_t{1} << 30))
    GTEST_SKIP() << "not enough device memory for " << n << " int32";
  lab::Stream stream;
  DeviceBuffer<std::int32_t> data(n);
  DeviceBuffer<unsigned long long> wrong(1);
  DeviceBuffer<long long> first(1);
  fill_mod7<<<4096, 256, 0, stream>>>(data.data(), n);
  exclusive_scan(static_cast<const std::int32_t*>(data.data()), data.data(), n, stream);
  ASSERT_EQ(cudaMemsetAsync(wrong.data(), 0, 8, stream), cudaSuccess);
  const long long none = n;
  ASSERT_EQ(cudaMemcpyAsync(first.data(), &none, 8, cudaMemcpyHostToDevice, stream), cudaSuccess);
  count_wrong_mod7<<<4096, 256, 0, stream>>>(data.data(), n, wrong.data(), first.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  unsigned long long bad = 0;
  long long where = 0;
  ASSERT_EQ(cudaMemcpyAsync(&bad, wrong.data(), 8, cudaMemcpyDeviceToHost, stream), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(&where, first.data(), 8, cudaMemcpyDeviceToHost, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(bad, 0u) << "first wrong element at " << where;
}

// --- stream compaction ----------------------------------------------------------------------------

struct KeepPositive {
  template <class T> __device__ bool operator()(const T& x) const { return x > T(0); }
};

template <class T> class CompactTest : public ::testing::Test {};
using CompactTypes = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(CompactTest, CompactTypes);

TYPED_TEST(CompactTest, KeepsSelectedElementsInOrder) {
  using T = TypeParam;
  lab::Stream stream;
  std::vector<std::int64_t> sizes = {1, 2, 7, 33, 2048, 4096, 4097, 100003};
  if (!small_mode())
    sizes.push_back((1 << 22) + 5);
  for (const std::int64_t n : sizes) {
    DeviceBuffer<T> in_buffer(n + 2), out_buffer(n + 2);
    for (int offset : {0, 1}) {
      T* in = in_buffer.data() + offset;
      T* out = out_buffer.data() + offset;
      fill<T>(in, n, lab::fresh_seed(), stream);
      const auto host_in = to_host(in, n, stream);
      std::vector<T> expected;
      std::copy_if(host_in.begin(), host_in.end(), std::back_inserter(expected), [](T x) { return x > T(0); });
      lab::poison(out_buffer.data(), out_buffer.bytes(), stream);
      const std::int64_t kept = compact(static_cast<const T*>(in), out, n, KeepPositive{}, stream.get());
      ASSERT_EQ(kept, static_cast<std::int64_t>(expected.size())) << "n = " << n << " offset " << offset;
      EXPECT_EQ(lab::scan::compare_exact<T>(to_host(out, kept, stream), expected), "") << "n = " << n;
      // In place.
      ASSERT_EQ(cudaMemcpyAsync(out, host_in.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream), cudaSuccess);
      const std::int64_t kept_in_place = compact(static_cast<const T*>(out), out, n, KeepPositive{}, stream.get());
      ASSERT_EQ(kept_in_place, kept) << "in place, n = " << n;
      EXPECT_EQ(lab::scan::compare_exact<T>(to_host(out, kept, stream), expected), "") << "in place, n = " << n;
    }
  }
}

// Every compaction row of the study's registry (library, tuning shapes, CUB) at sizes around a
// tile, against std::copy_if, with the device count.
TEST(Compact, EveryRegistryRowMatchesCopyIf) {
  lab::Stream stream;
  std::vector<std::int64_t> sizes = {1, 4097, 16384, 100003, 16384 * 7 + 5};
  if (!small_mode())
    sizes.push_back((std::int64_t{1} << 22) + 5);
  for (const auto& rung : lab::scan::compact_registry())
    for (const std::int64_t n : sizes) {
      DeviceBuffer<std::int32_t> in(n), out(n + 1);
      DeviceBuffer<std::int64_t> count(1);
      fill<std::int32_t>(in.data(), n, lab::fresh_seed(), stream);
      const auto host_in = to_host(in.data(), n, stream);
      std::vector<std::int32_t> expected;
      std::copy_if(host_in.begin(), host_in.end(), std::back_inserter(expected), lab::scan::compact_keeps);
      lab::poison(out.data(), out.bytes(), stream);
      lab::poison(count.data(), count.bytes(), stream);
      rung.launch(in.data(), out.data(), n, count.data(), stream);
      ASSERT_EQ(cudaGetLastError(), cudaSuccess) << rung.info.name;
      ASSERT_EQ(to_host(count.data(), 1, stream)[0], static_cast<std::int64_t>(expected.size()))
          << rung.info.name << " n = " << n;
      const auto got = to_host(out.data(), n + 1, stream);
      EXPECT_EQ(lab::scan::compare_exact<std::int32_t>(std::span(got).first(expected.size()), expected), "")
          << rung.info.name << " n = " << n;
      EXPECT_EQ(got[expected.size()], -1) << rung.info.name << " wrote past the kept elements";
    }
}

// The reduce-ahead compaction with many rows per block (so --small runs it too), in place too.
TEST(Compact, ReduceAheadManyRowsOnAFewBlocks) {
  namespace impl = ladder::detail::compact_impl;
  for (std::int64_t blocks : {1, 2, 3})
    for (std::int64_t n : {5, 16385, 100003})
      for (bool in_place : {false, true}) {
        DeviceBuffer<std::int32_t> in(n), out(n);
        DeviceBuffer<std::int64_t> count(1);
        fill<std::int32_t>(in.data(), n, lab::fresh_seed(), nullptr);
        const auto host_in = to_host(in.data(), n, nullptr);
        std::vector<std::int32_t> expected;
        std::copy_if(host_in.begin(), host_in.end(), std::back_inserter(expected), [](int x) { return x > 0; });
        std::int32_t* dst = in_place ? in.data() : out.data();
        ASSERT_TRUE((impl::launch_ahead<std::int32_t, impl::LibraryAheadShape>(in.data(), dst, n, KeepPositive{},
                                                                               count.data(), nullptr, blocks)));
        ASSERT_EQ(to_host(count.data(), 1, nullptr)[0], static_cast<std::int64_t>(expected.size()))
            << "n = " << n << ", " << blocks << " blocks";
        EXPECT_EQ(lab::scan::compare_exact<std::int32_t>(to_host(dst, static_cast<std::int64_t>(expected.size()), nullptr), expected), "")
            << "n = " << n << ", " << blocks << " blocks" << (in_place ? ", in place" : "");
      }
}

// The reduce-ahead compaction's write-outs (staged: compacted in shared memory, a scalar head to
// out's next 16-byte boundary, 16-byte stores, a scalar tail; scalar: element stores) past 2^22
// elements (a few tiles on 2 or 3 blocks under --small), against std::copy_if: every alignment
// of out (head lengths 0 to 16 / sizeof(T) - 1), in place, tiles that keep everything or nothing,
// and nothing written outside the kept elements.
enum class Keep { random, all, none, runs_of_tiles, odd_runs };

template <class T> std::vector<T> keep_pattern(std::int64_t n, Keep keep, std::int64_t tile, std::uint64_t seed) {
  std::vector<T> host(static_cast<std::size_t>(n));
  std::uint64_t state = seed;
  auto random = [&state] { // splitmix64: cheap enough for 2^22 elements per case
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t bits = random();
    bool kept = false;
    switch (keep) {
    case Keep::random: kept = bits & 1; break;
    case Keep::all: kept = true; break;
    case Keep::none: kept = false; break;
    case Keep::runs_of_tiles: kept = (i / tile) % 3 != 1; break;      // whole tiles kept or not
    case Keep::odd_runs: kept = (i / (tile / 2 + 1)) % 2 == 0; break; // runs across tile edges
    }
    const int v = 1 + static_cast<int>((bits >> 1) % 1000);
    host[static_cast<std::size_t>(i)] = kept ? T(v) : std::is_signed_v<T> ? T(-v) : T(0);
  }
  return host;
}

template <class T, class Shape> void check_reduce_ahead_write_out(const char* shape, bool every_size) {
  namespace impl = ladder::detail::compact_impl;
  constexpr std::int64_t items = Shape::template items<T>;
  constexpr int width = 16 / sizeof(T);
  lab::Stream stream;
  const std::int64_t max_blocks = small_mode() ? 3 : 0;
  const std::int64_t large = small_mode() ? 4 * items : std::int64_t{1} << 22;
  std::vector<std::int64_t> sizes = {large + 1, large + 5 * items / 2 + 7};
  if (every_size)
    sizes.insert(sizes.end(), {large, large + items - 1});
  for (const std::int64_t n : sizes)
    for (const Keep keep : {Keep::random, Keep::all, Keep::none, Keep::runs_of_tiles, Keep::odd_runs})
      for (int offset = -1; offset < width; ++offset) { // -1: in place
        if (keep != Keep::random && offset > 1) // every head length once per size is enough
          continue;
        const bool in_place = offset < 0;
        const std::int64_t slack = 2 * width;
        DeviceBuffer<T> in(n), out(n + slack);
        DeviceBuffer<std::int64_t> count(1);
        const auto host_in = keep_pattern<T>(n, keep, items, lab::fresh_seed());
        std::vector<T> expected;
        std::copy_if(host_in.begin(), host_in.end(), std::back_inserter(expected), [](T x) { return x > T(0); });
        ASSERT_EQ(cudaMemcpyAsync(in.data(), host_in.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream), cudaSuccess);
        lab::poison(out.data(), out.bytes(), stream);
        lab::poison(count.data(), count.bytes(), stream);
        T* dst = in_place ? in.data() : out.data() + offset;
        const std::string where = std::string(shape) + ", n = " + std::to_string(n) + ", pattern " +
                                  std::to_string(static_cast<int>(keep)) +
                                  (in_place ? ", in place" : ", out offset " + std::to_string(offset));
        ASSERT_TRUE((impl::launch_ahead<T, Shape>(in.data(), dst, n, KeepPositive{}, count.data(), stream.get(),
                                                  max_blocks)))
            << where;
        ASSERT_EQ(cudaGetLastError(), cudaSuccess) << where;
        ASSERT_EQ(to_host(count.data(), 1, stream)[0], static_cast<std::int64_t>(expected.size())) << where;
        const auto kept = static_cast<std::int64_t>(expected.size());
        EXPECT_EQ(lab::scan::compare_exact<T>(to_host(dst, kept, stream), expected), "") << where;
        if (!in_place) { // the poison before and after the kept elements is intact
          const auto all = to_host(out.data(), n + slack, stream);
          std::vector<unsigned char> poison(sizeof(T), 0xFF);
          for (std::int64_t i = 0; i < n + slack; ++i)
            if (i < offset || i >= offset + kept) {
              ASSERT_EQ(std::memcmp(&all[static_cast<std::size_t>(i)], poison.data(), sizeof(T)), 0)
                  << where << ": wrote element " << i - offset << " of out";
            }
        }
      }
}

// An input off a 16-byte boundary: its head (1 .. 16 / sizeof(T) - 1 elements) tested by warp 0
// ahead of the tiles, on a few blocks so that --small covers many rows; in place too.
template <class T, class Shape> void check_reduce_ahead_compact_head(const char* shape) {
  namespace impl = ladder::detail::compact_impl;
  constexpr std::int64_t items = Shape::template items<T>;
  constexpr int width = 16 / sizeof(T);
  lab::Stream stream;
  const std::int64_t max_blocks = small_mode() ? 3 : 0;
  const std::int64_t n = (small_mode() ? 4 * items : std::int64_t{1} << 22) + 5;
  for (const Keep keep : {Keep::random, Keep::all, Keep::none})
    for (int head = 1; head < width; ++head)
      for (bool in_place : {false, true}) {
        DeviceBuffer<T> in(n + width), out(n + width);
        T* src = in.data() + width - head; // src + head is on a 16-byte boundary
        const auto host_in = keep_pattern<T>(n, keep, items, lab::fresh_seed());
        std::vector<T> expected;
        std::copy_if(host_in.begin(), host_in.end(), std::back_inserter(expected), [](T x) { return x > T(0); });
        ASSERT_EQ(cudaMemcpyAsync(src, host_in.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream), cudaSuccess);
        lab::poison(out.data(), out.bytes(), stream);
        DeviceBuffer<std::int64_t> count(1);
        T* dst = in_place ? src : out.data() + 1;
        const std::string where = std::string(shape) + ", head " + std::to_string(head) + ", pattern " +
                                  std::to_string(static_cast<int>(keep)) + (in_place ? ", in place" : "");
        ASSERT_TRUE((impl::launch_ahead<T, Shape>(src + head, dst, n - head, KeepPositive{}, count.data(),
                                                  stream.get(), max_blocks, impl::CompactHead<T>{src, head})))
            << where;
        const auto kept = static_cast<std::int64_t>(expected.size());
        ASSERT_EQ(to_host(count.data(), 1, stream)[0], kept) << where;
        EXPECT_EQ(lab::scan::compare_exact<T>(to_host(dst, kept, stream), expected), "") << where;
        if (!in_place) {
          const auto all = to_host(out.data(), n + width, stream);
          std::vector<unsigned char> poison(sizeof(T), 0xFF);
          for (std::int64_t i = 0; i < n + width; ++i)
            if (i < 1 || i >= 1 + kept) {
              ASSERT_EQ(std::memcmp(&all[static_cast<std::size_t>(i)], poison.data(), sizeof(T)), 0)
                  << where << ": wrote element " << i - 1 << " of out";
            }
        }
      }
}

TEST(Compact, ReduceAheadHeadOfAMisalignedInput) {
  namespace impl = ladder::detail::compact_impl;
  using impl::AheadShape, impl::WriteOut;
  check_reduce_ahead_compact_head<std::int32_t, impl::LibraryAheadShape>("library shape");
  check_reduce_ahead_compact_head<double, impl::LibraryAheadShape>("library shape");
  check_reduce_ahead_compact_head<float, AheadShape<512, 8, 3, 2, WriteOut::scalar>>("scalar");
}

TEST(Compact, ReduceAheadWriteOutsAtEveryAlignment) {
  namespace impl = ladder::detail::compact_impl;
  using impl::AheadShape, impl::WriteOut;
  check_reduce_ahead_write_out<std::int32_t, impl::LibraryAheadShape>("library shape", true);
  check_reduce_ahead_write_out<double, impl::LibraryAheadShape>("library shape", true);
  check_reduce_ahead_write_out<std::int64_t, impl::LibraryAheadShape>("library shape", false);
  check_reduce_ahead_write_out<float, AheadShape<256, 8, 3, 2, WriteOut::staged_streaming>>(
      "staged_streaming 256", false);
  check_reduce_ahead_write_out<std::uint32_t, AheadShape<256, 4, 4, 1, WriteOut::staged>>(
      "staged 256x4 s4 r1", false);
  check_reduce_ahead_write_out<std::int32_t, AheadShape<512, 8, 3, 2, WriteOut::scalar>>("scalar", false);
  check_reduce_ahead_write_out<double, AheadShape<256, 8, 3, 2, WriteOut::scalar>>("scalar", false);
}

TEST(Compact, AsyncCountStaysOnTheDeviceAndZeroIsANoOp) {
  lab::Stream stream;
  DeviceBuffer<std::int32_t> in(10000), out(10000);
  DeviceBuffer<std::int64_t> count(1);
  fill<std::int32_t>(in.data(), 10000, lab::fresh_seed(), stream);
  compact_async(static_cast<const std::int32_t*>(in.data()), out.data(), 10000, KeepPositive{}, count.data(), stream.get());
  const auto host_in = to_host(in.data(), 10000, stream);
  const auto got = to_host(count.data(), 1, stream);
  EXPECT_EQ(got[0], std::count_if(host_in.begin(), host_in.end(), [](int x) { return x > 0; }));
  EXPECT_EQ(compact(static_cast<const int*>(nullptr), static_cast<int*>(nullptr), 0, KeepPositive{}, stream.get()), 0);
  EXPECT_THROW(compact(in.data(), in.data() + 1, 100, KeepPositive{}, stream.get()), std::invalid_argument);
}

} // namespace
} // namespace ladder::test
