#include "commands.h"

#include "util/error.h"

namespace trainer::app {

void ExperimentArgs::add_to(CLI::App& command, bool file_required, const std::string& file_help) {
  auto* option = command.add_option("FILE", file, file_help);
  if (file_required) option->required();
  command.add_option("--set", overrides, "Override a config value: --set optimizer.lr=0.01 (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
}

void CheckpointArgs::add_to(CLI::App& command, ExperimentArgs& experiment) {
  experiment.add_to(command, /*file_required=*/false,
                    "Experiment file (YAML); left out, the run's own config.yaml. A run directory or checkpoint "
                    "here, without --checkpoint, is the checkpoint (trainer " + command.get_name() + " RUN_DIR)");
  command.add_option("--checkpoint", checkpoint,
                     "A run directory (its checkpoints/best.pt, else its newest checkpoint) or a checkpoint file");
}

CheckpointChoice CheckpointArgs::choose(ExperimentArgs& experiment, const std::string& command_name) const {
  if (!checkpoint.empty()) return choose_checkpoint(checkpoint);
  if (!experiment.file.empty() && names_checkpoint(experiment.file)) {
    const CheckpointChoice choice = choose_checkpoint(experiment.file);
    experiment.file.clear();
    return choice;
  }
  throw UsageError("trainer " + command_name + " needs the checkpoint to use",
                   "name the run, trainer " + command_name + " RUN_DIR, or give the experiment and a checkpoint, " +
                       "trainer " + command_name + " FILE --checkpoint RUN_DIR|CHECKPOINT");
}

}  // namespace trainer::app
