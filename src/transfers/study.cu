// The transfers study: every way of moving bytes between host and device that the deck shows
// (pageable, pinned, registered, write-combined, mapped zero-copy, both directions at once, the
// N-stream overlap pipeline), the library call that brings pageable memory to pinned speed, and
// the host-side costs that bound it (the host's own memcpy bandwidth, registration, first touch).
//
// Clocks: the library call returns only when its copy is done (cudaMemcpy's semantics), so every
// copy row is timed with the host clock around the call and a stream synchronize, the same way for
// the CUDA rows beside it; the pinned pipeline is timed with CUDA events (fork / join on one
// stream). Pageable buffers are warmed (written once) before timing: a fresh buffer's first touch
// includes the page faults, which the host-side table prices separately.
#include "transfers/host_topology.hpp"
#include "transfers/reference.hpp"
#include "transfers/variants.hpp"

#include "core/protocol.hpp"
#include "core/sizes.hpp"
#include "core/study.hpp"
#include "ladder/transfer.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <thread>

namespace ladder::lab::transfers {

namespace {

using ladder::transfers::describe;
using ladder::transfers::HostTopology;
using ladder::transfers::Path;
using ladder::transfers::read_host_topology;

constexpr std::size_t KiB = 1024, MiB = 1024 * 1024, GiB = 1024 * MiB;

void check_size(std::string_view text) { (void)parse_count(text, "--size", std::int64_t{1} << 36); }

std::string bytes_label(std::size_t bytes) {
  if (bytes >= GiB && bytes % GiB == 0)
    return std::to_string(bytes / GiB) + " GiB";
  if (bytes >= MiB && bytes % MiB == 0)
    return std::to_string(bytes / MiB) + " MiB";
  if (bytes >= KiB && bytes % KiB == 0)
    return std::to_string(bytes / KiB) + " KiB";
  return std::to_string(bytes) + " B";
}

// --- host memory of each kind ------------------------------------------------------------------

enum class Kind { pageable, pinned, registered, write_combined, mapped };

// Owns `bytes` of host memory of one kind; `device_view` is the device's address of mapped memory.
class HostBuffer {
public:
  HostBuffer(Kind kind, std::size_t bytes) : kind_(kind), bytes_(bytes) {
    void* p = nullptr;
    switch (kind) {
    case Kind::pageable:
    case Kind::registered:
      pageable_.reset(new std::byte[bytes]);
      data_ = pageable_.get();
      std::memset(data_, 0x11, bytes); // first touch here, not in a timed run
      if (kind == Kind::registered) {
        LADDER_CUDA(cudaHostRegister(data_, bytes, cudaHostRegisterDefault));
        registered_ = true;
      }
      break;
    case Kind::pinned:
      LADDER_CUDA(cudaMallocHost(&p, bytes));
      break;
    case Kind::write_combined:
      LADDER_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocWriteCombined));
      break;
    case Kind::mapped:
      LADDER_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocMapped));
      break;
    }
    if (p) {
      cuda_owned_ = true;
      data_ = static_cast<std::byte*>(p);
    }
    if (kind == Kind::mapped)
      LADDER_CUDA(cudaHostGetDevicePointer(&device_view_, data_, 0));
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer() {
    if (registered_)
      cudaHostUnregister(data_);
    if (cuda_owned_)
      cudaFreeHost(data_);
  }
  std::byte* data() const { return data_; }
  void* device_view() const { return device_view_; }
  Kind kind() const { return kind_; }

private:
  Kind kind_;
  std::size_t bytes_;
  std::unique_ptr<std::byte[]> pageable_;
  std::byte* data_ = nullptr;
  void* device_view_ = nullptr;
  bool registered_ = false, cuda_owned_ = false;
};

Kind kind_of(Method m) {
  switch (m) {
  case Method::pinned:
  case Method::bidirectional:
  case Method::pipeline:
    return Kind::pinned;
  case Method::registered:
    return Kind::registered;
  case Method::write_combined:
    return Kind::write_combined;
  case Method::mapped:
    return Kind::mapped;
  default:
    return Kind::pageable;
  }
}

// `body` and then a synchronize of `stream`: what the host clock times, so that a run ends when
// the body's copies are done.
std::function<void()> until_done(std::function<void()> body, cudaStream_t stream) {
  return [body = std::move(body), stream] {
    body();
    LADDER_CUDA(cudaStreamSynchronize(stream));
  };
}

// Host clock around `body` until its copies are done: the median of repeated runs after one
// warm-up run.
Measurement time_host(const std::function<void()>& body, cudaStream_t stream) {
  return time_on_host(until_done(body, stream));
}

// The protocol's check, then host-clock timing for a passed row.
void measure_on_host(const RunContext& ctx, const std::string& what, Row& row,
                     const std::function<std::string(cudaStream_t)>& check,
                     const std::function<void()>& body, cudaStream_t stream) {
  measure_rung(ctx, what, row, nullptr, check, {}, stream);
  if (row.check == CheckStatus::passed)
    row.timings.at(0) = time_host(body, stream);
}

std::vector<std::string> labels() { return rung_labels(infos_of(registry())); }

const Rung& rung_of(Method m) {
  for (const Rung& r : registry())
    if (r.method == m && r.info.role != Role::variant)
      return r;
  throw std::logic_error("transfers: no rung for a method");
}

std::string label_of(const Rung& rung) {
  const auto all = labels();
  return all[static_cast<std::size_t>(&rung - registry().data())];
}

// The data every copy is checked against: fresh random bytes on the device and their pinned copy.
struct Reference {
  DeviceBuffer<std::uint32_t> device;
  PinnedBuffer<std::byte> host;
  std::uint64_t seed = 0;
  Reference(std::size_t bytes, cudaStream_t stream)
      : device((bytes + 3) / 4), host(bytes), seed(fresh_seed()) {
    fill_random<std::uint32_t>(device.data(), static_cast<std::int64_t>(device.size()), seed, 1,
                               0xFFFFFFF0u, stream);
    if (bytes)
      LADDER_CUDA(
          cudaMemcpyAsync(host.data(), device.data(), bytes, cudaMemcpyDeviceToHost, stream));
    LADDER_CUDA(cudaStreamSynchronize(stream));
  }
};

// --- one direction's table: every way to move `bytes` ------------------------------------------

Table copy_table(const RunContext& ctx, Direction dir, std::size_t bytes, bool headline,
                 Stream& stream) {
  const bool to_device = dir == Direction::to_device;
  Table table;
  table.study = "transfers";
  table.title = std::string(to_device ? "host to device " : "device to host ") + bytes_label(bytes);
  table.headline = headline;
  table.params = {{"bytes", bytes}, {"direction", to_device ? "to device" : "to host"}};
  table.work.bytes_read = static_cast<double>(bytes);
  table.work.formula = "bytes copied, one direction";
  table.peak = ctx.peak(Bound::host_link);
  table.groups = {"host clock, call to copy done"};

  Reference ref(bytes, stream);
  DeviceBuffer<std::byte> device_dst(bytes);
  PinnedBuffer<std::byte> got(bytes);
  table.params["seed"] = ref.seed;
  const std::string what = table.title;
  const auto all_labels = labels();

  std::optional<Measurement> pageable_time, pinned_time;
  for (std::size_t i = 0; i < registry().size(); ++i) {
    const Rung& rung = registry()[i];
    const bool in_table = rung.method == Method::pageable || rung.method == Method::pinned ||
                          rung.method == Method::registered ||
                          rung.method == Method::write_combined || rung.method == Method::mapped ||
                          rung.method == Method::library;
    if (!in_table || !ctx.shows(rung.info))
      continue;
    Row row = make_row(rung.info, all_labels[i], table.groups.size());
    // The library's own row takes the call's name for this direction; its staging variants
    // keep theirs (their shapes are in their params).
    if (rung.info.role == Role::library)
      row.name = to_device ? "ladder::copy_to_device" : "ladder::copy_to_host";
    HostBuffer host(kind_of(rung.method), bytes);
    const cudaMemcpyKind kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    void* device_side =
        to_device ? static_cast<void*>(device_dst.data()) : static_cast<void*>(ref.device.data());
    if (to_device)
      std::memcpy(host.data(), ref.host.data(), bytes); // the source, in the rung's memory
    const auto op = [&, device_side] {
      void* dst = to_device ? device_side : static_cast<void*>(host.data());
      const void* src = to_device ? static_cast<const void*>(host.data()) : device_side;
      switch (rung.method) {
      case Method::mapped:
        launch_sm_copy(to_device ? device_side : host.device_view(),
                       to_device ? host.device_view() : device_side, bytes, stream);
        break;
      case Method::library:
        if (to_device)
          ladder::transfers::copy_to_device_with(dst, src, bytes, stream, rung.staging);
        else
          ladder::transfers::copy_to_host_with(dst, src, bytes, stream, rung.staging);
        break;
      default: // the deck's cudaMemcpy, on the legacy default stream
        LADDER_CUDA(cudaMemcpy(dst, src, bytes, kind));
        // From pageable memory to the device it returns once the bytes are staged, before the
        // last of them land: wait for them, as every other row's time includes its copy's end.
        if (to_device)
          LADDER_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
      }
    };
    const auto check = [&](cudaStream_t s) -> std::string {
      if (to_device) {
        poison(device_dst.data(), bytes, s);
        LADDER_CUDA(cudaStreamSynchronize(s));
        op();
        LADDER_CUDA(cudaStreamSynchronize(s));
        LADDER_CUDA(cudaMemcpy(got.data(), device_dst.data(), bytes, cudaMemcpyDeviceToHost));
      } else {
        std::memset(host.data(), 0xFF, bytes);
        op();
        LADDER_CUDA(cudaStreamSynchronize(s));
        if (host.kind() == Kind::write_combined) { // CPU reads of it crawl: the copy engine's
          LADDER_CUDA(cudaMemcpy(device_dst.data(), host.data(), bytes, cudaMemcpyHostToDevice));
          LADDER_CUDA(cudaMemcpy(got.data(), device_dst.data(), bytes, cudaMemcpyDeviceToHost));
        } else
          std::memcpy(got.data(), host.data(), bytes);
      }
      return compare_bytes({got.data(), bytes}, {ref.host.data(), bytes});
    };
    measure_on_host(ctx, what, row, check, op, stream);
    if (rung.method == Method::pageable)
      pageable_time = row.timings[0];
    if (rung.method == Method::pinned)
      pinned_time = row.timings[0];
    table.rows.push_back(std::move(row));
  }
  // The references every ratio is taken against: the same measurements as rungs 1 and 2.
  const auto reference_row = [&](std::string name, std::string idea, bool vendor,
                                 const std::optional<Measurement>& m) {
    Row r;
    r.label = "ref";
    r.name = std::move(name);
    r.idea = std::move(idea);
    r.role = Role::reference;
    r.vendor = vendor;
    r.timings = {m};
    r.check = m ? CheckStatus::passed : CheckStatus::skipped;
    table.rows.push_back(std::move(r));
  };
  reference_row("cudaMemcpy (pageable)", "rung 1's measurement: what users get by default", true,
                pageable_time);
  reference_row("pinned cudaMemcpy", "rung 2's measurement: the best a copy from host memory does",
                false, pinned_time);
  table.footnotes.push_back(
      "host clock around each call and a stream synchronize; pageable buffers written once "
      "before timing (first-touch page faults are priced in the host-side table)");
  table.footnotes.push_back("cudaHostRegister's own cost is not in its row: see the host-side "
                            "table (register + unregister per GiB)");
  return table;
}

// --- both directions at once ------------------------------------------------------------------

Table bidirectional_table(const RunContext& ctx, std::size_t bytes, Stream& stream) {
  Table table;
  table.study = "transfers";
  table.title = "both directions at once, 2 x " + bytes_label(bytes);
  table.params = {{"bytes_each_way", bytes}};
  table.work.bytes_read = 2.0 * static_cast<double>(bytes);
  table.work.formula = "bytes to the device + bytes to the host";
  table.peak = ctx.peak(Bound::host_link);
  table.groups = {"host clock, both copies done"};
  Reference ref(bytes, stream);
  DeviceBuffer<std::byte> device_dst(bytes);
  PinnedBuffer<std::byte> got(bytes);
  Stream other;
  const std::string what = table.title;

  struct Setup {
    const Rung* rung;
    Kind kind;
    bool concurrent;
  };
  std::vector<Setup> setups = {{&rung_of(Method::bidirectional), Kind::pinned, true},
                               {&rung_of(Method::library), Kind::pageable, true},
                               {nullptr, Kind::pinned, false}};
  for (const Setup& setup : setups) {
    Row row;
    if (setup.rung) {
      row = make_row(setup.rung->info, label_of(*setup.rung), 1);
      if (setup.rung->method == Method::library)
        row.name = "copy_to_device || copy_to_host (pageable, two host threads)";
    } else {
      row.label = "ref";
      row.name = "one after the other (pinned, one stream)";
      row.idea = "cudaMemcpyAsync to the device, then back, on one stream";
      row.role = Role::reference;
      row.timings.resize(1);
    }
    HostBuffer up(setup.kind, bytes), down(setup.kind, bytes);
    std::memcpy(up.data(), ref.host.data(), bytes);
    const bool library = setup.rung && setup.rung->method == Method::library;
    const auto op = [&] {
      if (library) {
        std::thread receiver(
            [&] { ladder::copy_to_host(down.data(), ref.device.data(), bytes, other); });
        try {
          ladder::copy_to_device(device_dst.data(), up.data(), bytes, stream);
        } catch (...) {
          receiver.join();
          throw;
        }
        receiver.join();
      } else {
        LADDER_CUDA(
            cudaMemcpyAsync(device_dst.data(), up.data(), bytes, cudaMemcpyHostToDevice, stream));
        LADDER_CUDA(cudaMemcpyAsync(down.data(), ref.device.data(), bytes, cudaMemcpyDeviceToHost,
                                    setup.concurrent ? other : stream));
        LADDER_CUDA(cudaStreamSynchronize(other));
      }
    };
    const auto check = [&](cudaStream_t s) -> std::string {
      poison(device_dst.data(), bytes, s);
      std::memset(down.data(), 0xFF, bytes);
      LADDER_CUDA(cudaStreamSynchronize(s));
      op();
      LADDER_CUDA(cudaStreamSynchronize(s));
      std::string wrong = compare_bytes({down.data(), bytes}, {ref.host.data(), bytes});
      if (!wrong.empty())
        return "to host: " + wrong;
      LADDER_CUDA(cudaMemcpy(got.data(), device_dst.data(), bytes, cudaMemcpyDeviceToHost));
      wrong = compare_bytes({got.data(), bytes}, {ref.host.data(), bytes});
      return wrong.empty() ? "" : "to device: " + wrong;
    };
    measure_on_host(ctx, what, row, check, op, stream);
    table.rows.push_back(std::move(row));
  }
  table.footnotes.push_back("% of peak: of one direction's link rate, so both at once can pass "
                            "100% (a PCIe link is full duplex)");
  return table;
}

// --- the overlap pipeline ----------------------------------------------------------------------

// How the chunks' stages are issued. The first two put chunk k on stream k (the deck's layout),
// where chunks may share an engine (several copies in on the link, several kernels on the SMs)
// and each finish later; `engine_streams` puts each stage on a stream of its own (copies in,
// kernels, copies out), each chunk's stage waiting on an event of its previous stage, so that
// every engine takes the chunks one at a time and in order.
enum class Order { breadth_first, per_chunk, engine_streams };

struct Pipeline {
  std::int64_t n = 0; // floats
  int iterations = 1;
  DeviceBuffer<float> in, out;
  std::vector<Stream> streams;
  std::vector<cudaEvent_t> fork_join;
  std::vector<cudaEvent_t> stage_done; // engine_streams: chunk k's copy in (2k) and kernel (2k+1)

  Pipeline(std::int64_t elements, int max_streams, int max_chunks)
      : n(elements), in(static_cast<std::size_t>(elements)),
        out(static_cast<std::size_t>(elements)),
        streams(static_cast<std::size_t>(std::max(max_streams, 3))),
        fork_join(static_cast<std::size_t>(std::max(max_streams, 3)) + 1, nullptr),
        stage_done(2 * static_cast<std::size_t>(max_chunks), nullptr) {
    for (auto* list : {&fork_join, &stage_done})
      for (auto& e : *list)
        LADDER_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~Pipeline() {
    for (auto* list : {&fork_join, &stage_done})
      for (auto e : *list)
        if (e)
          cudaEventDestroy(e);
  }
  std::int64_t chunk_begin(int k, int chunks) const { return n * k / chunks; }

  // One run on `main`: fork to `chunks` streams, issue in `order`, join back. `events` (optional)
  // receives a start / stop pair around each stage of each chunk for the timeline.
  void run(const float* host_in, float* host_out, int chunks, Order order, cudaStream_t main,
           std::vector<std::array<cudaEvent_t, 2>>* events = nullptr) {
    // Streams in use: one per chunk, or one per stage.
    const int used = order == Order::engine_streams ? 3 : chunks;
    LADDER_CUDA(cudaEventRecord(fork_join[0], main));
    for (int i = 0; i < used; ++i)
      LADDER_CUDA(cudaStreamWaitEvent(streams[static_cast<std::size_t>(i)], fork_join[0]));
    const auto stage = [&](int k, int s) {
      const std::int64_t b = chunk_begin(k, chunks), e = chunk_begin(k + 1, chunks);
      const std::size_t len = static_cast<std::size_t>(e - b) * sizeof(float);
      const bool chained = order == Order::engine_streams;
      cudaStream_t st = streams[static_cast<std::size_t>(chained ? s : k)];
      if (chained && s > 0)
        LADDER_CUDA(cudaStreamWaitEvent(st, stage_done[static_cast<std::size_t>(2 * k + s - 1)]));
      if (events)
        LADDER_CUDA(cudaEventRecord((*events)[static_cast<std::size_t>(k * 3 + s)][0], st));
      if (s == 0)
        LADDER_CUDA(cudaMemcpyAsync(in.data() + b, host_in + b, len, cudaMemcpyHostToDevice, st));
      else if (s == 1)
        launch_pipeline_kernel(in.data() + b, out.data() + b, e - b, iterations, st);
      else
        LADDER_CUDA(cudaMemcpyAsync(host_out + b, out.data() + b, len, cudaMemcpyDeviceToHost, st));
      if (events)
        LADDER_CUDA(cudaEventRecord((*events)[static_cast<std::size_t>(k * 3 + s)][1], st));
      if (chained && s < 2)
        LADDER_CUDA(cudaEventRecord(stage_done[static_cast<std::size_t>(2 * k + s)], st));
    };
    if (order == Order::breadth_first) {
      for (int s = 0; s < 3; ++s)
        for (int k = 0; k < chunks; ++k)
          stage(k, s);
    } else {
      for (int k = 0; k < chunks; ++k)
        for (int s = 0; s < 3; ++s)
          stage(k, s);
    }
    for (int i = 0; i < used; ++i) {
      LADDER_CUDA(cudaEventRecord(fork_join[static_cast<std::size_t>(i) + 1],
                                  streams[static_cast<std::size_t>(i)]));
      LADDER_CUDA(cudaStreamWaitEvent(main, fork_join[static_cast<std::size_t>(i) + 1]));
    }
  }
};

// `iterations` that make the kernel stage as long as the copy in: a line through two timings.
int balance_iterations(Pipeline& p, const RunContext& ctx, double target_ms, cudaStream_t stream) {
  TimingOptions t = ctx.options.timing;
  t.min_samples = 5;
  t.max_samples = 20;
  const int lo = 16, hi = 256;
  const auto time_at = [&](int it) {
    return time_launches(
               [&](cudaStream_t s) {
                 launch_pipeline_kernel(p.in.data(), p.out.data(), p.n, it, s);
               },
               stream, t)
        .median_ms;
  };
  const double a = time_at(lo), b = time_at(hi);
  const double per_iteration = std::max((b - a) / (hi - lo), 1e-9);
  const double base = a - per_iteration * lo;
  return static_cast<int>(std::clamp((target_ms - base) / per_iteration, 1.0, 1e6));
}

Table pipeline_table(const RunContext& ctx, std::int64_t n, Stream& stream) {
  const std::vector<int> counts =
      ctx.options.small ? std::vector<int>{2, 4} : std::vector<int>{2, 4, 8, 16, 32};
  // A stream per engine issues more chunks than there are streams: up to 128 here.
  const std::vector<int> chained_counts =
      ctx.options.small ? std::vector<int>{4} : std::vector<int>{8, 16, 32, 64, 128};
  const int max_streams = counts.back();
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  Table table;
  table.study = "transfers";
  table.title = "overlap pipeline, " + bytes_label(bytes) + " in and out, balanced stages";
  table.params = {{"bytes_each_way", bytes}};
  table.work.bytes_read = table.work.bytes_written = static_cast<double>(bytes);
  table.work.formula = "bytes in + bytes out";
  table.peak = ctx.peak(Bound::host_link);
  table.groups = {"CUDA events (rung 8: host clock)"};

  Pipeline p(n, max_streams, std::max(max_streams, chained_counts.back()));
  // Inputs: fresh random values drawn from a table of 4096, so that the CPU reference runs the
  // stage once per distinct value (the stage is thousands of dependent FMAs per element).
  std::mt19937_64 random(fresh_seed());
  std::vector<float> distinct(4096), distinct_out(4096);
  for (auto& v : distinct)
    v = std::uniform_real_distribution<float>(0.25f, 4.0f)(random);
  PinnedBuffer<float> host_in(static_cast<std::size_t>(n)), host_out(static_cast<std::size_t>(n));
  std::vector<std::uint16_t> which(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    which[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(random() & 4095);
    host_in[static_cast<std::size_t>(i)] = distinct[which[static_cast<std::size_t>(i)]];
  }

  // The stages alone, on the whole buffer.
  TimingOptions timing = ctx.options.timing;
  const auto h2d = time_launches(
      [&](cudaStream_t s) {
        LADDER_CUDA(cudaMemcpyAsync(p.in.data(), host_in.data(), bytes, cudaMemcpyHostToDevice, s));
      },
      stream, timing);
  p.iterations = balance_iterations(p, ctx, h2d.median_ms, stream);
  cpu_pipeline_stage(distinct, distinct_out, p.iterations, pipeline_multiplier, pipeline_addend);
  const auto kernel = time_launches(
      [&](cudaStream_t s) {
        launch_pipeline_kernel(p.in.data(), p.out.data(), n, p.iterations, s);
      },
      stream, timing);
  const auto d2h = time_launches(
      [&](cudaStream_t s) {
        LADDER_CUDA(
            cudaMemcpyAsync(host_out.data(), p.out.data(), bytes, cudaMemcpyDeviceToHost, s));
      },
      stream, timing);
  const Measurement ideal =
      std::max({h2d, kernel, d2h}, [](const Measurement& x, const Measurement& y) {
        return x.median_ms < y.median_ms;
      });
  // Both copies at once (the whole buffer in on `stream`, out on another): a PCIe link is full
  // duplex, but not at twice one direction's rate, and a pipeline's steady state runs a chunk's
  // copy in beside an earlier chunk's copy out, so neither copy can run at its solo rate there.
  cudaStream_t side = p.streams[0];
  const auto both = time_launches(
      [&](cudaStream_t s) {
        LADDER_CUDA(cudaEventRecord(p.fork_join[0], s));
        LADDER_CUDA(cudaStreamWaitEvent(side, p.fork_join[0]));
        LADDER_CUDA(cudaMemcpyAsync(p.in.data(), host_in.data(), bytes, cudaMemcpyHostToDevice, s));
        LADDER_CUDA(
            cudaMemcpyAsync(host_out.data(), p.out.data(), bytes, cudaMemcpyDeviceToHost, side));
        LADDER_CUDA(cudaEventRecord(p.fork_join[1], side));
        LADDER_CUDA(cudaStreamWaitEvent(s, p.fork_join[1]));
      },
      stream, timing);
  const Measurement duplex = std::max(both, kernel, [](const Measurement& x, const Measurement& y) {
    return x.median_ms < y.median_ms;
  });
  table.params["iterations"] = p.iterations;
  table.params["copy_in_and_out_at_once_ms"] = both.median_ms;
  table.params["copy_in_ms"] = h2d.median_ms;
  table.params["kernel_ms"] = kernel.median_ms;
  table.params["copy_out_ms"] = d2h.median_ms;

  const auto expected_ok = [&](const float* got) -> std::string {
    for (std::int64_t i = 0; i < n; ++i) {
      const float want = distinct_out[which[static_cast<std::size_t>(i)]];
      if (std::memcmp(&got[i], &want, sizeof(float)) != 0)
        return "element " + std::to_string(i) + " differs from the CPU's fma chain";
    }
    return "";
  };

  const Rung& seed = rung_of(Method::pipeline);
  const std::string seed_label = label_of(seed);
  const std::string what = table.title;
  const auto pinned_row = [&](int chunks, Order order) {
    Row row = make_row(seed.info, seed_label, 1);
    const std::string order_name = order == Order::per_chunk ? "per chunk" : "all copies first";
    row.name = chunks == 1 ? "serial: copy in, kernel, copy out (one stream)"
               : order == Order::engine_streams
                   ? "overlap_pipeline, " + std::to_string(chunks) +
                         " chunks, a stream per stage chained by events"
                   : "overlap_pipeline, " + std::to_string(chunks) + " streams, " + order_name;
    row.params = {{"streams", order == Order::engine_streams ? 3 : chunks},
                  {"chunks", chunks},
                  {"per_chunk_order", order == Order::per_chunk ? 1 : 0}};
    const auto launch = [&, chunks, order](cudaStream_t s) {
      p.run(host_in.data(), host_out.data(), chunks, order, s);
    };
    const auto check = [&](cudaStream_t s) -> std::string {
      poison(p.out.data(), bytes, s);
      std::memset(host_out.data(), 0xFF, bytes);
      launch(s);
      LADDER_CUDA(cudaStreamSynchronize(s));
      return expected_ok(host_out.data());
    };
    measure_rung(ctx, what, row, nullptr, check, {{0, launch, ctx.options.timing}}, stream);
    table.rows.push_back(std::move(row));
  };
  pinned_row(1, Order::per_chunk);
  for (int c : counts)
    for (Order o : {Order::breadth_first, Order::per_chunk})
      pinned_row(c, o);
  for (int c : chained_counts)
    pinned_row(c, Order::engine_streams);

  // Rung 8: pageable buffers, one host thread per chunk through the library.
  const Rung& lib = rung_of(Method::pipeline_library);
  {
    std::unique_ptr<float[]> page_in(new float[static_cast<std::size_t>(n)]);
    std::unique_ptr<float[]> page_out(new float[static_cast<std::size_t>(n)]);
    std::memcpy(page_in.get(), host_in.data(), bytes);
    std::memset(page_out.get(), 0, bytes);
    for (int chunks : ctx.options.small ? std::vector<int>{2} : std::vector<int>{4, 8, 16}) {
      if (chunks != 8 && !ctx.options.all && !ctx.options.small)
        continue;
      Row row = make_row(lib.info, label_of(lib), 1);
      row.name = "pipeline_from_pageable, " + std::to_string(chunks) + " host threads";
      row.params = {{"streams", chunks}};
      const auto op = [&, chunks] {
        std::vector<std::thread> threads;
        std::vector<std::exception_ptr> errors(static_cast<std::size_t>(chunks));
        for (int k = 0; k < chunks; ++k)
          threads.emplace_back([&, k] {
            try {
              const std::int64_t b = p.chunk_begin(k, chunks), e = p.chunk_begin(k + 1, chunks);
              const std::size_t len = static_cast<std::size_t>(e - b) * sizeof(float);
              cudaStream_t st = p.streams[static_cast<std::size_t>(k)];
              ladder::copy_to_device(p.in.data() + b, page_in.get() + b, len, st);
              launch_pipeline_kernel(p.in.data() + b, p.out.data() + b, e - b, p.iterations, st);
              ladder::copy_to_host(page_out.get() + b, p.out.data() + b, len, st);
            } catch (...) {
              errors[static_cast<std::size_t>(k)] = std::current_exception();
            }
          });
        for (auto& t : threads)
          t.join();
        for (auto& e : errors)
          if (e)
            std::rethrow_exception(e);
      };
      const auto check = [&](cudaStream_t s) -> std::string {
        poison(p.out.data(), bytes, s);
        LADDER_CUDA(cudaStreamSynchronize(s));
        std::memset(page_out.get(), 0xFF, bytes);
        op();
        return expected_ok(page_out.get());
      };
      measure_on_host(ctx, what, row, check, op, stream);
      table.rows.push_back(std::move(row));
    }
  }

  Row ideal_row;
  ideal_row.label = "ref";
  ideal_row.name = "ideal: the slowest stage alone";
  ideal_row.idea = "max(copy in, kernel, copy out), each on the whole buffer";
  ideal_row.role = Role::reference;
  ideal_row.check = CheckStatus::passed;
  ideal_row.timings = {ideal};
  table.rows.push_back(std::move(ideal_row));
  Row duplex_row;
  duplex_row.label = "ref";
  duplex_row.name = "duplex bound: both copies at once";
  duplex_row.idea = "max(copy in and copy out at once on two streams, kernel), each on the whole "
                    "buffer: the link's full-duplex rate bounds a pipeline whose copies overlap";
  duplex_row.role = Role::reference;
  duplex_row.check = CheckStatus::passed;
  duplex_row.timings = {duplex};
  table.rows.push_back(std::move(duplex_row));

  // The timeline of one run (8 streams, per chunk, or the largest count under --small): each
  // stage's start and end from events, in ms after the first event.
  {
    const int chunks = std::min(8, max_streams);
    std::vector<std::array<cudaEvent_t, 2>> events(static_cast<std::size_t>(chunks) * 3);
    for (auto& pair : events)
      for (auto& e : pair)
        LADDER_CUDA(cudaEventCreate(&e));
    cudaEvent_t origin = nullptr;
    LADDER_CUDA(cudaEventCreate(&origin));
    LADDER_CUDA(cudaEventRecord(origin, stream));
    p.run(host_in.data(), host_out.data(), chunks, Order::per_chunk, stream, &events);
    LADDER_CUDA(cudaStreamSynchronize(stream));
    nlohmann::json timeline = nlohmann::json::array();
    const char* names[] = {"copy in", "kernel", "copy out"};
    for (int k = 0; k < chunks; ++k)
      for (int s = 0; s < 3; ++s) {
        float start = 0, end = 0;
        const auto& pair = events[static_cast<std::size_t>(k * 3 + s)];
        LADDER_CUDA(cudaEventElapsedTime(&start, origin, pair[0]));
        LADDER_CUDA(cudaEventElapsedTime(&end, origin, pair[1]));
        timeline.push_back(
            {{"stream", k}, {"stage", names[s]}, {"start_ms", start}, {"end_ms", end}});
      }
    for (auto& pair : events)
      for (auto e : pair)
        cudaEventDestroy(e);
    cudaEventDestroy(origin);
    table.params["timeline_streams"] = chunks;
    table.params["timeline"] = std::move(timeline);
  }
  table.footnotes.push_back(
      "the kernel's FMA count is chosen so that it takes as long as the copy in (params: "
      "iterations and each stage alone); the ideal is the slowest stage alone, which N chunks "
      "approach as slowest + (the other two) / N if the copies ran at their solo rates; the "
      "duplex bound times both copies at once, since in the steady state a chunk's copy in runs "
      "beside an earlier chunk's copy out");
  table.footnotes.push_back("rung 8 is timed with the host clock (its calls wait for their "
                            "copies); its buffers are pageable and warmed");
  return table;
}

// --- host-side work: the host's memcpy into pinned memory, and what pinning costs ---------------

Row host_row(std::string name, std::string idea, std::string label) {
  Row r;
  r.label = std::move(label);
  r.name = std::move(name);
  r.idea = std::move(idea);
  r.role = Role::seed;
  r.timings.resize(1);
  return r;
}

void parallel_memcpy(std::byte* dst, const std::byte* src, std::size_t bytes, int threads) {
  std::vector<std::thread> pool;
  const std::size_t per = (bytes + threads - 1) / threads;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      const std::size_t b = std::min(bytes, per * t), e = std::min(bytes, b + per);
      std::memcpy(dst + b, src + b, e - b);
    });
  for (auto& t : pool)
    t.join();
}

Table host_copy_table(const RunContext& ctx, std::size_t bytes, Stream& stream) {
  Table table;
  table.study = "transfers";
  table.title = "host memcpy into pinned memory, " + bytes_label(bytes);
  table.params = {{"bytes", bytes}};
  table.work.bytes_read = static_cast<double>(bytes);
  table.work.formula = "bytes copied";
  table.peak = ctx.peak(Bound::host_link);
  table.groups = {"host clock"};
  std::unique_ptr<std::byte[]> src(new std::byte[bytes]);
  std::mt19937_64 random(fresh_seed());
  for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
    const auto v = random();
    std::memcpy(src.get() + i, &v, 8);
  }
  PinnedBuffer<std::byte> dst(bytes);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> counts;
  for (int t = 1; t < cores; t *= 2)
    counts.push_back(t);
  counts.push_back(cores);
  for (int t : counts) {
    Row row = host_row("memcpy, " + std::to_string(t) + (t == 1 ? " thread" : " threads"),
                       "pageable to pinned, the fill of a staged copy", "h");
    row.params = {{"threads", t}};
    const auto op = [&, t] { parallel_memcpy(dst.data(), src.get(), bytes, t); };
    const auto check = [&](cudaStream_t) -> std::string {
      std::memset(dst.data(), 0xFF, bytes);
      op();
      return compare_bytes({dst.data(), bytes}, {src.get(), bytes});
    };
    measure_on_host(ctx, table.title, row, check, op, stream);
    table.rows.push_back(std::move(row));
  }
  // A staged copy to the device does both for every byte: the fill (this memcpy) and the copy
  // engine's read of the filled ring, and the two share the host's memory. The row runs them at
  // once, each on `bytes`: its time is the least a staged copy of that size could take with the
  // fill on every core, so its rate bounds the staged copy where the memory system, not either
  // alone, is the limit.
  {
    Row row = host_row("memcpy, " + std::to_string(cores) +
                           " threads, beside a pinned copy to the device",
                       "the fill and the copy engine's read of host memory at once, as a staged "
                       "copy to the device runs them: the bytes / (time both take) bound it",
                       "h");
    row.params = {{"threads", cores}, {"beside_copy_engine", 1}};
    PinnedBuffer<std::byte> engine_src(bytes);
    std::memcpy(engine_src.data(), src.get(), bytes);
    DeviceBuffer<std::byte> engine_dst(bytes);
    cudaStream_t s = stream;
    const auto op = [&] {
      LADDER_CUDA(cudaMemcpyAsync(engine_dst.data(), engine_src.data(), bytes,
                                  cudaMemcpyHostToDevice, s));
      parallel_memcpy(dst.data(), src.get(), bytes, cores);
      LADDER_CUDA(cudaStreamSynchronize(s));
    };
    const auto check = [&](cudaStream_t) -> std::string {
      std::memset(dst.data(), 0xFF, bytes);
      op();
      std::string bad = compare_bytes({dst.data(), bytes}, {src.get(), bytes});
      if (!bad.empty())
        return "the memcpy: " + bad;
      std::memset(dst.data(), 0xFF, bytes);
      LADDER_CUDA(cudaMemcpy(dst.data(), engine_dst.data(), bytes, cudaMemcpyDeviceToHost));
      bad = compare_bytes({dst.data(), bytes}, {src.get(), bytes});
      return bad.empty() ? bad : "the copy engine's copy: " + bad;
    };
    measure_on_host(ctx, table.title, row, check, op, stream);
    table.rows.push_back(std::move(row));
  }
  // The host these rates belong to: on a host of several NUMA nodes the pageable buffer, the
  // pinned ring and the threads may lie on different nodes, and rates differ from run to run.
  const HostTopology host = read_host_topology();
  table.params["logical_cpus"] = host.logical_cpus;
  table.params["numa_nodes"] = host.nodes.size();
  table.params["host_cpu"] = host.cpu_model;
  table.params["virtual_machine"] = host.virtual_machine;
  table.footnotes.push_back(describe(host));
  table.footnotes.push_back(
      "host clock; one thread per share, started per run. A staged copy cannot beat this row at "
      "the thread count it uses: where it is below the link's rate, the host's memory, not the "
      "link, is the limit");
  table.footnotes.push_back(
      "the last row runs the all-core memcpy and a pinned copy of the same size to the device at "
      "once and times both: a staged copy to the device does both for every byte, so it cannot "
      "beat that row's rate either (its ring, reused, may partly stay in the CPU's cache: a "
      "conservative bound)");
  return table;
}

Table host_cost_table(const RunContext& ctx, std::size_t bytes, Stream& stream) {
  Table table;
  table.study = "transfers";
  table.title = "host-side costs, " + bytes_label(bytes);
  table.params = {{"bytes", bytes}};
  table.work.bytes_read = static_cast<double>(bytes);
  table.work.formula = "bytes registered, allocated, read or written";
  table.peak = ctx.peak(Bound::host_link);
  table.groups = {"host clock"};
  const std::string what = table.title;

  const auto is_pinned = [](const void* p) {
    cudaPointerAttributes a{};
    LADDER_CUDA(cudaPointerGetAttributes(&a, p));
    return a.type == cudaMemoryTypeHost;
  };
  {
    HostBuffer page(Kind::pageable, bytes);
    Row row = host_row("cudaHostRegister + cudaHostUnregister",
                       "pin an existing (warmed) pageable buffer, then unpin it", "h1");
    const auto op = [&] {
      LADDER_CUDA(cudaHostRegister(page.data(), bytes, cudaHostRegisterDefault));
      LADDER_CUDA(cudaHostUnregister(page.data()));
    };
    const auto check = [&](cudaStream_t) -> std::string {
      LADDER_CUDA(cudaHostRegister(page.data(), bytes, cudaHostRegisterDefault));
      const bool pinned = is_pinned(page.data() + bytes - 1);
      LADDER_CUDA(cudaHostUnregister(page.data()));
      return pinned ? "" : "the registered range is not reported as pinned";
    };
    measure_on_host(ctx, what, row, check, op, stream);
    table.rows.push_back(std::move(row));
  }
  {
    Row row =
        host_row("cudaMallocHost + cudaFreeHost", "allocate pinned memory, then free it", "h2");
    const auto op = [&] {
      void* p = nullptr;
      LADDER_CUDA(cudaMallocHost(&p, bytes));
      LADDER_CUDA(cudaFreeHost(p));
    };
    const auto check = [&](cudaStream_t) -> std::string {
      void* p = nullptr;
      LADDER_CUDA(cudaMallocHost(&p, bytes));
      const bool pinned = is_pinned(p);
      LADDER_CUDA(cudaFreeHost(p));
      return pinned ? "" : "cudaMallocHost memory is not reported as pinned";
    };
    measure_on_host(ctx, what, row, check, op, stream);
    table.rows.push_back(std::move(row));
  }
  // CPU reads: cached pinned memory against write-combined memory (uncached on the CPU side).
  for (Kind kind : {Kind::pinned, Kind::write_combined}) {
    HostBuffer buffer(kind, bytes);
    std::vector<std::uint64_t> words(bytes / 8);
    std::mt19937_64 random(fresh_seed());
    std::uint64_t expected = 0;
    for (auto& w : words) {
      w = random();
      expected += w;
    }
    std::memcpy(buffer.data(), words.data(), words.size() * 8);
    volatile std::uint64_t sink = 0;
    const auto sum = [&] {
      const auto* p = reinterpret_cast<const std::uint64_t*>(buffer.data());
      std::uint64_t s = 0;
      for (std::size_t i = 0; i < words.size(); ++i)
        s += p[i];
      return s;
    };
    Row row = host_row(kind == Kind::pinned ? "CPU reads pinned memory"
                                            : "CPU reads write-combined memory",
                       kind == Kind::pinned ? "a sum over cudaMallocHost memory (cached)"
                                            : "a sum over cudaHostAllocWriteCombined memory "
                                              "(not cached by the CPU)",
                       kind == Kind::pinned ? "h3" : "h4");
    measure_on_host(
        ctx, what, row,
        [&](cudaStream_t) -> std::string {
          return sum() == expected ? "" : "the sum differs from the words written";
        },
        [&] { sink = sum(); }, stream);
    table.rows.push_back(std::move(row));
  }
  // First touch: writing a fresh pageable buffer faults every page in; a warmed one does not.
  {
    Row warm = host_row("memset, warmed pageable buffer", "pages already mapped", "h5");
    Row cold = host_row("new[] + memset + delete[]: first touch",
                        "every page faulted in (and returned) on each run", "h6");
    std::unique_ptr<std::byte[]> page(new std::byte[bytes]);
    std::memset(page.get(), 1, bytes);
    const auto check_memset = [&](std::byte* p) -> std::string {
      for (std::size_t i = 0; i < bytes; i += 4093)
        if (p[i] != std::byte{0x5A})
          return "byte " + std::to_string(i) + " not written";
      return "";
    };
    measure_on_host(
        ctx, what, warm,
        [&](cudaStream_t) {
          std::memset(page.get(), 0x5A, bytes);
          return check_memset(page.get());
        },
        [&] { std::memset(page.get(), 0x5A, bytes); }, stream);
    measure_on_host(
        ctx, what, cold,
        [&](cudaStream_t) {
          std::unique_ptr<std::byte[]> fresh(new std::byte[bytes]);
          std::memset(fresh.get(), 0x5A, bytes);
          return check_memset(fresh.get());
        },
        [&] {
          std::unique_ptr<std::byte[]> fresh(new std::byte[bytes]);
          std::memset(fresh.get(), 0x5A, bytes);
          volatile std::byte last = fresh[bytes - 1];
          (void)last;
        },
        stream);
    table.rows.push_back(std::move(warm));
    table.rows.push_back(std::move(cold));
  }
  table.footnotes.push_back(
      "host clock. Speedup columns compare neighbouring rows only where they are pairs (h3 / h4: "
      "what write-combining costs a CPU read; h5 / h6: what first touch costs)");
  return table;
}

// --- the size sweep: the library call against cudaMemcpy and pinned, 4 B .. 1 GiB --------------

Sweep copy_sweep(const RunContext& ctx, Direction dir, const std::vector<std::size_t>& sizes,
                 Stream& stream) {
  const bool to_device = dir == Direction::to_device;
  Sweep sweep;
  sweep.study = "transfers";
  sweep.title = std::string(to_device ? "host to device" : "device to host") +
                ": ladder vs cudaMemcpy by size (host clock, call to copy done)";
  sweep.parameter = "bytes";
  sweep.series = {
      {to_device ? "ladder::copy_to_device (pageable)" : "ladder::copy_to_host (pageable)",
       Role::library},
      {"cudaMemcpy (pageable)", Role::reference},
      {"cudaMemcpy (pinned)", Role::reference}};
  sweep.ratios = {{"x cudaMemcpy pageable", 0, 1}, {"x pinned", 0, 2}};
  // To the device, small copies also through kernel parameters (the launch carries the bytes):
  // a tuning series, not yet the library's default.
  ladder::transfers::StagingConfig parameters;
  parameters.parameter_max_bytes = ladder::transfers::parameter_copy_max_bytes;
  if (to_device) {
    sweep.series.push_back({"copy_to_device through kernel parameters (pageable)", Role::variant});
    sweep.ratios.push_back({"x cudaMemcpy pageable (parameters)", 3, 1});
  }
  const int series = static_cast<int>(sweep.series.size());
  const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
  Reference ref(largest, stream);
  DeviceBuffer<std::byte> device_dst(largest);
  HostBuffer pageable(Kind::pageable, largest), pinned(Kind::pinned, largest);
  PinnedBuffer<std::byte> got(largest);
  std::memcpy(pageable.data(), ref.host.data(), largest);
  std::memcpy(pinned.data(), ref.host.data(), largest);
  for (std::size_t bytes : sizes) {
    SweepPoint point;
    point.size = static_cast<std::int64_t>(bytes);
    point.label = bytes_label(bytes);
    // Every series is checked first; those that passed are then timed together, in rounds
    // (time_on_host_interleaved), so that the host's slow phases do not fall on one series.
    std::vector<std::function<void()>> timed;
    std::vector<int> timed_series;
    for (int s = 0; s < series; ++s) {
      if (s == 3 && bytes > ladder::transfers::parameter_copy_max_bytes) {
        point.checks.push_back(CheckStatus::skipped);
        continue;
      }
      std::byte* host = s == 2 ? pinned.data() : pageable.data();
      const auto op = [&, s, host, bytes] {
        if (to_device) {
          if (s == 0)
            ladder::copy_to_device(device_dst.data(), host, bytes, stream);
          else if (s == 3)
            ladder::transfers::copy_to_device_with(device_dst.data(), host, bytes, stream,
                                                   parameters);
          else
            LADDER_CUDA(cudaMemcpy(device_dst.data(), host, bytes, cudaMemcpyHostToDevice));
        } else {
          if (s == 0)
            ladder::copy_to_host(host, ref.device.data(), bytes, stream);
          else
            LADDER_CUDA(cudaMemcpy(host, ref.device.data(), bytes, cudaMemcpyDeviceToHost));
        }
      };
      std::string wrong;
      if (to_device) {
        poison(device_dst.data(), bytes, stream);
        LADDER_CUDA(cudaStreamSynchronize(stream));
        op();
        LADDER_CUDA(cudaStreamSynchronize(stream));
        LADDER_CUDA(cudaMemcpy(got.data(), device_dst.data(), bytes, cudaMemcpyDeviceToHost));
        wrong = compare_bytes({got.data(), bytes}, {ref.host.data(), bytes});
      } else {
        std::memset(host, 0xFF, bytes);
        op();
        LADDER_CUDA(cudaStreamSynchronize(stream));
        wrong = compare_bytes({host, bytes}, {ref.host.data(), bytes});
      }
      point.checks.push_back(wrong.empty() ? CheckStatus::passed : CheckStatus::wrong);
      if (!wrong.empty()) {
        sweep.footnotes.push_back(sweep.series[static_cast<std::size_t>(s)].name + " at " +
                                  point.label + ": " + wrong);
        continue;
      }
      // Each series is timed to its copy's end: cudaMemcpy runs on the legacy default stream
      // and, from pageable memory to the device, returns once its bytes are staged, before its
      // DMA lands, so its wait is on that stream.
      const cudaStream_t done_on = s == 1 || s == 2 ? cudaStreamLegacy : stream.get();
      timed.push_back(until_done(op, done_on));
      timed_series.push_back(s);
    }
    const std::vector<Measurement> times = time_on_host_interleaved(timed);
    point.times.assign(static_cast<std::size_t>(series), std::nullopt);
    for (std::size_t i = 0; i < timed.size(); ++i)
      point.times[static_cast<std::size_t>(timed_series[i])] = times[i];
    ctx.say("  " + sweep.title.substr(0, 14) + " " + point.label);
    sweep.points.push_back(std::move(point));
  }
  sweep.params["direct_max_bytes"] = transfer_direct_max_bytes;
  sweep.footnotes.push_back("the smallest size is the latency floor: a 4-byte copy");
  sweep.footnotes.push_back("the series of a size are timed in rounds, one run of each per round "
                            "in rotating order, so that the host's slow phases fall on all alike");
  sweep.footnotes.push_back(
      "timed from the call to the copy's end: cudaMemcpy from pageable memory to the device "
      "returns once the driver has staged the bytes, before they land, so its series waits on the "
      "legacy default stream it ran on");
  sweep.footnotes.push_back("copies of up to " + bytes_label(transfer_direct_max_bytes) +
                            " from pageable memory take cudaMemcpyAsync directly");
  if (to_device)
    sweep.footnotes.push_back(
        "through kernel parameters: up to " +
        bytes_label(ladder::transfers::parameter_copy_max_bytes) +
        " per launch, copied by the launch itself (CUDA 12.1+, Volta+); a tuning series");
  return sweep;
}

StudyResults run(const RunContext& ctx) {
  Stream stream;
  StudyResults results;
  const bool small = ctx.options.small;
  std::vector<std::size_t> big;
  for (const auto& s : ctx.options.sizes)
    big.push_back(static_cast<std::size_t>(parse_count(s, "--size", std::int64_t{1} << 36)));
  if (big.empty())
    big = small ? std::vector<std::size_t>{4 * MiB + 3} : std::vector<std::size_t>{GiB, 256 * MiB};
  bool headline = true;
  for (std::size_t b : big)
    for (Direction d : {Direction::to_device, Direction::to_host}) {
      results.tables.push_back(copy_table(ctx, d, b, headline, stream));
      headline = false;
    }
  results.tables.push_back(bidirectional_table(ctx, small ? 2 * MiB : 256 * MiB, stream));
  results.tables.push_back(
      pipeline_table(ctx, small ? std::int64_t{1} << 18 : std::int64_t{1} << 26, stream));
  results.tables.push_back(host_copy_table(ctx, small ? 16 * MiB : GiB, stream));
  results.tables.push_back(host_cost_table(ctx, small ? 4 * MiB : 64 * MiB, stream));
  std::vector<std::size_t> sizes = {4, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, MiB, 4 * MiB};
  if (!small)
    for (std::size_t s : {16 * MiB, 64 * MiB, 256 * MiB, GiB})
      sizes.push_back(s);
  for (Direction d : {Direction::to_device, Direction::to_host})
    results.sweeps.push_back(copy_sweep(ctx, d, sizes, stream));
  return results;
}

} // namespace

const Study& study() {
  static const Study s{.name = "transfers",
                       .title = "Host <-> device transfers and streams (pageable, pinned, "
                                "zero-copy, overlap)",
                       .course = "\"Optimizing CUDA\" (NVIDIA): host-device transfers, "
                                 "page-locked memory, asynchronous copies and streams",
                       .rungs = registry_infos<registry>,
                       .run = run,
                       .check_size = check_size,
                       .size_syntax = "BYTES (e.g. 256Mi, 2^30)"};
  return s;
}

} // namespace ladder::lab::transfers
