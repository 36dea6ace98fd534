#include <cstdio>
#include <memory>

#include "commands.h"
#include "report/run_listing.h"
#include "util/logging.h"

namespace trainer::app {

void add_runs_command(CLI::App& app, Action& selected) {
  struct Options {
    std::string log_dir = "runs";
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  auto* command = app.add_subcommand("runs", "List the runs under a log folder, newest first: status, epochs, best "
                                             "validation value, time");
  command->add_option("LOG_DIR", options->log_dir, "The experiments' log.dir")->capture_default_str();
  command->add_flag("--json", options->json, "One JSON array instead of the table");
  command->callback([options, &selected] {
    selected = [options] {
      const RunScan found = scan_runs(options->log_dir);
      for (const std::string& problem : found.problems) log().warn("{}", problem);
      if (!options->json && found.runs.empty()) {
        log().info("no runs under {}", options->log_dir);
        return;
      }
      const std::string text = options->json ? format_runs_json(found.runs) : format_runs_table(found.runs);
      std::fwrite(text.data(), 1, text.size(), stdout);
    };
  });
}

}  // namespace trainer::app
