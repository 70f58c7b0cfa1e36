// The scan study: for each size, rung 1 (the sequential CPU scan, timed with std::chrono) gives
// the reference; every GPU rung is checked against it with the output poisoned, then timed. The
// default run sweeps 2^10 .. 2^28 int32 (the seed's 1024 .. 16M sizes included, so its CPU-vs-GPU
// table is the "cumul" column of the cpu_scan baseline), then float at 2^28, then compaction.
#include "scan/reference.hpp"
#include "scan/variants.hpp"

#include "core/harness.hpp"
#include "core/study.hpp"
#include "ladder/scan.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace ladder::lab {

namespace {

std::int64_t parse_size(const std::string& text) {
  std::int64_t value = 0;
  const std::string_view all(text);
  auto number = [](std::string_view part, std::int64_t& v) {
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    return ec == std::errc() && end == part.data() + part.size();
  };
  if (const auto caret = all.find('^'); caret != std::string_view::npos) {
    std::int64_t base = 0, exponent = 0;
    if (number(all.substr(0, caret), base) && base == 2 && number(all.substr(caret + 1), exponent) &&
        exponent >= 0 && exponent <= 40)
      return std::int64_t{1} << exponent;
  } else if (number(all, value) && value > 0) {
    return value;
  }
  throw std::invalid_argument("--size for scan must be a positive element count or 2^K, got '" + text + "'");
}

std::string size_label(std::int64_t n) {
  std::string s = "n = " + std::to_string(n);
  if (n > 0 && (n & (n - 1)) == 0)
    s += " (2^" + std::to_string(static_cast<int>(std::log2(static_cast<double>(n)))) + ")";
  return s;
}

enum class Kind { scan_i32, scan_f32, compact_i32 };

struct Case {
  Kind kind;
  std::int64_t n;
};

std::vector<Case> cases(const RunContext& ctx) {
  std::vector<Case> out;
  if (!ctx.options.sizes.empty()) {
    for (const auto& size : ctx.options.sizes)
      out.push_back({Kind::scan_i32, parse_size(size)});
  } else if (ctx.options.small) {
    out = {{Kind::scan_i32, 1000}, {Kind::scan_i32, 4097}, {Kind::scan_i32, 65539},
           {Kind::scan_f32, 65539}, {Kind::compact_i32, 100003}};
  } else {
    for (int k = 10; k <= 28; ++k)
      out.push_back({Kind::scan_i32, std::int64_t{1} << k});
    out.push_back({Kind::scan_f32, std::int64_t{1} << 28});
    out.push_back({Kind::compact_i32, std::int64_t{1} << 28});
  }
  return out;
}

std::string l2_note(const RunContext& ctx, double bytes) {
  return bytes < 4.0 * static_cast<double>(ctx.device.l2_bytes)
             ? "fits in L2 or nearly: cache speed, not DRAM"
             : "";
}

// The median of repeated host runs (warm caches, like the seed's CPU column).
template <class F> Measurement time_on_host(F&& body) {
  using clock = std::chrono::steady_clock;
  body(); // warm-up (and first touch of the output)
  std::vector<double> ms;
  double total = 0;
  while (ms.size() < 3 || (total < 300.0 && ms.size() < 51)) {
    const auto start = clock::now();
    body();
    const double t = std::chrono::duration<double, std::milli>(clock::now() - start).count();
    ms.push_back(t);
    total += t;
  }
  return summarize_samples(std::move(ms));
}

// How many graph nodes one library call makes at this size: stream capture of the call.
std::string launches_of_library_call(std::int64_t n, const DeviceBuffer<std::int32_t>& in,
                                     const DeviceBuffer<std::int32_t>& out) {
  Stream stream;
  exclusive_scan(in.data(), out.data(), n, stream.get()); // the pool exists before the capture
  LADDER_CUDA(cudaStreamSynchronize(stream));
  cudaGraph_t graph = nullptr;
  std::string result;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    cudaGetLastError();
    return "capture unavailable";
  }
  try {
    exclusive_scan(in.data(), out.data(), n, stream.get());
  } catch (const std::exception& e) {
    result = std::string("capture failed: ") + e.what();
  }
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (!result.empty() || ended != cudaSuccess || !graph) {
    cudaGetLastError();
    return result.empty() ? "capture failed" : result;
  }
  std::size_t count = 0;
  cudaGraphGetNodes(graph, nullptr, &count);
  std::vector<cudaGraphNode_t> nodes(count);
  cudaGraphGetNodes(graph, nodes.data(), &count);
  int kernels = 0, memsets = 0, other = 0;
  for (auto node : nodes) {
    cudaGraphNodeType type{};
    cudaGraphNodeGetType(node, &type);
    if (type == cudaGraphNodeTypeKernel)
      ++kernels;
    else if (type == cudaGraphNodeTypeMemset)
      ++memsets;
    else
      ++other;
  }
  cudaGraphDestroy(graph);
  std::ostringstream s;
  s << "ladder::exclusive_scan at this size (stream capture): " << kernels << " kernel launch"
    << (kernels == 1 ? "" : "es") << ", " << memsets << " memset, " << other
    << " other nodes (scratch alloc/free)";
  return s.str();
}

template <class T>
Table run_scan_case(const RunContext& ctx, std::int64_t n, Stream& stream) {
  constexpr bool is_float = std::is_floating_point_v<T>;
  const char* type = is_float ? "float" : "int32";
  Table table;
  table.study = "scan";
  table.title = std::string("exclusive scan ") + type + " " + size_label(n);
  table.bytes_formula = std::string("2 x n x 4 B");
  table.bytes_moved = 2.0 * static_cast<double>(n) * sizeof(T);
  table.case_note = l2_note(ctx, table.bytes_moved);
  table.measured_peak_gbs = ctx.measured_peak_gbs;
  table.theoretical_peak_gbs = ctx.device.theoretical_bandwidth_gbs();
  table.groups = {"loop over launches"};

  const auto count = static_cast<std::size_t>(n);
  DeviceBuffer<T> in(count), out(count);
  const std::uint64_t seed = fresh_seed();
  if constexpr (is_float)
    fill_random<T>(in.data(), n, seed, -1.0, 1.0, stream);
  else
    fill_random<T>(in.data(), n, seed, -1000.0, 1000.0, stream);
  PinnedBuffer<T> host_in(count), host_out(count);
  std::vector<T> expected(count);
  LADDER_CUDA(cudaMemcpyAsync(host_in.data(), in.data(), count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  const std::span<const T> input(host_in.data(), count);
  table.footnotes.push_back("random input seed " + std::to_string(seed) +
                            (is_float ? ", uniform in [-1, 1)" : ", uniform in [-1000, 1000] without 0"));

  for (const ScanVariant& v : scan_variants()) {
    Row row;
    row.name = std::string(v.name);
    row.idea = std::string(v.idea);
    row.is_reference = v.is_reference;
    row.timings.resize(1);
    if (v.on_cpu) {
      ctx.say("  scan " + std::to_string(n) + ": " + row.name);
      row.timings[0] = time_on_host([&] { cpu_exclusive_scan<T>(input, expected); });
      row.check = CheckStatus::passed;
      row.note = "";
      table.rows.push_back(std::move(row));
      continue;
    }
    if (const char* reason = v.unsupported(n)) {
      row.check = CheckStatus::skipped;
      row.note = reason;
      table.rows.push_back(std::move(row));
      continue;
    }
    const ScanLaunch<T> launch = [&] {
      if constexpr (is_float)
        return v.launch_f32;
      else
        return v.launch_i32;
    }();
    ctx.say("  scan " + std::to_string(n) + ": " + row.name);
    poison(out.data(), out.bytes(), stream);
    launch(in.data(), out.data(), n, stream);
    check_launch(row.name.c_str());
    LADDER_CUDA(cudaMemcpyAsync(host_out.data(), out.data(), count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    LADDER_CUDA(cudaStreamSynchronize(stream));
    const std::span<const T> got(host_out.data(), count);
    std::string mismatch;
    if (!v.computes_scan)
      mismatch = compare_exact<T>(got, input);
    else if constexpr (is_float)
      mismatch = compare_prefix_sums<T>(got, input, false,
                                        scan_error_depth(n, v.chain_tile > 0 ? v.chain_tile : n));
    else
      mismatch = compare_exact<T>(got, expected);
    if (!mismatch.empty()) {
      row.check = CheckStatus::wrong;
      row.note = mismatch;
      table.rows.push_back(std::move(row));
      continue;
    }
    row.check = CheckStatus::passed;
    row.timings[0] = time_launches([&](cudaStream_t st) { launch(in.data(), out.data(), n, st); },
                                   stream, ctx.options.timing);
    table.rows.push_back(std::move(row));
  }
  if constexpr (!is_float)
    table.footnotes.push_back(launches_of_library_call(n, in, out));
  table.footnotes.push_back("cpu_scan: one core of the host, std::chrono, median of " +
                            std::to_string(table.rows.front().timings[0]->samples) +
                            " runs; its 'cumul' column is the seed's CPU/GPU speedup");
  return table;
}

Table run_compact_case(const RunContext& ctx, std::int64_t n, Stream& stream) {
  Table table;
  table.study = "scan";
  table.title = "stream compaction int32, keep x > 0, " + size_label(n);
  table.groups = {"loop over launches"};
  table.measured_peak_gbs = ctx.measured_peak_gbs;
  table.theoretical_peak_gbs = ctx.device.theoretical_bandwidth_gbs();

  const auto count = static_cast<std::size_t>(n);
  DeviceBuffer<std::int32_t> in(count), out(count);
  DeviceBuffer<std::int64_t> kept(1);
  const std::uint64_t seed = fresh_seed();
  fill_random<std::int32_t>(in.data(), n, seed, -1000.0, 1000.0, stream);
  PinnedBuffer<std::int32_t> host_in(count), host_out(count);
  LADDER_CUDA(cudaMemcpyAsync(host_in.data(), in.data(), count * 4, cudaMemcpyDeviceToHost, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  std::vector<std::int32_t> expected;
  expected.reserve(count);
  Row cpu;
  cpu.name = "cpu_copy_if";
  cpu.idea = "std::copy_if on one CPU core, the reference";
  cpu.timings.resize(1);
  cpu.timings[0] = time_on_host([&] {
    expected.clear();
    std::copy_if(host_in.begin(), host_in.end(), std::back_inserter(expected), compact_keeps);
  });
  cpu.check = CheckStatus::passed;
  table.rows.push_back(std::move(cpu));
  const auto kept_count = static_cast<std::int64_t>(expected.size());
  table.bytes_formula = "n x 4 B read + kept x 4 B written (kept = " + std::to_string(kept_count) + ")";
  table.bytes_moved = 4.0 * static_cast<double>(n) + 4.0 * static_cast<double>(kept_count);
  table.case_note = l2_note(ctx, table.bytes_moved);

  for (const CompactVariant& v : compact_variants()) {
    Row row;
    row.name = std::string(v.name);
    row.idea = std::string(v.idea);
    row.is_reference = v.is_reference;
    row.timings.resize(1);
    ctx.say("  compact " + std::to_string(n) + ": " + row.name);
    poison(out.data(), out.bytes(), stream);
    poison(kept.data(), kept.bytes(), stream);
    v.launch(in.data(), out.data(), n, kept.data(), stream);
    check_launch(row.name.c_str());
    std::int64_t got_count = -1;
    LADDER_CUDA(cudaMemcpyAsync(&got_count, kept.data(), 8, cudaMemcpyDeviceToHost, stream));
    LADDER_CUDA(cudaMemcpyAsync(host_out.data(), out.data(), count * 4, cudaMemcpyDeviceToHost, stream));
    LADDER_CUDA(cudaStreamSynchronize(stream));
    std::string mismatch;
    if (got_count != kept_count)
      mismatch = "count " + std::to_string(got_count) + ", expected " + std::to_string(kept_count);
    else
      mismatch = compare_exact<std::int32_t>({host_out.data(), expected.size()}, expected);
    if (!mismatch.empty()) {
      row.check = CheckStatus::wrong;
      row.note = mismatch;
      table.rows.push_back(std::move(row));
      continue;
    }
    row.check = CheckStatus::passed;
    row.timings[0] = time_launches(
        [&](cudaStream_t st) { v.launch(in.data(), out.data(), n, kept.data(), st); }, stream,
        ctx.options.timing);
    table.rows.push_back(std::move(row));
  }
  table.footnotes.push_back("random input seed " + std::to_string(seed) +
                            ", uniform in [-1000, 1000] without 0 (about half kept)");
  return table;
}

std::vector<Table> run(const RunContext& ctx) {
  Stream stream;
  std::vector<Table> tables;
  for (const Case& c : cases(ctx)) {
    switch (c.kind) {
    case Kind::scan_i32: tables.push_back(run_scan_case<std::int32_t>(ctx, c.n, stream)); break;
    case Kind::scan_f32: tables.push_back(run_scan_case<float>(ctx, c.n, stream)); break;
    case Kind::compact_i32: tables.push_back(run_compact_case(ctx, c.n, stream)); break;
    }
  }
  return tables;
}

std::vector<RungInfo> rungs() {
  std::vector<RungInfo> out;
  for (const ScanVariant& v : scan_variants())
    out.push_back({v.name, v.idea, v.seed, v.is_reference, v.kernel, v.block_threads, v.dynamic_shared_bytes});
  for (const CompactVariant& v : compact_variants())
    out.push_back({v.name, v.idea, "", v.is_reference, nullptr, 0, 0});
  return out;
}

std::string notes() {
  return "  Work and span: Hillis-Steele n log2 n adds in log2 n steps; Blelloch 2(n - 1) adds in\n"
         "  2 log2 n steps; sequential n - 1 adds in n - 1 steps. Bytes: three_phase moves about\n"
         "  4n elements, the look-back rungs 2n (+ 8 bytes of status per tile).\n"
         "  Sizes: --size N or --size 2^K (int32, exclusive).\n";
}

} // namespace

const Study& scan_study() {
  static const Study study{"scan",
                           "Parallel scan (exclusive prefix sum) and stream compaction",
                           "000_733e1357adff97a9.txt (Parallel Scan)",
                           rungs, run, notes};
  return study;
}

} // namespace ladder::lab
