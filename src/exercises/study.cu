// The exercises study: each exercise its own table. Increment, vector add and reversal are
// memory-bound and measured against a device copy of the same bytes; vector add's boundary check
// is counted on the device at the lecture's n = 1000 beside `ladder model divergence`; the sieve
// counts pi(n) (and writes the primes below 2^32) against the known counts and primesieve.
#include "exercises/reference.hpp"
#include "exercises/sieve_host.hpp"
#include "exercises/variants.hpp"

#include "core/protocol.hpp"
#include "core/sizes.hpp"
#include "core/study.hpp"
#include "ladder/models.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace ladder::lab::exercises {

namespace {

namespace dp = ladder::detail::primes;

void check_size(std::string_view text) { (void)parse_count(text, "--size"); }

std::vector<std::int64_t> stream_sizes(const RunContext& ctx) {
  if (!ctx.options.sizes.empty()) {
    std::vector<std::int64_t> out;
    for (const auto& s : ctx.options.sizes)
      out.push_back(parse_count(s, "--size"));
    return out;
  }
  if (ctx.options.small)
    return {4099};
  return {std::int64_t{1} << 28};
}

std::string fits_label(const RunContext& ctx, double bytes) {
  return bytes < 4.0 * static_cast<double>(ctx.device.l2_bytes)
             ? "fits in L2 or nearly: cache speed, not DRAM"
             : "";
}

Table stream_table(const RunContext& ctx, const std::string& what, std::int64_t n, double bytes_read,
                   double bytes_written, const std::string& formula) {
  Table table;
  table.study = "exercises";
  table.title = what + " " + count_label(n);
  table.case_label = fits_label(ctx, bytes_read + bytes_written);
  table.params = {{"exercise", what}, {"n", n}};
  table.work.elements = static_cast<double>(n);
  table.work.bytes_read = bytes_read;
  table.work.bytes_written = bytes_written;
  table.work.formula = formula;
  table.peak = ctx.peak(Bound::dram_copy);
  table.groups = {"time"};
  return table;
}

// --- increment -----------------------------------------------------------------------------------

Table run_increment(const RunContext& ctx, std::int64_t n, Stream& stream) {
  const auto count = static_cast<std::size_t>(n);
  Table table = stream_table(ctx, "increment", n, 4.0 * n, 4.0 * n, "2 x n x 4 B (in place)");
  DeviceBuffer<float> a(count), copy_to(count);
  const std::uint64_t seed = fresh_seed();
  table.params["seed"] = seed;
  PinnedBuffer<float> before(count), after(count);
  std::vector<float> expected(count);
  for_each_shown_rung(ctx, increment_registry(), table, [&](const IncrementRung& rung, Row& row) {
    const auto check = [&](cudaStream_t st) -> std::string {
      // In place: fresh values, the CPU's a + 1 from them, one launch. An element the rung skips
      // keeps its old value, which a + 1 never equals.
      fill_random<float>(a.data(), n, seed, -1000.0, 1000.0, st);
      copy_to_host(before, a.data(), count, st);
      if (rung.is_copy) {
        return check_output(
            copy_to.data(), count, after, [&](cudaStream_t l) { rung.launch(a.data(), copy_to.data(), n, l); },
            [&](std::span<const float> got) {
              return compare_floats_exact(got, {before.data(), count});
            },
            st, row.name);
      }
      rung.launch(a.data(), nullptr, n, st);
      check_launch(row.name.c_str());
      copy_to_host(after, a.data(), count, st);
      cpu_increment({before.data(), count}, expected);
      return compare_floats_exact({after.data(), count}, expected);
    };
    measure_rung(ctx, table.title, row, rung.unsupported(n), check,
                 {{0, [&](cudaStream_t st) { rung.launch(a.data(), copy_to.data(), n, st); },
                   ctx.options.timing}},
                 stream);
  });
  return table;
}

// --- vector add ----------------------------------------------------------------------------------

Table run_add(const RunContext& ctx, std::int64_t n, Stream& stream, bool lecture_case) {
  const auto count = static_cast<std::size_t>(n);
  Table table = stream_table(ctx, "vector add", n, 8.0 * n, 4.0 * n, "3 x n x 4 B");
  DeviceBuffer<float> ab(2 * count), c(count + count / 2);
  const float* a = ab.data();
  const float* b = ab.data() + count;
  const std::uint64_t seed = fresh_seed();
  table.params["seed"] = seed;
  fill_random<float>(ab.data(), 2 * n, seed, -1000.0, 1000.0, stream);
  PinnedBuffer<float> host_ab(2 * count), got(count + count / 2);
  copy_to_host(host_ab, ab.data(), 2 * count, stream);
  std::vector<float> expected(count);
  cpu_add({host_ab.data(), count}, {host_ab.data() + count, count}, expected);

  if (lecture_case) {
    // The lecture's analysis: ceil(n / 256) blocks of 256; only the warp holding i = n - 1 .. sees
    // both sides of `if (i < n)`. Counted on the device, beside the model.
    const auto probe = probe_add_divergence(a, b, c.data(), n, slides_add_threads, stream);
    const auto model = ladder::models::boundary_check_divergence(n, slides_add_threads);
    table.case_label = "the lecture's example: control divergence of the boundary check";
    table.params["block_threads"] = slides_add_threads;
    table.params["warps_measured"] = probe.warps;
    table.params["divergent_warps_measured"] = probe.divergent;
    table.params["warps_model"] = model.total;
    table.params["divergent_warps_model"] = model.divergent;
    table.footnotes.push_back(
        "divergence: the warps that ballot both sides of if (i < n) are counted on the device "
        "(params: divergent_warps_measured of warps_measured) beside `ladder model divergence` "
        "(divergent_warps_model of warps_model)");
  }

  for_each_shown_rung(ctx, add_registry(), table, [&](const AddRung& rung, Row& row) {
    const auto check = [&](cudaStream_t st) {
      if (rung.is_copy) {
        const std::size_t moved = count + count / 2;
        return check_output(
            c.data(), moved, got, [&](cudaStream_t l) { rung.launch(a, b, c.data(), n, l); },
            [&](std::span<const float> out) {
              return compare_floats_exact(out, {host_ab.data(), moved});
            },
            st, row.name);
      }
      return check_output(
          c.data(), count, got, [&](cudaStream_t l) { rung.launch(a, b, c.data(), n, l); },
          [&](std::span<const float> out) { return compare_floats_exact(out, expected); }, st,
          row.name);
    };
    measure_rung(ctx, table.title, row, rung.unsupported(n), check,
                 {{0, [&](cudaStream_t st) { rung.launch(a, b, c.data(), n, st); },
                   ctx.options.timing}},
                 stream);
  });
  return table;
}

// --- reversal ------------------------------------------------------------------------------------

Table run_reverse(const RunContext& ctx, std::int64_t n, Stream& stream) {
  const auto count = static_cast<std::size_t>(n);
  Table table = stream_table(ctx, "reverse", n, 4.0 * n, 4.0 * n, "2 x n x 4 B");
  table.params["type"] = "int32";
  if (n % 256 != 0)
    table.case_label = "awkward n (n mod 256 = " + std::to_string(n % 256) +
                       "): the slides' launch of n / 256 blocks drops the tail";
  DeviceBuffer<std::int32_t> in(count), out(count);
  const std::uint64_t seed = fresh_seed();
  table.params["seed"] = seed;
  fill_random<std::int32_t>(in.data(), n, seed, -1e9, 1e9, stream);
  PinnedBuffer<std::int32_t> host_in(count), got(count);
  copy_to_host(host_in, in.data(), count, stream);
  std::vector<std::int32_t> reversed(count);
  cpu_reverse({host_in.data(), count}, reversed);
  for_each_shown_rung(ctx, reverse_registry(), table, [&](const ReverseRung& rung, Row& row) {
    const auto check = [&](cudaStream_t st) {
      return check_output(
          out.data(), count, got, [&](cudaStream_t l) { rung.launch(in.data(), out.data(), n, l); },
          [&](std::span<const std::int32_t> o) {
            return rung.is_copy ? compare_ints_exact(o, {host_in.data(), count})
                                : compare_ints_exact(o, reversed);
          },
          st, row.name);
    };
    measure_rung(ctx, table.title, row, rung.unsupported(n), check,
                 {{0, [&](cudaStream_t st) { rung.launch(in.data(), out.data(), n, st); },
                   ctx.options.timing}},
                 stream);
    // The slides' launch (n / 256 blocks) on an n it does not handle is the exercise's point.
    if (rung.drops_tail_of_awkward_n && n % 256 != 0 && row.check == CheckStatus::wrong) {
      row.check = CheckStatus::wrong_as_taught;
      row.note += " (the slides' launch of n / 256 blocks misses the last n mod 256 elements)";
    }
  });
  return table;
}

// --- sieve ---------------------------------------------------------------------------------------

struct SieveCase {
  std::uint64_t n = 0;
  std::string label;
  bool headline = false;
  bool write_primes = false; // the primes table: write_primes and generate_primes only
};

std::vector<SieveCase> sieve_cases(const RunContext& ctx) {
  if (!ctx.options.sizes.empty()) {
    std::vector<SieveCase> out;
    for (const auto& s : ctx.options.sizes)
      out.push_back({static_cast<std::uint64_t>(parse_count(s, "--size")), ""});
    return out;
  }
  if (ctx.options.small)
    return {{10000, "small"}, {1000003, "small", true}, {1000003, "small", false, true}};
  std::vector<SieveCase> out = {
      {1000000, "the slides' single block holds at most 1024 threads: n < 1024^2"},
      {100000000, "10^8: the int-per-number kernels still fit"},
      {10000000000ull, "pi(10^10)", true},
      {100000000000ull, "pi(10^11)"},
      {(1ull << 32) - 1, "the primes below 2^32 written to device memory as uint32", false, true}};
  return out;
}

std::string sieve_label(std::uint64_t n) {
  for (int k = 2; k <= 19; ++k)
    if (static_cast<double>(n) == std::pow(10.0, k))
      return "10^" + std::to_string(k);
  if (n == (1ull << 32) - 1)
    return "2^32 - 1";
  return count_label(static_cast<std::int64_t>(n));
}

SievePlan make_plan(std::uint64_t n, DeviceBuffer<std::uint32_t>& table, cudaStream_t stream) {
  SievePlan plan;
  plan.n = n;
  plan.host_primes = dp::odd_primes_up_to(dp::isqrt(n));
  auto words = dp::build_pattern_table();
  plan.prime_word = words.size();
  words.insert(words.end(), plan.host_primes.begin(), plan.host_primes.end());
  table = DeviceBuffer<std::uint32_t>(words.size());
  LADDER_CUDA(cudaMemcpyAsync(table.data(), words.data(), words.size() * 4,
                              cudaMemcpyHostToDevice, stream));
  LADDER_CUDA(cudaStreamSynchronize(stream));
  plan.table = table.data();
  plan.first_pattern_free = static_cast<std::uint32_t>(
      std::upper_bound(plan.host_primes.begin(), plan.host_primes.end(), dp::pattern_primes.back()) -
      plan.host_primes.begin());
  return plan;
}

// pi(n) to check against: the published count, else primesieve, else the plain CPU sieve.
std::optional<std::uint64_t> expected_count(std::uint64_t n) {
  if (auto known = known_prime_count(n))
    return known;
  if (have_primesieve())
    return primesieve_count(n, 0);
  if (n <= (1ull << 32))
    return cpu_count_primes(n);
  return std::nullopt;
}

Table run_sieve(const RunContext& ctx, const SieveCase& c, Stream& stream) {
  const std::uint64_t n = c.n;
  Table table;
  table.study = "exercises";
  table.title = (c.write_primes ? "primes <= " : "pi(n), n = ") + sieve_label(n);
  table.case_label = c.label;
  table.headline = c.headline;
  table.params = {{"exercise", "sieve"}, {"n", n}, {"output", c.write_primes ? "primes" : "count"}};
  table.work.elements = static_cast<double>(n);
  table.work.ops = static_cast<double>(n);
  table.work.formula = "n numbers sieved per second";
  table.peak.bound = Bound::instruction;
  table.peak.theoretical_from = "no single peak bounds a sieve: compare the rows";
  table.groups = {"time"};
  if (have_primesieve())
    table.params["primesieve"] = primesieve_version();
  table.params["host_threads"] = host_threads();

  // Long cases: fewer samples (each run of pi(10^11) is a tenth of a second on the GPU and
  // seconds on the host).
  TimingOptions timing = ctx.options.timing;
  if (n >= 10000000000ull) {
    timing.warmups = 1;
    timing.min_samples = std::min(timing.min_samples, n >= 100000000000ull ? 3 : 10);
    timing.max_samples = std::min(timing.max_samples, 20);
    timing.budget_ms = std::min(timing.budget_ms, 400.0);
  }

  DeviceBuffer<std::uint32_t> device_table;
  const SievePlan plan = make_plan(n, device_table, stream);
  const std::optional<std::uint64_t> pi = expected_count(n);
  if (pi)
    table.params["pi"] = *pi;
  DeviceBuffer<unsigned long long> count(1), scratch(sieve_scratch_words(n));
  PinnedBuffer<unsigned long long> host_count(1);
  std::optional<DeviceBuffer<std::int32_t>> flags;
  std::optional<PinnedBuffer<std::int32_t>> host_flags;
  std::vector<std::uint8_t> composite;
  std::optional<DeviceBuffer<std::uint32_t>> primes;
  std::optional<PinnedBuffer<std::uint32_t>> host_primes;
  std::vector<std::uint32_t> expected_primes;
  const std::uint64_t capacity = c.write_primes ? dp::prime_count_upper_bound(n) : 0;

  for_each_shown_rung(ctx, sieve_registry(), table, [&](const SieveRung& rung, Row& row) {
    const bool primes_table_row = rung.output == SieveOutput::primes;
    if (c.write_primes != primes_table_row && rung.output != SieveOutput::host) {
      row.check = CheckStatus::skipped;
      row.note = c.write_primes ? "counts only (this table writes the primes)"
                                : "writes the primes (see the primes table)";
      return;
    }
    if (rung.output == SieveOutput::host) {
      if (!have_primesieve()) {
        row.check = CheckStatus::skipped;
        row.note = primesieve_absent_reason();
        return;
      }
      if (rung.host_threads == 1 && n > 1000000000ull && !ctx.options.all) {
        row.check = CheckStatus::skipped;
        row.note = "one core takes seconds per run past 10^9 (--all runs it)";
        return;
      }
      ctx.say("  " + table.title + ": " + row.name);
      const std::uint64_t got = primesieve_count(n, rung.host_threads);
      if (pi && got != *pi) {
        row.check = CheckStatus::wrong;
        row.note = "got " + std::to_string(got) + ", expected " + std::to_string(*pi);
        return;
      }
      row.check = CheckStatus::passed;
      row.params["threads"] = rung.host_threads == 0 ? host_threads() : rung.host_threads;
      row.timings.at(0) = time_on_host([&] { (void)primesieve_count(n, rung.host_threads); });
      return;
    }
    const char* unsupported = rung.unsupported(n);
    void* out = nullptr;
    std::function<std::string(cudaStream_t)> check;
    if (!unsupported && rung.output == SieveOutput::flags) {
      if (!flags) {
        flags.emplace(n + 1);
        host_flags.emplace(n + 1);
        composite = cpu_composite(n);
      }
      out = flags->data();
      check = [&](cudaStream_t st) {
        return check_output(
            flags->data(), n + 1, *host_flags,
            [&](cudaStream_t l) { rung.launch(plan, flags->data(), 0, scratch.data(), l); },
            [&](std::span<const std::int32_t> got) { return compare_flags(got, composite); }, st,
            row.name);
      };
    } else if (!unsupported && rung.output == SieveOutput::count) {
      out = count.data();
      if (!pi)
        unsupported = "no reference count for this n (primesieve absent, n > 2^32)";
      check = [&](cudaStream_t st) {
        return check_output(
            count.data(), 1, host_count,
            [&](cudaStream_t l) { rung.launch(plan, count.data(), 0, scratch.data(), l); },
            [&](std::span<const unsigned long long> got) -> std::string {
              if (got[0] == *pi)
                return "";
              return "pi = " + std::to_string(got[0]) + ", expected " + std::to_string(*pi);
            },
            st, row.name);
      };
    } else if (!unsupported && rung.output == SieveOutput::primes) {
      if (!primes) {
        primes.emplace(capacity);
        host_primes.emplace(capacity);
        ctx.say("  " + table.title + ": the CPU's list of primes");
        if (have_primesieve()) {
          expected_primes = primesieve_primes(n);
        } else {
          expected_primes = dp::odd_primes_up_to(n);
          expected_primes.insert(expected_primes.begin(), 2u);
        }
      }
      out = primes->data();
      check = [&](cudaStream_t st) {
        return check_output(
            primes->data(), capacity, *host_primes,
            [&](cudaStream_t l) { rung.launch(plan, primes->data(), capacity, scratch.data(), l); },
            [&](std::span<const std::uint32_t> got) -> std::string {
              const std::size_t k = expected_primes.size();
              for (std::size_t i = 0; i < k; ++i)
                if (got[i] != expected_primes[i])
                  return "primes[" + std::to_string(i) + "] = " + std::to_string(got[i]) +
                         ", expected " + std::to_string(expected_primes[i]);
              for (std::size_t i = k; i < got.size(); ++i)
                if (got[i] != 0xffffffffu)
                  return "wrote past pi(n) at " + std::to_string(i);
              return "";
            },
            st, row.name);
      };
    }
    measure_rung(ctx, table.title, row, unsupported, check,
                 {{0, [&](cudaStream_t st) { rung.launch(plan, out, capacity, scratch.data(), st); },
                   timing}},
                 stream);
  });
  if (!c.write_primes && n <= 1000000000ull) {
    // "Why is this inefficient?" in numbers: the slides' kernel has thread k write every multiple
    // of k (composite k too), so its writes and its longest thread's chain, against the writes a
    // sieve by the primes from p^2 needs; and the one SM of the device it runs on.
    const std::uint64_t root = dp::isqrt(n);
    std::uint64_t slides = 0, needed = 0;
    for (std::uint64_t k = 2; k <= root; ++k)
      slides += n / k - 1;
    for (std::uint32_t p : plan.host_primes)
      needed += (n - static_cast<std::uint64_t>(p) * p) / p + 1;
    needed += n / 2 - 1; // the even numbers, crossed off by 2
    table.params["slides_kernel_writes"] = slides;
    table.params["slides_longest_thread_writes"] = n / 2 - 1;
    table.params["prime_sieve_writes"] = needed;
    table.params["slides_sms_used"] = 1;
    table.params["sms"] = ctx.device.multiprocessors;
  }
  if (c.write_primes)
    table.footnotes.push_back(
        "the primes table's bytes: pi(n) x 4 B written (" + std::to_string(pi.value_or(0) * 4) +
        " B); primesieve counts (it does not write) on the host");
  table.footnotes.push_back("the count check: the published pi(n) where known, else primesieve, "
                            "else a plain CPU sieve");
  return table;
}

StudyResults run(const RunContext& ctx) {
  Stream stream;
  StudyResults results;
  for (std::int64_t n : stream_sizes(ctx))
    results.tables.push_back(run_increment(ctx, n, stream));
  for (std::int64_t n : stream_sizes(ctx))
    results.tables.push_back(run_add(ctx, n, stream, false));
  results.tables.push_back(run_add(ctx, 1000, stream, true));
  for (std::int64_t n : stream_sizes(ctx))
    results.tables.push_back(run_reverse(ctx, n, stream));
  if (ctx.options.sizes.empty())
    results.tables.push_back(
        run_reverse(ctx, ctx.options.small ? 1000 : (std::int64_t{1} << 28) - 57, stream));
  for (const SieveCase& c : sieve_cases(ctx))
    results.tables.push_back(run_sieve(ctx, c, stream));
  return results;
}

std::string notes() {
  const auto model = ladder::models::boundary_check_divergence(1000, slides_add_threads);
  return "vector add, n = 1000, 256 threads: the model counts " + std::to_string(model.divergent) +
         " divergent warp of " + std::to_string(model.total) +
         "; `ladder run exercises` counts them on the device.";
}

} // namespace

const Study& study() {
  static const Study s{
      .name = "exercises",
      .title = "The course's exercises: increment, vector add, array reversal, the sieve of "
               "Eratosthenes",
      .course = "\"Optimizing CUDA code\" (Moreno Maza, UWO CS4402), Exercises 1-3; \"GPU "
                "architecture and programming\", lecture 3 (UCAS), vector add",
      .rungs =
          [] {
            std::vector<RungInfo> all;
            for (auto r : infos_of(increment_registry()))
              all.push_back(r);
            for (auto r : infos_of(add_registry()))
              all.push_back(r);
            for (auto r : infos_of(reverse_registry()))
              all.push_back(r);
            for (auto r : infos_of(sieve_registry()))
              all.push_back(r);
            return all;
          },
      .run = run,
      .check_size = check_size,
      .size_syntax = "N or 2^K (the element count of increment, add and reverse, and the sieve's n)",
      .notes = notes};
  return s;
}

} // namespace ladder::lab::exercises
