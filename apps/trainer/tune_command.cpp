// `trainer tune lr FILE`: the learning-rate range test, on the experiment's
// own model, data, optimizer and batch size; nothing of a run is written.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "config/config_loader.h"
#include "tune/lr_range.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/logging.h"

namespace trainer::app {

void add_tune_command(CLI::App& app, Action& selected) {
  struct Args {
    std::string what;
    ExperimentArgs experiment;
    LrRangeOptions range;
    std::string output;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* command = app.add_subcommand(
      "tune", "Find a setting before training: trainer tune lr FILE runs the learning-rate range test and suggests a "
              "rate");
  command->add_option("WHAT", args->what, "lr: the learning-rate range test")
      ->required()
      ->check(CLI::IsMember({"lr"}));
  args->experiment.add_to(*command);
  command->add_option("--steps", args->range.steps, "Steps of the test, one at each rate")
      ->check(CLI::Range(int64_t{5}, int64_t{100000}))
      ->capture_default_str();
  command->add_option("--min-lr", args->range.min_lr, "The first rate")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--max-lr", args->range.max_lr, "The last rate (the test stops earlier when the loss runs away)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("-o,--output", args->output, "Also write the curve to this HTML file");
  command->add_flag("--json", args->json, "One JSON object (the suggestion and every point) instead of text");
  command->callback([args, &selected] {
    selected = [args] {
      if (args->range.max_lr <= args->range.min_lr)
        throw UsageError("--max-lr " + std::to_string(args->range.max_lr) + " is not above --min-lr " +
                         std::to_string(args->range.min_lr));
      if (!args->output.empty()) check_replaceable(args->output);  // before minutes of steps, not after
      const ExperimentConfig config = load_experiment(args->experiment.file, args->experiment.overrides);
      const LrRangeCurve curve = run_lr_range_test(config, args->range);
      const std::string text = args->json ? format_lr_range_json(curve) : format_lr_range_text(curve);
      std::fwrite(text.data(), 1, text.size(), stdout);
      if (!args->output.empty()) {
        write_file_atomic(args->output, lr_range_html(curve, config.experiment.name));
        log().info("wrote {}", args->output);
      }
    };
  });
}

}  // namespace trainer::app
