#include "commands.hpp"
#include "session.hpp"

#include "core/study.hpp"

#include <fstream>
#include <iostream>
#include <ostream>
#include <stdexcept>

namespace ladder::cli {

namespace {

struct RunArgs {
  std::vector<std::string> studies;
  std::vector<std::string> sizes;
  int repetitions = 0;
  int warmups = 3;
  bool small = false;
  bool flush_l2 = false;
  bool quiet = false;
  std::string json_path, csv_path, markdown_path;
  std::vector<std::string> command_line;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  if (!file)
    throw std::invalid_argument("cannot open '" + path + "' for writing");
  file << text;
  if (!file)
    throw std::runtime_error("failed writing '" + path + "'");
}

void execute(const RunArgs& args, Context& ctx) {
  std::vector<const lab::Study*> selected;
  for (const auto& name : args.studies) {
    const lab::Study* study = lab::find_study(name);
    if (!study) {
      std::string known;
      for (const auto& s : lab::studies())
        known += (known.empty() ? "" : ", ") + std::string(s.name);
      throw std::invalid_argument("unknown study '" + name + "' (known: " + known + ")");
    }
    selected.push_back(study);
  }
  if (selected.empty())
    for (const auto& s : lab::studies())
      selected.push_back(&s);
  if (!args.sizes.empty() && args.studies.size() != 1)
    throw std::invalid_argument("--size needs exactly one study named (sizes mean different things per study)");
  if (!require_device(ctx, "run"))
    return;

  lab::RunContext run;
  run.options.sizes = args.sizes;
  run.options.small = args.small;
  run.options.timing.repetitions = args.repetitions;
  run.options.timing.warmups = args.warmups;
  run.options.timing.flush_l2 = args.flush_l2;
  run.device = current_device_info();
  run.progress = args.quiet ? nullptr : &ctx.err;
  const std::string started = utc_timestamp();
  {
    lab::Stream stream;
    run.say("ladder: measuring the peak (device-to-device cudaMemcpy) on " + run.device.name);
    run.measured_peak_gbs = lab::measure_copy_bandwidth_gbs(peak_copy_bytes(run.device, args.small),
                                                            stream, run.options.timing);
  }

  ctx.out << "device: " << describe_device(run.device) << "\n";
  char peaks[200];
  std::snprintf(peaks, sizeof peaks, "peak bandwidth: measured %.1f GB/s, theoretical %.1f GB/s\n\n",
                run.measured_peak_gbs, run.device.theoretical_bandwidth_gbs());
  ctx.out << peaks << std::flush;

  nlohmann::json tables_json = nlohmann::json::array();
  std::string markdown = "# ladder run\n\n- device: " + describe_device(run.device) +
                         "\n- date: " + started + "\n- " + peaks + "\n";
  std::string csv;
  bool any_wrong = false;
  for (const lab::Study* study : selected) {
    run.say("ladder: running " + std::string(study->name));
    for (const lab::Table& table : study->run(run)) {
      ctx.out << lab::format_text(table) << "\n" << std::flush;
      markdown += lab::format_markdown(table);
      csv += lab::format_csv(table, csv.empty());
      tables_json.push_back(lab::to_json(table));
      for (const auto& row : table.rows)
        any_wrong = any_wrong || row.check == lab::CheckStatus::wrong;
    }
  }
  if (!args.json_path.empty()) {
    const auto& d = run.device;
    nlohmann::json doc = {
        {"ladder_version", "0.1.0"},
        {"date", started},
        {"command", args.command_line},
        {"device",
         {{"name", d.name},
          {"compute_capability", std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)},
          {"multiprocessors", d.multiprocessors},
          {"l2_bytes", d.l2_bytes},
          {"global_memory_bytes", d.global_memory_bytes},
          {"memory_clock_khz", d.memory_clock_khz},
          {"memory_bus_width_bits", d.memory_bus_width_bits},
          {"theoretical_bandwidth_gbs", d.theoretical_bandwidth_gbs()}}},
        {"measured_peak_gbs", run.measured_peak_gbs},
        {"tables", tables_json}};
    write_file(args.json_path, doc.dump(2) + "\n");
  }
  if (!args.csv_path.empty())
    write_file(args.csv_path, csv);
  if (!args.markdown_path.empty())
    write_file(args.markdown_path, markdown);
  if (any_wrong) {
    ctx.err << "ladder run: at least one rung produced a WRONG result (see the check column)\n";
    ctx.exit_code = exit_wrong_result;
  }
}

} // namespace

void add_run_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<RunArgs>();
  auto* run = app.add_subcommand("run", "Check and time every rung of the named studies (all when none)");
  run->add_option("studies", args->studies, "Studies to run (see `ladder list`); default: all");
  run->add_option("-s,--size", args->sizes,
                  "Problem size(s), study-specific (transpose: ROWSxCOLS); repeatable")
      ->delimiter(',');
  run->add_option("-r,--reps", args->repetitions,
                  "Timed repetitions per rung (default: as many as fit a 0.4 s budget, 20..200)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--warmups", args->warmups, "Untimed launches before timing")
      ->check(CLI::NonNegativeNumber);
  run->add_flag("--small", args->small, "Small sizes only (smoke tests, sanitizers)");
  run->add_flag("--flush-l2", args->flush_l2, "Overwrite the L2 before every timed launch");
  run->add_flag("-q,--quiet", args->quiet, "No progress on stderr");
  run->add_option("--json", args->json_path, "Write the results as JSON to this file");
  run->add_option("--csv", args->csv_path, "Write the results as CSV to this file");
  run->add_option("--markdown", args->markdown_path, "Write the tables as Markdown to this file");
  run->callback([args, &ctx, run] {
    args->command_line = {"ladder", "run"};
    for (const auto& s : args->studies)
      args->command_line.push_back(s);
    execute(*args, ctx);
  });
}

} // namespace ladder::cli
