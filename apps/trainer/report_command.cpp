#include <memory>

#include "commands.h"
#include "report/html_report.h"
#include "runs/kept_run_file.h"
#include "util/logging.h"
#include "util/text.h"

namespace trainer::app {

void add_report_command(CLI::App& app, Action& selected) {
  struct Options {
    std::vector<std::string> run_dirs;
    std::string output = "report.html";
  };
  auto options = std::make_shared<Options>();
  auto* command = app.add_subcommand("report", "Write one self-contained HTML page with the curves of one run, or "
                                               "several compared");
  command->add_option("RUN_DIR", options->run_dirs, "Run directories (runs/EXPERIMENT/RUN)")->required();
  command->add_option("-o,--output", options->output, "The HTML file to write; - for standard output")->capture_default_str();
  command->callback([options, &selected] {
    selected = [options] {
      if (options->output != "-") check_not_a_kept_run_file("-o", options->output);
      for (const std::string& unread : write_report(options->run_dirs, options->output))
        log().warn("{}: the report leaves out what it holds", printable(unread));
      log().info("wrote {} ({} run{})", options->output == "-" ? "the report to standard output" : options->output,
                 options->run_dirs.size(),
                 options->run_dirs.size() == 1 ? "" : "s");
    };
  });
}

}  // namespace trainer::app
