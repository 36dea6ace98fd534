#include <cstdio>
#include <memory>

#include "commands.h"
#include "config/config_loader.h"
#include "train/trainer.h"

namespace trainer::app {

void add_eval_command(CLI::App& app, Action& selected) {
  struct Args {
    ExperimentArgs experiment;
    std::string checkpoint;
  };
  auto args = std::make_shared<Args>();
  auto* command = app.add_subcommand("eval", "Print the validation metrics of a checkpoint");
  args->experiment.add_to(*command);
  command->add_option("--checkpoint", args->checkpoint, "Checkpoint file (runs/.../checkpoints/epoch-NNNN.pt)")
      ->required();
  command->callback([args, &selected] {
    selected = [args] {
      const ExperimentConfig config = load_experiment(args->experiment.file, args->experiment.overrides);
      const std::string line = format_valid_line(evaluate_checkpoint(config, args->checkpoint));
      std::fwrite(line.data(), 1, line.size(), stdout);
    };
  });
}

}  // namespace trainer::app
