#include "commands.hpp"

#include "ladder/device.hpp"
#include "ladder/error.hpp"

#include <algorithm>
#include <ostream>
#include <stdexcept>

namespace ladder::cli {

bool require_device(Context& ctx, const char* command) {
  if (device_count() > 0)
    return true;
  ctx.err << "ladder " << command
          << ": no CUDA device found (cudaGetDeviceCount reports none). This command runs "
             "kernels and needs an NVIDIA GPU with a working driver; `ladder list` and "
             "`ladder model` work without one.\n";
  ctx.exit_code = exit_no_device;
  return false;
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Context ctx{out, err};
  CLI::App app{"ladder: the classic CUDA optimization case studies, rung by rung, on your GPU",
               "ladder"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show the help of every subcommand");
  add_info_command(app, ctx);
  add_list_command(app, ctx);
  add_run_command(app, ctx);
  add_model_command(app, ctx);
  add_report_command(app, ctx);
  add_convolve_command(app, ctx);
  // A first word that is neither an option nor a subcommand: name it (CLI11 alone would only say
  // that a subcommand is required).
  if (!args.empty() && !args.front().empty() && args.front().front() != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
      found = found || sub->check_name(args.front());
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      err << "ladder: unknown command '" << args.front() << "' (known: " << known
          << ")\nRun 'ladder --help' for usage.\n";
      return exit_usage;
    }
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return exit_ok;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return exit_ok;
  } catch (const CLI::ParseError& e) {
    // A subcommand's own --help arrives here too, as a CallForHelp from that subcommand.
    if (e.get_exit_code() == 0) {
      for (const CLI::App* sub : app.get_subcommands())
        out << sub->help();
      if (app.get_subcommands().empty())
        out << app.help();
      return exit_ok;
    }
    err << "ladder: " << e.what() << "\nRun 'ladder --help' for usage.\n";
    return exit_usage;
  } catch (const std::invalid_argument& e) {
    err << "ladder: " << e.what() << "\n";
    return exit_usage;
  } catch (const CudaError& e) {
    err << "ladder: CUDA error: " << e.what() << "\n";
    return exit_cuda_error;
  } catch (const std::exception& e) {
    err << "ladder: " << e.what() << "\n";
    return exit_cuda_error;
  }
  return ctx.exit_code;
}

} // namespace ladder::cli
