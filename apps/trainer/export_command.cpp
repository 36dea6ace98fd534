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
    std::string checkpoint;
    std::string format;  // empty: OUT's extension decides
    std::string out;
  };
  auto args = std::make_shared<Args>();
  auto* command = app.add_subcommand(
      "export", "Write a checkpoint's weights for Python (safetensors or NumPy .npz), the resolved config beside them");
  args->experiment.add_to(*command, /*file_required=*/false);
  command
      ->add_option("--checkpoint", args->checkpoint,
                   "A run directory (its checkpoints/best.pt, else its newest checkpoint) or a checkpoint file")
      ->required();
  command->add_option("--format", args->format,
                      "safetensors or npz (default: OUT's extension decides: .npz, else safetensors)")
      ->check(CLI::IsMember({"safetensors", "npz"}));
  command->add_option("-o,--output", args->out, "The file to write (OUT); the config goes to OUT's stem + .config.yaml")
      ->required();
  command->callback([args, &selected] {
    selected = [args] {
      const WeightsFormat format = weights_format_for(args->format, args->out);
      const CheckpointChoice choice = choose_checkpoint(args->checkpoint);
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
