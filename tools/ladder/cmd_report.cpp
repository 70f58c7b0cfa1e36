// `ladder report RUN.json [MORE.json ...] -o report.html`: one self-contained page from the JSON
// of one or more runs (no GPU needed). `ladder run --report FILE` writes the same at the end.
#include "commands.hpp"

#include "core/html_report.hpp"

#include <fstream>
#include <memory>
#include <ostream>
#include <stdexcept>

namespace ladder::cli {

namespace {

struct ReportArgs {
  std::vector<std::string> inputs;
  std::string output;
};

void write_report(const std::vector<lab::RunDocument>& runs, std::ofstream& file,
                  const std::string& path) {
  file << lab::render_html_report(runs);
  file.flush();
  if (!file)
    throw std::runtime_error("failed writing '" + path + "'");
}

} // namespace

void add_report_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ReportArgs>();
  auto* report = app.add_subcommand(
      "report", "One self-contained HTML page (charts, course tables, summary) from "
                "the JSON of one or more runs; several runs side by side");
  report->add_option("runs", args->inputs, "JSON files written by `ladder run --json`")->required();
  report->add_option("-o,--output", args->output, "The HTML file to write")
      ->required()
      ->type_name("FILE");
  report->callback([args, &ctx] {
    std::vector<lab::RunDocument> runs;
    for (const auto& path : args->inputs)
      runs.push_back(lab::read_run_document(path));
    std::ofstream file(args->output, std::ios::binary);
    if (!file)
      throw std::invalid_argument("--output: cannot open '" + args->output + "' for writing");
    write_report(runs, file, args->output);
    ctx.out << "wrote " << args->output << "\n";
  });
}

} // namespace ladder::cli
