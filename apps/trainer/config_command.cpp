#include <iostream>
#include <memory>

#include "commands.h"
#include "config/config_loader.h"
#include "config/config_reference.h"
#include "config/config_writer.h"
#include "util/error.h"

namespace trainer::app {

void add_config_command(CLI::App& app, Action& selected) {
  struct Args {
    ExperimentArgs experiment;
    bool reference = false;
  };
  auto args = std::make_shared<Args>();
  auto* command = app.add_subcommand("config", "Check an experiment file and print it fully resolved (YAML)");
  args->experiment.add_to(*command, /*file_required=*/false);
  command->add_flag("--reference", args->reference, "Print the config reference (Markdown) instead");
  command->callback([args, &selected] {
    selected = [args] {
      if (args->reference) {
        std::cout << config_reference_markdown();
        return;
      }
      if (args->experiment.file.empty()) throw UsageError("trainer config needs an experiment FILE (or --reference)");
      std::cout << to_yaml(load_experiment(args->experiment.file, args->experiment.overrides));
    };
  });
}

}  // namespace trainer::app
