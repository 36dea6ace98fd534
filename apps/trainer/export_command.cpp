#include <cstdio>
#include <memory>

#include "commands.h"
#include "runs/checkpoint_choice.h"
#include "infer/export_weights.h"
#include "util/logging.h"

namespace trainer::app {

void add_export_command(CLI::App& app, Action& selected) {
  struct Args {
    ExperimentArgs experiment;
    CheckpointArgs checkpoint;
    std::string format;  // empty: OUT's extension decides
    std::string out;
  };
  auto args = std::make_shared<Args>();
  auto* command = app.add_subcommand(
      "export", "Write a checkpoint's weights for Python (safetensors or NumPy .npz), the resolved config beside them");
  args->checkpoint.add_to(*command, args->experiment);
  command->add_option("--format", args->format,
                      "safetensors or npz (default: OUT's extension decides: .npz, else safetensors)")
      ->check(CLI::IsMember({"safetensors", "npz"}));
  command->add_option("-o,--output", args->out, "The file to write (OUT); the config goes to OUT's stem + .config.yaml")
      ->required();
  command->callback([args, &selected] {
    selected = [args] {
      const WeightsFormat format = weights_format_for(args->format, args->out);
      const CheckpointChoice choice = args->checkpoint.choose(args->experiment, "export");
      const ExperimentConfig config =
          experiment_for_checkpoint(args->experiment.file, args->experiment.overrides, choice);
      const std::string file = args->experiment.file.empty() ? choice.run_config : args->experiment.file;
      const ExportedWeights done = export_weights(config, choice.checkpoint, file, format, args->out);
      log().info("exported {} tensors ({:.1f} KiB) of {} to {}; config {}", done.tensors,
                 static_cast<double>(done.bytes) / 1024.0, choice.checkpoint, done.weights, done.config);
    };
  });
}

}  // namespace trainer::app
