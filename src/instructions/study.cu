// The instructions study: the second half of NVIDIA's "Optimizing CUDA" deck measured on the
// user's GPU. Instruction throughput per clock per SM beside the programming guide's table (and
// the FMA curve that shows the kernels saturate), dependent-chain latency and the warps that hide
// it, accuracy of the intrinsics and of -use_fast_math, floating-point non-associativity,
// divergence, and the deck's launch-configuration graphs as measured sweeps.
#include "instructions/reference.hpp"
#include "instructions/variants.hpp"

#include "core/protocol.hpp"
#include "core/study.hpp"
#include "ladder/models.hpp"
#include "ladder/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numbers>
#include <random>
#include <sstream>

namespace ladder::lab::instructions {

namespace {

void check_size(std::string_view) {
  throw std::invalid_argument("--size: the instructions study has no size to choose (its sizes "
                              "are fixed by what each table measures)");
}

std::string fixed(double v, int decimals) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(decimals);
  s << v;
  return s.str();
}

// Resident blocks of `kernel` per SM at `threads` threads and `shared` dynamic bytes.
int resident_blocks(const void* kernel, int threads, std::size_t shared = 0) {
  int blocks = 0;
  LADDER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared));
  return blocks;
}

int registers_of(const void* kernel) {
  cudaFuncAttributes a{};
  LADDER_CUDA(cudaFuncGetAttributes(&a, kernel));
  return a.numRegs;
}

ClockSample read_sample(const ClockSample* device, cudaStream_t stream) {
  ClockSample s;
  LADDER_CUDA(cudaMemcpyAsync(&s, device, sizeof s, cudaMemcpyDeviceToHost, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  return s;
}

double sample_clock(const ClockSample& s) {
  return clock_hz(s.end_cycles - s.start_cycles, s.end_ns - s.start_ns);
}

// Seconds of `ops_per_launch` operations at the median of a row's first timing group.
double seconds_per_launch(const Row& row, int ops_per_launch) {
  return row.timings.at(0)->median_ms * 1e-3 * ops_per_launch;
}

// ---- Throughput ------------------------------------------------------------------------------

Table throughput_table(const RunContext& ctx, Stream& stream) {
  const DeviceInfo& dev = ctx.device;
  Table table;
  table.study = "instructions";
  table.title = "instruction throughput, per clock per SM";
  table.case_label = "a resident grid of 256-thread blocks, 4 (x, y) pairs per thread";
  table.headline = true;
  table.speedups = false;
  table.peak.bound = Bound::instruction;
  // The table's bound is FP32 at the driver's peak clock; each row is held against its own
  // guide rate at the clock measured while it ran (Row::peak).
  table.peak.theoretical = guide_rate("fp32", dev.compute_major, dev.compute_minor).value_or(0) *
                           static_cast<double>(dev.sm_clock_khz) * 1e3 * dev.multiprocessors;
  table.peak.theoretical_from = "FP32 at the peak SM clock; each row: its guide rate x SMs x "
                                "the SM clock measured during the row";
  table.groups = {"resident grid"};
  table.columns = {{"per_clock_per_sm", "op/clk/SM"},
                   {"guide_per_clock_per_sm", "guide"},
                   {"clock_mhz", "MHz"},
                   {"sass", "SASS"}};
  const auto& registry = throughput_registry();
  // Operations per thread per launch for a cost-1 row: about 2 ms of FP32 FMA at 128 per clock.
  const double ops_per_thread = ctx.options.small ? 2048 : 262144;
  // Every row launches the same grid, a full SM's worth of 256-thread blocks per SM: a kernel
  // with fewer resident blocks runs in more than one wave, which its op/clk/SM then shows.
  const int blocks = ctx.options.small ? 2
                                       : dev.multiprocessors *
                                             std::max(1, dev.max_threads_per_multiprocessor / 256);
  const int threads = blocks * 256;
  const int sms = ctx.options.small ? 1 : dev.multiprocessors;
  DeviceBuffer<double> out(static_cast<std::size_t>(threads) * 8);
  DeviceBuffer<ClockSample> clock(1);
  PinnedBuffer<double> host(static_cast<std::size_t>(threads) * 8);
  table.work.ops = threads;
  table.work.formula = std::to_string(threads) + " threads x 1 operation";
  const OpArgs args;
  table.params = {{"pairs_per_thread", 4}, {"threads_per_block", 256}, {"blocks", blocks}};

  const auto labels = rung_labels(infos_of(registry));
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const ThroughputRung& rung = registry[i];
    Row row = make_row(rung.info, labels[i], 1);
    const int blocks_per_sm = resident_blocks(rung.info.kernel, 256);
    const int per_update = rung.pairs * rung.ops_per_update;
    int iterations = static_cast<int>(ops_per_thread / per_update / rung.cost);
    iterations = std::max(rung.unroll, iterations / rung.unroll * rung.unroll);
    const long long ops = static_cast<long long>(iterations) * per_update;
    ThroughputLaunch timed{out.data(), blocks, threads / blocks, iterations, args, clock.data()};
    ThroughputLaunch checked = timed;
    checked.iterations = rung.unroll; // one loop trip: the CPU replays every thread
    const auto check = [&](cudaStream_t s) {
      const std::size_t count = static_cast<std::size_t>(threads) * 2 * rung.pairs;
      return check_output(
          out.data(), count, host, [&](cudaStream_t l) { rung.launch(checked, l); },
          [&](std::span<const double> got) -> std::string {
            std::vector<double> want(2 * rung.pairs);
            for (int t = 0; t < threads; ++t) {
              rung.host(static_cast<std::uint32_t>(t), rung.pairs, checked.iterations, args,
                        want.data());
              for (int k = 0; k < 2 * rung.pairs; ++k) {
                const double g = got[static_cast<std::size_t>(t) * 2 * rung.pairs + k];
                const bool ok = rung.tolerance == 0
                                    ? g == want[k]
                                    : std::fabs(g - want[k]) <=
                                          rung.tolerance * std::max(1.0, std::fabs(want[k]));
                if (!ok)
                  return "thread " + std::to_string(t) + " value " + std::to_string(k) + ": got " +
                         std::to_string(g) + ", expected " + std::to_string(want[k]);
              }
            }
            return "";
          },
          s, row.name);
    };
    measure_rung(ctx, "instructions", row, nullptr, check,
                 {{0, [&](cudaStream_t s) { rung.launch(timed, s); }, ctx.options.timing,
                   static_cast<int>(ops)}},
                 stream);
    row.params["blocks_per_sm"] = blocks_per_sm;
    row.params["iterations"] = iterations;
    row.params["sass"] = std::string(rung.sass);
    if (row.check == CheckStatus::passed) {
      const double f = sample_clock(read_sample(clock.data(), stream));
      const double seconds = seconds_per_launch(row, static_cast<int>(ops));
      row.params["clock_mhz"] = std::round(f / 1e6);
      row.params["per_clock_per_sm"] =
          per_clock_per_sm(static_cast<double>(ops) * threads, seconds, f, sms);
      if (const auto g = guide_rate(rung.guide_row, dev.compute_major, dev.compute_minor)) {
        row.params["guide_per_clock_per_sm"] = *g;
        row.peak = static_cast<double>(*g) * f * sms;
      }
    }
    if (!guide_rate(rung.guide_row, dev.compute_major, dev.compute_minor))
      row.params["guide_per_clock_per_sm"] = rung.guide_row.empty() ? "multiple" : "-";
    table.rows.push_back(std::move(row));
  }
  table.footnotes = {
      "op/clk/SM = operations of the launch / (median launch time x the SM clock read by clock64 "
      "and %globaltimer inside the kernel x SMs); guide = the CUDA C++ Programming Guide's "
      "'Throughput of Native Arithmetic Instructions' for this compute capability (multiple: the "
      "guide gives no figure, the compiler emits a sequence); % peak = op/clk/SM / guide",
      "SASS: what the compiler emitted on sm_90 for one operation (cuobjdump --dump-sass); the "
      "integer rows' chains (x += y; y += x) cannot be folded, so the count of emitted "
      "instructions "
      "is the count of operations"};
  return table;
}

// ---- FMA saturation: warps per SM x independent chains per thread ---------------------------

struct LatencyFigures {
  double fp32_add = 0, fp32_fma = 0, shared = 0, l1 = 0, l2 = 0, dram = 0;
};

Table saturation_table(const RunContext& ctx, const LatencyFigures& lat, Stream& stream) {
  const DeviceInfo& dev = ctx.device;
  const int sms = ctx.options.small ? 1 : dev.multiprocessors;
  const int g = guide_rate("fp32", dev.compute_major, dev.compute_minor).value_or(128);
  Table table;
  table.study = "instructions";
  table.title = "FP32 FMA: warps per SM x independent chains per thread";
  table.case_label = "the deck's latency-hiding argument, measured";
  table.speedups = false;
  table.peak.bound = Bound::instruction;
  table.peak.theoretical = g * static_cast<double>(dev.sm_clock_khz) * 1e3 * sms;
  table.peak.theoretical_from = "the guide's FP32 rate x SMs x the peak SM clock; each row: at "
                                "the SM clock measured during it";
  for (int c : fma_chain_counts)
    table.groups.push_back(std::to_string(c) + (c == 1 ? " chain" : " chains"));
  table.columns = {{"warps_per_sm", "warps/SM"}, {"predicted_chains_needed", "chains needed"}};
  // Every launch does the same operations: SMs x 2048 threads x 16 FMAs x `unit`.
  const int unit = ctx.options.small ? 4 : 2048;
  table.work.ops = static_cast<double>(sms) * 2048 * 16 * unit;
  table.work.formula = "SMs x 2048 x 16 x " + std::to_string(unit) + " FMAs";
  const std::vector<int> warps = ctx.options.small
                                     ? std::vector<int>{1, 4, 64}
                                     : std::vector<int>{1, 2, 4, 8, 12, 16, 24, 32, 48, 64};
  DeviceBuffer<float> out(static_cast<std::size_t>(sms) * 2048 * 16);
  PinnedBuffer<float> host(static_cast<std::size_t>(sms) * 2048 * 16);
  DeviceBuffer<ClockSample> clock(1);
  const float a = 0.9999f, b = 0.5f;
  double clock_seen = 0;
  for (int w : warps) {
    RungInfo info{.name = "", .idea = "", .role = Role::seed};
    const std::string name = std::to_string(w) + (w == 1 ? " warp" : " warps") + " per SM";
    info.name = name;
    Row row = make_row(info, std::to_string(w), table.groups.size());
    row.name = name;
    // One block per SM, two above 32 warps (a block holds at most 1024 threads).
    const int blocks_per_sm = (w + 31) / 32;
    const int threads = 32 * w / blocks_per_sm;
    const int blocks = sms * blocks_per_sm;
    const int total_threads = blocks * threads;
    std::vector<TimedMode> modes;
    // Checked once with 1 chain at 16 FMAs: every thread's value against the CPU.
    const auto check = [&](cudaStream_t s) {
      return check_output(
          out.data(), static_cast<std::size_t>(total_threads), host,
          [&](cudaStream_t l) {
            launch_fma_chains(1, out.data(), blocks, threads, 16, a, b, clock.data(), l);
          },
          [&](std::span<const float> got) -> std::string {
            for (int t = 0; t < total_threads; ++t) {
              float v = fma_chain_seed(static_cast<std::uint32_t>(t), 0);
              for (int i = 0; i < 16; ++i)
                v = std::fmaf(v, a, b);
              if (got[t] != v)
                return "thread " + std::to_string(t) + ": got " + std::to_string(got[t]) +
                       ", expected " + std::to_string(v);
            }
            return "";
          },
          s, name);
    };
    for (std::size_t gi = 0; gi < table.groups.size(); ++gi) {
      const int c = fma_chain_counts[gi];
      const int iterations = unit * 1024 / (w * c); // same FMAs per launch for every cell
      modes.push_back({gi,
                       [=, &out, &clock](cudaStream_t s) {
                         launch_fma_chains(c, out.data(), blocks, threads, iterations, a, b,
                                           clock.data(), s);
                       },
                       ctx.options.timing, 1});
    }
    measure_rung(ctx, "instructions fma saturation", row, nullptr, check, modes, stream);
    if (row.check == CheckStatus::passed) {
      const double f = sample_clock(read_sample(clock.data(), stream)); // the 16-chain launch
      clock_seen = std::max(clock_seen, f);
      row.peak = static_cast<double>(g) * f * sms;
    }
    row.params["warps_per_sm"] = w;
    // Chains a warp needs so that `w` warps cover the FMA latency: 4 sub-partitions each issue
    // one warp instruction per clock.
    if (lat.fp32_fma > 0)
      row.params["predicted_chains_needed"] =
          std::max(1.0, std::ceil(warps_to_hide(lat.fp32_fma, 4.0, 1.0) / w));
    table.rows.push_back(std::move(row));
  }
  if (lat.fp32_fma > 0)
    table.params["predicted_warps_one_chain"] = warps_to_hide(lat.fp32_fma, 4.0, 1.0);
  table.params["fma_latency_cycles"] = lat.fp32_fma;
  table.params["clock_hz"] = clock_seen;
  table.footnotes = {
      "warps needed = latency x warp instructions per clock per SM / chains per warp: with " +
          fixed(lat.fp32_fma, 1) +
          "-cycle FMAs and 4 sub-partitions issuing one FMA each per "
          "clock, " +
          fixed(lat.fp32_fma > 0 ? warps_to_hide(lat.fp32_fma, 4.0, 1.0) : 0, 0) +
          " warps per SM with one chain; % peak = measured / the guide's 128 per clock per SM",
      "the deck (G80): ~24-cycle latency, 8 lanes per SM, so 6 warps (192 threads, 25% "
      "occupancy) hide it"};
  return table;
}

// ---- Latency -----------------------------------------------------------------------------------

Table latency_table(const RunContext& ctx, Stream& stream, LatencyFigures& figures) {
  const DeviceInfo& dev = ctx.device;
  Table table;
  table.study = "instructions";
  table.title = "latency of dependent operations, in SM cycles";
  table.case_label = "one thread, clock64 around the chain; median of 3 launches, two runs";
  table.speedups = false;
  table.peak.bound = Bound::instruction;
  table.groups = {"one thread"};
  table.columns = {{"footprint", "footprint"},
                   {"cycles_run1", "cycles (run 1)"},
                   {"cycles_run2", "cycles (run 2)"},
                   {"ns", "ns"},
                   {"deck", "deck (G80)"}};
  const int steps = ctx.options.small ? 256 : 4096;
  DeviceBuffer<long long> cycles(1);
  DeviceBuffer<std::uint32_t> sink(1);
  const OpArgs args;
  const std::uint64_t seed = fresh_seed();
  table.params["seed"] = seed;

  struct Case {
    std::string name, idea, footprint;
    LatencyKind kind;
    std::uint64_t bytes = 0; // chase footprint
    double* figure;
    std::string deck;
  };
  const std::uint64_t dram_bytes = ctx.options.small ? (64ull << 20) : (1ull << 30);
  std::vector<Case> cases = {
      {"fp32_add", "x = x + a, dependent", "-", LatencyKind::fp32_add, 0, &figures.fp32_add,
       "~11-24 cycles"},
      {"fp32_fma", "x = fmaf(x, a, b), dependent", "-", LatencyKind::fp32_fma, 0, &figures.fp32_fma,
       "~11-24 cycles"},
      {"shared_load", "i = s[i] over 4096 words of shared memory", "16 KiB",
       LatencyKind::shared_load, 16 << 10, &figures.shared, "as fast as registers"},
      {"global_l1", "i = a[i], random 128-byte lines, L1-resident", "16 KiB",
       LatencyKind::global_load, 16 << 10, &figures.l1, "-"},
      {"global_l2", "i = a[i], random lines, L2-resident", "8 MiB", LatencyKind::global_load,
       8 << 20, &figures.l2, "-"},
      {"global_dram",
       "i = a[i], random lines far beyond the L2 (TLB misses included), each launch on lines no "
       "earlier launch touched",
       std::to_string(dram_bytes >> 20) + " MiB", LatencyKind::global_load, dram_bytes,
       &figures.dram, "400-600 cycles"},
  };
  for (const Case& c : cases) {
    RungInfo info{.role = Role::seed};
    Row row = make_row(info, std::to_string(table.rows.size() + 1), 1);
    row.name = c.name;
    row.idea = c.idea;
    row.params["footprint"] = c.footprint;
    row.params["deck"] = c.deck;
    LatencyLaunch l{
        .kind = c.kind, .steps = steps, .args = args, .cycles = cycles.data(), .sink = sink.data()};
    std::optional<DeviceBuffer<std::uint32_t>> chase;
    std::vector<std::uint32_t> host_chase;
    const std::uint32_t stride = c.kind == LatencyKind::shared_load ? 1 : 32; // 4 B or 128 B apart
    if (c.bytes > 0) {
      const auto lines = static_cast<std::uint32_t>(c.bytes / (4ull * stride));
      host_chase = chase_cycle(lines, stride, seed + table.rows.size());
      chase.emplace(host_chase.size());
      LADDER_CUDA(cudaMemcpyAsync(chase->data(), host_chase.data(), host_chase.size() * 4,
                                  cudaMemcpyHostToDevice, stream));
      l.chase = chase->data();
      l.chase_length = c.kind == LatencyKind::shared_load ? lines : 0;
      // Caches are warmed by one walk over the footprint (none for DRAM: it would not fit).
      l.warm_steps = c.bytes <= (8u << 20) ? static_cast<int>(lines) : 0;
    }
    // Beyond the L2 every launch walks on from where the previous one stopped (the untimed warm
    // steps skip ahead), so no timed step meets a line an earlier launch left in the L2: walking
    // the same 4096 lines again would time L2 hits.
    const bool fresh_lines = c.bytes > (8u << 20);
    // Check: the chain's final value against the CPU.
    const auto chain_end = [&](int warm) {
      std::uint32_t expected = 0;
      if (c.kind == LatencyKind::fp32_add || c.kind == LatencyKind::fp32_fma) {
        float v = args.fb;
        for (int i = 0; i < steps; ++i)
          v = c.kind == LatencyKind::fp32_add ? v + args.fa : std::fmaf(v, args.fa, args.fb);
        std::memcpy(&expected, &v, 4);
      } else {
        std::uint32_t p = 0;
        for (int i = 0; i < warm + steps; ++i)
          p = host_chase[p];
        expected = p;
      }
      return expected;
    };
    std::uint32_t expected = chain_end(l.warm_steps);
    std::vector<double> runs[2];
    std::string wrong;
    for (int run = 0; run < 2 && wrong.empty(); ++run)
      for (int rep = 0; rep < 3 && wrong.empty(); ++rep) {
        if (fresh_lines) {
          l.warm_steps = (run * 3 + rep) * steps;
          expected = chain_end(l.warm_steps);
        }
        poison(sink.data(), 4, stream);
        launch_latency(l, stream);
        long long cyc = 0;
        std::uint32_t got = 0;
        LADDER_CUDA(cudaMemcpyAsync(&cyc, cycles.data(), 8, cudaMemcpyDeviceToHost, stream));
        LADDER_CUDA(cudaMemcpyAsync(&got, sink.data(), 4, cudaMemcpyDeviceToHost, stream));
        LADDER_CUDA(cudaStreamSynchronize(stream));
        if (got != expected)
          wrong = "the chain ended at " + std::to_string(got) + ", expected " +
                  std::to_string(expected);
        runs[run].push_back(cycles_per_step(cyc, steps));
      }
    ctx.say("  instructions latency: " + c.name);
    if (!wrong.empty()) {
      row.check = CheckStatus::wrong;
      row.note = wrong;
    } else {
      row.check = CheckStatus::passed;
      for (int run = 0; run < 2; ++run) {
        std::sort(runs[run].begin(), runs[run].end());
        row.params[run == 0 ? "cycles_run1" : "cycles_run2"] = runs[run][1];
      }
      *c.figure = runs[0][1];
      row.params["ns"] = runs[0][1] / (static_cast<double>(dev.sm_clock_khz) * 1e3) * 1e9;
    }
    table.rows.push_back(std::move(row));
  }
  table.footnotes = {
      "cycles: clock64 difference over " + std::to_string(steps) +
          " dependent steps (the loop is unrolled 32 times; its counter is off the chain); ns at "
          "the driver's peak SM clock of " +
          std::to_string(dev.sm_clock_khz / 1000) + " MHz",
      "the deck's slide: 'instruction's result can be read ~11 cycles later' (later editions: "
      "~24); global rows walk a random cycle of 128-byte lines so no prefetch or coalescing helps"};
  return table;
}

// ---- Accuracy -------------------------------------------------------------------------------

Table accuracy_table(const RunContext& ctx, Stream& stream) {
  Table table;
  table.study = "instructions";
  table.title = "accuracy against a double-precision reference, in float ULPs";
  table.case_label = "max and mean over a uniform sweep of each range";
  table.speedups = false;
  table.peak.bound = Bound::instruction;
  table.groups = {"sweep"};
  table.columns = {{"range", "range"},         {"library_max", "func max"},
                   {"library_mean", "mean"},   {"intrinsic_max", "__func max"},
                   {"intrinsic_mean", "mean"}, {"fast_math_max", "fast-math max"},
                   {"fast_math_mean", "mean"}, {"library_bound", "guide"},
                   {"intrinsic_guide", "__func in guide's bound"}};
  const int n = ctx.options.small ? 4096 : (1 << 20);
  struct Case {
    MathFunctionId id;
    MathFunction f;
    double lo, hi;
    bool logarithmic;
    std::string range;
  };
  const double pi = std::numbers::pi;
  const std::vector<Case> cases = {
      {MathFunctionId::sin, MathFunction::sin, -pi, pi, false, "[-pi, pi]"},
      {MathFunctionId::sin, MathFunction::sin, -100, 100, false, "[-100, 100]"},
      {MathFunctionId::cos, MathFunction::cos, -pi, pi, false, "[-pi, pi]"},
      {MathFunctionId::tan, MathFunction::tan, -1.5, 1.5, false, "[-1.5, 1.5]"},
      {MathFunctionId::exp, MathFunction::exp, -10, 10, false, "[-10, 10]"},
      {MathFunctionId::exp, MathFunction::exp, -80, 80, false, "[-80, 80]"},
      {MathFunctionId::log, MathFunction::log, 0.5, 2, false, "[0.5, 2]"},
      {MathFunctionId::log, MathFunction::log, 1e-30, 1e30, true, "[1e-30, 1e30]"},
      {MathFunctionId::pow, MathFunction::pow, 1e-3, 1e3, true, "x in [1e-3, 1e3]"},
      {MathFunctionId::div, MathFunction::div, 1, 2, false, "x in [1, 2]"},
      {MathFunctionId::div, MathFunction::div, 1e-30, 1e30, true, "x in [1e-30, 1e30]"},
  };
  DeviceBuffer<float> x(n), y(n);
  PinnedBuffer<float> hx(n), hy(n);
  const std::uint64_t seed = fresh_seed();
  table.params["seed"] = seed;
  table.params["arguments_per_range"] = n;
  std::mt19937_64 rng(seed);
  for (const Case& c : cases) {
    RungInfo info{.role = Role::seed};
    Row row = make_row(info, std::to_string(table.rows.size() + 1), 1);
    row.name =
        std::string(function_name(c.id, false)) + " / " + std::string(function_name(c.id, true));
    row.params["range"] = c.range;
    row.params["library_bound"] = library_ulp_bound(c.id);
    std::uniform_real_distribution<double> u(c.logarithmic ? std::log(c.lo) : c.lo,
                                             c.logarithmic ? std::log(c.hi) : c.hi);
    for (int i = 0; i < n; ++i)
      hx[i] = static_cast<float>(c.logarithmic ? std::exp(u(rng)) : u(rng));
    LADDER_CUDA(
        cudaMemcpyAsync(x.data(), hx.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    // The check is the library call within its documented bound (a broken reference or ULP
    // measure would show there). An intrinsic outside the accuracy the guide states for it is a
    // finding about this GPU, reported in its own column, not a wrong row.
    std::string wrong, intrinsic_outside;
    const char* keys[3] = {"library", "intrinsic", "fast_math"};
    const Flavor flavors[3] = {Flavor::library, Flavor::intrinsic, Flavor::library_fast_math};
    for (int k = 0; k < 3; ++k) {
      poison(y.data(), n * sizeof(float), stream);
      launch_accuracy(c.f, flavors[k], x.data(), y.data(), n, stream);
      LADDER_CUDA(
          cudaMemcpyAsync(hy.data(), y.data(), n * sizeof(float), cudaMemcpyDeviceToHost, stream));
      LADDER_CUDA(cudaStreamSynchronize(stream));
      UlpStats stats;
      for (int i = 0; i < n; ++i) {
        const double truth = reference_value(c.id, hx[i]);
        if (!std::isfinite(truth) || std::fabs(truth) > 3.4e38)
          continue; // overflow or a pole: no float answer to measure against
        stats.add(ulp_error(hy[i], truth), hx[i]);
        if (wrong.empty() && k == 0 && ulp_error(hy[i], truth) > library_ulp_bound(c.id) + 0.5)
          wrong = std::string(function_name(c.id, false)) + " at x = " + std::to_string(hx[i]) +
                  ": " + fixed(ulp_error(hy[i], truth), 2) + " ULP, above the guide's bound";
        if (k == 1 && intrinsic_outside.empty() && !within_intrinsic_bound(c.id, hx[i], hy[i]))
          intrinsic_outside = "no: x = " + std::to_string(hx[i]);
      }
      stats.finish();
      row.params[std::string(keys[k]) + "_max"] = stats.max;
      row.params[std::string(keys[k]) + "_mean"] = stats.mean;
      row.params[std::string(keys[k]) + "_worst_x"] = stats.worst_argument;
    }
    row.params["intrinsic_guide"] = intrinsic_outside.empty() ? "yes" : intrinsic_outside;
    ctx.say("  instructions accuracy: " + row.name + " " + c.range);
    row.check = wrong.empty() ? CheckStatus::passed : CheckStatus::wrong;
    row.note = wrong;
    table.rows.push_back(std::move(row));
  }
  table.footnotes = {
      "ULP = |result - exact| / the float spacing at the exact value; exact = the double-precision "
      "function; guide = the library function's documented maximum (division: correctly rounded); "
      "a row is WRONG when a library result passes its documented bound; __func in guide's bound: "
      "whether every intrinsic result kept the accuracy the guide states for it (no: the first "
      "argument that did not)",
      "fast-math: the library call compiled in a file built with -use_fast_math (it becomes the "
      "intrinsic, with -ftz=true: subnormal inputs and results flush to zero)"};
  return table;
}

// ---- FP non-associativity --------------------------------------------------------------------

Table summation_table(const RunContext& ctx, Stream& stream) {
  Table table;
  table.study = "instructions";
  table.title = "floating-point addition is not associative";
  table.case_label = "the deck's example, then 2^24 floats summed in three orders";
  table.speedups = false;
  table.peak.bound = Bound::instruction;
  table.groups = {"sum"};
  table.columns = {
      {"result", "result"}, {"exact", "exact"}, {"error", "error"}, {"error_ulp", "error (ULP)"}};
  auto add_row = [&](std::string name, std::string idea, double result, double exact,
                     std::string wrong) {
    RungInfo info{.role = Role::seed};
    Row row = make_row(info, std::to_string(table.rows.size() + 1), 1);
    row.name = std::move(name);
    row.idea = std::move(idea);
    row.params["result"] = result;
    row.params["exact"] = exact;
    row.params["error"] = result - exact;
    row.params["error_ulp"] = std::fabs(result - exact) / float_ulp(exact);
    row.check = wrong.empty() ? CheckStatus::passed : CheckStatus::wrong;
    row.note = std::move(wrong);
    table.rows.push_back(std::move(row));
  };
  {
    DeviceBuffer<float> v(3), out(2);
    const float host_v[3] = {1e30f, -1e30f, 1.0f};
    float got[2] = {0, 0};
    LADDER_CUDA(cudaMemcpyAsync(v.data(), host_v, sizeof host_v, cudaMemcpyHostToDevice, stream));
    poison(out.data(), 2 * sizeof(float), stream);
    launch_associativity(v.data(), out.data(), stream);
    LADDER_CUDA(cudaMemcpyAsync(got, out.data(), sizeof got, cudaMemcpyDeviceToHost, stream));
    LADDER_CUDA(cudaStreamSynchronize(stream));
    const float left = (host_v[0] + host_v[1]) + host_v[2],
                right = host_v[0] + (host_v[1] + host_v[2]);
    add_row("(x + y) + z", "x = 1e30, y = -1e30, z = 1", got[0], 1.0,
            got[0] == left ? "" : "the GPU gave " + std::to_string(got[0]));
    add_row("x + (y + z)", "y + z rounds back to -1e30", got[1], 1.0,
            got[1] == right ? "" : "the GPU gave " + std::to_string(got[1]));
  }
  const std::int64_t n = ctx.options.small ? (1 << 16) : (1 << 24);
  const std::uint64_t seed = fresh_seed();
  table.params["seed"] = seed;
  table.params["n"] = n;
  const std::vector<float> values = exact_inputs(n, seed);
  const double exact = exact_sum(values);
  DeviceBuffer<float> in(n), scratch(pairwise_scratch(n)), out(1);
  LADDER_CUDA(
      cudaMemcpyAsync(in.data(), values.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  auto device_value = [&](auto&& launch) {
    float v = 0;
    poison(out.data(), sizeof(float), stream);
    launch();
    LADDER_CUDA(cudaMemcpyAsync(&v, out.data(), sizeof v, cudaMemcpyDeviceToHost, stream));
    LADDER_CUDA(cudaStreamSynchronize(stream));
    return v;
  };
  const float seq = device_value([&] { launch_sequential_sum(in.data(), n, out.data(), stream); });
  const float seq_cpu = sequential_sum(values);
  add_row("sequential", "one thread adds in index order (the CPU's loop)", seq, exact,
          seq == seq_cpu ? "" : "differs from the CPU's sequential sum " + std::to_string(seq_cpu));
  const float pair =
      device_value([&] { launch_pairwise_sum(in.data(), n, scratch.data(), out.data(), stream); });
  const float pair_cpu = pairwise_sum(values);
  add_row("pairwise", "adjacent pairs, level by level (log2 n rounding steps deep)", pair, exact,
          pair == pair_cpu ? ""
                           : "differs from the CPU's pairwise sum " + std::to_string(pair_cpu));
  const float tree =
      device_value([&] { ladder::reduce(in.data(), n, ladder::Op::sum, out.data(), stream); });
  // Any summation order is within (n - 1) x 2^-24 x sum of the exact sum (positive terms).
  const double bound = static_cast<double>(n - 1) * std::ldexp(1.0, -24) * exact;
  add_row("tree (ladder::reduce)",
          "the reduction ladder's order: per-thread sums, warp shuffles, "
          "block tree",
          tree, exact,
          std::fabs(tree - exact) <= bound ? "" : "beyond the worst-case bound of any order");
  table.footnotes = {
      "inputs k x 2^-24 with k random in [1, 2^24): each is exact in float and the exact sum is "
      "an integer sum; error (ULP) is in units of the float spacing at the exact sum",
      "the sequential and pairwise GPU sums are bit-identical to the CPU's sums in the same order; "
      "the order, not the processor, decides the result"};
  return table;
}

// ---- Divergence -------------------------------------------------------------------------------

Table divergence_table(const RunContext& ctx, Stream& stream) {
  const DeviceInfo& dev = ctx.device;
  Table table;
  table.study = "instructions";
  table.title = "divergence: two equal-cost paths (FMA chain vs add chain)";
  table.case_label = "256-thread blocks, resident grid";
  table.speedups = false;
  table.peak.bound = Bound::instruction;
  table.groups = {"resident grid"};
  table.columns = {{"divergent_warps", "divergent warps"},
                   {"predicted_slowdown", "predicted"},
                   {"measured_slowdown", "measured"}};
  const int threads = 256;
  const int steps = ctx.options.small ? 64 : 65536;
  const int blocks = ctx.options.small ? 2 : dev.multiprocessors * 8;
  const int total = blocks * threads;
  table.work.ops = static_cast<double>(total) * steps;
  table.work.formula = "threads x " + std::to_string(steps) + " dependent operations";
  table.peak.theoretical = guide_rate("fp32", dev.compute_major, dev.compute_minor).value_or(0) *
                           static_cast<double>(dev.sm_clock_khz) * 1e3 * dev.multiprocessors;
  table.peak.theoretical_from = "FP32 issue at the peak SM clock (the chains are latency-bound: "
                                "the slowdown columns are the point)";
  DeviceBuffer<float> out(total);
  PinnedBuffer<float> host(total);
  const float a = 0.9999f, b = 0.5f;
  struct Case {
    std::string name, idea, course_row;
    Branch branch;
    int granularity;
  };
  std::vector<Case> cases = {
      {"uniform", "every thread takes the FMA path (baseline)", "", Branch::none, 1}};
  for (int g : {1, 2, 4, 8, 16, 32, 64})
    cases.push_back({"granularity " + std::to_string(g),
                     "path by (threadIdx.x / " + std::to_string(g) + ") % 2",
                     g < 32 ? "branch granularity < warp size"
                            : "branch granularity a whole multiple of warp size",
                     Branch::granularity, g});
  cases.push_back({"threadIdx.x > 2", "the deck's divergent example", "example with divergence",
                   Branch::deck_thread, 1});
  cases.push_back({"threadIdx.x / 32 > 2", "the deck's uniform example",
                   "example without divergence", Branch::deck_warp, 1});
  std::optional<double> baseline_ms;
  for (const Case& c : cases) {
    RungInfo info{.role = Role::seed};
    Row row = make_row(info, std::to_string(table.rows.size() + 1), 1);
    row.name = c.name;
    row.idea = c.idea;
    const auto count =
        branch_divergence(threads, [&](int t) { return takes_path_a(c.branch, c.granularity, t); });
    row.params["divergent_warps"] =
        fixed(static_cast<double>(count.divergent), 0) + "/" + std::to_string(count.total);
    row.params["predicted_slowdown"] = predicted_slowdown(count);
    const auto check = [&](cudaStream_t s) {
      return check_output(
          out.data(), static_cast<std::size_t>(total), host,
          [&](cudaStream_t l) {
            launch_divergence(c.branch, c.granularity, out.data(), blocks, threads, steps, a, b, l);
          },
          [&](std::span<const float> got) -> std::string {
            // A thread's value depends only on (threadIdx.x mod 64, its path): 128 chains to
            // replay.
            std::map<std::pair<int, bool>, float> replayed;
            for (int t = 0; t < total; ++t) {
              const int tib = t % threads;
              const bool pa = takes_path_a(c.branch, c.granularity, tib);
              auto [slot, fresh] = replayed.try_emplace({tib % 64, pa}, 0.0f);
              if (fresh) {
                float v = 1.0f + static_cast<float>(tib % 64) * (1.0f / 128.0f);
                for (int i = 0; i < steps; ++i)
                  v = pa ? std::fmaf(v, a, b) : v + b;
                slot->second = v;
              }
              const float v = slot->second;
              if (got[t] != v)
                return "thread " + std::to_string(t) + ": got " + std::to_string(got[t]) +
                       ", expected " + std::to_string(v);
            }
            return "";
          },
          s, c.name);
    };
    measure_rung(ctx, "instructions divergence", row, nullptr, check,
                 {{0,
                   [&](cudaStream_t s) {
                     launch_divergence(c.branch, c.granularity, out.data(), blocks, threads, steps,
                                       a, b, s);
                   },
                   ctx.options.timing, 1}},
                 stream);
    if (row.check == CheckStatus::passed) {
      if (!baseline_ms)
        baseline_ms = row.timings[0]->median_ms;
      row.params["measured_slowdown"] = row.timings[0]->median_ms / *baseline_ms;
    }
    table.rows.push_back(std::move(row));
  }
  table.footnotes = {
      "predicted = 1 + the fraction of warps whose threads take both paths (each path alone costs "
      "the same, a divergent warp runs both one after the other); measured = time / the uniform "
      "row's time",
      "the CPU replays every thread's path; the paths use different opcodes so the compiler "
      "cannot merge them into one with selected operands"};
  return table;
}

Table boundary_table(const RunContext& ctx, Stream& stream) {
  Table table;
  table.study = "instructions";
  table.title = "vector add boundary check: if (i < n), 256-thread blocks";
  table.case_label = "the lecture's n = 1000 analysis, counted on the GPU";
  table.speedups = false;
  table.peak.bound = Bound::dram_copy;
  table.groups = {"launch"};
  table.columns = {{"warps", "warps"},
                   {"model_divergent", "divergent (model)"},
                   {"measured_divergent", "divergent (GPU)"},
                   {"time_us", "time (us)"},
                   {"vs_multiple", "x aligned n"}};
  const std::int64_t big = ctx.options.small ? (1 << 16) : (1 << 24);
  const std::vector<std::int64_t> sizes = {1000, 1024, big, big - 24};
  DeviceBuffer<float> a(big), b(big), c(big);
  PinnedBuffer<float> ha(big), hb(big), hc(big);
  const std::uint64_t seed = fresh_seed();
  fill_random<float>(a.data(), big, seed, -1, 1, stream);
  fill_random<float>(b.data(), big, seed + 1, -1, 1, stream);
  copy_to_host(ha, a.data(), big, stream);
  copy_to_host(hb, b.data(), big, stream);
  DeviceBuffer<unsigned long long> counts(2);
  std::map<std::int64_t, double> times;
  for (std::int64_t n : sizes) {
    RungInfo info{.role = Role::seed};
    Row row = make_row(info, std::to_string(table.rows.size() + 1), 1);
    row.name = "n = " + std::to_string(n);
    const auto model = models::boundary_check_divergence(n, 256);
    row.params["warps"] = model.total;
    row.params["model_divergent"] = model.divergent;
    LADDER_CUDA(cudaMemsetAsync(counts.data(), 0, 2 * sizeof(unsigned long long), stream));
    launch_count_divergent_warps(n, 256, counts.data(), stream);
    unsigned long long hcounts[2] = {0, 0};
    LADDER_CUDA(
        cudaMemcpyAsync(hcounts, counts.data(), sizeof hcounts, cudaMemcpyDeviceToHost, stream));
    LADDER_CUDA(cudaStreamSynchronize(stream));
    row.params["measured_divergent"] = static_cast<std::int64_t>(hcounts[1]);
    const std::string wrong = check_output(
        c.data(), static_cast<std::size_t>(n), hc,
        [&](cudaStream_t l) { launch_vector_add(a.data(), b.data(), c.data(), n, 256, l); },
        [&](std::span<const float> got) -> std::string {
          for (std::int64_t i = 0; i < n; ++i)
            if (got[i] != ha[i] + hb[i])
              return "element " + std::to_string(i) + " differs";
          return "";
        },
        stream, row.name);
    if (!wrong.empty() || hcounts[0] != static_cast<unsigned long long>(model.total) ||
        hcounts[1] != static_cast<unsigned long long>(model.divergent)) {
      row.check = CheckStatus::wrong;
      row.note = wrong.empty() ? "the GPU counted " + std::to_string(hcounts[1]) +
                                     " divergent of " + std::to_string(hcounts[0]) + " warps"
                               : wrong;
    } else {
      row.check = CheckStatus::passed;
      const Measurement m = time_launches(
          [&](cudaStream_t s) { launch_vector_add(a.data(), b.data(), c.data(), n, 256, s); },
          stream, ctx.options.timing);
      times[n] = m.median_ms;
      row.params["time_us"] = m.median_ms * 1e3;
    }
    table.rows.push_back(std::move(row));
  }
  for (Row& row : table.rows) {
    const std::int64_t n = std::stoll(row.name.substr(4));
    const std::int64_t aligned = (n + 255) / 256 * 256;
    if (times.count(n) && times.count(aligned) && n != aligned)
      row.params["vs_multiple"] = times[n] / times[aligned];
  }
  table.footnotes = {
      "divergent (model) = ladder model divergence's count for the boundary check; divergent (GPU) "
      "= warps whose __ballot_sync(i < n) is neither empty nor full, counted by a kernel",
      "the lecture: 1 of 32 warps diverges at n = 1000, 'likely less than 3%'; the divergent warp "
      "has no else path, so it costs one partly-masked pass, not two; x aligned n = time / the "
      "time at the next multiple of 256 (n = 1000 is launch-bound: both take a few microseconds)"};
  return table;
}

// ---- Launch configuration ------------------------------------------------------------------

struct LaunchPoint {
  std::string name;
  int threads = 256;
  int dynamic_shared = 0;
  int extra_registers = -1; // >= 0: the register-padded copy
  int grid_blocks = 0;      // > 0: the grid-stride copy with this many blocks
};

Table launch_table(const RunContext& ctx, Stream& stream, const std::string& title,
                   const std::string& case_label, const std::vector<LaunchPoint>& points,
                   const LatencyFigures& lat) {
  const DeviceInfo& dev = ctx.device;
  Table table;
  table.study = "instructions";
  table.title = title;
  table.case_label = case_label;
  table.speedups = false;
  const std::int64_t n = ctx.options.small ? (1 << 20) : (std::int64_t{1} << 26);
  table.work.bytes_read = table.work.bytes_written = static_cast<double>(n) * 4;
  table.work.formula = "2 x n x 4 B, n = " + std::to_string(n);
  table.peak = ctx.peak(Bound::dram_copy);
  table.groups = {"copy"};
  table.columns = {{"registers", "regs"},          {"shared_bytes", "smem B"},
                   {"blocks_per_sm", "blocks/SM"}, {"warps_per_sm", "warps/SM"},
                   {"occupancy", "occupancy %"},   {"model_occupancy", "model %"}};
  DeviceBuffer<float> in(n), out(n);
  PinnedBuffer<float> host_in(n), host_out(n);
  DeviceBuffer<unsigned> sink(1);
  const std::uint64_t seed = fresh_seed();
  fill_random<float>(in.data(), n, seed, -1, 1, stream);
  copy_to_host(host_in, in.data(), n, stream);
  const auto arch = models::architecture_from_device(models::device_properties(dev));
  for (const LaunchPoint& p : points) {
    RungInfo info{.role = Role::seed};
    Row row = make_row(info, std::to_string(table.rows.size() + 1), 1);
    row.name = p.name;
    const void* kernel =
        p.extra_registers >= 0 ? copy_registers_kernel(p.extra_registers) : copy_kernel();
    if (p.dynamic_shared > 48 * 1024)
      LADDER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       p.dynamic_shared));
    const int regs = registers_of(kernel);
    const int blocks_per_sm = resident_blocks(kernel, p.threads, p.dynamic_shared);
    const int resident_warps = blocks_per_sm * p.threads / 32;
    const int warps_per_sm =
        p.grid_blocks > 0 ? std::min(resident_warps, (p.grid_blocks + dev.multiprocessors - 1) /
                                                         dev.multiprocessors * p.threads / 32)
                          : resident_warps;
    row.params["threads"] = p.threads;
    row.params["registers"] = regs;
    row.params["shared_bytes"] = p.dynamic_shared;
    row.params["blocks_per_sm"] =
        p.grid_blocks > 0 ? std::min(blocks_per_sm, (p.grid_blocks + dev.multiprocessors - 1) /
                                                        dev.multiprocessors)
                          : blocks_per_sm;
    row.params["warps_per_sm"] = warps_per_sm;
    row.params["occupancy"] = 100.0 * warps_per_sm * 32 / dev.max_threads_per_multiprocessor;
    if (p.grid_blocks > 0)
      row.params["grid_blocks"] = p.grid_blocks;
    try {
      const auto model = models::occupancy(arch, {.threads_per_block = p.threads,
                                                  .registers_per_thread = regs,
                                                  .shared_memory_per_block = p.dynamic_shared});
      row.params["model_occupancy"] = 100.0 * model.occupancy;
    } catch (const std::invalid_argument&) {
    }
    const auto launch = [&, p](cudaStream_t s) {
      if (p.grid_blocks > 0)
        launch_copy_grid_stride(in.data(), out.data(), n, p.grid_blocks, p.threads, s);
      else if (p.extra_registers >= 0)
        launch_copy_registers(p.extra_registers, in.data(), out.data(), n, p.threads, sink.data(),
                              s);
      else
        launch_copy(in.data(), out.data(), n, p.threads, p.dynamic_shared, s);
    };
    const auto check = [&](cudaStream_t s) {
      return check_output(
          out.data(), static_cast<std::size_t>(n), host_out, launch,
          [&](std::span<const float> got) -> std::string {
            for (std::int64_t i = 0; i < n; ++i)
              if (std::memcmp(&got[i], &host_in[i], 4) != 0)
                return "element " + std::to_string(i) + " differs";
            return "";
          },
          s, p.name);
    };
    measure_rung(ctx, "instructions launch", row, nullptr, check,
                 {{0, launch, ctx.options.timing, 1}}, stream);
    table.rows.push_back(std::move(row));
  }
  if (lat.dram > 0) {
    const double latency_s = lat.dram / (static_cast<double>(dev.sm_clock_khz) * 1e3);
    const double warps =
        warps_for_bandwidth(table.peak.reference() / 2, dev.multiprocessors, latency_s, 128.0);
    table.params["predicted_warps_per_sm"] = warps;
    table.footnotes.push_back("Little's law: the copy reads " +
                              fixed(table.peak.reference() / 2e9, 0) + " GB/s at peak; with a " +
                              fixed(lat.dram, 0) + "-cycle DRAM latency an SM needs " +
                              fixed(warps, 0) +
                              " warps each with one 128-byte load in flight (the copy has one per "
                              "thread) to reach it");
  }
  table.footnotes.push_back("occupancy % = resident warps / the SM's maximum, from "
                            "cudaOccupancyMaxActiveBlocksPerMultiprocessor; model % = ladder "
                            "model occupancy for the same threads, registers and shared memory");
  return table;
}

std::vector<Table> launch_tables(const RunContext& ctx, Stream& stream, const LatencyFigures& lat) {
  const DeviceInfo& dev = ctx.device;
  std::vector<Table> tables;
  std::vector<LaunchPoint> block_points;
  for (int t : ctx.options.small ? std::vector<int>{32, 256}
                                 : std::vector<int>{32, 64, 96, 128, 192, 256, 384, 512, 768, 1024})
    block_points.push_back({.name = std::to_string(t) + " threads", .threads = t});
  tables.push_back(launch_table(ctx, stream, "launch configuration: varying block size",
                                "copy, one float per thread, as many blocks as fit", block_points,
                                lat));
  std::vector<LaunchPoint> reg_points;
  for (int e : extra_register_counts)
    if (!ctx.options.small || e == 0 || e == 128)
      reg_points.push_back({.name = "+" + std::to_string(e) + " registers", .extra_registers = e});
  tables.push_back(launch_table(ctx, stream, "launch configuration: varying register count",
                                "the same copy with values pinned in registers, 256 threads",
                                reg_points, lat));
  std::vector<LaunchPoint> smem_points;
  const int optin = static_cast<int>(dev.shared_memory_per_block_optin);
  for (int kb : ctx.options.small ? std::vector<int>{0, 48}
                                  : std::vector<int>{0, 8, 16, 24, 32, 48, 64, 96, 128, 160})
    if (kb * 1024 <= optin)
      smem_points.push_back(
          {.name = std::to_string(kb) + " KiB shared", .dynamic_shared = kb * 1024});
  smem_points.push_back(
      {.name = std::to_string(optin / 1024) + " KiB shared (max)", .dynamic_shared = optin});
  tables.push_back(launch_table(ctx, stream, "launch configuration: varying shared memory",
                                "the same copy with unused dynamic shared memory, 256 threads",
                                smem_points, lat));
  std::vector<LaunchPoint> grid_points;
  const int sms = dev.multiprocessors;
  for (int blocks : ctx.options.small ? std::vector<int>{1, sms}
                                      : std::vector<int>{1, sms / 2, 100, sms, 2 * sms, 3 * sms,
                                                         1000, 8 * sms, 32 * sms})
    grid_points.push_back({.name = std::to_string(blocks) + " blocks", .grid_blocks = blocks});
  tables.push_back(launch_table(
      ctx, stream, "launch configuration: blocks in the grid",
      "grid-stride copy, 256 threads: the deck's > SMs, > 2 per SM, > 100", grid_points, lat));
  return tables;
}

StudyResults run(const RunContext& ctx) {
  Stream stream;
  StudyResults results;
  LatencyFigures lat;
  results.tables.push_back(throughput_table(ctx, stream));
  results.tables.push_back(latency_table(ctx, stream, lat));
  results.tables.push_back(saturation_table(ctx, lat, stream));
  results.tables.push_back(accuracy_table(ctx, stream));
  results.tables.push_back(summation_table(ctx, stream));
  results.tables.push_back(divergence_table(ctx, stream));
  results.tables.push_back(boundary_table(ctx, stream));
  for (Table& t : launch_tables(ctx, stream, lat))
    results.tables.push_back(std::move(t));
  return results;
}

} // namespace

const Study& study() {
  static const Study s{.name = "instructions",
                       .title = "Instruction throughput, latency, accuracy, divergence and launch "
                                "configuration",
                       .course = "\"Optimizing CUDA\" (NVIDIA), instruction and execution-"
                                 "configuration optimizations; control divergence from \"GPU "
                                 "architecture and programming\", lecture 3 (UCAS)",
                       .rungs = registry_infos<throughput_registry>,
                       .run = run,
                       .check_size = check_size,
                       .size_syntax = "(none: fixed sizes)"};
  return s;
}

} // namespace ladder::lab::instructions
