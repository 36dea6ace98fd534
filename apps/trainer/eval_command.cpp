#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "runs/checkpoint_choice.h"
#include "train/run_training.h"
#include "util/json.h"

namespace trainer::app {
namespace {

std::string evaluation_json(const std::string& checkpoint, const CheckpointEvaluation& result) {
  nlohmann::ordered_json json;
  json["checkpoint"] = checkpoint;
  json["epoch"] = result.epoch;
  if (result.step_in_epoch > 0) json["step_in_epoch"] = result.step_in_epoch;
  for (const auto& metric : result.valid) json["val_" + metric.key] = json_number(metric.value);
  if (!result.confusion.empty()) {
    if (!result.class_names.empty()) json["class_names"] = result.class_names;
    add_class_scores(json, result.confusion, "val_");
  }
  return json_line(json);
}

}  // namespace

void add_eval_command(CLI::App& app, Action& selected) {
  struct Args {
    ExperimentArgs experiment;
    CheckpointArgs checkpoint;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* command = app.add_subcommand(
      "eval", "Print the validation metrics of a checkpoint (FILE: the run's own config.yaml when left out)");
  args->checkpoint.add_to(*command, args->experiment);
  command->add_flag("--json", args->json,
                    "One JSON object: checkpoint, epoch, val_loss, val_<metric>... (with precision, recall or f1 "
                    "among the metrics, also val_confusion_matrix and val_per_class)");
  command->callback([args, &selected] {
    selected = [args] {
      const CheckpointChoice choice = args->checkpoint.choose(args->experiment, "eval");
      const ExperimentConfig config =
          experiment_for_checkpoint(args->experiment.file, args->experiment.overrides, choice);
      const CheckpointEvaluation result = evaluate_checkpoint(config, choice.checkpoint);
      const std::string text =
          args->json ? evaluation_json(choice.checkpoint, result) : format_valid_line(result.valid);
      std::fwrite(text.data(), 1, text.size(), stdout);
    };
  });
}

}  // namespace trainer::app
