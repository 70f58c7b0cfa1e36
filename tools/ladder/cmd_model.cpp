// `ladder model <topic>`: the course's hand calculations (ladder/models.hpp) as commands.
//
//   ladder model bandwidth   [--gpu KEY | --device | --clock-mhz F --bus-bits N] [--json]
//   ladder model occupancy   (--gpu KEY | --device) --threads N --registers N [--smem BYTES]
//                            [--carveout PERCENT] [--sweep threads|registers|smem|all] [--json]
//   ladder model banks       (--stride S | --tile RxC [--padding P] [--walk row|column]
//                            | --words LIST | --permutation SEED) [--banks 16|32] [--json]
//   ladder model coalescing  [--stride ELEMENTS] [--offset BYTES] [--addresses LIST]
//                            [--pattern NAME] [--element-size B] [--threads N] [--json]
//   ladder model divergence  [--n N --block B] [--width W --tile T] [--json]
//   ladder model tiling      [--tiles LIST] [--masks LIST] [--width W [--height H]] [--json]
//
// --gpu KEY is a GPU of the table, an architecture (occupancy), or `current`: the GPU this machine
// has, like --device.
//
// Each prints a readable table, or JSON with --json. Bad arguments are usage errors (exit 2)
// naming the option as typed, caught before any model runs where the value alone is wrong;
// --device (or --gpu current) without a GPU is exit 3. Only those touch CUDA, through
// ladder/device.hpp; everything else is host arithmetic.
#include "commands.hpp"
#include "options.hpp"
#include "core/sizes.hpp"
#include "text_table.hpp"

#include "ladder/device.hpp"
#include "ladder/models.hpp"
#include "models/arguments.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace ladder::cli {
namespace {

namespace models = ladder::models;
using nlohmann::json;

// ---- formatting ---------------------------------------------------------------------------------

// Rounds half away from zero (20.25 -> "20.3", as the course's tables do), not to even as printf.
std::string fixed(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, std::round(value * scale) / scale);
  return buffer;
}

// 0.5 -> "50%", 0.375 -> "37.5%": the spreadsheet prints whole percents, fractions matter here.
std::string percent(double fraction) {
  const double value = std::round(fraction * 1000.0) / 10.0;
  return fixed(value, value == std::round(value) ? 0 : 1) + "%";
}

std::string blocks_text(int blocks) {
  return blocks == models::unlimited_blocks ? "unlimited" : std::to_string(blocks);
}

json blocks_json(int blocks) {
  return blocks == models::unlimited_blocks ? json(nullptr) : json(blocks);
}

// ---- errors ------------------------------------------------------------------------------------

// The models name their arguments (threads_per_block: ...); users typed options (--threads).
// Rename the argument at the start of the message when it maps to an option of this command.
std::string with_option_names(const std::string& message,
                              const std::map<std::string, std::string>& options) {
  for (const auto& [argument, option] : options) {
    if (message.rfind(argument + ":", 0) == 0) {
      return option + message.substr(argument.size());
    }
  }
  return message;
}

// Runs one subcommand body: usage errors (std::invalid_argument) print the named argument and
// set exit 2 here, so that every runner reports them the same way.
void run_reporting_errors(Context& ctx, const std::string& command,
                          const std::map<std::string, std::string>& option_names,
                          const std::function<void()>& body) {
  try {
    body();
  } catch (const std::invalid_argument& error) {
    ctx.err << "ladder model " << command << ": " << with_option_names(error.what(), option_names)
            << '\n';
    ctx.exit_code = exit_usage;
  }
}

[[noreturn]] void usage_error(const std::string& option, const std::string& why) {
  throw std::invalid_argument(option + ": " + why);
}

// ---- GPUs ---------------------------------------------------------------------------------------

// The --gpu value that means the GPU this machine has (what --device means).
constexpr std::string_view current_gpu_key = "current";

// A --gpu value: a GPU of the table ("g80") or an architecture ("sm_90").
struct ChosenGpu {
  models::ArchitectureLimits arch;
  std::string label;       // for the report
  int multiprocessors = 0; // 0 when only the architecture is known
  std::optional<models::MemoryInterface> memory;
};

bool same_name(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

ChosenGpu gpu_from_key(const std::string& key) {
  for (const auto& gpu : models::gpus()) {
    if (same_name(gpu.key, key)) {
      const auto& arch = models::architecture_of(gpu);
      return {arch,
              std::string(gpu.name) + " (" + std::string(arch.name) + ", " +
                  std::to_string(gpu.multiprocessors) + " SMs)",
              gpu.multiprocessors, gpu.memory};
    }
  }
  for (const auto& arch : models::architectures()) {
    if (same_name(arch.name, key)) {
      return {arch, std::string(arch.name) + " (" + std::string(arch.family) + ")", 0, {}};
    }
  }
  std::string known;
  for (const auto& gpu : models::gpus()) {
    known += (known.empty() ? "" : ", ") + std::string(gpu.key);
  }
  for (const auto& arch : models::architectures()) {
    known += ", " + std::string(arch.name);
  }
  usage_error("--gpu", "unknown GPU '" + key + "' (known: " + known + ", " +
                           std::string(current_gpu_key) + ")");
}

bool is_current_gpu(const std::string& key) { return same_name(key, current_gpu_key); }

// The current CUDA device, or exit 3 with a clear message when there is none.
std::optional<ChosenGpu> current_gpu(Context& ctx, const std::string& command) {
  if (ladder::device_count() == 0) {
    ctx.err << "ladder model " << command
            << ": no CUDA device found; --gpu current (or --device) models the GPU of this "
               "machine and needs one (--gpu KEY models a GPU of the table without one)\n";
    ctx.exit_code = exit_no_device;
    return std::nullopt;
  }
  const DeviceInfo info = ladder::current_device_info();
  // Every limit from the device (blocks per SM, registers per block, shared memory per block and
  // the driver's reserve included); only the allocation granularities come from the table.
  ChosenGpu chosen{models::architecture_from_device(models::device_properties(info)),
                   info.name + " (device " + std::to_string(info.ordinal) + ", cc " +
                       std::to_string(info.compute_major) + "." +
                       std::to_string(info.compute_minor) + ", " +
                       std::to_string(info.multiprocessors) + " SMs)",
                   info.multiprocessors,
                   models::MemoryInterface{static_cast<double>(info.memory_clock_khz) / 1000.0,
                                           info.memory_bus_width_bits, 2}};
  return chosen;
}

json architecture_json(const models::ArchitectureLimits& arch) {
  return {{"name", arch.name},
          {"family", arch.family},
          {"compute_capability",
           std::to_string(arch.compute_major) + "." + std::to_string(arch.compute_minor)},
          {"threads_per_warp", arch.threads_per_warp},
          {"max_warps_per_sm", arch.max_warps_per_sm},
          {"max_threads_per_sm", arch.max_threads_per_sm()},
          {"max_blocks_per_sm", arch.max_blocks_per_sm},
          {"max_threads_per_block", arch.max_threads_per_block},
          {"registers_per_sm", arch.registers_per_sm},
          {"max_registers_per_block", arch.max_registers_per_block},
          {"max_registers_per_thread", arch.max_registers_per_thread},
          {"register_allocation_unit", arch.register_allocation_unit},
          {"register_allocation",
           arch.register_granularity == models::RegisterGranularity::per_block ? "block" : "warp"},
          {"warp_allocation_granularity", arch.warp_allocation_granularity},
          {"shared_memory_per_sm", arch.shared_memory_per_sm},
          {"shared_memory_per_block", arch.shared_memory_per_block},
          {"shared_memory_per_block_optin", arch.shared_memory_per_block_optin},
          {"reserved_shared_memory_per_block", arch.reserved_shared_memory_per_block},
          {"shared_memory_allocation_unit", arch.shared_memory_allocation_unit},
          {"shared_memory_configurations",
           std::vector<std::int64_t>(arch.shared_memory_configurations.begin(),
                                     arch.shared_memory_configurations.end())},
          {"shared_memory_banks", arch.shared_memory_banks}};
}

// ---- bandwidth ----------------------------------------------------------------------------------

struct BandwidthOptions {
  std::string gpu;
  bool device = false;
  double clock_mhz = 0;
  int bus_bits = 0;
  int transfers_per_clock = 2;
  bool json = false;
};

void add_bandwidth(CLI::App& model, Context& ctx) {
  auto options = std::make_shared<BandwidthOptions>();
  auto* command = model.add_subcommand(
      "bandwidth", "Theoretical DRAM bandwidth: clock x transfers per clock x bus width / 8");
  auto* gpu_option = command->add_option(
      "--gpu", options->gpu, "a GPU of the table, or current: this machine's (default: all)");
  auto* device_option = command->add_flag("--device", options->device, "the current CUDA device");
  auto* clock_option =
      command->add_option("--clock-mhz", options->clock_mhz, "memory clock in MHz");
  auto* bus_option =
      add_integer(*command, "--bus-bits", options->bus_bits, "memory bus width in bits", 1);
  auto* transfers_option =
      add_integer(*command, "--transfers-per-clock", options->transfers_per_clock,
                  "2 for double data rate (default), 1 when the clock is the effective rate", 1);
  command->add_flag("--json", options->json, "print JSON");
  gpu_option->excludes(device_option);
  clock_option->excludes(gpu_option)->excludes(device_option);
  clock_option->needs(bus_option);
  bus_option->needs(clock_option);
  transfers_option->needs(clock_option);

  command->callback([options, clock_option, &ctx] {
    run_reporting_errors(
        ctx, "bandwidth",
        {{"gpu", "--gpu"},
         {"clock_mhz", "--clock-mhz"},
         {"bus_width_bits", "--bus-bits"},
         {"transfers_per_clock", "--transfers-per-clock"}},
        [&] {
          struct Row {
            std::string key;
            std::string name;
            models::MemoryInterface memory;
          };
          std::vector<Row> rows;
          if (options->device || is_current_gpu(options->gpu)) {
            const auto chosen = current_gpu(ctx, "bandwidth");
            if (!chosen) {
              return;
            }
            rows.push_back({"device", chosen->label, *chosen->memory});
          } else if (!options->gpu.empty()) {
            const auto& gpu = models::find_gpu(options->gpu);
            rows.push_back({std::string(gpu.key), std::string(gpu.name), gpu.memory});
          } else if (clock_option->count() > 0) {
            rows.push_back({"custom",
                            "",
                            {options->clock_mhz, options->bus_bits, options->transfers_per_clock}});
          } else {
            for (const auto& gpu : models::gpus()) {
              rows.push_back({std::string(gpu.key), std::string(gpu.name), gpu.memory});
            }
          }

          json results = json::array();
          TextTable table(
              {"gpu", "memory clock (MHz)", "bus (bits)", "transfers/clock", "GB/s", "GiB/s"});
          for (const auto& row : rows) {
            const auto bandwidth = models::theoretical_bandwidth(row.memory);
            results.push_back({{"gpu", row.key},
                               {"name", row.name},
                               {"clock_mhz", row.memory.clock_mhz},
                               {"bus_width_bits", row.memory.bus_width_bits},
                               {"transfers_per_clock", row.memory.transfers_per_clock},
                               {"gb_per_second", bandwidth.gb_per_second},
                               {"gib_per_second", bandwidth.gib_per_second}});
            const double clock = row.memory.clock_mhz;
            table.add({row.key, fixed(clock, clock == std::round(clock) ? 0 : 3),
                       std::to_string(row.memory.bus_width_bits),
                       std::to_string(row.memory.transfers_per_clock),
                       fixed(bandwidth.gb_per_second, 2), fixed(bandwidth.gib_per_second, 2)});
          }
          if (options->json) {
            ctx.out << json{{"model", "bandwidth"},
                            {"formula", "clock x transfers per clock x bus width / 8"},
                            {"results", results}}
                           .dump(2)
                    << '\n';
            return;
          }
          ctx.out << "Theoretical bandwidth = memory clock x transfers per clock x bus width / 8"
                     " (GB = 1e9 B, GiB = 2^30 B)\n\n";
          table.print(ctx.out);
        });
  });
}

// ---- occupancy ----------------------------------------------------------------------------------

struct OccupancyCommandOptions {
  std::string gpu;
  bool device = false;
  int threads = 0;
  int registers = 0;
  std::int64_t shared_memory = 0;
  int carveout = 100;
  std::string sweep;
  std::int64_t step = 0;
  bool json = false;
};

json occupancy_json(const models::BlockResources& block, const models::OccupancyResult& result) {
  json limiters = json::array();
  for (const auto limiter : result.limiters) {
    limiters.push_back(models::to_string(limiter));
  }
  return {{"threads_per_block", block.threads_per_block},
          {"registers_per_thread", block.registers_per_thread},
          {"shared_memory_per_block", block.shared_memory_per_block},
          {"allocated",
           {{"warps_per_block", result.warps_per_block},
            {"registers_per_block", result.registers_per_block},
            {"shared_memory_per_block", result.shared_memory_per_block},
            {"shared_memory_per_sm", result.shared_memory_per_sm},
            {"needs_shared_memory_opt_in", result.needs_shared_memory_opt_in}}},
          {"blocks_limited_by",
           {{"warps", blocks_json(result.blocks_limited_by_warps)},
            {"registers", blocks_json(result.blocks_limited_by_registers)},
            {"shared_memory", blocks_json(result.blocks_limited_by_shared_memory)},
            {"blocks_per_sm", blocks_json(result.blocks_limited_by_sm)}}},
          {"limiters", limiters},
          {"active_blocks_per_sm", result.active_blocks_per_sm},
          {"active_warps_per_sm", result.active_warps_per_sm},
          {"active_threads_per_sm", result.active_threads_per_sm},
          {"occupancy", result.occupancy}};
}

std::string limiters_text(const models::OccupancyResult& result) {
  std::string text;
  for (const auto limiter : result.limiters) {
    text += (text.empty() ? "" : ", ") + std::string(models::to_string(limiter));
  }
  return text;
}

void print_occupancy(std::ostream& out, const ChosenGpu& gpu, const models::BlockResources& block,
                     const models::OccupancyResult& result) {
  out << "Occupancy on " << gpu.label << ": " << block.threads_per_block << " threads, "
      << block.registers_per_thread << " registers/thread, " << block.shared_memory_per_block
      << " B shared memory/block\n\n";
  TextTable data({"GPU occupancy data", ""});
  data.add({"Active threads per multiprocessor", std::to_string(result.active_threads_per_sm)});
  data.add({"Active warps per multiprocessor", std::to_string(result.active_warps_per_sm)});
  data.add(
      {"Active thread blocks per multiprocessor", std::to_string(result.active_blocks_per_sm)});
  data.add({"Occupancy of each multiprocessor", percent(result.occupancy)});
  if (gpu.multiprocessors > 0) {
    data.add({"Maximum simultaneous blocks per GPU",
              std::to_string(std::int64_t{result.active_blocks_per_sm} * gpu.multiprocessors)});
  }
  data.print(out);
  out << '\n';
  TextTable allocation({"Allocation per thread block", ""});
  allocation.add({"Warps", std::to_string(result.warps_per_block)});
  allocation.add({"Registers", std::to_string(result.registers_per_block)});
  allocation.add({"Shared memory (bytes)", std::to_string(result.shared_memory_per_block)});
  allocation.add(
      {"Shared memory per SM, configured (bytes)", std::to_string(result.shared_memory_per_sm)});
  allocation.print(out);
  out << '\n';
  TextTable limits({"Maximum thread blocks per multiprocessor", ""});
  limits.add(
      {"Limited by max warps / multiprocessor", blocks_text(result.blocks_limited_by_warps)});
  limits.add(
      {"Limited by registers / multiprocessor", blocks_text(result.blocks_limited_by_registers)});
  limits.add({"Limited by shared memory / multiprocessor",
              blocks_text(result.blocks_limited_by_shared_memory)});
  limits.add({"Limited by max blocks / multiprocessor", blocks_text(result.blocks_limited_by_sm)});
  limits.print(out);
  out << "Limiting: " << limiters_text(result)
      << (result.active_blocks_per_sm == 0 ? " (the block cannot launch)" : "") << '\n';
  if (result.needs_shared_memory_opt_in) {
    out << "Note: more shared memory than the default per-block limit; the kernel must opt in "
           "(cudaFuncAttributeMaxDynamicSharedMemorySize)\n";
  }
}

void print_sweep(std::ostream& out, models::SweepVariable variable,
                 const std::vector<models::OccupancySweepPoint>& points) {
  auto value_of = [variable](const models::BlockResources& block) -> std::int64_t {
    switch (variable) {
    case models::SweepVariable::threads_per_block:
      return block.threads_per_block;
    case models::SweepVariable::registers_per_thread:
      return block.registers_per_thread;
    case models::SweepVariable::shared_memory_per_block:
      return block.shared_memory_per_block;
    }
    return 0;
  };
  out << "\nVarying " << models::to_string(variable)
      << " (consecutive values with the same result share a row)\n";
  TextTable table({std::string(models::to_string(variable)), "active blocks", "active warps",
                   "occupancy", "limited by"});
  for (std::size_t first = 0; first < points.size();) {
    std::size_t last = first;
    const auto& result = points[first].result;
    while (last + 1 < points.size() &&
           points[last + 1].result.active_warps_per_sm == result.active_warps_per_sm &&
           points[last + 1].result.active_blocks_per_sm == result.active_blocks_per_sm &&
           points[last + 1].result.limiters == result.limiters) {
      ++last;
    }
    const std::int64_t from = value_of(points[first].block);
    const std::int64_t to = value_of(points[last].block);
    table.add(
        {from == to ? std::to_string(from) : std::to_string(from) + " - " + std::to_string(to),
         std::to_string(result.active_blocks_per_sm), std::to_string(result.active_warps_per_sm),
         percent(result.occupancy), limiters_text(result)});
    first = last + 1;
  }
  table.print(out);
}

void add_occupancy(CLI::App& model, Context& ctx) {
  auto options = std::make_shared<OccupancyCommandOptions>();
  auto* command = model.add_subcommand(
      "occupancy", "The CUDA occupancy calculator: resident blocks, warps and occupancy per SM");
  auto* gpu_option = command->add_option(
      "--gpu", options->gpu,
      "a GPU (g80, gtx280, h100, h200, ...), an architecture (sm_90, ...) or current");
  auto* device_option = command->add_flag("--device", options->device, "the current CUDA device");
  // The upper limits depend on the GPU: the model checks them and names the limit.
  add_integer(*command, "--threads", options->threads, "threads per block", 1)->required();
  add_integer(*command, "--registers", options->registers, "registers per thread", 0)->required();
  add_integer(*command, "--smem", options->shared_memory,
              "shared memory per block in bytes, static + dynamic (default 0)", 0);
  auto* carveout_option =
      add_integer(*command, "--carveout", options->carveout,
                  "preferred shared-memory carveout in percent (sm_70+; default: maximum)", 0, 100);
  auto* sweep_option =
      command
          ->add_option("--sweep", options->sweep,
                       "also vary one resource over its range, as the spreadsheet's graphs")
          ->check(CLI::IsMember({"threads", "registers", "smem", "all"}));
  add_integer(*command, "--step", options->step,
              "sweep step (default: warp, 1 register, the shared-memory allocation unit)", 1)
      ->needs(sweep_option);
  command->add_flag("--json", options->json, "print JSON");
  gpu_option->excludes(device_option);

  command->callback([options, carveout_option, &ctx] {
    run_reporting_errors(
        ctx, "occupancy",
        {{"threads_per_block", "--threads"},
         {"registers_per_thread", "--registers"},
         {"shared_memory_per_block", "--smem"},
         {"shared_memory_carveout_percent", "--carveout"},
         {"step", "--step"}},
        [&] {
          std::optional<ChosenGpu> chosen;
          if (options->device || is_current_gpu(options->gpu)) {
            chosen = current_gpu(ctx, "occupancy");
            if (!chosen) {
              return;
            }
          } else if (!options->gpu.empty()) {
            chosen = gpu_from_key(options->gpu);
          } else {
            usage_error("--gpu", "name a GPU or architecture (--gpu g80, --gpu sm_90) or use "
                                 "this machine's (--gpu current)");
          }
          const models::BlockResources block{options->threads, options->registers,
                                             options->shared_memory};
          models::OccupancyOptions occupancy_options;
          if (carveout_option->count() > 0) {
            occupancy_options.shared_memory_carveout_percent = options->carveout;
          }
          const auto result = models::occupancy(chosen->arch, block, occupancy_options);

          std::vector<models::SweepVariable> sweeps;
          if (options->sweep == "threads" || options->sweep == "all") {
            sweeps.push_back(models::SweepVariable::threads_per_block);
          }
          if (options->sweep == "registers" || options->sweep == "all") {
            sweeps.push_back(models::SweepVariable::registers_per_thread);
          }
          if (options->sweep == "smem" || options->sweep == "all") {
            sweeps.push_back(models::SweepVariable::shared_memory_per_block);
          }
          std::vector<std::vector<models::OccupancySweepPoint>> curves;
          for (const auto variable : sweeps) {
            curves.push_back(models::occupancy_sweep(chosen->arch, block, variable,
                                                     occupancy_options, options->step));
          }

          if (options->json) {
            json document{{"model", "occupancy"},
                          {"gpu", chosen->label},
                          {"multiprocessors", chosen->multiprocessors},
                          {"architecture", architecture_json(chosen->arch)},
                          {"result", occupancy_json(block, result)}};
            if (chosen->multiprocessors > 0) {
              document["max_blocks_per_gpu"] =
                  std::int64_t{result.active_blocks_per_sm} * chosen->multiprocessors;
            }
            for (std::size_t index = 0; index < sweeps.size(); ++index) {
              json curve = json::array();
              for (const auto& point : curves[index]) {
                curve.push_back(occupancy_json(point.block, point.result));
              }
              document["sweeps"][std::string(models::to_string(sweeps[index]))] = curve;
            }
            ctx.out << document.dump(2) << '\n';
            return;
          }
          print_occupancy(ctx.out, *chosen, block, result);
          for (std::size_t index = 0; index < sweeps.size(); ++index) {
            print_sweep(ctx.out, sweeps[index], curves[index]);
          }
        });
  });
}

// ---- banks --------------------------------------------------------------------------------------

// Threads of one request in the banks and coalescing models: a request is at most a warp on
// real hardware and shared memory belongs to one block, so more than a block's threads models
// nothing; the bound also keeps the simulation small (10^8 threads would take about a minute
// and gigabytes).
constexpr int max_request_threads = 1024;
const std::string max_threads_reason = "the most threads of one block";

struct BanksOptions {
  std::int64_t stride = 1;
  std::int64_t offset = 0;
  std::string tile;
  int padding = 0;
  std::string walk = "column";
  int row = 0;
  int col = 0;
  std::vector<std::int64_t> words;
  int permutation_seed = 0;
  int banks = 32;
  int threads = 0;
  bool json = false;
};

std::pair<int, int> parse_tile(const std::string& text) {
  const auto separator = text.find_first_of("xX");
  if (separator != std::string::npos) {
    const auto rows = parse_integer(std::string_view(text).substr(0, separator));
    const auto cols = parse_integer(std::string_view(text).substr(separator + 1));
    constexpr std::int64_t max = std::numeric_limits<int>::max();
    if (rows && cols && *rows >= 1 && *cols >= 1 && *rows <= max && *cols <= max) {
      return {static_cast<int>(*rows), static_cast<int>(*cols)};
    }
  }
  usage_error("--tile", "expected ROWSxCOLS of positive integers (e.g. 32x32), got '" + text + "'");
}

void add_banks(CLI::App& model, Context& ctx) {
  auto options = std::make_shared<BanksOptions>();
  auto* command = model.add_subcommand(
      "banks", "Shared-memory bank conflicts of one access (4-byte words, broadcast counts once)");
  auto* stride_option = add_integer(*command, "--stride", options->stride,
                                    "thread t reads word offset + t * stride (default 1)", 0);
  auto* offset_option = add_integer(*command, "--offset", options->offset,
                                    "first word of --stride or --permutation (default 0)", 0);
  auto* tile_option =
      command->add_option("--tile", options->tile, "a ROWSxCOLS tile of 4-byte words");
  // The walk's options describe the tile: alone they would be silently ignored.
  add_integer(*command, "--padding", options->padding, "extra words per tile row (default 0)", 0)
      ->needs(tile_option);
  command->add_option("--walk", options->walk, "row or column walk of the tile (default column)")
      ->check(CLI::IsMember({"row", "column"}))
      ->needs(tile_option);
  add_integer(*command, "--row", options->row, "tile row where the walk starts (default 0)", 0)
      ->needs(tile_option);
  add_integer(*command, "--col", options->col, "tile column where the walk starts (default 0)", 0)
      ->needs(tile_option);
  auto* words_option =
      add_integer(*command, "--words", options->words, "explicit word addresses, one per thread", 0)
          ->delimiter(',');
  auto* permutation_option =
      add_integer(*command, "--permutation", options->permutation_seed,
                  "a random 1:1 permutation of the request's words (the value seeds it)", 0);
  add_integer(*command, "--banks", options->banks, "16 (1.x) or 32 banks (default 32)", 16, 32)
      ->check(CLI::IsMember({16, 32}));
  add_integer(*command, "--threads", options->threads,
              "threads per request (default: 16 with 16 banks, 32 with 32)", 1, max_request_threads,
              max_threads_reason);
  command->add_flag("--json", options->json, "print JSON");
  stride_option->excludes(tile_option)->excludes(words_option)->excludes(permutation_option);
  tile_option->excludes(words_option)->excludes(permutation_option);
  words_option->excludes(permutation_option);
  offset_option->excludes(tile_option)->excludes(words_option);

  command->callback([options, permutation_option, &ctx] {
    run_reporting_errors(
        ctx, "banks",
        {{"threads", "--threads"},
         {"stride", "--stride"},
         {"offset", "--offset"},
         {"rows", "--tile"},
         {"cols", "--tile"},
         {"padding", "--padding"},
         {"row", "--row"},
         {"col", "--col"},
         {"word_addresses", "--words"}},
        [&] {
          const int threads =
              options->threads != 0 ? options->threads : (options->banks == 16 ? 16 : 32);
          std::vector<std::int64_t> addresses;
          std::string pattern;
          if (!options->tile.empty()) {
            const auto [rows, cols] = parse_tile(options->tile);
            const models::TileWalk walk{rows,
                                        cols,
                                        options->padding,
                                        options->walk == "row"
                                            ? models::TileWalk::Direction::row
                                            : models::TileWalk::Direction::column,
                                        options->row,
                                        options->col};
            addresses = models::tile_words(walk, threads);
            pattern = std::to_string(rows) + "x" + std::to_string(cols) + " tile (row pitch " +
                      std::to_string(std::int64_t{cols} + options->padding) + " words), " +
                      options->walk + " walk from (" + std::to_string(options->row) + ", " +
                      std::to_string(options->col) + ")";
          } else if (!options->words.empty()) {
            addresses = options->words;
            pattern = "explicit word addresses";
          } else if (permutation_option->count() > 0) {
            addresses = models::strided_words(threads, 1, options->offset);
            std::mt19937 generator(static_cast<unsigned>(options->permutation_seed));
            std::shuffle(addresses.begin(), addresses.end(), generator);
            pattern =
                "random 1:1 permutation (seed " + std::to_string(options->permutation_seed) + ")";
          } else {
            addresses = models::strided_words(threads, options->stride, options->offset);
            pattern = "linear addressing, stride " + std::to_string(options->stride);
          }
          const auto result = models::bank_conflicts(addresses, options->banks, threads);

          if (options->json) {
            ctx.out << json{{"model", "banks"},
                            {"pattern", pattern},
                            {"banks", result.banks},
                            {"threads_per_request", result.threads_per_request},
                            {"word_addresses", addresses},
                            {"degree", result.degree},
                            {"degree_per_request", result.degree_per_request},
                            {"words_per_bank", result.words_per_bank}}
                           .dump(2)
                    << '\n';
            return;
          }
          ctx.out << pattern << "; " << result.banks << " banks, " << result.threads_per_request
                  << " threads per request\n";
          ctx.out << "Bank conflicts: "
                  << (result.degree == 1 ? std::string("none (1 pass)")
                                         : std::to_string(result.degree) + "-way (" +
                                               std::to_string(result.degree) + " passes)")
                  << '\n';
          if (result.degree_per_request.size() > 1) {
            ctx.out << "Per request:";
            for (const int degree : result.degree_per_request) {
              ctx.out << ' ' << degree;
            }
            ctx.out << '\n';
          }
          if (result.degree > 1) {
            std::string busiest;
            for (std::size_t bank = 0; bank < result.words_per_bank.size(); ++bank) {
              if (result.words_per_bank[bank] == result.degree) {
                busiest += (busiest.empty() ? "" : ", ") + std::to_string(bank);
              }
            }
            ctx.out << "Busiest banks: " << busiest << " (" << result.degree
                    << " distinct words each)\n";
          }
        });
  });
}

// ---- coalescing ---------------------------------------------------------------------------------

struct CoalescingOptions {
  std::int64_t stride = 1;
  std::int64_t offset = 0;
  std::vector<std::string> addresses;
  std::string pattern;
  std::int64_t matrix_height = 2048;
  int element_bytes = 4;
  int threads = 0;
  bool json = false;
};

constexpr std::string_view naive_transpose_pattern = "transpose-naive-write";

// Thread t accesses element offset / element_bytes + t * step. An address past the model's range
// is reported against the option the user typed (`option`, whose value is `step`), not against
// the derived byte stride or the address list the model would see.
std::vector<models::ThreadAddress> strided_elements(int threads, std::int64_t offset,
                                                    std::int64_t step, int element_bytes,
                                                    const std::string& option) {
  namespace detail = models::detail;
  bool fits = true;
  std::int64_t stride_bytes = 0;
  std::int64_t last = 0;
  try {
    stride_bytes = detail::checked_mul(option, step, element_bytes);
    last =
        detail::checked_add(option, offset, detail::checked_mul(option, threads - 1, stride_bytes));
  } catch (const std::invalid_argument&) {
    fits = false;
  }
  if (!fits || last > models::max_byte_address) {
    usage_error(option, std::to_string(step) + " puts thread " + std::to_string(threads - 1) +
                            " past byte 2^62 - 1, the largest address modelled");
  }
  return models::strided_addresses(threads, offset, stride_bytes);
}

// The course's pictures ("Optimizing CUDA": "Coalescing" and "Coalescing in Transpose"; "Optimizing CUDA code": "Coalesced Transpose
// (5/11)") as named address patterns, in elements of element_bytes.
std::vector<models::ThreadAddress> pattern_addresses(const std::string& name, int threads,
                                                     int element_bytes, std::int64_t matrix_height,
                                                     std::string& description) {
  const std::int64_t size = element_bytes;
  if (name == "in-order") {
    description = "thread k reads element k of an aligned segment";
    return models::strided_addresses(threads, 0, size);
  }
  if (name == "out-of-sequence") {
    auto addresses = models::strided_addresses(threads, 0, size);
    if (threads > 2) {
      std::swap(addresses[1], addresses[2]);
    }
    description = "threads 1 and 2 swap their elements";
    return addresses;
  }
  if (name == "misaligned") {
    description = "in order, starting one element past an aligned segment";
    return models::strided_addresses(threads, size, size);
  }
  if (name == "crossing") {
    description = "in order, starting 4 elements before a 128-byte boundary";
    return models::strided_addresses(threads, 128 - 4 * size > 0 ? 128 - 4 * size : 128, size);
  }
  if (name == naive_transpose_pattern) {
    description = "naive transpose write: thread tx writes odata[y + height * tx], height " +
                  std::to_string(matrix_height);
    return strided_elements(threads, 0, matrix_height, element_bytes, "--matrix-height");
  }
  if (name == "transpose-coalesced-write") {
    description = "coalesced transpose write: thread tx writes odata[x0 + tx + height * y]";
    return models::strided_addresses(threads, 0, size);
  }
  usage_error("--pattern", "unknown '" + name +
                               "' (known: in-order, out-of-sequence, misaligned, crossing, "
                               "transpose-naive-write, transpose-coalesced-write)");
}

std::string transaction_sizes(const models::Coalescing& result) {
  std::map<int, int, std::greater<>> count_by_size;
  for (const auto& transaction : result.transactions) {
    ++count_by_size[transaction.bytes];
  }
  std::string text;
  for (const auto& [bytes, count] : count_by_size) {
    text +=
        (text.empty() ? "" : " + ") + std::to_string(count) + " x " + std::to_string(bytes) + " B";
  }
  return text.empty() ? "-" : text;
}

void add_coalescing(CLI::App& model, Context& ctx) {
  auto options = std::make_shared<CoalescingOptions>();
  auto* command = model.add_subcommand(
      "coalescing",
      "Global-memory transactions of one access under the 1.0/1.1, 1.2/1.3 and 32-byte-sector "
      "rules");
  auto* stride_option = add_integer(*command, "--stride", options->stride,
                                    "thread t accesses element t * stride (default 1; 0: all "
                                    "threads read one element, a broadcast)",
                                    0);
  auto* offset_option = add_integer(
      *command, "--offset", options->offset, "byte address of thread 0 for --stride (default 0)", 0,
      models::max_byte_address, "the largest address modelled, 2^62 - 1");
  auto* addresses_option =
      command
          ->add_option("--addresses", options->addresses,
                       "explicit byte addresses, one per thread; '-' = thread inactive")
          ->delimiter(',');
  auto* pattern_option =
      command->add_option("--pattern", options->pattern,
                          "in-order, out-of-sequence, misaligned, crossing, transpose-naive-write, "
                          "transpose-coalesced-write");
  auto* height_option =
      add_integer(*command, "--matrix-height", options->matrix_height,
                  "rows of the transposed matrix for transpose-naive-write (default 2048)", 1);
  add_integer(*command, "--element-size", options->element_bytes,
              "bytes per element: 1, 2, 4, 8 or 16 (default 4)", 1, 16)
      ->check(CLI::IsMember({1, 2, 4, 8, 16}));
  auto* threads_option = add_integer(*command, "--threads", options->threads,
                                     "threads issuing the access (default 16, a half-warp, for the "
                                     "named 1.x patterns; 32 otherwise)",
                                     1, max_request_threads, max_threads_reason);
  command->add_flag("--json", options->json, "print JSON");
  // Options that the chosen addresses do not use are errors, not silently ignored.
  stride_option->excludes(addresses_option)->excludes(pattern_option);
  addresses_option->excludes(pattern_option);
  offset_option->excludes(addresses_option)->excludes(pattern_option);
  threads_option->excludes(addresses_option);
  height_option->needs(pattern_option);

  command->callback([options, height_option, &ctx] {
    run_reporting_errors(
        ctx, "coalescing",
        {{"element_bytes", "--element-size"},
         {"threads", "--threads"},
         {"base", "--offset"},
         {"addresses", "--addresses"}},
        [&] {
          std::vector<models::ThreadAddress> thread_addresses;
          std::string description;
          if (!options->addresses.empty()) {
            for (const auto& text : options->addresses) {
              if (text == "-") {
                thread_addresses.emplace_back(std::nullopt);
                continue;
              }
              const auto value = parse_integer(text);
              if (!value) {
                usage_error("--addresses", "'" + text + "' is not a byte address or '-'");
              }
              thread_addresses.emplace_back(*value);
            }
            description = "explicit byte addresses";
          } else {
            if (height_option->count() > 0 && options->pattern != naive_transpose_pattern) {
              usage_error("--matrix-height",
                          "only --pattern " + std::string(naive_transpose_pattern) + " uses it");
            }
            if (options->offset % options->element_bytes != 0) {
              usage_error("--offset", std::to_string(options->offset) +
                                          " is not a multiple of --element-size " +
                                          std::to_string(options->element_bytes));
            }
            const bool seed_pattern =
                !options->pattern.empty() && options->pattern.rfind("transpose", 0) != 0;
            const int threads = options->threads != 0 ? options->threads : (seed_pattern ? 16 : 32);
            if (!options->pattern.empty()) {
              thread_addresses =
                  pattern_addresses(options->pattern, threads, options->element_bytes,
                                    options->matrix_height, description);
            } else {
              thread_addresses = strided_elements(threads, options->offset, options->stride,
                                                  options->element_bytes, "--stride");
              description = "thread t accesses byte " + std::to_string(options->offset) +
                            " + t * " + std::to_string(options->stride * options->element_bytes);
            }
          }

          json results = json::array();
          TextTable table({"rules", "threads/request", "transactions", "sizes", "bytes moved",
                           "bytes requested", "bytes used", "efficiency"});
          bool broadcast = false;
          for (const auto rules : {models::CoalescingRules::cc_1_0, models::CoalescingRules::cc_1_2,
                                   models::CoalescingRules::sectors}) {
            const auto result = models::coalescing(thread_addresses, options->element_bytes, rules);
            json transactions = json::array();
            for (const auto& transaction : result.transactions) {
              transactions.push_back(
                  {{"address", transaction.address}, {"bytes", transaction.bytes}});
            }
            results.push_back({{"rules", models::to_string(rules)},
                               {"threads_per_request", result.threads_per_request},
                               {"transactions", transactions},
                               {"bytes_requested", result.bytes_requested},
                               {"bytes_used", result.bytes_used},
                               {"bytes_transferred", result.bytes_transferred},
                               {"broadcast", result.broadcast},
                               {"efficiency", result.efficiency}});
            table.add(
                {std::string(models::to_string(rules)), std::to_string(result.threads_per_request),
                 std::to_string(result.transactions.size()), transaction_sizes(result),
                 std::to_string(result.bytes_transferred), std::to_string(result.bytes_requested),
                 std::to_string(result.bytes_used), percent(result.efficiency)});
            broadcast = result.broadcast;
          }
          json address_list = json::array();
          for (const auto& address : thread_addresses) {
            address_list.push_back(address ? json(*address) : json(nullptr));
          }
          if (options->json) {
            ctx.out << json{{"model", "coalescing"},
                            {"pattern", description},
                            {"element_bytes", options->element_bytes},
                            {"addresses", address_list},
                            {"results", results}}
                           .dump(2)
                    << '\n';
            return;
          }
          ctx.out << thread_addresses.size() << " threads, " << options->element_bytes
                  << "-byte elements: " << description << "\n\n";
          table.print(ctx.out);
          if (broadcast) {
            ctx.out << "\nBroadcast: every active thread reads the same " << options->element_bytes
                    << "-byte element: under the 1.2/1.3 and sector rules one transaction serves "
                       "each request (1.0/1.1 issue one per thread); efficiency counts the element "
                       "once.\n";
          }
        });
  });
}

// ---- divergence ---------------------------------------------------------------------------------

struct DivergenceOptions {
  std::int64_t n = 0;
  int block = 256;
  std::int64_t width = 0;
  int tile = 16;
  int warp = 32;
  bool json = false;
};

json count_json(const models::DivergenceCount& count) {
  return {{"divergent", count.divergent}, {"total", count.total}, {"fraction", count.fraction()}};
}

std::string count_text(const models::DivergenceCount& count) {
  return std::to_string(count.divergent) + " / " + std::to_string(count.total);
}

void add_divergence(CLI::App& model, Context& ctx) {
  auto options = std::make_shared<DivergenceOptions>();
  auto* command = model.add_subcommand(
      "divergence", "Warps (or warp-phases) whose threads take both sides of a boundary check; "
                    "without options, the course's two analyses");
  auto* n_option =
      add_integer(*command, "--n", options->n, "1D: elements checked by if (i < n)", 0);
  // --block and --tile only shape their own analysis: alone they would be silently ignored.
  add_integer(*command, "--block", options->block, "1D: threads per block (default 256)", 1)
      ->needs(n_option);
  auto* width_option =
      add_integer(*command, "--width", options->width, "tiled matmul: matrix width (square)", 1);
  add_integer(*command, "--tile", options->tile, "tiled matmul: tile width (default 16)", 1, 1024,
              "the model's largest tile")
      ->needs(width_option);
  add_integer(*command, "--warp", options->warp, "threads per warp (default 32)", 1);
  command->add_flag("--json", options->json, "print JSON");

  command->callback([options, n_option, width_option, &ctx] {
    run_reporting_errors(
        ctx, "divergence",
        {{"n", "--n"},
         {"block_size", "--block"},
         {"width", "--width"},
         {"tile_width", "--tile"},
         {"warp_size", "--warp"}},
        [&] {
          // The course's cases (UCAS lecture 3): vector add of 1,000 elements in 256-thread blocks, and the
          // tile loads of a 100 x 100 matrix multiplication with 16 x 16 tiles.
          const bool seeds = n_option->count() == 0 && width_option->count() == 0;
          json document{{"model", "divergence"}};
          if (seeds || n_option->count() > 0) {
            const std::int64_t elements = seeds ? 1000 : options->n;
            const int block = seeds ? 256 : options->block;
            const auto count = models::boundary_check_divergence(elements, block, options->warp);
            if (options->json) {
              document["boundary_check"] = {{"n", elements},
                                            {"block_size", block},
                                            {"warp_size", options->warp},
                                            {"warps", count_json(count)}};
            } else {
              ctx.out << "1D boundary check if (i < n): n = " << elements << ", " << block
                      << "-thread blocks, " << options->warp << "-thread warps\n";
              ctx.out << "  divergent warps: " << count_text(count) << " ("
                      << percent(count.fraction()) << ")\n";
            }
          }
          if (seeds || width_option->count() > 0) {
            const std::int64_t matrix = seeds ? 100 : options->width;
            const int tile = seeds ? 16 : options->tile;
            const auto result = models::tiled_matmul_divergence(matrix, tile, options->warp);
            if (options->json) {
              document["tiled_matmul"] = {{"width", matrix},
                                          {"tile_width", tile},
                                          {"warp_size", options->warp},
                                          {"blocks", result.blocks},
                                          {"phases", result.phases},
                                          {"warps_per_block", result.warps_per_block},
                                          {"m_tile", count_json(result.m_tile)},
                                          {"m_tile_type1", count_json(result.m_tile_type1)},
                                          {"m_tile_type2", count_json(result.m_tile_type2)},
                                          {"n_tile", count_json(result.n_tile)},
                                          {"either", count_json(result.either)}};
            } else {
              if (seeds) {
                ctx.out << '\n';
              }
              ctx.out << "Tiled matrix multiplication tile loads: " << matrix << " x " << matrix
                      << ", " << tile << " x " << tile << " tiles: " << result.blocks
                      << " blocks x " << result.warps_per_block << " warps x " << result.phases
                      << " phases\n\n";
              TextTable table({"load", "divergent warp-phases", "fraction"});
              table.add({"M tile, Type 1 blocks (rows inside)", count_text(result.m_tile_type1),
                         percent(result.m_tile_type1.fraction())});
              table.add({"M tile, Type 2 blocks (rows outside)", count_text(result.m_tile_type2),
                         percent(result.m_tile_type2.fraction())});
              table.add({"M tile, all blocks", count_text(result.m_tile),
                         percent(result.m_tile.fraction())});
              table.add({"N tile, all blocks", count_text(result.n_tile),
                         percent(result.n_tile.fraction())});
              table.add({"M or N", count_text(result.either), percent(result.either.fraction())});
              table.print(ctx.out);
              if (seeds) {
                ctx.out << "\nThe course divides the same 350 divergent warp-phases by 2,944 and by "
                           "2,352 + 14; the grid has "
                        << result.m_tile.total << " warp-phases, so the exact fraction is "
                        << percent(result.m_tile.fraction())
                        << " (above the course's \"less than 12%\").\n";
              }
            }
          }
          if (options->json) {
            ctx.out << document.dump(2) << '\n';
          }
        });
  });
}

// ---- tiling -------------------------------------------------------------------------------------

struct TilingOptions {
  std::vector<int> tiles_1d{16, 32, 64, 128, 256};
  std::vector<int> tiles_2d{8, 16, 32, 64};
  std::vector<int> tiles;
  std::vector<int> masks{5, 9};
  std::string dims = "both";
  std::int64_t width = 0;
  std::int64_t height = 0;
  bool json = false;
};

void add_tiling(CLI::App& model, Context& ctx) {
  auto options = std::make_shared<TilingOptions>();
  auto* command = model.add_subcommand(
      "tiling", "Global-memory bandwidth reduction of tiled 1D and 2D convolution");
  add_integer(*command, "--tiles", options->tiles,
              "output tile widths (default: the course's, 16..256 in 1D, 8..64 in 2D)", 1)
      ->delimiter(',');
  add_integer(*command, "--masks", options->masks, "mask widths (default 5,9)", 1)->delimiter(',');
  command->add_option("--dims", options->dims, "1, 2 or both (default)")
      ->check(CLI::IsMember({"1", "2", "both"}));
  auto* width_option =
      add_integer(*command, "--width", options->width,
                  "also count exactly for an array this wide (ghost cells not loaded)", 1);
  add_integer(*command, "--height", options->height, "2D: rows of that array (default: --width)", 1)
      ->needs(width_option);
  command->add_flag("--json", options->json, "print JSON");

  command->callback([options, &ctx] {
    run_reporting_errors(
        ctx, "tiling",
        {{"output_tile", "--tiles"},
         {"mask_width", "--masks"},
         {"width", "--width"},
         {"height", "--height"},
         {"width and height", "--width and --height"}},
        [&] {
          json document{{"model", "tiling"}};
          for (const int dims : {1, 2}) {
            if (options->dims != "both" && options->dims != std::to_string(dims)) {
              continue;
            }
            const auto& tiles = !options->tiles.empty() ? options->tiles
                                : dims == 1             ? options->tiles_1d
                                                        : options->tiles_2d;
            std::vector<std::string> header{"O_TILE_WIDTH"};
            for (const int tile : tiles) {
              header.push_back(std::to_string(tile));
            }
            TextTable table(header);
            TextTable exact(header);
            json rows = json::array();
            for (const int mask : options->masks) {
              std::vector<std::string> row{"MASK_WIDTH = " + std::to_string(mask)};
              std::vector<std::string> exact_row{row.front()};
              for (const int tile : tiles) {
                const double reduction = dims == 1
                                             ? models::convolution_tiling_reduction_1d(tile, mask)
                                             : models::convolution_tiling_reduction_2d(tile, mask);
                json entry{{"output_tile", tile}, {"mask_width", mask}, {"reduction", reduction}};
                row.push_back(fixed(reduction, 1));
                if (options->width > 0) {
                  const auto traffic =
                      dims == 1
                          ? models::convolution_tiling_traffic_1d(options->width, tile, mask)
                          : models::convolution_tiling_traffic_2d(
                                options->width,
                                options->height > 0 ? options->height : options->width, tile, mask);
                  entry["exact"] = {{"untiled_loads", traffic.untiled_loads},
                                    {"tiled_loads", traffic.tiled_loads},
                                    {"reduction", traffic.reduction}};
                  exact_row.push_back(fixed(traffic.reduction, 2));
                }
                rows.push_back(entry);
              }
              table.add(row);
              exact.add(exact_row);
            }
            const std::string key = dims == 1 ? "1d" : "2d";
            document[key] = rows;
            if (options->json) {
              continue;
            }
            if (dims == 2 && options->dims == "both") {
              ctx.out << '\n';
            }
            ctx.out << (dims == 1
                            ? "1D: O_TILE_WIDTH * MASK_WIDTH / (O_TILE_WIDTH + MASK_WIDTH - 1)"
                            : "2D: O_TILE_WIDTH^2 * MASK_WIDTH^2 / (O_TILE_WIDTH + "
                              "MASK_WIDTH - 1)^2")
                    << "  (internal tiles, ghost cells ignored)\n";
            table.print(ctx.out);
            if (options->width > 0) {
              ctx.out << "\nExact for a " << options->width;
              if (dims == 2) {
                ctx.out << " x " << (options->height > 0 ? options->height : options->width);
              }
              ctx.out << " array (edge tiles skip ghost cells; the untiled kernel skips "
                         "out-of-range taps)\n";
              exact.print(ctx.out);
            }
          }
          if (options->json) {
            ctx.out << document.dump(2) << '\n';
          }
        });
  });
}


// ---- matmul ------------------------------------------------------------------------------------

struct MatmulOptions {
  std::string size = "4096";
  int tile = 16;
  int coarse = 4;
  std::string gpu;
  bool json = false;
};

void add_matmul(CLI::App& model, Context& ctx) {
  auto options = std::make_shared<MatmulOptions>();
  auto* command = model.add_subcommand(
      "matmul", "Global traffic and arithmetic intensity of the matmul ladder's kernels (basic, tiled, "
                "coarsened), and the FLOP/s a GPU's bandwidth allows each");
  command->add_option("--size", options->size, "MxNxK, or N for a cube (default 4096)");
  add_integer(*command, "--tile", options->tile, "TILE_WIDTH (default 16)", 1, 1024);
  add_integer(*command, "--coarse", options->coarse, "COARSE_FACTOR (default 4)", 1, 1024);
  command->add_option("--gpu", options->gpu, "also the bandwidth-bound FLOP/s on this GPU of the table (e.g. h200)");
  command->add_flag("--json", options->json, "print JSON");
  command->callback([options, &ctx] {
    run_reporting_errors(ctx, "matmul", {{"tile", "--tile"}, {"coarse_factor", "--coarse"}, {"gpu", "--gpu"}}, [&] {
      const lab::Extent3d e = lab::parse_extent3(options->size, "--size");
      const auto levels = models::matmul_traffic(e.m, e.n, e.k, options->tile, options->coarse);
      std::optional<double> bandwidth_gbs;
      std::string gpu_name;
      if (!options->gpu.empty()) {
        const auto& gpu = models::find_gpu(options->gpu);
        bandwidth_gbs = models::theoretical_bandwidth(gpu.memory).gb_per_second;
        gpu_name = std::string(gpu.name);
      }
      json rows = json::array();
      std::vector<std::string> header{"kernel", "loads of A", "loads of B", "global traffic", "FLOP/B"};
      if (bandwidth_gbs)
        header.push_back("bandwidth-bound TFLOP/s");
      TextTable table(header);
      for (const auto& t : levels) {
        json row{{"kernel", t.kernel}, {"loads_a", t.loads_a}, {"loads_b", t.loads_b}, {"stores", t.stores},
                 {"bytes", t.bytes}, {"flops", t.flops}, {"intensity", t.intensity}};
        std::vector<std::string> cells{std::string(t.kernel), std::to_string(t.loads_a), std::to_string(t.loads_b),
                                       fixed(t.bytes / 1e9, 2) + " GB", fixed(t.intensity, 2)};
        if (bandwidth_gbs) {
          const double bound = t.intensity * *bandwidth_gbs * 1e9;
          row["bandwidth_bound_flops"] = bound;
          cells.push_back(fixed(bound / 1e12, 1));
        }
        rows.push_back(row);
        table.add(cells);
      }
      if (options->json) {
        ctx.out << json{{"model", "matmul"}, {"m", e.m}, {"n", e.n}, {"k", e.k}, {"tile", options->tile},
                        {"coarse_factor", options->coarse}, {"levels", rows}}
                       .dump(2)
                << '\n';
        return;
      }
      ctx.out << "C = A B, " << lab::extent3_label(e) << " float, TILE_WIDTH " << options->tile << ", COARSE_FACTOR "
              << options->coarse << ": " << fixed(levels.front().flops / 1e9, 1) << " GFLOP; compulsory traffic "
              << fixed(4.0 * (static_cast<double>(e.m * e.k + e.k * e.n + e.m * e.n)) / 1e9, 3) << " GB\n";
      table.print(ctx.out);
      if (bandwidth_gbs)
        ctx.out << "\nbandwidth-bound = FLOP/B x " << fixed(*bandwidth_gbs, 0) << " GB/s (" << gpu_name
                << ", theoretical); caches cut the real traffic of the basic kernel far below its count\n";
    });
  });
}

} // namespace

void add_model_command(CLI::App& app, Context& ctx) {
  auto* model = app.add_subcommand(
      "model", "The course's performance models: bandwidth, occupancy, banks, coalescing, "
               "divergence, tiling (host-only)");
  model->require_subcommand(1);
  add_bandwidth(*model, ctx);
  add_occupancy(*model, ctx);
  add_banks(*model, ctx);
  add_coalescing(*model, ctx);
  add_divergence(*model, ctx);
  add_tiling(*model, ctx);
  add_matmul(*model, ctx);
}

} // namespace ladder::cli
