// The scan study: for each size, rung 1 (the sequential CPU scan, timed with std::chrono) gives
// the reference; every GPU rung is checked against it with the output poisoned, then timed. The
// default run shows the ladder at 2^28 int32 and float, at the course's one-block size (1024, where
// its kernels run), stream compaction at 2^28, and a sweep 2^10 .. 2^28 of the library call, CUB
// and the CPU (the course's CPU-vs-GPU table is its "x CPU" column).
#include "scan/reference.hpp"
#include "scan/variants.hpp"

#include "core/protocol.hpp"
#include "core/sizes.hpp"
#include "core/study.hpp"
#include "ladder/scan.hpp"

#include <algorithm>
#include <iterator>
#include <type_traits>

namespace ladder::lab::scan {

namespace {

void check_size(std::string_view text) { (void)parse_count(text, "--size"); }

template <class T> constexpr const char* type_name() {
  return std::is_floating_point_v<T> ? "float" : "int32";
}

std::string l2_label(const RunContext& ctx, double bytes) {
  return bytes < 4.0 * static_cast<double>(ctx.device.l2_bytes)
             ? "fits in L2 or nearly: cache speed, not DRAM"
             : "";
}

std::string joined(std::string a, const std::string& b) {
  return a.empty() ? b : b.empty() ? a : a + "; " + b;
}

// Kernel launches and memsets in one library call at this size: a stream capture of the call.
struct GraphCount {
  int kernels = 0, memsets = 0, other = 0;
};
std::optional<GraphCount> capture_library_call(std::int64_t n, const std::int32_t* in,
                                               std::int32_t* out) {
  Stream stream;
  exclusive_scan(in, out, n, stream.get()); // the pool exists before the capture
  LADDER_CUDA(cudaStreamSynchronize(stream));
  cudaGraph_t graph = nullptr;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  bool failed = false;
  try {
    exclusive_scan(in, out, n, stream.get());
  } catch (const std::exception&) {
    failed = true;
  }
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (failed || ended != cudaSuccess || !graph) {
    cudaGetLastError();
    return std::nullopt;
  }
  std::size_t count = 0;
  cudaGraphGetNodes(graph, nullptr, &count);
  std::vector<cudaGraphNode_t> nodes(count);
  cudaGraphGetNodes(graph, nodes.data(), &count);
  GraphCount c;
  for (auto node : nodes) {
    cudaGraphNodeType type{};
    cudaGraphNodeGetType(node, &type);
    ++(type == cudaGraphNodeTypeKernel   ? c.kernels
       : type == cudaGraphNodeTypeMemset ? c.memsets
                                         : c.other);
  }
  cudaGraphDestroy(graph);
  return c;
}

// Where a case's pointers sit: `in` and `out` this many elements past a 256-byte boundary.
struct Offsets {
  int in = 0, out = 0;
  bool aligned() const { return in == 0 && out == 0; }
};

std::string offsets_label(Offsets o) {
  if (o.aligned())
    return "";
  const auto one = [](const char* name, int k) {
    return std::string(name) + (k == 0 ? " aligned" : " + " + std::to_string(k));
  };
  return one("in", o.in) + ", " + one("out", o.out) + " elements";
}

// One scan input of n elements, its host copy and the CPU's answer.
template <class T> struct ScanCase {
  std::int64_t n;
  Offsets offsets;
  std::uint64_t seed = fresh_seed();
  DeviceBuffer<T> in_buffer, out_buffer;
  T* in;  // in_buffer + offsets.in
  T* out; // out_buffer + offsets.out
  PinnedBuffer<T> host_in, host_out;
  std::vector<T> expected;
  Measurement cpu_time;

  ScanCase(std::int64_t count, Stream& stream, Offsets at = {})
      : n(count), offsets(at), in_buffer(static_cast<std::size_t>(count + at.in)),
        out_buffer(static_cast<std::size_t>(count + at.out)), in(in_buffer.data() + at.in),
        out(out_buffer.data() + at.out), host_in(static_cast<std::size_t>(count)),
        host_out(static_cast<std::size_t>(count)), expected(static_cast<std::size_t>(count)) {
    if constexpr (std::is_floating_point_v<T>)
      fill_random<T>(in, n, seed, -1.0, 1.0, stream);
    else
      fill_random<T>(in, n, seed, -1000.0, 1000.0, stream);
    copy_to_host(host_in, in, host_in.size(), stream);
    const std::span<const T> input(host_in.data(), host_in.size());
    cpu_time = time_on_host([&] { cpu_exclusive_scan<T>(input, expected); });
  }

  std::string check(const Rung& rung, ScanLaunch<T> launch, cudaStream_t stream) {
    const auto count = static_cast<std::size_t>(n);
    const std::span<const T> input(host_in.data(), count);
    return check_output(
        out, count, host_out, [&](cudaStream_t l) { launch(in, out, n, l); },
        [&](std::span<const T> got) {
          if (!rung.computes_scan)
            return compare_exact<T>(got, input);
          if constexpr (std::is_floating_point_v<T>)
            return compare_prefix_sums<T>(
                got, input, false, scan_error_depth(n, rung.chain_tile > 0 ? rung.chain_tile : n));
          else
            return compare_exact<T>(got, expected);
        },
        stream, std::string(rung.info.name));
  }
};

template <class T> ScanLaunch<T> launcher(const Rung& rung) {
  if constexpr (std::is_floating_point_v<T>)
    return rung.launch_f32;
  else
    return rung.launch_i32;
}

// Checks and times `rung` on `c` into `row` (the CPU rung takes the case's host time).
template <class T>
void measure(const RunContext& ctx, const Rung& rung, ScanCase<T>& c, Row& row, Stream& stream) {
  if (rung.on_cpu) {
    row.check = CheckStatus::passed;
    row.timings[0] = c.cpu_time;
    return;
  }
  const ScanLaunch<T> launch = launcher<T>(rung);
  // The rungs of the story assume cudaMalloc'd pointers; the library call and the references
  // take any alignment.
  const bool any_alignment = rung.info.role == Role::library || rung.info.role == Role::reference;
  const char* unsupported =
      c.offsets.aligned() || any_alignment ? rung.unsupported(c.n)
                                           : "the ladder's rungs assume 256-byte aligned pointers";
  measure_rung(
      ctx, std::string("scan ") + type_name<T>() + " n = " + count_label(c.n), row, unsupported,
      [&](cudaStream_t st) { return c.check(rung, launch, st); },
      {{0, [&](cudaStream_t st) { launch(c.in, c.out, c.n, st); }, ctx.options.timing}}, stream);
}

Table scan_table(const RunContext& ctx, const std::string& type, std::int64_t n) {
  Table table;
  table.study = "scan";
  table.title = "exclusive scan " + type + ", n = " + count_label(n);
  table.params = {{"n", n}, {"type", type}, {"op", "exclusive sum"}};
  table.work.elements = static_cast<double>(n);
  table.work.bytes_read = table.work.bytes_written = 4.0 * static_cast<double>(n);
  table.work.formula = "2 x n x 4 B";
  table.peak = ctx.peak(Bound::dram_copy);
  table.groups = {"loop over launches"};
  return table;
}

template <class T>
Table run_scan_case(const RunContext& ctx, std::int64_t n, const std::string& label, bool headline,
                    Stream& stream, Offsets offsets = {}) {
  Table table = scan_table(ctx, type_name<T>(), n);
  table.headline = headline;
  if (!offsets.aligned()) {
    table.title += ", " + offsets_label(offsets);
    table.params["in_offset_elements"] = offsets.in;
    table.params["out_offset_elements"] = offsets.out;
  }
  table.case_label = joined(label, l2_label(ctx, table.work.bytes_read + table.work.bytes_written));
  ScanCase<T> c(n, stream, offsets);
  table.params["seed"] = c.seed; // replays the inputs: fill_random(seed, n)
  table.footnotes.push_back("random input seed " + std::to_string(c.seed) +
                            (std::is_floating_point_v<T> ? ", uniform in [-1, 1)"
                                                         : ", uniform in [-1000, 1000] without 0"));
  for_each_shown_rung(ctx, registry(), table,
                      [&](const Rung& rung, Row& row) { measure<T>(ctx, rung, c, row, stream); });
  if constexpr (!std::is_floating_point_v<T>) {
    if (const auto graph = offsets.aligned() ? capture_library_call(n, c.in, c.out)
                                             : std::optional<GraphCount>{}) {
      table.params["library_kernel_launches"] = graph->kernels;
      table.params["library_memsets"] = graph->memsets;
      table.footnotes.push_back("ladder::exclusive_scan at this size, captured into a graph: " +
                                std::to_string(graph->kernels) + " kernel launch(es), " +
                                std::to_string(graph->memsets) + " memset(s), " +
                                std::to_string(graph->other) +
                                " other node(s) (scratch allocation and release)");
    }
  }
  table.footnotes.push_back("cpu_scan: one core of the host, std::chrono, median of " +
                            std::to_string(c.cpu_time.samples) +
                            " runs; its 'cumul' column is the course's "
                            "CPU/GPU speedup");
  return table;
}

Table run_compact_case(const RunContext& ctx, std::int64_t n, Stream& stream,
                       Offsets offsets = {}) {
  Table table;
  table.study = "scan";
  table.title = "stream compaction int32, keep x > 0, n = " + count_label(n);
  table.params = {{"n", n}, {"type", "int32"}, {"predicate", "x > 0"}};
  if (!offsets.aligned()) {
    table.title += ", " + offsets_label(offsets);
    table.params["in_offset_elements"] = offsets.in;
    table.params["out_offset_elements"] = offsets.out;
  }
  table.groups = {"loop over launches"};
  table.peak = ctx.peak(Bound::dram_copy);

  const auto count = static_cast<std::size_t>(n);
  DeviceBuffer<std::int32_t> in_buffer(count + static_cast<std::size_t>(offsets.in)),
      out_buffer(count + static_cast<std::size_t>(offsets.out));
  std::int32_t* const in = in_buffer.data() + offsets.in;
  std::int32_t* const out = out_buffer.data() + offsets.out;
  DeviceBuffer<std::int64_t> kept(1);
  const std::uint64_t seed = fresh_seed();
  fill_random<std::int32_t>(in, n, seed, -1000.0, 1000.0, stream);
  PinnedBuffer<std::int32_t> host_in(count), host_out(count);
  PinnedBuffer<std::int64_t> host_kept(1);
  copy_to_host(host_in, in, count, stream);
  std::vector<std::int32_t> expected;
  expected.reserve(count);
  const Measurement cpu_time = time_on_host([&] {
    expected.clear();
    std::copy_if(host_in.begin(), host_in.end(), std::back_inserter(expected), compact_keeps);
  });
  const auto kept_count = static_cast<std::int64_t>(expected.size());
  table.params["kept"] = kept_count;
  table.work.elements = static_cast<double>(n);
  table.work.bytes_read = 4.0 * static_cast<double>(n);
  table.work.bytes_written = 4.0 * static_cast<double>(kept_count) + 8;
  table.work.formula = "n x 4 B read + kept x 4 B written (+ the 8-byte count)";
  table.case_label = l2_label(ctx, table.work.bytes_read + table.work.bytes_written);

  Row cpu = make_row({.name = "cpu_copy_if",
                      .idea = "std::copy_if on one CPU core, the reference",
                      .role = Role::seed},
                     "1", 1);
  cpu.check = CheckStatus::passed;
  cpu.timings[0] = cpu_time;
  table.rows.push_back(std::move(cpu));
  for_each_shown_rung(ctx, compact_registry(), table, [&](const CompactRung& rung, Row& row) {
    const auto check = [&](cudaStream_t st) {
      const std::string wrong_count = check_output(
          kept.data(), 1, host_kept,
          [&](cudaStream_t l) { rung.launch(in, out, n, kept.data(), l); },
          [&](std::span<const std::int64_t> got) {
            return got[0] == kept_count ? std::string()
                                        : "count " + std::to_string(got[0]) + ", expected " +
                                              std::to_string(kept_count);
          },
          st, row.name);
      if (!wrong_count.empty())
        return wrong_count;
      return check_output(
          out, count, host_out,
          [&](cudaStream_t l) { rung.launch(in, out, n, kept.data(), l); },
          [&](std::span<const std::int32_t> got) {
            return compare_exact<std::int32_t>(got.first(expected.size()), expected);
          },
          st, row.name);
    };
    // As in the scan tables: the library call and the reference take any alignment, the lab's
    // rows assume 256-byte aligned pointers.
    const bool any_alignment =
        rung.info.role == Role::library || rung.info.role == Role::reference;
    measure_rung(
        ctx, "compact n = " + count_label(n), row,
        offsets.aligned() || any_alignment ? nullptr
                                           : "the ladder's rows assume 256-byte aligned pointers",
        check,
        {{0, [&](cudaStream_t st) { rung.launch(in, out, n, kept.data(), st); },
          ctx.options.timing}},
        stream);
  });
  table.params["seed"] = seed;
  table.footnotes.push_back("random input seed " + std::to_string(seed) +
                            ", uniform in [-1000, 1000] without 0 (about half kept)");
  return table;
}

// The sweep: ladder::exclusive_scan, CUB and the CPU at each size (int32).
Sweep sweep(const RunContext& ctx, int from_log2, int to_log2, Stream& stream) {
  const Rung* library = nullptr;
  const Rung* vendor = nullptr;
  for (const Rung& rung : registry()) {
    if (rung.info.role == Role::library)
      library = &rung;
    if (rung.info.role == Role::reference && rung.info.vendor)
      vendor = &rung;
  }
  Sweep s;
  s.study = "scan";
  s.title = "exclusive scan sweep (int32): ladder, CUB and one CPU core; aligned and with both "
            "pointers one element past a 16-byte boundary";
  s.series = {{"ladder", Role::library},
              {"CUB", Role::reference},
              {"CPU", Role::seed},
              {"ladder, in/out + 1", Role::library},
              {"CUB, in/out + 1", Role::reference}};
  s.ratios = {{"x CUB", 0, 1}, {"x CPU", 0, 2}, {"x CUB (+1)", 3, 4}};
  for (int k = from_log2; k <= to_log2; ++k) {
    const std::int64_t n = std::int64_t{1} << k;
    SweepPoint point{n, count_label(n), {}, {}};
    const auto time_both = [&](ScanCase<std::int32_t>& c) {
      for (const Rung* rung : {library, vendor}) {
        Row row = make_row(rung->info, "", 1);
        measure<std::int32_t>(ctx, *rung, c, row, stream);
        point.times.push_back(row.timings[0]);
        point.checks.push_back(row.check);
      }
    };
    {
      ScanCase<std::int32_t> c(n, stream);
      time_both(c);
      point.times.push_back(c.cpu_time);
      point.checks.push_back(CheckStatus::passed);
    }
    ScanCase<std::int32_t> shifted(n, stream, {1, 1});
    time_both(shifted);
    s.points.push_back(std::move(point));
  }
  s.footnotes.push_back(
      "x CPU is the course's CPU-vs-GPU table (1024 .. 16M elements on an 8800 GTX) on this "
      "machine: the sequential scan on one host core over the library call");
  return s;
}

StudyResults run(const RunContext& ctx) {
  Stream stream;
  StudyResults results;
  auto& tables = results.tables;
  if (!ctx.options.sizes.empty()) {
    for (const auto& size : ctx.options.sizes)
      tables.push_back(run_scan_case<std::int32_t>(ctx, parse_count(size, "--size"), "",
                                                   tables.empty(), stream));
    for (const auto& size : ctx.options.sizes) // compaction at the same sizes
      tables.push_back(run_compact_case(ctx, parse_count(size, "--size"), stream));
    return results;
  }
  if (ctx.options.small) {
    tables.push_back(run_scan_case<std::int32_t>(ctx, 65539, "small", true, stream));
    tables.push_back(
        run_scan_case<std::int32_t>(ctx, 1000, "small: the course's kernels run", false, stream));
    tables.push_back(run_scan_case<std::int32_t>(ctx, 4097, "small", false, stream));
    tables.push_back(run_scan_case<std::int32_t>(ctx, 65539, "small", false, stream, {1, 1}));
    tables.push_back(run_scan_case<std::int32_t>(ctx, 65539, "small", false, stream, {1, 0}));
    tables.push_back(run_scan_case<float>(ctx, 65539, "small", false, stream));
    tables.push_back(run_compact_case(ctx, 100003, stream));
    tables.push_back(run_compact_case(ctx, 100003, stream, {1, 1}));
    results.sweeps.push_back(sweep(ctx, 10, 14, stream));
    return results;
  }
  const std::int64_t large = std::int64_t{1} << 28;
  tables.push_back(run_scan_case<std::int32_t>(ctx, large, "default size", true, stream));
  tables.push_back(run_scan_case<std::int32_t>(
      ctx, large, "default size, both pointers one element past a 16-byte boundary", false, stream,
      {1, 1}));
  tables.push_back(run_scan_case<std::int32_t>(
      ctx, large, "default size, pointers at different offsets within 16 bytes", false, stream,
      {1, 0}));
  tables.push_back(run_scan_case<float>(ctx, large, "default size", false, stream));
  tables.push_back(run_scan_case<std::int32_t>(
      ctx, 1024, "the course's one-block size, where its kernels run", false, stream));
  tables.push_back(run_compact_case(ctx, large, stream));
  tables.push_back(run_compact_case(ctx, large, stream, {1, 1}));
  results.sweeps.push_back(sweep(ctx, 10, 28, stream));
  return results;
}

std::vector<RungInfo> rung_infos() {
  std::vector<RungInfo> out = infos_of(registry());
  for (const CompactRung& r : compact_registry())
    out.push_back(r.info);
  return out;
}

std::string notes() {
  return "  Work and span: Hillis-Steele n log2 n adds in log2 n steps; Blelloch 2(n - 1) adds in\n"
         "  2 log2 n steps; sequential n - 1 adds in n - 1 steps. Bytes: three_phase moves about\n"
         "  4n elements, the look-back rungs 2n (+ 8 bytes of status per tile).\n";
}

} // namespace

const Study& study() {
  static const Study s{
      .name = "scan",
      .title = "Parallel scan (exclusive prefix sum) and stream compaction",
      .course = "\"Optimizing CUDA code\" (Moreno Maza, UWO CS4402): parallel scan, after "
                "Harris, Sengupta and Owens (GPU Gems 3, chapter 39)",
      .rungs = rung_infos,
      .run = run,
      .check_size = check_size,
      .size_syntax = "N, 2^K or 4Mi (elements, int32): a scan and a compaction table per size",
      .notes = notes};
  return s;
}

} // namespace ladder::lab::scan
