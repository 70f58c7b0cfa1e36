// `ladder list`: every study and rung with its one-line idea (no GPU needed).
// `ladder list --resources [--json FILE]`: each rung's registers, shared memory and occupancy from
// the CUDA occupancy API beside the occupancy model's prediction (resources.cpp; needs a GPU).
#include "commands.hpp"
#include "resources.hpp"

#include "core/report.hpp"
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

// Story rungs numbered 1, 2, ..; each tuning variant under its rung (12a, 12b); the library call
// and the references last. The numbers are the ones the tables and the docs use.
void list_rungs(Context& ctx) {
  for (const lab::Study& study : lab::studies()) {
    ctx.out << study.name << ": " << study.title << "\n"
            << lab::wrap_text("course: " + std::string(study.course), "  ")
            << "  sizes (--size): " << study.size_syntax << "\n";
    const auto rungs = study.rungs();
    const auto labels = lab::rung_labels(rungs);
    const auto print = [&](std::size_t i) {
      const lab::RungInfo& rung = rungs[i];
      const bool variant = rung.role == lab::Role::variant;
      std::string head = std::string(variant ? "      " : "  ") + labels[i];
      head += std::string(head.size() < 10 ? 10 - head.size() : 1, ' ') + std::string(rung.name) +
              " [" + std::string(lab::role_name(rung.role)) + "]";
      std::string params;
      for (const lab::Param& p : rung.params)
        if (!p.key.empty())
          params +=
              (params.empty() ? "" : ", ") + std::string(p.key) + " = " + std::to_string(p.value);
      if (variant && !params.empty())
        head += " {" + params + "}";
      std::string idea(rung.idea);
      if (!rung.course_row.empty())
        idea += " (course: " + std::string(rung.course_row) + ")";
      ctx.out << head << "\n" << lab::wrap_text(idea, std::string(variant ? 14 : 10, ' '));
    };
    // Each story rung, then the variants that tune it, then the library call and the references.
    for (std::size_t i = 0; i < rungs.size(); ++i) {
      if (rungs[i].role == lab::Role::variant)
        continue;
      print(i);
      for (std::size_t v = 0; v < rungs.size(); ++v)
        if (rungs[v].role == lab::Role::variant && rungs[v].variant_of == rungs[i].name)
          print(v);
    }
    if (study.notes)
      ctx.out << study.notes();
    ctx.out << "\n";
  }
  ctx.out
      << "Roles: seed = a kernel of the course material; beyond = one idea past it; variant = a "
         "tuning "
         "shape of the rung above it (shown by `ladder run --all` and `ladder tune`); library = "
         "the "
         "public call; reference = the vendor library or the bound, measured in the same run.\n";
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
