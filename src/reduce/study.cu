// The reduction study: for each case, check every rung against the CPU reference (the output
// poisoned first), then time it; then sweep the library call and CUB over 2^10 .. 2^28.
//
// Inputs live in two pools (int32 and float, 2^28 elements each, fresh random non-zero values).
// A case of n elements reads window 0 of its pool; "rotating" timings walk over consecutive
// windows so that the bytes touched between two reads of one window exceed 3 x the L2.
#include "reduce/reference.hpp"
#include "reduce/variants.hpp"

#include "core/protocol.hpp"
#include "core/report.hpp"
#include "core/sizes.hpp"
#include "core/study.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <type_traits>

namespace ladder::lab::reduce {

namespace {

void check_size(std::string_view text) { (void)parse_count(text, "--size"); }

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

template <class T> constexpr const char* type_name() {
  return std::is_same_v<T, int> ? "int32" : "float";
}

// Windows of n elements for rotation: enough that 3 x L2 bytes pass between two reads of one.
std::int64_t rotation_windows(const RunContext& ctx, std::int64_t n, std::int64_t pool) {
  const double bytes = static_cast<double>(n) * 4;
  const auto wanted =
      static_cast<std::int64_t>(std::ceil(3.0 * static_cast<double>(ctx.device.l2_bytes) / bytes)) +
      1;
  return std::clamp<std::int64_t>(wanted, 1, pool / n);
}

template <class T> struct Expected {
  T value{};
  long double sum_abs = 0;
};

template <class T> Expected<T> expected_sum(const T* device, std::int64_t n, cudaStream_t stream) {
  PinnedBuffer<T> host(static_cast<std::size_t>(n));
  copy_to_host(host, device, static_cast<std::size_t>(n), stream);
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

template <class T> ReduceLaunch<T> launcher(const Rung& rung) {
  if constexpr (std::is_same_v<T, int>)
    return rung.launch_int;
  else
    return rung.launch_float;
}

// Check `rung` on window 0, then time it in `group` over `windows` rotating windows (1: always
// window 0), into `row`.
template <class T>
void check_and_time(const RunContext& ctx, const std::string& what, const Rung& rung, Pools& pools,
                    std::int64_t n, const Expected<T>& want,
                    const std::vector<std::int64_t>& windows, Row& row, Stream& stream) {
  const ReduceLaunch<T> launch = launcher<T>(rung);
  const T* base = pool_of<T>(pools);
  const std::size_t scratch_bytes = rung.unsupported(n) ? 0 : rung.scratch_bytes(n);
  DeviceBuffer<std::uint8_t> scratch(scratch_bytes);
  if (scratch_bytes > 0)
    LADDER_CUDA(cudaMemsetAsync(scratch.data(), 0, scratch_bytes, stream));
  DeviceBuffer<T> out(1);
  PinnedBuffer<T> got(1);
  const auto check = [&](cudaStream_t st) {
    return check_output(
        out.data(), 1, got,
        [&](cudaStream_t l) { launch(base, n, out.data(), scratch.data(), scratch_bytes, l); },
        [&](std::span<const T> value) { return judge(value[0], want, n); }, st, row.name);
  };
  std::vector<std::int64_t> next(windows.size(), 0);
  std::vector<TimedMode> modes;
  for (std::size_t g = 0; g < windows.size(); ++g)
    modes.push_back({g,
                     [&, g](cudaStream_t st) {
                       const T* in = base + (next[g]++ % windows[g]) * n;
                       launch(in, n, out.data(), scratch.data(), scratch_bytes, st);
                     },
                     ctx.options.timing});
  measure_rung(ctx, what, row, rung.unsupported(n), check, modes, stream);
}

Table make_table(const RunContext& ctx, const std::string& type, std::int64_t n) {
  Table table;
  table.study = "reduce";
  table.title = "reduce " + type + " sum, n = " + count_label(n);
  table.params = {{"n", n}, {"type", type}, {"op", "sum"}};
  table.work.elements = static_cast<double>(n);
  table.work.bytes_read = static_cast<double>(n) * 4;
  table.work.bytes_written = 4;
  table.work.formula = "n x 4 B read (+ 4 B written)";
  table.peak = ctx.peak(Bound::dram_read);
  return table;
}

// The course's multi-level accounting (every level's reads and writes) for the rows that launch
// several levels, as typed figures of the row and one line of prose.
void add_all_levels_figures(Table& table, std::int64_t n) {
  for (const Rung& rung : registry()) {
    if (!rung.all_levels_elements)
      continue;
    for (Row& row : table.rows) {
      if (row.name != rung.info.name || row.check != CheckStatus::passed || !row.timings[0])
        continue;
      const double bytes = rung.all_levels_elements(n) * 4;
      row.params["all_levels_bytes"] = bytes;
      row.params["all_levels_gbs"] = per_second(bytes, row.timings[0]->median_ms) / 1e9;
    }
  }
  table.footnotes.push_back("GB/s here = n x 4 B / time, the arithmetic behind the course's table "
                            "(2^22 x 4 B / 8.054 ms = "
                            "2.083 GB/s). The course's reduction slides (Hui Liu) also count every "
                            "level's reads and writes: "
                            "the JSON carries that figure as all_levels_bytes and all_levels_gbs "
                            "for the multi-level rungs.");
}

template <class T>
Table ladder_table(const RunContext& ctx, Pools& pools, std::int64_t n, std::string label,
                   bool headline, Stream& stream) {
  Table table = make_table(ctx, type_name<T>(), n);
  table.headline = headline;
  std::vector<std::int64_t> windows = {1};
  const double bytes = static_cast<double>(n) * 4;
  if (bytes < 3.0 * static_cast<double>(ctx.device.l2_bytes)) {
    const std::int64_t rotating = rotation_windows(ctx, n, pools.elements);
    windows.push_back(rotating);
    label += std::string(label.empty() ? "" : "; ") +
             "input fits in the L2: [1] reads one buffer (L2 speed), [2] rotates over " +
             std::to_string(rotating) + " buffers (DRAM)";
    table.groups = {"one buffer (L2-resident)",
                    "rotating " + std::to_string(rotating) + " buffers"};
  } else {
    label +=
        std::string(label.empty() ? "" : "; ") + "far larger than the L2: every launch reads DRAM";
    table.groups = {"one buffer"};
  }
  table.case_label = label;
  const Expected<T> want = expected_sum<T>(pool_of<T>(pools), n, stream);
  for_each_shown_rung(ctx, registry(), table, [&](const Rung& rung, Row& row) {
    check_and_time<T>(ctx, std::string("reduce ") + type_name<T>() + " n = " + count_label(n), rung,
                      pools, n, want, windows, row, stream);
  });
  add_all_levels_figures(table, n);
  table.params["seed"] = pools.seed; // replays the inputs: fill_random(seed, n)
  table.footnotes.push_back("random input seed " + std::to_string(pools.seed) +
                            (std::is_same_v<T, int> ? " (int32 in [-1000, 1000], no zeros)"
                                                    : " (float in [-1, 1), no zeros)"));
  if constexpr (std::is_floating_point_v<T>) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "float check: |gpu - exact| <= d u / (1 - d u) x sum|x| with d = %lld",
                  static_cast<long long>(rounding_depth_bound(n)));
    table.footnotes.push_back(text);
    table.params["float_check_depth"] = rounding_depth_bound(n);
  }
  return table;
}

// The floor of any one-launch call, timed like the sweep's rows: an empty kernel, back to back.
__global__ void empty_kernel() {}

// The sweep: the library call and CUB, int32 and float; with --all also the rungs whose launch
// shapes the library chooses between (int32), in a second table.
std::vector<Sweep> sweep(const RunContext& ctx, Pools& pools, int from_log2, int to_log2,
                         Stream& stream) {
  const Rung* library = nullptr;
  const Rung* vendor = nullptr;
  std::vector<const Rung*> candidates;
  for (const Rung& rung : registry()) {
    if (rung.info.role == Role::library)
      library = &rung;
    else if (rung.info.role == Role::reference && rung.info.vendor)
      vendor = &rung;
    else if (rung.in_shape_sweep)
      candidates.push_back(&rung);
  }
  Sweep main;
  main.study = "reduce";
  main.title = "reduce sweep: ladder::reduce vs CUB, rotating inputs";
  main.series = {{"int32 ladder", Role::library},
                 {"int32 CUB", Role::reference},
                 {"float ladder", Role::library},
                 {"float CUB", Role::reference}};
  main.ratios = {{"int32 x CUB", 0, 1}, {"float x CUB", 2, 3}};
  Sweep shapes;
  shapes.study = "reduce";
  shapes.title = "reduce sweep (int32): the shapes the library chooses between";
  shapes.series.push_back({"ladder", Role::library});
  for (const Rung* c : candidates)
    shapes.series.push_back({std::string(c->info.name), c->info.role});
  // No ratio columns here: the times are the point, and the columns would pass 120.

  for (int k = from_log2; k <= to_log2; ++k) {
    const std::int64_t n = std::int64_t{1} << k;
    if (n > pools.elements)
      break;
    const std::int64_t windows = rotation_windows(ctx, n, pools.elements);
    const Expected<int> want_int = expected_sum<int>(pool_of<int>(pools), n, stream);
    const Expected<float> want_float = expected_sum<float>(pool_of<float>(pools), n, stream);
    auto one = [&](const Rung& rung, auto type_tag, SweepPoint& point) {
      using T = decltype(type_tag);
      Row row = make_row(rung.info, "", 1);
      if constexpr (std::is_same_v<T, int>)
        check_and_time<int>(ctx, "reduce sweep n = " + count_label(n), rung, pools, n, want_int,
                            {windows}, row, stream);
      else
        check_and_time<float>(ctx, "reduce sweep n = " + count_label(n), rung, pools, n, want_float,
                              {windows}, row, stream);
      point.times.push_back(row.timings[0]);
      point.checks.push_back(row.check);
    };
    SweepPoint point{n, count_label(n), {}, {}};
    one(*library, int{}, point);
    one(*vendor, int{}, point);
    one(*library, float{}, point);
    one(*vendor, float{}, point);
    main.points.push_back(std::move(point));
    if (ctx.options.all) {
      SweepPoint p{n, count_label(n), {}, {}};
      one(*library, int{}, p);
      for (const Rung* c : candidates)
        one(*c, int{}, p);
      shapes.points.push_back(std::move(p));
    }
  }
  const Measurement floor = time_launches([](cudaStream_t s) { empty_kernel<<<1, 32, 0, s>>>(); },
                                          stream, ctx.options.timing);
  char text[200];
  std::snprintf(
      text, sizeof text,
      "an empty kernel, one launch timed the same way, takes %s: no one-launch call can beat it",
      format_time(floor.median_ms).c_str());
  main.footnotes.push_back(text);
  main.params["empty_kernel_ms"] = floor.median_ms;
  std::vector<Sweep> out = {std::move(main)};
  if (ctx.options.all)
    out.push_back(std::move(shapes));
  return out;
}

StudyResults run(const RunContext& ctx) {
  Stream stream;
  Pools pools;
  std::vector<std::int64_t> custom;
  for (const auto& s : ctx.options.sizes)
    custom.push_back(parse_count(s, "--size"));
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

  StudyResults results;
  auto& tables = results.tables;
  if (!custom.empty()) {
    for (auto n : custom) {
      tables.push_back(ladder_table<int>(ctx, pools, n, "", tables.empty(), stream));
      tables.push_back(ladder_table<float>(ctx, pools, n, "", false, stream));
    }
    return results;
  }
  if (ctx.options.small) {
    tables.push_back(ladder_table<int>(ctx, pools, 1000003, "small", true, stream));
    tables.push_back(
        ladder_table<float>(ctx, pools, std::int64_t{1} << 16, "small", false, stream));
    results.sweeps = sweep(ctx, pools, 10, 14, stream);
    return results;
  }
  tables.push_back(
      ladder_table<int>(ctx, pools, std::int64_t{1} << 28, "default size", true, stream));
  tables.push_back(
      ladder_table<float>(ctx, pools, std::int64_t{1} << 28, "default size", false, stream));
  tables.push_back(
      ladder_table<int>(ctx, pools, std::int64_t{1} << 22, "the course's size", false, stream));
  results.sweeps = sweep(ctx, pools, 10, 28, stream);
  return results;
}

std::string notes() { return brent_notes(); }

} // namespace

const Study& study() {
  static const Study s{
      .name = "reduce",
      .title = "Parallel reduction (sum; int32 and float), the course's seven kernels and beyond",
      .course = "Harris's seven kernels as taught in \"Optimizing CUDA code\" (Moreno Maza, UWO "
                "CS4402) and the reduction slides of Hui Liu",
      .rungs = registry_infos<registry>,
      .run = run,
      .check_size = check_size,
      .size_syntax = "N, 2^K or 4Mi (elements)",
      .notes = notes};
  return s;
}

} // namespace ladder::lab::reduce
