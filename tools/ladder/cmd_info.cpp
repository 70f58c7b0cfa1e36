#include "commands.hpp"
#include "session.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <ostream>

namespace ladder::cli {

std::string describe_device(const DeviceInfo& d) {
  char text[512];
  std::snprintf(text, sizeof text,
                "%s (compute capability %d.%d, %d SMs, L2 %.1f MB, %.1f GB memory, "
                "%d-bit bus at %.0f MHz)",
                d.name.c_str(), d.compute_major, d.compute_minor, d.multiprocessors,
                d.l2_bytes / 1e6, d.global_memory_bytes / 1e9, d.memory_bus_width_bits,
                d.memory_clock_khz / 1e3);
  return text;
}

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

void add_info_command(CLI::App& app, Context& ctx) {
  auto* info = app.add_subcommand("info", "The device, its theoretical and measured peak bandwidth");
  info->callback([&ctx] {
    if (!require_device(ctx, "info"))
      return;
    const DeviceInfo d = current_device_info();
    lab::Stream stream;
    const std::size_t bytes = peak_copy_bytes(d, false);
    const double measured = lab::measure_copy_bandwidth_gbs(bytes, stream, {});
    char line[256];
    ctx.out << "device:              " << describe_device(d) << "\n";
    std::snprintf(line, sizeof line,
                  "theoretical peak:    %.1f GB/s (memory clock x bus width x 2)\n"
                  "measured peak:       %.1f GB/s (device-to-device cudaMemcpy of %.2f GB, read + "
                  "write, median)\n"
                  "measured/theoretical: %.1f%%\n",
                  d.theoretical_bandwidth_gbs(), measured, bytes / 1e9,
                  100.0 * measured / d.theoretical_bandwidth_gbs());
    ctx.out << line;
  });
}

} // namespace ladder::cli
