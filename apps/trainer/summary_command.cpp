#include <iostream>
#include <memory>

#include "commands.h"
#include "config/config_loader.h"
#include "device/runtime.h"
#include "train/experiment_setup.h"

namespace trainer::app {

void add_summary_command(CLI::App& app, Action& selected) {
  auto args = std::make_shared<ExperimentArgs>();
  auto* command = app.add_subcommand("summary", "Print the model's layers, output shapes and parameter counts");
  args->add_to(*command);
  command->callback([args, &selected] {
    selected = [args] {
      const ExperimentConfig config = load_experiment(args->file, args->overrides);
      configure_runtime(config, torch::kCPU);
      // The data set decides input shape, vocabulary and classes, unless the
      // experiment file fixes them.
      const Model model = build_model_to_inspect(config);
      std::cout << format_summary(config.experiment.name, model.summary, model.is_graph, model.scripted);
    };
  });
}

}  // namespace trainer::app
