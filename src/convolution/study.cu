// The convolution study: a 1D signal, float images for every mask width of the sweep and a
// pitched uint8 RGB image; every rung checked against the multi-threaded CPU reference of its
// border policy, then timed beside the copy of the same bytes, NPP and cuDNN.
#include "convolution/image_io.hpp"
#include "convolution/reference.hpp"
#include "convolution/variants.hpp"

#include "core/protocol.hpp"
#include "core/sizes.hpp"
#include "core/study.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <thread>

namespace ladder::lab::convolution {

namespace {

void check_size(std::string_view text) { (void)parse_image_size(text, "--size"); }

// `--image`: a PNG read through libpng (gray, RGB or RGBA), the 2D ladder's uint8 input.
PngImage load_picture(const std::string& path) {
  if (!have_png())
    throw std::invalid_argument("--image: this build reads no PNG files (libpng was not found "
                                "when it was configured)");
  try {
    PngImage image = read_png(path);
    if (image.width < 1 || image.height < 1)
      throw std::runtime_error("'" + path + "' has no pixels");
    return image;
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(std::string("--image: ") + e.what());
  }
}

void check_image(const std::string& path) { (void)load_picture(path); }

// A pitched device image (cudaMallocPitch: rows aligned for the widest accesses).
struct PitchedImage {
  void* data = nullptr;
  std::size_t pitch = 0;
  PitchedImage(std::int64_t row_bytes, std::int64_t height) {
    LADDER_CUDA(cudaMallocPitch(&data, &pitch, static_cast<std::size_t>(std::max<std::int64_t>(row_bytes, 1)),
                                static_cast<std::size_t>(std::max<std::int64_t>(height, 1))));
  }
  PitchedImage(const PitchedImage&) = delete;
  PitchedImage& operator=(const PitchedImage&) = delete;
  ~PitchedImage() { cudaFree(data); }
};

std::string element_name(Element e) { return e == Element::f32 ? "float" : "uint8"; }

// Random taps: float masks in [-1, 1) / taps (outputs of the order of the inputs); uint8 masks
// mostly positive with some negative taps, summing near 1, so that results fill [0, 255] and some
// saturate at either end.
std::vector<float> random_mask(int taps, Element element, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> m(static_cast<std::size_t>(taps));
  if (element == Element::f32) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (float& v : m)
      v = d(rng) / static_cast<float>(taps);
  } else {
    std::uniform_real_distribution<float> d(-0.6f, 2.0f);
    for (float& v : m)
      v = d(rng) / static_cast<float>(taps) * 1.4f;
  }
  return m;
}

// A vendor library that fails to set up here (a missing engine, a library built for another
// toolkit) is a skipped row with its reason, not a failed study: one trial launch finds out.
template <class Launch>
const char* vendor_preflight(const RungInfo& info, const char* unsupported, std::string& failure,
                             Launch&& launch, cudaStream_t stream) {
  if (unsupported || !info.vendor)
    return unsupported;
  try {
    launch();
    LADDER_CUDA(cudaStreamSynchronize(stream));
    return nullptr;
  } catch (const std::exception& e) {
    cudaGetLastError();
    failure = std::string("failed on this machine: ") + e.what();
    return failure.c_str();
  }
}

const RungInfo& cpu_info() {
  static const std::string name =
      "CPU reference (" + std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
      " threads)";
  static const RungInfo info{.name = name,
                             .idea = "the check: the same sums in the same order on the host",
                             .role = Role::reference};
  return info;
}

struct Case2d {
  Problem2d problem;
  std::string label;
  bool headline = false;
  std::string mask_name = {}; // a named mask (named_mask); random taps when empty
  std::shared_ptr<const PngImage> picture = {}; // the input's pixels (else random data)
};

std::vector<int> sweep_masks(const RunContext& ctx) {
  if (ctx.options.small)
    return {3, 7};
  return {3, 5, 7, 9, 15};
}

std::vector<Case2d> cases_2d(const RunContext& ctx) {
  std::vector<Case2d> out;
  const auto f32 = [](std::int64_t w, std::int64_t h, int m) {
    return Problem2d{Element::f32, 1, w, h, 0, m, m};
  };
  if (!ctx.options.image.empty()) { // the picture, uint8, through the mask sweep
    auto picture = std::make_shared<const PngImage>(load_picture(ctx.options.image));
    const std::string name = std::filesystem::path(ctx.options.image).filename().string();
    for (int m : sweep_masks(ctx))
      out.push_back({{Element::u8, picture->channels, picture->width, picture->height, 0, m, m},
                     "picture " + name,
                     m == 5,
                     {},
                     picture});
    return out;
  }
  if (!ctx.options.sizes.empty()) {
    for (const auto& text : ctx.options.sizes) {
      const ImageSize size = parse_image_size(text, "--size");
      for (int m : size.mask > 0 ? std::vector<int>{size.mask} : sweep_masks(ctx))
        out.push_back({f32(size.cols, size.rows, m), ""});
    }
    out.front().headline = true;
    return out;
  }
  if (ctx.options.small) {
    for (int m : sweep_masks(ctx))
      out.push_back({f32(257, 193, m), "small", m == 3});
    out.push_back({{Element::u8, 3, 131, 67, 0, 5, 5}, "small RGB, pitched"});
    out.push_back({f32(257, 193, 7), "small, Gaussian (separable)", false, "gaussian:7"});
    return out;
  }
  for (int m : sweep_masks(ctx))
    out.push_back({f32(8192, 8192, m), "", m == 5});
  out.push_back({{Element::u8, 3, 3840, 2160, 0, 5, 5}, "4K RGB, pitched rows"});
  out.push_back({f32(8192, 8192, 15), "Gaussian 15 x 15: separable", false, "gaussian:15"});
  return out;
}

// The checked output of a row: the rung's border, or the input itself for the copy.
struct Expected {
  std::vector<unsigned char> bytes; // packed rows
};

template <class T> std::span<const T> as_span(const std::vector<unsigned char>& bytes) {
  return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
}
template <class T> std::span<T> as_mutable_span(std::vector<unsigned char>& bytes) {
  return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
}

struct Run2d {
  const RunContext& ctx;
  Problem2d p;
  PitchedImage in, out;
  DeviceBuffer<float> mask_d, reversed_d;
  std::vector<float> mask;
  std::vector<unsigned char> host_in; // packed rows
  std::map<int, Expected> expected;   // by border, computed on first use
  std::vector<unsigned char> own_taps_bytes; // the joint bound's, computed on first use
  std::uint64_t seed = fresh_seed();

  Run2d(const RunContext& c, Problem2d problem, const std::string& mask_name, cudaStream_t stream,
        const PngImage* picture = nullptr)
      : ctx(c), p(problem), in(problem.row_bytes(), problem.height),
        out(problem.row_bytes(), problem.height),
        mask_d(static_cast<std::size_t>(problem.mask_width * problem.mask_height)),
        reversed_d(mask_d.size()) {
    p.pitch = static_cast<std::int64_t>(in.pitch);
    if (out.pitch != in.pitch)
      throw std::logic_error("cudaMallocPitch gave two pitches for one shape");
    const std::int64_t words = p.pitch * p.height / 4;
    if (picture) // packed rows of channels x uint8, into the pitched image
      LADDER_CUDA(cudaMemcpy2DAsync(in.data, static_cast<std::size_t>(p.pitch),
                                    picture->pixels.data(),
                                    static_cast<std::size_t>(p.row_bytes()),
                                    static_cast<std::size_t>(p.row_bytes()),
                                    static_cast<std::size_t>(p.height), cudaMemcpyHostToDevice,
                                    stream));
    else if (p.element == Element::f32)
      fill_random<float>(static_cast<float*>(in.data), words, seed, -1.0, 1.0, stream);
    else // random bytes: uniform 32-bit words
      fill_random<std::uint32_t>(static_cast<std::uint32_t*>(in.data), words, seed, 0.0,
                                 4294967295.0, stream);
    mask = mask_name.empty()
               ? random_mask(p.mask_width * p.mask_height, p.element, seed ^ 0x5DEECE66Dull)
               : named_mask(mask_name).taps;
    std::vector<float> column, row;
    p.mask_separable = separable(mask, p.mask_width, p.mask_height, column, row);
    std::vector<float> reversed(mask.rbegin(), mask.rend());
    LADDER_CUDA(cudaMemcpyAsync(mask_d.data(), mask.data(), mask_d.bytes(),
                                cudaMemcpyHostToDevice, stream));
    LADDER_CUDA(cudaMemcpyAsync(reversed_d.data(), reversed.data(), reversed_d.bytes(),
                                cudaMemcpyHostToDevice, stream));
    host_in = download(in.data, stream);
  }

  std::vector<unsigned char> download(const void* image, cudaStream_t stream) const {
    std::vector<unsigned char> bytes(static_cast<std::size_t>(p.row_bytes() * p.height));
    LADDER_CUDA(cudaMemcpy2DAsync(bytes.data(), static_cast<std::size_t>(p.row_bytes()), image,
                                  static_cast<std::size_t>(p.pitch),
                                  static_cast<std::size_t>(p.row_bytes()),
                                  static_cast<std::size_t>(p.height), cudaMemcpyDeviceToHost,
                                  stream));
    LADDER_CUDA(cudaStreamSynchronize(stream));
    return bytes;
  }

  template <class T> void reference_into(std::vector<unsigned char>& bytes, Border border) const {
    bytes.assign(host_in.size(), 0);
    const std::int64_t row = p.width * p.channels;
    cpu_convolve2d<T>({reinterpret_cast<const T*>(host_in.data()), row, p.width, p.height,
                       p.channels},
                      {reinterpret_cast<T*>(bytes.data()), row, p.width, p.height, p.channels},
                      mask, p.mask_width, p.mask_height, border);
  }

  void reference(std::vector<unsigned char>& bytes, Border border) const {
    if (p.element == Element::f32)
      reference_into<float>(bytes, border);
    else
      reference_into<std::uint8_t>(bytes, border);
  }

  // The joint bound's expected output: the packed rows' scalars through the taps on their own.
  const std::vector<unsigned char>& expected_own_taps() {
    if (own_taps_bytes.empty()) {
      own_taps_bytes.assign(host_in.size(), 0);
      if (p.element == Element::f32)
        cpu_own_taps<float>(as_span<float>(host_in), as_mutable_span<float>(own_taps_bytes), mask);
      else
        cpu_own_taps<std::uint8_t>(host_in, own_taps_bytes, mask);
    }
    return own_taps_bytes;
  }

  const std::vector<unsigned char>& expected_for(Border border) {
    auto [slot, fresh] = expected.try_emplace(static_cast<int>(border));
    if (fresh)
      reference(slot->second.bytes, border);
    return slot->second.bytes;
  }

  Buffers2d buffers() const {
    return {p, in.data, out.data, mask.data(), mask_d.data(), reversed_d.data()};
  }

  std::string check(const Rung2d& rung, cudaStream_t stream) {
    poison(out.data, static_cast<std::size_t>(p.pitch * p.height), stream);
    rung.launch(buffers(), stream);
    check_launch(rung.info.name.data());
    const std::vector<unsigned char> got = download(out.data, stream);
    const std::vector<unsigned char>& want = rung.copies     ? host_in
                                             : rung.own_taps ? expected_own_taps()
                                                             : expected_for(rung.border);
    const std::int64_t row = p.width * p.channels;
    if (p.element == Element::f32) {
      const double tol = rung.copies || rung.own_taps ? 0.0 : float_error_bound(mask, 1.0);
      return compare_images<float>(as_span<float>(got), as_span<float>(want), row, tol);
    }
    return compare_images<std::uint8_t>(as_span<std::uint8_t>(got), as_span<std::uint8_t>(want),
                                        row, rung.reference_order || rung.copies ? 0.0 : 1.0);
  }
};

Table run_2d(const RunContext& ctx, const Case2d& c, cudaStream_t stream) {
  Run2d run(ctx, c.problem, c.mask_name, stream, c.picture.get());
  const Problem2d& p = run.p;
  const double scalars = static_cast<double>(p.width * p.height * p.channels);
  const double elem = p.element == Element::f32 ? 4.0 : 1.0;
  const int taps = p.mask_width * p.mask_height;
  // Masks of 15 x 15 and up do 225+ FMAs per 8 bytes moved: past the FP32 ridge of any GPU.
  const bool compute_bound = p.element == Element::f32 && taps >= 15 * 15;

  Table table;
  table.study = "convolution";
  table.title = "convolution 2D " + std::to_string(p.width) + " x " + std::to_string(p.height) +
                " " + element_name(p.element) +
                (p.channels > 1 ? " x " + std::to_string(p.channels) + " channels" : "") +
                ", mask " + (c.mask_name.empty() ? "" : c.mask_name + " ") +
                std::to_string(p.mask_width) + " x " + std::to_string(p.mask_height);
  table.case_label = c.label;
  table.headline = c.headline;
  table.params = {{"dims", 2},
                  {"width", p.width},
                  {"height", p.height},
                  {"channels", p.channels},
                  {"type", element_name(p.element)},
                  {"pitch_bytes", p.pitch},
                  {"mask_width", p.mask_width},
                  {"mask_height", p.mask_height},
                  {"mask", c.mask_name.empty() ? "random" : c.mask_name},
                  {"seed", run.seed}};
  table.work.elements = scalars;
  table.work.bytes_read = table.work.bytes_written = scalars * elem;
  table.work.flops = 2.0 * scalars * taps;
  table.work.formula = compute_bound ? "2 x width x height x channels x mask taps FLOP"
                                     : "2 x width x height x channels x element bytes";
  table.peak = ctx.peak(compute_bound ? Bound::fp32_fma : Bound::dram_copy);
  table.groups = {"one launch"};
  table.footnotes.push_back("random input and mask seed " + std::to_string(run.seed));
  table.footnotes.push_back(
      "checked against the CPU reference of each row's border (zero for the course's ghost "
      "cells; clamp for the texture, NPP and the _clamp row); rows that sum in the reference's "
      "order are exact for uint8, float rows within taps x 2^-23 x sum|mask|");
  if (p.row_bytes() * p.height * 2 < 4 * ctx.device.l2_bytes)
    table.footnotes.push_back("fits in L2 or nearly: cache speed, not DRAM");

  const std::string what = "convolution " + table.title.substr(12);
  for_each_shown_rung(ctx, registry_2d(), table, [&](const Rung2d& rung, Row& row) {
    std::string failure;
    const char* why = vendor_preflight(rung.info, rung.unsupported(p), failure,
                                       [&] { rung.launch(run.buffers(), stream); }, stream);
    measure_rung(
        ctx, what, row, why,
        [&](cudaStream_t st) { return run.check(rung, st); },
        {{0, [&](cudaStream_t st) { rung.launch(run.buffers(), st); }, ctx.options.timing}},
        stream);
  });

  Row cpu = make_row(cpu_info(), "cpu", table.groups.size());
  std::vector<unsigned char> scratch;
  cpu.timings[0] = time_on_host([&] { run.reference(scratch, Border::zero); });
  cpu.check = CheckStatus::passed;
  cpu.note = "the reference itself";
  table.rows.push_back(std::move(cpu));
  return table;
}

Table run_1d(const RunContext& ctx, std::int64_t n, int mask_width, const std::string& label,
             cudaStream_t stream) {
  DeviceBuffer<float> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  DeviceBuffer<float> mask_d(static_cast<std::size_t>(mask_width));
  const std::uint64_t seed = fresh_seed();
  fill_random<float>(in.data(), n, seed, -1.0, 1.0, stream);
  const std::vector<float> mask = random_mask(mask_width, Element::f32, seed ^ 0x5DEECE66Dull);
  LADDER_CUDA(cudaMemcpyAsync(mask_d.data(), mask.data(), mask_d.bytes(), cudaMemcpyHostToDevice,
                              stream));
  PinnedBuffer<float> host_in(static_cast<std::size_t>(n)), host_out(static_cast<std::size_t>(n));
  copy_to_host(host_in, in.data(), in.size(), stream);
  std::vector<float> expected(static_cast<std::size_t>(n));
  const std::span<const float> input(host_in.data(), host_in.size());
  const Measurement cpu_time = time_on_host([&] {
    cpu_convolve1d(input, expected, mask, Border::zero);
  });

  Table table;
  table.study = "convolution";
  table.title = "convolution 1D n = " + count_label(n) + " float, mask " + std::to_string(mask_width);
  table.case_label = label;
  table.params = {{"dims", 1}, {"n", n}, {"type", "float"}, {"mask_width", mask_width}, {"seed", seed}};
  table.work.elements = static_cast<double>(n);
  table.work.bytes_read = table.work.bytes_written = static_cast<double>(n) * 4.0;
  table.work.flops = 2.0 * static_cast<double>(n) * mask_width;
  table.work.formula = "2 x n x 4 B";
  table.peak = ctx.peak(Bound::dram_copy);
  table.groups = {"one launch"};
  table.footnotes.push_back("random input and mask seed " + std::to_string(seed));
  const Buffers1d buffers{{n, mask_width}, in.data(), out.data(), mask.data(), mask_d.data()};
  const double tol = float_error_bound(mask, 1.0);
  for_each_shown_rung(ctx, registry_1d(), table, [&](const Rung1d& rung, Row& row) {
    const auto check = [&](cudaStream_t st) {
      return check_output(
          out.data(), static_cast<std::size_t>(n), host_out,
          [&](cudaStream_t l) { rung.launch(buffers, l); },
          [&](std::span<const float> got) {
            return rung.copies ? compare_images<float>(got, input, n, 0.0)
                               : compare_images<float>(got, expected, n, tol);
          },
          st, std::string(rung.info.name));
    };
    std::string failure;
    const char* why = vendor_preflight(rung.info, rung.unsupported(buffers.problem), failure,
                                       [&] { rung.launch(buffers, stream); }, stream);
    measure_rung(ctx, "convolution 1D n = " + count_label(n), row, why,
                 check, {{0, [&](cudaStream_t st) { rung.launch(buffers, st); }, ctx.options.timing}},
                 stream);
  });
  Row cpu = make_row(cpu_info(), "cpu", table.groups.size());
  cpu.timings[0] = cpu_time;
  cpu.check = CheckStatus::passed;
  cpu.note = "the reference itself";
  table.rows.push_back(std::move(cpu));
  return table;
}

// The mask-width sweep of the float image, from the tables: the library against the copy, NPP and
// cuDNN, each measured in the same run.
Sweep mask_sweep(const std::vector<Table>& tables) {
  Sweep sw;
  sw.study = "convolution";
  sw.title = "convolution 2D float, mask width sweep: ladder::convolve2d vs the copy, NPP, cuDNN";
  sw.parameter = "mask";
  const std::vector<std::string> names = {"ladder::convolve2d", "cudaMemcpy", "nppiFilterBorder",
                                          "cudnnConvolutionForward"};
  sw.series = {{names[0], Role::library},
               {names[1], Role::reference},
               {names[2], Role::reference},
               {names[3], Role::reference}};
  sw.ratios = {{"x copy", 0, 1}, {"x NPP", 0, 2}, {"x cuDNN", 0, 3}};
  sw.footnotes.push_back("x copy: the copy's time / ours (1.0 = at the bound); x NPP, x cuDNN: "
                         "their time / ours (above 1: ours is faster); NPP with the replicate "
                         "border, the others zero");
  for (const Table& t : tables) {
    if (t.params.value("dims", 0) != 2 || t.params.value("type", "") != "float" ||
        t.params.value("mask", "") != "random")
      continue;
    const int m = t.params.value("mask_width", 0);
    SweepPoint point{m, std::to_string(m) + " x " + std::to_string(m), {}, {}};
    for (const std::string& name : names) {
      std::optional<Measurement> time;
      CheckStatus check = CheckStatus::skipped;
      for (const Row& r : t.rows)
        if (r.name == name) {
          time = r.timings.empty() ? std::nullopt : r.timings[0];
          check = r.check;
        }
      point.times.push_back(time);
      point.checks.push_back(check);
    }
    sw.points.push_back(std::move(point));
  }
  return sw;
}

StudyResults run(const RunContext& ctx) {
  Stream stream;
  StudyResults results;
  if (ctx.options.sizes.empty() && ctx.options.image.empty()) {
    if (ctx.options.small)
      results.tables.push_back(run_1d(ctx, 100003, 9, "small", stream));
    else
      results.tables.push_back(run_1d(ctx, std::int64_t{1} << 28, 9, "", stream));
  }
  for (const Case2d& c : cases_2d(ctx))
    results.tables.push_back(run_2d(ctx, c, stream));
  if (Sweep sw = mask_sweep(results.tables); !sw.points.empty()) // float images only
    results.sweeps.push_back(std::move(sw));
  return results;
}

std::string notes() {
  std::string out = "The 1D ladder (float signals) runs the same ideas:";
  for (const Rung1d& r : registry_1d())
    out += std::string(" ") + std::string(r.info.name) + ",";
  out.back() = '.';
  return out + "\nMask widths of the sweep: 3, 5, 7, 9, 15 (float 8192 x 8192); uint8 RGB 3840 x 2160 "
         "pitched with mask 5; 1D n = 2^28 with mask 9. NPP: " +
         std::string(have_npp() ? "built in" : "not found at build time") +
         "; cuDNN: " + std::string(have_cudnn() ? "built in" : "not found at build time") + ".";
}

} // namespace

const Study& study() {
  static const Study s{
      .name = "convolution",
      .title = "Convolution: 1D signals and 2D images (float, uint8 RGB), ghost cells to tiles",
      .course = "\"GPU architecture and programming\", lecture 3 (UCAS), after \"Programming "
                "Massively Parallel Processors\" (Hwu, Kirk, El Hajj), chapter 7; NVIDIA's "
                "\"Optimizing CUDA\" (textures)",
      .rungs = [] { return infos_of(registry_2d()); },
      .run = run,
      .check_size = check_size,
      .size_syntax = "ROWSxCOLS (a float image; the mask sweep runs on it), or ROWSxCOLS:MASK "
                     "(one odd mask width, 1 .. 31)",
      .check_image = check_image,
      .notes = notes};
  return s;
}

} // namespace ladder::lab::convolution
