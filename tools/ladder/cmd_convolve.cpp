#include "commands.hpp"

#include "convolution/image_io.hpp"

#include <fstream>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

namespace ladder::cli {

// `ladder convolve IN.png OUT.png --mask gaussian:5 --border clamp`: the convolution study's
// library call on a real picture (every channel, uint8), read and written through libpng.
void add_convolve_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "convolve", "Filter a PNG picture on the GPU with ladder::convolve2d and write the result");
  struct Args {
    std::string input, output, mask = "gaussian:5", border = "clamp";
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("input", args->input, "PNG file to read (gray, RGB or RGBA)")->required();
  cmd->add_option("output", args->output, "PNG file to write")->required();
  cmd->add_option("--mask", args->mask,
                  "gaussian:W, box:W, sharpen, edge, emboss, or a text file of mask rows")
      ->capture_default_str();
  cmd->add_option("--border", args->border, "zero, clamp, reflect or wrap")->capture_default_str();
  cmd->callback([&ctx, args] {
    namespace conv = lab::convolution;
    if (!conv::have_png()) {
      ctx.err << "ladder convolve: this build has no PNG support (libpng was not found when it "
                 "was configured; install libpng-dev and build again)\n";
      ctx.exit_code = exit_usage;
      return;
    }
    // The mask and border are checked before anything touches the device or the files.
    (void)conv::load_mask(args->mask);
    (void)conv::parse_border(args->border);
    if (!std::ifstream(args->input))
      throw std::invalid_argument("input: cannot open '" + args->input + "' for reading");
    if (!require_device(ctx, "convolve"))
      return;
    ctx.out << conv::convolve_png_file(args->input, args->output, args->mask, args->border)
            << "\n";
  });
}

} // namespace ladder::cli
