// `trainer tune FILE`: the settings that decide a training step's speed,
// measured here, written as a YAML file that extends the experiment.
// `trainer tune lr FILE`: the learning-rate range test, on the experiment's
// own model, data, optimizer and batch size. Nothing of a run is written.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "config/config_loader.h"
#include "runs/kept_run_file.h"
#include "tune/lr_range.h"
#include "tune/speed_settings.h"
#include "tune/speed_tune.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/output_guard.h"

namespace trainer::app {
namespace {

namespace fs = std::filesystem;

struct TuneArgs {
  std::string what;  // "lr", or the experiment file itself
  ExperimentArgs experiment;
  int64_t steps = 0;  // 0: the chosen test's default
  int64_t warmup = SpeedTuneOptions{}.warmup;
  LrRangeOptions range;
  std::string output;
  bool json = false;
};

void print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// Before minutes of steps, not after: `output` (named `option` in messages)
// can be written, and is neither a file the experiment is made of (a tuned
// file over its own experiment would extend itself) nor one a run keeps.
void check_output(const std::string& option, const std::string& output, const std::string& experiment_file) {
  const std::vector<std::string> files = experiment_files(experiment_file);
  std::vector<ReadFile> inputs;
  for (size_t i = 0; i < files.size(); ++i)
    inputs.push_back({files[i], i == 0 ? "the experiment file" : "a file the experiment extends"});
  check_output_file(option, output, inputs);
}

void find_lr(const TuneArgs& args) {
  LrRangeOptions range = args.range;
  if (args.steps > 0) range.steps = std::max<int64_t>(args.steps, 5);
  if (range.max_lr <= range.min_lr)
    throw UsageError("--max-lr " + std::to_string(range.max_lr) + " is not above --min-lr " +
                     std::to_string(range.min_lr));
  if (!args.output.empty()) {
    check_output("-o", args.output, args.experiment.file);
    check_replaces_own_output("-o", args.output, "a page trainer wrote", kPageHeadBytes, is_trainer_page);
  }
  const ExperimentConfig config = load_experiment(args.experiment.file, args.experiment.overrides);
  const LrRangeCurve curve = run_lr_range_test(config, range);
  print(args.json ? format_lr_range_json(curve) : format_lr_range_text(curve));
  if (!args.output.empty()) {
    write_file_atomic(args.output, lr_range_html(curve, config.experiment.name));
    log().info("wrote {}", args.output);
  }
}

// Beside the experiment: configs/x.yaml -> configs/x.tuned.yaml.
std::string default_tuned_path(const std::string& file) {
  const fs::path path(file);
  return (path.parent_path() / (path.stem().string() + ".tuned.yaml")).string();
}

void tune_settings(const TuneArgs& args) {
  const std::string output = args.output.empty() ? default_tuned_path(args.experiment.file) : args.output;
  const std::string option = args.output.empty() ? "the tuned file" : "-o";
  check_output(option, output, args.experiment.file);
  check_replaces_own_output(option, output, "a file trainer tune wrote", kTunedFileMark.size(),
                            [](const std::string& head) { return head == std::string(kTunedFileMark); });
  SpeedTuneOptions options;
  if (args.steps > 0) options.steps = args.steps;
  options.warmup = args.warmup;
  const SpeedTuneResult result = tune_speed(args.experiment.file, args.experiment.overrides, options);
  // `extends:` is relative to the file that names it.
  const fs::path from = fs::absolute(output).parent_path();
  const std::string extends = fs::absolute(args.experiment.file).lexically_relative(from).string();
  write_file_atomic(output, format_tuned_yaml(result, extends));
  print(args.json ? format_speed_json(result) : format_speed_table(result));
  log().info("tune: {:.2f}x the experiment's speed; the settings in {} (trainer run {}, or extends: it)",
             result.start_speed > 0 ? result.tuned_speed / result.start_speed : 0.0, output, output);
  if (!result.changes_training.empty())
    log().warn("tune: the faster {} what the run computes, not only its speed: compare the results",
               settings_that_change(result.changes_training));
}

}  // namespace

void add_tune_command(CLI::App& app, Action& selected) {
  auto args = std::make_shared<TuneArgs>();
  auto* command = app.add_subcommand(
      "tune", "Find settings before training: trainer tune FILE measures the settings that decide speed and writes "
              "the fastest; trainer tune lr FILE runs the learning-rate range test");
  command->add_option("WHAT", args->what, "FILE (the speed settings), or lr followed by FILE")->required();
  args->experiment.add_to(*command, /*file_required=*/false);
  command->add_option("--steps", args->steps,
                      "Timed steps per setting (default " + std::to_string(SpeedTuneOptions{}.steps) +
                          "); lr: steps of the test, one at each rate (default " +
                          std::to_string(LrRangeOptions{}.steps) + ")")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  command->add_option("--warmup", args->warmup, "Untimed steps before each setting's timed ones")
      ->check(CLI::Range(int64_t{0}, int64_t{10000}))
      ->capture_default_str();
  command->add_option("--min-lr", args->range.min_lr, "lr: the first rate")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--max-lr", args->range.max_lr, "lr: the last rate (the test stops earlier when the loss runs away)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("-o,--output", args->output,
                      "The tuned settings' file (default FILE's folder/STEM.tuned.yaml); lr: also write the curve to "
                      "this HTML file");
  command->add_flag("--json", args->json, "One JSON object instead of the table");
  command->callback([args, &selected] {
    selected = [args] {
      if (args->what == "lr") {
        if (args->experiment.file.empty())
          throw UsageError("trainer tune lr needs an experiment FILE", "trainer tune lr configs/reuters_conv1d.yaml");
        find_lr(*args);
        return;
      }
      if (!args->experiment.file.empty())
        throw UsageError("trainer tune takes one experiment FILE, or lr FILE; got " + args->what + " " +
                         args->experiment.file);
      TuneArgs speed = *args;
      speed.experiment.file = args->what;
      tune_settings(speed);
    };
  });
}

}  // namespace trainer::app
