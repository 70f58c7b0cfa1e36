#include "commands.hpp"

#include "core/study.hpp"

#include <ostream>

namespace ladder::cli {

void add_list_command(CLI::App& app, Context& ctx) {
  auto* list = app.add_subcommand("list", "Every study and rung with its one-line idea");
  list->callback([&ctx] {
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
  });
}

} // namespace ladder::cli
