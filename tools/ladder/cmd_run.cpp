// `ladder run [study ...]`: check and time the story of every named study (all when none), with
// the library call and the vendor beside it, then a one-screen summary. `ladder tune STUDY`: the
// same for one study with every tuning variant shown.
//
// Everything the user typed is checked before the device is touched: the studies, the sizes (by
// the study's own parser), the integer options, and the output files (opened, not yet written).
#include "commands.hpp"
#include "options.hpp"
#include "session.hpp"

#include "core/html_report.hpp"
#include "core/peaks.hpp"
#include "core/report.hpp"
#include "core/study.hpp"

#include <cuda_runtime.h>

#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>

namespace ladder::cli {

namespace {

struct RunArgs {
  std::vector<std::string> studies;
  std::vector<std::string> sizes;
  std::vector<std::string> rungs;
  std::string image;
  int repetitions = 0;
  int warmups = 3;
  bool small = false;
  bool all = false;
  bool tune = false; // `ladder tune`: the variants, and each rung's shapes side by side
  bool flush_l2 = false;
  bool quiet = false;
  std::string json_path, csv_path, markdown_path, report_path;
  std::vector<std::string> command_line;
};

// An output file opened before any work, so a typo costs nothing; written at the end.
class OutputFile {
public:
  OutputFile(const std::string& path, const char* option) : path_(path) {
    if (path.empty())
      return;
    file_.emplace(path, std::ios::binary);
    if (!*file_)
      throw std::invalid_argument(std::string(option) + ": cannot open '" + path + "' for writing");
  }
  void write(const std::string& text) {
    if (!file_)
      return;
    *file_ << text;
    file_->flush();
    if (!*file_)
      throw std::runtime_error("failed writing '" + path_ + "'");
  }

private:
  std::string path_;
  std::optional<std::ofstream> file_;
};

std::vector<const lab::Study*> select_studies(const RunArgs& args) {
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
      if (s.not_in_default_run.empty())
        selected.push_back(&s);
  if (!args.sizes.empty()) {
    if (args.studies.size() != 1)
      throw std::invalid_argument(
          "--size needs exactly one study named (sizes mean different things per study; "
          "e.g. ladder run transpose -s 4096x4096)");
    for (const auto& size : args.sizes)
      selected.front()->check_size(size);
  }
  if (!args.rungs.empty()) {
    if (args.studies.size() != 1)
      throw std::invalid_argument("--rungs needs exactly one study named (e.g. ladder tune "
                                  "convolution --rungs 'row_reuse*')");
    const std::vector<lab::RungInfo> rungs = selected.front()->rungs();
    for (const auto& pattern : args.rungs) {
      bool any = false;
      for (const auto& rung : rungs)
        any = any || lab::rung_selected({pattern}, rung.name);
      if (!any)
        throw std::invalid_argument("--rungs: '" + pattern + "' names no rung of " +
                                    std::string(selected.front()->name) +
                                    " (see ladder list; NAME* matches a prefix)");
    }
  }
  if (!args.image.empty()) {
    std::string takers;
    for (const auto& s : lab::studies())
      if (s.check_image)
        takers += (takers.empty() ? "" : ", ") + std::string(s.name);
    if (args.studies.size() != 1 || !selected.front()->check_image)
      throw std::invalid_argument("--image needs exactly one study named that takes a picture (" +
                                  takers + "); e.g. ladder run convolution --image photo.png");
    selected.front()->check_image(args.image);
  }
  return selected;
}

// CUDA's version numbers (13000 = 13.0) as text; "unknown" when the query failed.
std::string cuda_version(cudaError_t status, int version) {
  if (status != cudaSuccess || version <= 0)
    return "unknown";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

nlohmann::json device_json(const DeviceInfo& d) {
  // Queried first: a function's arguments are evaluated in no set order.
  int driver = 0, runtime = 0;
  const cudaError_t driver_status = cudaDriverGetVersion(&driver);
  const cudaError_t runtime_status = cudaRuntimeGetVersion(&runtime);
  return {{"name", d.name},
          {"driver_version", cuda_version(driver_status, driver)},
          {"runtime_version", cuda_version(runtime_status, runtime)},
          {"compute_capability",
           std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)},
          {"multiprocessors", d.multiprocessors},
          {"sm_clock_khz", d.sm_clock_khz},
          {"l2_bytes", d.l2_bytes},
          {"global_memory_bytes", d.global_memory_bytes},
          {"memory_clock_khz", d.memory_clock_khz},
          {"memory_bus_width_bits", d.memory_bus_width_bits},
          {"pci_bus_id", d.pci_bus_id}};
}

void execute(const RunArgs& args, Context& ctx) {
  const std::vector<const lab::Study*> selected = select_studies(args);
  OutputFile json_file(args.json_path, "--json"), csv_file(args.csv_path, "--csv"),
      markdown_file(args.markdown_path, "--markdown"), report_file(args.report_path, "--report");
  if (!require_device(ctx, "run"))
    return;

  lab::RunContext run;
  run.options.sizes = args.sizes;
  run.options.image = args.image;
  run.options.small = args.small;
  run.options.all = args.all;
  run.options.rungs = args.rungs;
  run.options.timing.repetitions = args.repetitions;
  run.options.timing.warmups = args.warmups;
  run.options.timing.flush_l2 = args.flush_l2;
  run.device = current_device_info();
  run.progress = args.quiet ? nullptr : &ctx.err;
  run.measure_peak = [&run](lab::Bound bound) {
    return lab::measure_peak(bound, run.device, run.options.timing, run.options.small);
  };
  const std::string started = utc_timestamp();
  ctx.out
      << "device: " << describe_device(run.device) << "\n"
      << "every rung is checked against a CPU reference before it is timed; times are medians\n";
  if (args.studies.empty())
    for (const auto& s : lab::studies())
      if (!s.not_in_default_run.empty())
        ctx.out << "not run by default: " << s.name << ": " << s.not_in_default_run << "\n";
  ctx.out << "\n" << std::flush;

  nlohmann::json studies_json = nlohmann::json::array();
  std::string markdown =
      "# ladder run\n\n- device: " + describe_device(run.device) + "\n- date: " + started + "\n\n";
  std::string csv;
  std::vector<lab::SummaryLine> summary;
  for (const lab::Study* study : selected) {
    run.say("ladder: running " + std::string(study->name));
    const lab::StudyResults results = study->run(run);
    ctx.out << "#### " << study->name << ": " << study->title << "\n\n";
    markdown += "## " + std::string(study->name) + ": " + std::string(study->title) + "\n\n";
    nlohmann::json tables = nlohmann::json::array(), sweeps = nlohmann::json::array();
    for (const lab::Table& table : results.tables) {
      ctx.out << lab::format_text(table) << "\n";
      if (args.tune)
        ctx.out << lab::format_tuning_text(table);
      ctx.out << std::flush;
      markdown += lab::format_markdown(table);
      csv += lab::format_csv(table, csv.empty());
      tables.push_back(lab::to_json(table));
    }
    for (const lab::Sweep& sweep : results.sweeps) {
      ctx.out << lab::format_text(sweep) << "\n" << std::flush;
      markdown += lab::format_markdown(sweep);
      sweeps.push_back(lab::to_json(sweep));
    }
    summary.push_back(lab::summarize(std::string(study->name), results));
    studies_json.push_back({{"name", study->name},
                            {"title", study->title},
                            {"course", study->course},
                            {"tables", tables},
                            {"sweeps", sweeps},
                            {"summary", lab::to_json(summary.back())}});
  }
  ctx.out << lab::format_summary_text(summary) << std::flush;
  markdown += lab::format_summary_markdown(summary);

  nlohmann::json summary_json = nlohmann::json::array();
  for (const auto& line : summary)
    summary_json.push_back(lab::to_json(line));
  const nlohmann::json document{{"ladder_version", "0.2.0"},    {"date", started},
                                {"command", args.command_line}, {"device", device_json(run.device)},
                                {"studies", studies_json},      {"summary", summary_json}};
  json_file.write(document.dump(2) + "\n");
  report_file.write(
      lab::render_html_report({{args.json_path.empty() ? "this run" : args.json_path, document}}));
  csv_file.write(csv);
  markdown_file.write(markdown);
  int wrong = 0;
  for (const auto& line : summary)
    wrong += line.wrong;
  if (wrong > 0) {
    ctx.err << "ladder run: " << wrong
            << " rung(s) produced a WRONG result (see the check column)\n";
    ctx.exit_code = exit_wrong_result;
  }
}

void add_common_options(CLI::App* cmd, RunArgs& args) {
  cmd->add_option(
         "-s,--size", args.sizes,
         "Problem size, study-specific (transpose ROWSxCOLS; reduce and scan N, 2^K or 4Mi); "
         "one value per flag, or a comma list; needs exactly one study")
      ->allow_extra_args(false)
      ->delimiter(',');
  add_integer(*cmd, "-r,--reps", args.repetitions,
              "Timed repetitions per rung (default 0: as many as fit a 0.4 s budget, 20..200)", 0,
              1000000);
  add_integer(*cmd, "--warmups", args.warmups, "Untimed launches before timing (default 3)", 0,
              1000000);
  cmd->add_option("--image", args.image,
                  "A picture (PNG) as the input of a study that takes one (convolution); needs "
                  "exactly one study")
      ->type_name("FILE");
  cmd->add_option("--rungs", args.rungs,
                  "Only these rungs (names as `ladder list` shows them, NAME* for a prefix; one "
                  "value per flag, or a comma list), with the library call and the references "
                  "beside them; needs exactly one study")
      ->allow_extra_args(false)
      ->delimiter(',');
  cmd->add_flag("--small", args.small, "Small sizes only (smoke tests, sanitizers)");
  cmd->add_flag("--flush-l2", args.flush_l2, "Overwrite the L2 before every timed launch");
  cmd->add_flag("-q,--quiet", args.quiet, "No progress on stderr");
  cmd->add_option("--json", args.json_path, "Write the results as JSON to this file")
      ->type_name("FILE");
  cmd->add_option("--csv", args.csv_path, "Write the results as CSV to this file")
      ->type_name("FILE");
  cmd->add_option("--markdown", args.markdown_path, "Write the tables as Markdown to this file")
      ->type_name("FILE");
  cmd->add_option("--report", args.report_path, "Write the self-contained HTML report to this file")
      ->type_name("FILE");
}

std::vector<std::string> command_line(const char* verb, const RunArgs& args) {
  std::vector<std::string> line = {"ladder", verb};
  line.insert(line.end(), args.studies.begin(), args.studies.end());
  for (const auto& s : args.sizes)
    line.insert(line.end(), {"--size", s});
  for (const auto& r : args.rungs)
    line.insert(line.end(), {"--rungs", r});
  if (!args.image.empty())
    line.insert(line.end(), {"--image", args.image});
  if (args.all)
    line.push_back("--all");
  if (args.small)
    line.push_back("--small");
  return line;
}

} // namespace

void add_run_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<RunArgs>();
  auto* run =
      app.add_subcommand("run", "Check and time the story of every named study (all when none), "
                                "the library call and the vendor beside it, then a summary");
  run->add_option("studies", args->studies, "Studies to run (see `ladder list`); default: all");
  add_common_options(run, *args);
  run->add_flag("--all", args->all, "Show the tuning variants too (and the extra cases)");
  run->callback([args, &ctx] {
    args->command_line = command_line("run", *args);
    execute(*args, ctx);
  });

  auto tune_args = std::make_shared<RunArgs>();
  auto* tune = app.add_subcommand(
      "tune", "One study with every tuning variant: each shape's typed parameters "
              "are in the JSON (the same as `ladder run STUDY --all`)");
  tune->add_option("study", tune_args->studies, "The study to tune (see `ladder list`)")
      ->required()
      ->expected(1);
  add_common_options(tune, *tune_args);
  tune->callback([tune_args, &ctx] {
    tune_args->all = true;
    tune_args->tune = true;
    tune_args->command_line = command_line("tune", *tune_args);
    execute(*tune_args, ctx);
  });
}

} // namespace ladder::cli
