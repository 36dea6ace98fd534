#include "commands.h"

namespace trainer::app {

void ExperimentArgs::add_to(CLI::App& command, bool file_required) {
  auto* option = command.add_option("FILE", file, "Experiment file (YAML)");
  if (file_required) option->required();
  command.add_option("--set", overrides, "Override a config value: --set optimizer.lr=0.01 (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
}

}  // namespace trainer::app
