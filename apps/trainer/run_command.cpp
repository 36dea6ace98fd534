#include <memory>

#include "commands.h"
#include "config/config_loader.h"
#include "train/trainer.h"
#include "util/logging.h"
#include "util/signals.h"

namespace trainer::app {

void add_run_command(CLI::App& app, Action& selected, const GlobalOptions& global) {
  struct Args {
    ExperimentArgs experiment;
    std::string resume;
    std::string devices;
  };
  auto args = std::make_shared<Args>();
  auto* command = app.add_subcommand("run", "Train an experiment; epoch records go to stdout");
  args->experiment.add_to(*command);
  command->add_option("--resume", args->resume, "Continue a run: its run directory or a checkpoint file");
  command->add_option("--devices", args->devices, "Same as --set devices=... (e.g. cpu)");
  command->callback([args, &selected, &global] {
    selected = [args, &global] {
      auto overrides = args->experiment.overrides;
      if (!args->devices.empty()) overrides.push_back("devices=" + args->devices);
      const ExperimentConfig config = load_experiment(args->experiment.file, overrides);
      install_interrupt_handlers();
      RunOptions options;
      options.config_path = args->experiment.file;
      options.resume = args->resume;
      options.quiet = global.quiet;
      run_training(config, options);
    };
  });
}

}  // namespace trainer::app
