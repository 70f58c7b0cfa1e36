// `ladder list`: every study and rung with its one-line idea (no GPU needed).
// `ladder list --resources [--json FILE]`: each rung's registers, shared memory and occupancy from
// the CUDA occupancy API beside the occupancy model's prediction (resources.cpp; needs a GPU).
#include "commands.hpp"
#include "resources.hpp"

#include "core/study.hpp"

#include <fstream>
#include <memory>
#include <ostream>
#include <stdexcept>

namespace ladder::cli {
namespace {

struct ListArgs {
  bool resources = false;
  std::string json_path;
};

void list_rungs(Context& ctx) {
  for (const lab::Study& study : lab::studies()) {
    ctx.out << study.name << ": " << study.title << "\n  source: " << study.source << "\n";
    int step = 0;
    for (const lab::RungInfo& rung : study.rungs()) {
      std::string label = rung.is_reference ? "ref" : std::to_string(++step);
      ctx.out << "  " << label << std::string(label.size() < 4 ? 4 - label.size() : 1, ' ')
              << rung.name << " — " << rung.idea;
      if (!rung.seed.empty())
        ctx.out << " [seed: " << rung.seed << "]";
      ctx.out << "\n";
    }
    if (study.notes)
      ctx.out << study.notes();
    ctx.out << "\n";
  }
}

void list_resources(const ListArgs& args, Context& ctx) {
  if (!require_device(ctx, "list --resources"))
    return;
  const ResourceReport report = collect_resources();
  ctx.out << format_resources(report);
  if (!args.json_path.empty()) {
    std::ofstream file(args.json_path, std::ios::binary);
    if (!file)
      throw std::invalid_argument("--json: cannot open '" + args.json_path + "' for writing");
    file << resources_json(report).dump(2) << "\n";
    if (!file)
      throw std::runtime_error("failed writing '" + args.json_path + "'");
  }
  // A query that failed (e.g. no kernel image for this GPU) is a CUDA error; a disagreement
  // between model and API is a finding, printed above, and not an error of the command.
  if (count_agreement(report).errors > 0)
    ctx.exit_code = exit_cuda_error;
}

} // namespace

void add_list_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ListArgs>();
  auto* list = app.add_subcommand(
      "list", "Every study and rung with its one-line idea (--resources: registers, shared memory "
              "and occupancy per rung, the occupancy model beside the CUDA API)");
  auto* resources = list->add_flag(
      "--resources", args->resources,
      "Per rung: registers, shared memory, and occupancy from the CUDA occupancy API beside the "
      "occupancy model (needs a GPU)");
  list->add_option("--json", args->json_path, "With --resources: also write the table as JSON")
      ->type_name("FILE")
      ->needs(resources);
  list->callback([args, &ctx] {
    if (args->resources)
      list_resources(*args, ctx);
    else
      list_rungs(ctx);
  });
}

} // namespace ladder::cli
