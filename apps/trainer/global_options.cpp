#include "commands.h"

namespace trainer::app {

void add_global_options(CLI::App& app, GlobalOptions& global) {
  app.add_option("--log-level", global.log_level, "trace, debug, info, warn, error or off")
      ->capture_default_str()
      ->group("Global options");
  app.add_flag("-q,--quiet", global.quiet, "No progress bar or progress lines")->group("Global options");
}

}  // namespace trainer::app
