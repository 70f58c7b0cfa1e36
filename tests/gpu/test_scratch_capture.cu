// GPU tests of the library calls' scratch memory (issue 24): it is bounded, since it is allocated
// per call and returned on the stream, so thousands of streams created, used and destroyed leave
// nothing behind; and it is capture-safe, so every public call can be captured into a CUDA graph on
// a fresh stream (its first call there) and the graph replays correctly with new inputs.
//
// Both tests fail on the earlier design (a scratch block per stream that ever called
// ladder::reduce, allocated on first use and never returned): 64 KiB or more per stream is at
// least 32 MiB over the 512 streams of --small, over the 16 MiB bound, and the first reduce on a
// capturing stream threw.
#include "gpu_test.hpp"

#include "core/buffer.hpp"
#include "core/harness.hpp"
#include "ladder/reduce.hpp"
#include "ladder/scan.hpp"
#include "ladder/transpose.hpp"
#include "reduce/reference.hpp"
#include "scan/reference.hpp"
#include "transpose/reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace ladder::test {
namespace {

using lab::DeviceBuffer;

template <class T> std::vector<T> to_host(const T* device, std::int64_t n, cudaStream_t stream) {
  std::vector<T> host(static_cast<std::size_t>(n));
  if (n > 0)
    EXPECT_EQ(cudaMemcpyAsync(host.data(), device, static_cast<std::size_t>(n) * sizeof(T),
                              cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  return host;
}

std::int64_t device_bytes_in_use() {
  std::size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  return static_cast<std::int64_t>(total - free_bytes);
}

// Adds 1 to *bad for every element of got that differs from want.
__global__ void count_mismatches(const std::int32_t* got, const std::int32_t* want, std::int64_t n,
                                 unsigned long long* bad) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (got[i] != want[i])
      atomicAdd(bad, 1ull);
}

// --- bounded: a stream per request ---------------------------------------------------------------

// Each stream: a device-result reduce and an inclusive scan, both large enough to need scratch
// (the reduce above one block's 64 KiB, the scan above one tile), a device-side check of the scan
// against the CPU's, every 16th stream also a host-value reduce; then the stream is destroyed,
// with its work possibly still running. Every 16 streams the host waits for the device, so at most
// 16 streams' scratch is in flight and the bound below does not depend on how far the host runs
// ahead. Device memory in use after the churn may exceed that before it by at most 16 MiB: the
// scratch in flight at once plus allocator granularity, where the earlier per-stream blocks grew
// 64 KiB or more per stream.
TEST(ScratchBounded, ThousandsOfStreamsCreatedUsedAndDestroyed) {
  const int streams = small_mode() ? 512 : 2500;
  constexpr int in_flight = 16;
  const std::int64_t n = small_mode() ? 20011 : (std::int64_t{1} << 20) + 3;
  ASSERT_GT(n * 4, 64 * 1024) << "the reduce must take its grid path, which has scratch";
  ASSERT_GT(n, 16384) << "the scan must take more than one tile, which has scratch";

  lab::Stream setup;
  DeviceBuffer<std::int32_t> in(n), want_scan(n);
  lab::fill_random<std::int32_t>(in.data(), n, lab::fresh_seed(), -1000, 1000, setup);
  const auto host_in = to_host(in.data(), n, setup);
  const std::int32_t want_sum = lab::reduce::cpu_reduce<std::int32_t>(host_in, Op::sum);
  std::vector<std::int32_t> host_scan(host_in.size());
  lab::scan::cpu_inclusive_scan<std::int32_t>(host_in, host_scan);
  ASSERT_EQ(cudaMemcpyAsync(want_scan.data(), host_scan.data(), want_scan.bytes(),
                            cudaMemcpyHostToDevice, setup),
            cudaSuccess);
  std::vector<DeviceBuffer<std::int32_t>> scan_out;
  for (int r = 0; r < in_flight; ++r)
    scan_out.emplace_back(n);
  DeviceBuffer<std::int32_t> sums(static_cast<std::size_t>(streams));
  DeviceBuffer<unsigned long long> bad(static_cast<std::size_t>(streams));
  lab::poison(sums.data(), sums.bytes(), setup);
  ASSERT_EQ(cudaMemsetAsync(bad.data(), 0, bad.bytes(), setup), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(setup), cudaSuccess);

  std::vector<std::string> host_value_failures;
  auto one_stream = [&](int i) {
    cudaStream_t s = nullptr;
    LADDER_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    try {
      const std::int32_t* input = in.data();
      std::int32_t* out = scan_out[static_cast<std::size_t>(i % in_flight)].data();
      ladder::reduce(input, n, Op::sum, sums.data() + i, s);
      ladder::inclusive_scan(input, out, n, s);
      count_mismatches<<<64, 256, 0, s>>>(out, want_scan.data(), n, bad.data() + i);
      LADDER_CUDA(cudaGetLastError());
      if (i % 16 == 0) {
        const std::int32_t got = ladder::reduce(input, n, Op::sum, s);
        if (got != want_sum)
          host_value_failures.push_back("stream " + std::to_string(i) + ": host-value reduce " +
                                        std::to_string(got));
      }
    } catch (...) {
      cudaStreamDestroy(s);
      throw;
    }
    LADDER_CUDA(cudaStreamDestroy(s)); // its work may still be running; CUDA finishes it
  };

  // Warm-up: kernels loaded, ladder's pool created, before the baseline.
  for (int i = 0; i < in_flight; ++i)
    ASSERT_NO_THROW(one_stream(i));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGraphMemTrim(device), cudaSuccess); // graphs of earlier tests
  const std::int64_t before = device_bytes_in_use();

  for (int i = in_flight; i < streams; ++i) {
    ASSERT_NO_THROW(one_stream(i)) << "stream " << i;
    if ((i + 1) % in_flight == 0)
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "after stream " << i;
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::int64_t after = device_bytes_in_use();
  const std::int64_t growth = after - before;
  RecordProperty("device_bytes_growth", std::to_string(growth));
  EXPECT_LT(growth, std::int64_t{16} << 20)
      << streams << " streams: device memory in use grew by " << growth << " bytes ("
      << growth / (streams - in_flight) << " per stream)";

  const auto got_sums = to_host(sums.data(), streams, setup);
  const auto got_bad = to_host(bad.data(), streams, setup);
  int wrong_sums = 0, wrong_scans = 0;
  for (int i = 0; i < streams; ++i) {
    wrong_sums += got_sums[static_cast<std::size_t>(i)] != want_sum;
    wrong_scans += got_bad[static_cast<std::size_t>(i)] != 0;
  }
  EXPECT_EQ(wrong_sums, 0) << "device-result reduces that differ from the CPU's " << want_sum;
  EXPECT_EQ(wrong_scans, 0) << "streams whose inclusive scan differs from the CPU's";
  for (const auto& f : host_value_failures)
    ADD_FAILURE() << f;
}

// --- capture-safe: every public call in one graph ------------------------------------------------

struct KeepOdd {
  __device__ bool operator()(std::int32_t x) const { return (x & 1) != 0; }
};

struct Sizes {
  std::int64_t reduce_int = 0, reduce_double = 0, reduce_one_block = 1000;
  std::int64_t exclusive = 0, inclusive = 0, compact = 0, rows = 0, cols = 0;
};

Sizes capture_sizes() {
  if (small_mode()) // every call still takes its scratch path (more than one block or tile)
    return {.reduce_int = 50001,
            .reduce_double = 30011,
            .exclusive = 40009,
            .inclusive = 20011,
            .compact = 30011,
            .rows = 129,
            .cols = 67};
  // The aligned exclusive scan at 2^22 + 9 would take the cooperative reduce-ahead kernel outside
  // capture; captured, it must fall back to the look-back kernel.
  return {.reduce_int = (std::int64_t{1} << 22) + 5,
          .reduce_double = 1000003,
          .exclusive = (std::int64_t{1} << 22) + 9,
          .inclusive = 1000003,
          .compact = (std::int64_t{1} << 21) + 7,
          .rows = 1023,
          .cols = 2049};
}

// The graph's node counts by type.
struct NodeCounts {
  int kernels = 0, memsets = 0, allocs = 0, frees = 0;
};

NodeCounts count_nodes(cudaGraph_t graph) {
  std::size_t count = 0;
  EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &count), cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(count);
  EXPECT_EQ(cudaGraphGetNodes(graph, nodes.data(), &count), cudaSuccess);
  NodeCounts c;
  for (auto node : nodes) {
    cudaGraphNodeType type{};
    EXPECT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
    c.kernels += type == cudaGraphNodeTypeKernel;
    c.memsets += type == cudaGraphNodeTypeMemset;
    c.allocs += type == cudaGraphNodeTypeMemAlloc;
    c.frees += type == cudaGraphNodeTypeMemFree;
  }
  return c;
}

// One graph, captured on a stream that has never run anything (cudaStreamCaptureModeGlobal, the
// strictest mode: a call that made a potentially unsafe CUDA call would invalidate the capture),
// holding every public call that can be captured: ladder::reduce to device memory (two grid
// launches of different types and operators, and one single-block call), exclusive_scan (aligned),
// inclusive_scan (misaligned by one element), compact_async and transpose. The host-value
// overloads must refuse the capturing stream with std::invalid_argument and leave the capture
// intact. The graph is replayed several times, alternately on the capture stream and on another
// fresh one, with fresh inputs written and the outputs poisoned before each replay, and every
// output is compared with the CPU reference each time.
TEST(ScratchCapture, EveryPublicCallInOneGraphOnAFreshStreamReplays) {
  const Sizes z = capture_sizes();
  const int replays = small_mode() ? 3 : 5;

  DeviceBuffer<std::int32_t> r_int_in(z.reduce_int), r_int_out(1);
  DeviceBuffer<double> r_dbl_in(z.reduce_double), r_dbl_out(1);
  DeviceBuffer<std::int64_t> r_one_in(z.reduce_one_block), r_one_out(1);
  DeviceBuffer<std::int32_t> ex_in(z.exclusive), ex_out(z.exclusive);
  DeviceBuffer<std::int64_t> inc_in(z.inclusive + 1), inc_out(z.inclusive + 1);
  DeviceBuffer<std::int32_t> c_in(z.compact), c_out(z.compact);
  DeviceBuffer<std::int64_t> c_count(1);
  DeviceBuffer<float> t_in(z.rows * z.cols), t_out(z.rows * z.cols);
  const std::int64_t* inc_src = inc_in.data() + 1; // 8 bytes off 16: the scalar path
  std::int64_t* inc_dst = inc_out.data() + 1;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  lab::Stream stream, other; // fresh: nothing has been enqueued on either
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  std::string failure;
  try {
    ladder::reduce(static_cast<const std::int32_t*>(r_int_in.data()), z.reduce_int, Op::sum,
                   r_int_out.data(), stream);
    ladder::inclusive_scan(inc_src, inc_dst, z.inclusive, stream);
    ladder::reduce(static_cast<const double*>(r_dbl_in.data()), z.reduce_double, Op::max,
                   r_dbl_out.data(), stream);
    ladder::exclusive_scan(static_cast<const std::int32_t*>(ex_in.data()), ex_out.data(),
                           z.exclusive, stream);
    ladder::reduce(static_cast<const std::int64_t*>(r_one_in.data()), z.reduce_one_block, Op::sum,
                   r_one_out.data(), stream);
    ladder::compact_async(static_cast<const std::int32_t*>(c_in.data()), c_out.data(), z.compact,
                          KeepOdd{}, c_count.data(), stream);
    ladder::transpose(static_cast<const float*>(t_in.data()), t_out.data(), z.rows, z.cols, stream);
    EXPECT_THROW(ladder::reduce(static_cast<const std::int32_t*>(r_int_in.data()), z.reduce_int,
                                Op::sum, stream.get()),
                 std::invalid_argument);
    EXPECT_THROW(ladder::compact(static_cast<const std::int32_t*>(c_in.data()), c_out.data(),
                                 z.compact, KeepOdd{}, stream.get()),
                 std::invalid_argument);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  EXPECT_EQ(cudaStreamIsCapturing(stream, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive) << "the capture was invalidated";
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  ASSERT_EQ(failure, "") << "a call threw under capture";
  ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
  ASSERT_NE(graph, nullptr);

  // The scratch lives inside the graph: one allocation node per call that needs scratch (both
  // grid reduces, both scans, the compaction), each freed inside the graph again.
  const NodeCounts nodes = count_nodes(graph);
  EXPECT_GE(nodes.kernels, 7);
  EXPECT_GE(nodes.allocs, 5);
  EXPECT_EQ(nodes.frees, nodes.allocs) << "every scratch allocation is freed inside the graph";

  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  ASSERT_EQ(instantiated, cudaSuccess) << cudaGetErrorString(instantiated);

  for (int replay = 0; replay < replays; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    cudaStream_t s = replay % 2 == 0 ? stream.get() : other.get();
    lab::fill_random<std::int32_t>(r_int_in.data(), z.reduce_int, lab::fresh_seed(), -1e6, 1e6, s);
    lab::fill_random<double>(r_dbl_in.data(), z.reduce_double, lab::fresh_seed(), -1, 1, s);
    lab::fill_random<std::int64_t>(r_one_in.data(), z.reduce_one_block, lab::fresh_seed(), -1e9,
                                   1e9, s);
    lab::fill_random<std::int32_t>(ex_in.data(), z.exclusive, lab::fresh_seed(), -1000, 1000, s);
    lab::fill_random<std::int64_t>(inc_in.data(), z.inclusive + 1, lab::fresh_seed(), -1e9, 1e9, s);
    lab::fill_random<std::int32_t>(c_in.data(), z.compact, lab::fresh_seed(), -1000, 1000, s);
    lab::fill_random<float>(t_in.data(), z.rows * z.cols, lab::fresh_seed(), -1, 1, s);
    lab::poison(r_int_out.data(), r_int_out.bytes(), s);
    lab::poison(r_dbl_out.data(), r_dbl_out.bytes(), s);
    lab::poison(r_one_out.data(), r_one_out.bytes(), s);
    lab::poison(c_count.data(), c_count.bytes(), s);
    lab::poison(ex_out.data(), ex_out.bytes(), s);
    lab::poison(inc_out.data(), inc_out.bytes(), s);
    lab::poison(c_out.data(), c_out.bytes(), s);
    lab::poison(t_out.data(), t_out.bytes(), s);
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);

    const auto r_int = to_host(r_int_in.data(), z.reduce_int, s);
    EXPECT_EQ(to_host(r_int_out.data(), 1, s)[0],
              lab::reduce::cpu_reduce<std::int32_t>(r_int, Op::sum));
    const auto r_dbl = to_host(r_dbl_in.data(), z.reduce_double, s);
    EXPECT_EQ(to_host(r_dbl_out.data(), 1, s)[0], lab::reduce::cpu_reduce<double>(r_dbl, Op::max));
    const auto r_one = to_host(r_one_in.data(), z.reduce_one_block, s);
    EXPECT_EQ(to_host(r_one_out.data(), 1, s)[0],
              lab::reduce::cpu_reduce<std::int64_t>(r_one, Op::sum));

    const auto ex = to_host(ex_in.data(), z.exclusive, s);
    std::vector<std::int32_t> ex_want(ex.size());
    lab::scan::cpu_exclusive_scan<std::int32_t>(ex, ex_want);
    EXPECT_EQ(
        lab::scan::compare_exact<std::int32_t>(to_host(ex_out.data(), z.exclusive, s), ex_want), "")
        << "exclusive_scan";

    const auto inc = to_host(inc_src, z.inclusive, s);
    std::vector<std::int64_t> inc_want(inc.size());
    lab::scan::cpu_inclusive_scan<std::int64_t>(inc, inc_want);
    EXPECT_EQ(lab::scan::compare_exact<std::int64_t>(to_host(inc_dst, z.inclusive, s), inc_want),
              "")
        << "inclusive_scan";

    const auto c = to_host(c_in.data(), z.compact, s);
    std::vector<std::int32_t> c_want;
    std::copy_if(c.begin(), c.end(), std::back_inserter(c_want),
                 [](std::int32_t x) { return (x & 1) != 0; });
    const std::int64_t kept = to_host(c_count.data(), 1, s)[0];
    ASSERT_EQ(kept, static_cast<std::int64_t>(c_want.size())) << "compact_async count";
    EXPECT_EQ(lab::scan::compare_exact<std::int32_t>(to_host(c_out.data(), kept, s), c_want), "")
        << "compact_async";

    const auto t = to_host(t_in.data(), z.rows * z.cols, s);
    std::vector<float> t_want(t.size());
    lab::transpose::cpu_transpose<float>(t, t_want, z.rows, z.cols);
    EXPECT_EQ(
        lab::transpose::compare_exact(to_host(t_out.data(), z.rows * z.cols, s), t_want, z.rows),
        "")
        << "transpose";
  }

  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  int device = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGraphMemTrim(device), cudaSuccess);
}

// The scenario of issue 24 on its own: a reduce then an inclusive scan, the first calls ever made
// on a fresh stream, captured, then replayed many times on the same inputs; each replay must give
// the same, correct results (the scratch of one replay must not leak state into the next).
TEST(ScratchCapture, ReduceThenScanReplayManyTimes) {
  const std::int64_t n = small_mode() ? 70001 : (std::int64_t{1} << 21) + 1;
  const int replays = small_mode() ? 4 : 20;
  lab::Stream stream;
  DeviceBuffer<std::int64_t> in(n), sum(1), scanned(n);
  lab::fill_random<std::int64_t>(in.data(), n, lab::fresh_seed(), -1e9, 1e9, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto host = to_host(in.data(), n, stream);
  const std::int64_t want_sum = lab::reduce::cpu_reduce<std::int64_t>(host, Op::sum);
  std::vector<std::int64_t> want_scan(host.size());
  lab::scan::cpu_inclusive_scan<std::int64_t>(host, want_scan);

  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  std::string failure;
  try {
    ladder::reduce(static_cast<const std::int64_t*>(in.data()), n, Op::sum, sum.data(), stream);
    ladder::inclusive_scan(static_cast<const std::int64_t*>(in.data()), scanned.data(), n, stream);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  ASSERT_EQ(failure, "");
  ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < replays; ++replay) {
    lab::poison(sum.data(), sum.bytes(), stream);
    lab::poison(scanned.data(), scanned.bytes(), stream);
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    EXPECT_EQ(to_host(sum.data(), 1, stream)[0], want_sum) << "replay " << replay;
    EXPECT_EQ(lab::scan::compare_exact<std::int64_t>(to_host(scanned.data(), n, stream), want_scan),
              "")
        << "replay " << replay;
  }
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  int device = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGraphMemTrim(device), cudaSuccess);
}

} // namespace
} // namespace ladder::test
