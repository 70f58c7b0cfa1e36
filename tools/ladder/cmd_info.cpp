#include "commands.hpp"
#include "session.hpp"

#include "core/peaks.hpp"
#include "core/report.hpp"
#include "core/text_table.hpp"

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
  auto* info = app.add_subcommand(
      "info", "The device and the peaks that bound the studies, theoretical and measured");
  info->callback([&ctx] {
    if (!require_device(ctx, "info"))
      return;
    const DeviceInfo d = current_device_info();
    ctx.out << "device: " << describe_device(d) << "\n";
    lab::TextTable table(
        {"bound", "measured", "theoretical", "measured / theoretical", "measured by"}, 1);
    for (const lab::Bound bound : {lab::Bound::dram_copy, lab::Bound::dram_read,
                                   lab::Bound::fp32_fma, lab::Bound::host_link}) {
      const lab::Peak p = lab::measure_peak(bound, d, {}, false);
      const auto scale = lab::throughput_scale(lab::unit_of(bound), p.reference());
      const bool has_theory = p.theoretical > 0;
      table.add({std::string(lab::bound_name(bound)),
                 lab::format_fixed(p.measured / scale.divisor, 1) + " " + scale.header,
                 has_theory
                     ? lab::format_fixed(p.theoretical / scale.divisor, 1) + " " + scale.header
                     : "-",
                 has_theory ? lab::format_fixed(100.0 * p.measured / p.theoretical, 1, "%") : "-",
                 p.measured_by});
    }
    table.print(ctx.out);
  });
}

} // namespace ladder::cli
