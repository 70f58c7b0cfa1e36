// The reduction study: for each case, check every rung against the CPU reference (the output
// poisoned first), then time it; then sweep the library call and CUB over 2^10 .. 2^28.
//
// Inputs live in two pools (int32 and float, 2^28 elements each, fresh random non-zero values).
// A case of n elements reads window 0 of its pool; "rotating" timings walk over consecutive
// windows so that the bytes touched between two reads of one window exceed 3 x the L2.
#include "reduce/reference.hpp"
#include "reduce/variants.hpp"

#include "core/harness.hpp"
#include "core/study.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace ladder::lab {

namespace {

struct Pools {
  std::int64_t elements = 0;
  DeviceBuffer<int> ints;
  DeviceBuffer<float> floats;
  std::uint64_t seed = 0;
};

template <class T> T* pool_of(Pools& p) {
  if constexpr (std::is_same_v<T, int>)
    return p.ints.data();
  else
    return p.floats.data();
}

std::string pow2_label(std::int64_t n) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::int64_t{1} << k) < n)
      ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

std::int64_t parse_size(const std::string& text) {
  std::int64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (text.rfind("2^", 0) == 0) {
    int k = 0;
    auto [p, ec] = std::from_chars(begin + 2, end, k);
    if (ec == std::errc() && p == end && k >= 0 && k <= 40)
      return std::int64_t{1} << k;
  } else {
    auto [p, ec] = std::from_chars(begin, end, value);
    if (ec == std::errc() && p == end && value > 0)
      return value;
  }
  throw std::invalid_argument("--size for reduce must be a positive element count or 2^K, got '" + text + "'");
}

// Windows of n elements for rotation: enough that 3 x L2 bytes pass between two reads of one.
std::int64_t rotation_windows(const RunContext& ctx, std::int64_t n, std::int64_t pool) {
  const double bytes = static_cast<double>(n) * 4;
  const auto wanted = static_cast<std::int64_t>(std::ceil(3.0 * static_cast<double>(ctx.device.l2_bytes) / bytes)) + 1;
  return std::clamp<std::int64_t>(wanted, 1, pool / n);
}

template <class T> struct Expected {
  T value{};
  long double sum_abs = 0;
};

template <class T> Expected<T> expected_sum(const T* device, std::int64_t n, cudaStream_t stream) {
  PinnedBuffer<T> host(static_cast<std::size_t>(n));
  LADDER_CUDA(cudaMemcpyAsync(host.data(), device, static_cast<std::size_t>(n) * sizeof(T),
                              cudaMemcpyDeviceToHost, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  const std::span<const T> view(host.data(), static_cast<std::size_t>(n));
  return {cpu_reduce<T>(view, Op::sum), cpu_sum_abs<T>(view)};
}

// "" when `got` is right, else what is wrong.
template <class T> std::string judge(T got, const Expected<T>& want, std::int64_t n) {
  char text[200];
  if constexpr (std::is_integral_v<T>) {
    if (got == want.value)
      return "";
    std::snprintf(text, sizeof text, "got %lld, expected %lld", static_cast<long long>(got),
                  static_cast<long long>(want.value));
  } else {
    const long double error = std::fabs(static_cast<long double>(got) - want.value);
    const long double allowed = sum_tolerance<T>(n, want.sum_abs);
    if (error <= allowed)
      return "";
    std::snprintf(text, sizeof text, "got %.9g, expected %.9g (error %.3Lg > bound %.3Lg)",
                  static_cast<double>(got), static_cast<double>(want.value), error, allowed);
  }
  return text;
}

template <class T> ReduceLaunch<T> launcher(const ReduceVariant& v) {
  if constexpr (std::is_same_v<T, int>)
    return v.launch_int;
  else
    return v.launch_float;
}

struct TimedGroup {
  std::int64_t windows = 1; // 1: always window 0
};

// Check one variant on window 0, then time it in each group. Fills row.check/note/timings.
template <class T>
void check_and_time(const RunContext& ctx, const ReduceVariant& v, Pools& pools, std::int64_t n,
                    const Expected<T>& want, const std::vector<TimedGroup>& groups,
                    std::size_t first_group, Row& row, Stream& stream) {
  if (const char* reason = v.unsupported(n)) {
    row.check = CheckStatus::skipped;
    row.note = reason;
    return;
  }
  const ReduceLaunch<T> launch = launcher<T>(v);
  const T* base = pool_of<T>(pools);
  const std::size_t scratch_bytes = v.scratch_bytes(n);
  DeviceBuffer<std::uint8_t> scratch(scratch_bytes);
  if (scratch_bytes > 0)
    LADDER_CUDA(cudaMemsetAsync(scratch.data(), 0, scratch_bytes, stream));
  DeviceBuffer<T> out(1);
  poison(out.data(), sizeof(T), stream);
  launch(base, n, out.data(), scratch.data(), scratch_bytes, stream);
  check_launch(row.name.c_str());
  T got{};
  LADDER_CUDA(cudaMemcpyAsync(&got, out.data(), sizeof(T), cudaMemcpyDeviceToHost, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  const std::string wrong = judge(got, want, n);
  if (!wrong.empty()) {
    row.check = CheckStatus::wrong;
    row.note = wrong;
    return;
  }
  row.check = CheckStatus::passed;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::int64_t next = 0;
    const std::int64_t windows = groups[g].windows;
    row.timings[first_group + g] = time_launches(
        [&](cudaStream_t st) {
          const T* in = base + (next++ % windows) * n;
          launch(in, n, out.data(), scratch.data(), scratch_bytes, st);
        },
        stream, ctx.options.timing);
  }
}

Table make_table(const RunContext& ctx, std::string title, std::string note, std::int64_t n) {
  Table table;
  table.study = "reduce";
  table.title = std::move(title);
  table.case_note = std::move(note);
  table.bytes_formula = "n x 4 B (each input element read once)";
  table.bytes_moved = static_cast<double>(n) * 4;
  table.measured_peak_gbs = ctx.measured_peak_gbs;
  table.theoretical_peak_gbs = ctx.device.theoretical_bandwidth_gbs();
  return table;
}

void add_accounting_footnotes(Table& table, std::int64_t n) {
  table.footnotes.push_back(
      "GB/s here = n x 4 B / time, the arithmetic behind the seeds' table (2^22 x 4 B / 8.054 ms = "
      "2.083 GB/s). Seed 001 also counts every level's reads and writes; those figures follow.");
  for (const ReduceVariant& v : reduce_variants()) {
    if (!v.all_levels_elements)
      continue;
    for (const Row& row : table.rows) {
      if (row.name != v.name || row.check != CheckStatus::passed || row.timings.empty() || !row.timings[0])
        continue;
      const double bytes = v.all_levels_elements(n) * 4;
      char text[240];
      std::snprintf(text, sizeof text, "%s, all levels (seed 001's accounting): %.0f accesses, %.3f MB -> %.1f GB/s",
                    row.name.c_str(), bytes / 4, bytes / 1e6, bandwidth_gbs(bytes, row.timings[0]->median_ms));
      table.footnotes.push_back(text);
    }
  }
}

template <class T>
Table ladder_table(const RunContext& ctx, Pools& pools, std::int64_t n, bool seed_case, Stream& stream) {
  const char* type = std::is_same_v<T, int> ? "int32" : "float";
  std::string note;
  std::vector<TimedGroup> groups;
  Table table;
  const double bytes = static_cast<double>(n) * 4;
  const bool fits_l2 = bytes < 3.0 * static_cast<double>(ctx.device.l2_bytes);
  if (fits_l2) {
    const std::int64_t windows = rotation_windows(ctx, n, pools.elements);
    note = std::string(seed_case ? "the seeds' size; " : "") + "input fits in the L2: group [1] reads one buffer (L2 speed), group [2] rotates over " +
           std::to_string(windows) + " buffers (DRAM)";
    table = make_table(ctx, std::string("reduce ") + type + " sum, n = " + pow2_label(n), note, n);
    table.groups = {"one buffer (L2-resident)", "rotating " + std::to_string(windows) + " buffers"};
    groups = {{1}, {windows}};
  } else {
    table = make_table(ctx, std::string("reduce ") + type + " sum, n = " + pow2_label(n),
                       "input far larger than the L2: every launch reads DRAM", n);
    table.groups = {"one buffer"};
    groups = {{1}};
  }
  const Expected<T> want = expected_sum<T>(pool_of<T>(pools), n, stream);
  for (const ReduceVariant& v : reduce_variants()) {
    Row row;
    row.name = std::string(v.name);
    row.idea = std::string(v.idea);
    row.is_reference = v.is_reference;
    row.timings.resize(table.groups.size());
    ctx.say("  reduce " + std::string(type) + " n=" + pow2_label(n) + ": " + row.name);
    check_and_time<T>(ctx, v, pools, n, want, groups, 0, row, stream);
    table.rows.push_back(std::move(row));
  }
  add_accounting_footnotes(table, n);
  table.footnotes.push_back("random input seed " + std::to_string(pools.seed) +
                            (std::is_same_v<T, int> ? " (int32 in [-1000, 1000], no zeros)" : " (float in [-1, 1), no zeros)"));
  if constexpr (std::is_floating_point_v<T>) {
    char text[200];
    std::snprintf(text, sizeof text, "float check: |gpu - exact| <= d u / (1 - d u) x sum|x| with d = %lld (bound %.3Lg)",
                  static_cast<long long>(rounding_depth_bound(n)), sum_tolerance<T>(n, want.sum_abs));
    table.footnotes.push_back(text);
  }
  return table;
}

// The floor of any one-launch call, timed like the sweep's rows: an empty kernel, back to back.
__global__ void empty_kernel() {}

double empty_launch_us(const RunContext& ctx, Stream& stream) {
  const Measurement m = time_launches([](cudaStream_t s) { empty_kernel<<<1, 32, 0, s>>>(); }, stream,
                                      ctx.options.timing);
  return m.median_ms * 1e3;
}

// The sweep: the library call and CUB, int32 and float, one table per size.
std::vector<Table> sweep(const RunContext& ctx, Pools& pools, int from_log2, int to_log2, Stream& stream) {
  std::vector<Table> tables;
  std::vector<std::string> summary = {
      "sweep summary (median us per call; ratio = ladder / CUB, < 1 is faster; the library's shape "
      "by size: src/reduce/api_config.hpp):"};
  double worst_small = 0;
  // The library and CUB (rows 0 and 1), then the rungs whose launch shapes the library chooses
  // between (their int32 times are the summary's last columns).
  std::vector<const ReduceVariant*> rows;
  for (std::string_view name : {"ladder::reduce", "cub::DeviceReduce::Sum", "single_pass", "single_pass_1024",
                                "flagged_finish", "polled_finish", "polled_finish_1024", "one_cluster"})
    for (const ReduceVariant& v : reduce_variants())
      if (v.name == name)
        rows.push_back(&v);
  std::string header = "n | int32 ladder | int32 CUB | ratio | float ladder | float CUB | ratio";
  for (std::size_t r = 2; r < rows.size(); ++r)
    header += " | int32 " + std::string(rows[r]->name);
  summary.push_back(header);
  for (int k = from_log2; k <= to_log2; ++k) {
    const std::int64_t n = std::int64_t{1} << k;
    if (n > pools.elements)
      break;
    const std::int64_t windows = rotation_windows(ctx, n, pools.elements);
    Table table = make_table(ctx, "reduce sweep, n = " + pow2_label(n),
                             "sweep; rotating over " + std::to_string(windows) + " input buffers", n);
    table.groups = {"int32 sum", "float sum"};
    const Expected<int> want_int = expected_sum<int>(pool_of<int>(pools), n, stream);
    const Expected<float> want_float = expected_sum<float>(pool_of<float>(pools), n, stream);
    for (const ReduceVariant* v : rows) {
      Row row;
      row.name = std::string(v->name);
      row.idea = std::string(v->idea);
      row.is_reference = v->is_reference;
      row.timings.resize(2);
      ctx.say("  reduce sweep n=" + pow2_label(n) + ": " + row.name);
      check_and_time<int>(ctx, *v, pools, n, want_int, {{windows}}, 0, row, stream);
      if (row.check == CheckStatus::passed) {
        Row float_row = row;
        check_and_time<float>(ctx, *v, pools, n, want_float, {{windows}}, 1, float_row, stream);
        row.timings[1] = float_row.timings[1];
        if (float_row.check != CheckStatus::passed) {
          row.check = float_row.check;
          row.note = "float: " + float_row.note;
        }
      }
      table.rows.push_back(std::move(row));
    }
    auto us = [&](std::size_t r, std::size_t g) {
      const Row& row = table.rows[r];
      return row.check == CheckStatus::passed && row.timings[g] ? row.timings[g]->median_ms * 1e3 : NAN;
    };
    char line[200];
    const double ri = us(0, 0) / us(1, 0), rf = us(0, 1) / us(1, 1);
    std::snprintf(line, sizeof line, "%s | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f", pow2_label(n).c_str(),
                  us(0, 0), us(1, 0), ri, us(0, 1), us(1, 1), rf);
    std::string summary_line = line;
    for (std::size_t r = 2; r < table.rows.size(); ++r) {
      std::snprintf(line, sizeof line, " | %.2f", us(r, 0));
      summary_line += line;
    }
    summary.push_back(summary_line);
    if (k <= 20)
      worst_small = std::max({worst_small, ri, rf});
    tables.push_back(std::move(table));
  }
  if (!tables.empty()) {
    char line[200];
    std::snprintf(line, sizeof line, "worst ladder / CUB latency ratio for n <= 2^20: %.3f (goal <= 0.6)", worst_small);
    summary.push_back(line);
    std::snprintf(line, sizeof line,
                  "an empty kernel, one launch timed the same way: %.2f us (no one-launch call can beat it)",
                  empty_launch_us(ctx, stream));
    summary.push_back(line);
    for (auto& s : summary)
      tables.back().footnotes.push_back(s);
  }
  return tables;
}

std::vector<Table> run(const RunContext& ctx) {
  Stream stream;
  Pools pools;
  std::vector<std::int64_t> custom;
  for (const auto& s : ctx.options.sizes)
    custom.push_back(parse_size(s));
  std::int64_t largest = std::int64_t{1} << (ctx.options.small ? 20 : 28);
  for (auto n : custom)
    largest = std::max(largest, n);
  pools.elements = largest;
  pools.ints = DeviceBuffer<int>(static_cast<std::size_t>(largest));
  pools.floats = DeviceBuffer<float>(static_cast<std::size_t>(largest));
  pools.seed = fresh_seed();
  fill_random<int>(pools.ints.data(), largest, pools.seed, -1000, 1000, stream);
  fill_random<float>(pools.floats.data(), largest, pools.seed ^ 0x5bd1e995u, -1.0, 1.0, stream);
  LADDER_CUDA(cudaStreamSynchronize(stream));

  std::vector<Table> tables;
  if (!custom.empty()) {
    for (auto n : custom) {
      tables.push_back(ladder_table<int>(ctx, pools, n, false, stream));
      tables.push_back(ladder_table<float>(ctx, pools, n, false, stream));
    }
    return tables;
  }
  if (ctx.options.small) {
    tables.push_back(ladder_table<int>(ctx, pools, 1000003, false, stream));
    tables.push_back(ladder_table<float>(ctx, pools, std::int64_t{1} << 16, false, stream));
    for (auto& t : sweep(ctx, pools, 10, 14, stream))
      tables.push_back(std::move(t));
    return tables;
  }
  tables.push_back(ladder_table<int>(ctx, pools, std::int64_t{1} << 22, true, stream));
  tables.push_back(ladder_table<int>(ctx, pools, std::int64_t{1} << 28, false, stream));
  tables.push_back(ladder_table<float>(ctx, pools, std::int64_t{1} << 28, false, stream));
  for (auto& t : sweep(ctx, pools, 10, 28, stream))
    tables.push_back(std::move(t));
  return tables;
}

std::vector<RungInfo> rungs() {
  std::vector<RungInfo> out;
  for (const ReduceVariant& v : reduce_variants())
    out.push_back({v.name, v.idea, v.seed, v.is_reference, v.kernel, v.block_threads,
                   v.all_levels_elements ? seed_shared_bytes<int>() : v.ring_shared_bytes});
  return out;
}

std::string notes() { return brent_notes(); }

} // namespace

const Study& reduce_study() {
  static const Study study{"reduce",
                           "Parallel reduction (sum; int32 and float), seven seed kernels and beyond",
                           "001_0e1c07471f54757a.txt, 000_733e1357adff97a9.txt (reduction)",
                           rungs, run, notes};
  return study;
}

} // namespace ladder::lab
