// The ladder command line: one add_*_command per subcommand, each in its own file, and run(),
// which the executable and the CLI tests both call.
#pragma once

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace ladder::cli {

struct Context {
  std::ostream& out;
  std::ostream& err;
  int exit_code = 0;
};

enum ExitCode : int {
  exit_ok = 0,
  exit_wrong_result = 1, // a rung produced a wrong result
  exit_usage = 2,        // bad command line or argument
  exit_no_device = 3,    // the command needs a CUDA device and there is none
  exit_cuda_error = 4,   // a CUDA call failed while running
};

void add_info_command(CLI::App& app, Context& ctx);
void add_list_command(CLI::App& app, Context& ctx);
void add_run_command(CLI::App& app, Context& ctx);
void add_model_command(CLI::App& app, Context& ctx);
void add_report_command(CLI::App& app, Context& ctx);
void add_convolve_command(CLI::App& app, Context& ctx);

// Throws nothing: parse errors and bad arguments become exit_usage with a message on `err`.
// `args` excludes the program name.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Prints the "no CUDA device" message and returns false when there is no device.
bool require_device(Context& ctx, const char* command);

} // namespace ladder::cli
