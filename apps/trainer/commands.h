#pragma once
// Each subcommand adds itself to the command line and, when chosen, leaves
// the action to run in `selected`. main() runs it inside its one catch site.
#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runs/checkpoint_choice.h"
#include "spec/enums.h"

namespace trainer::app {

using Action = std::function<void()>;

struct GlobalOptions {
  std::string log_level = "info";
  bool quiet = false;
  std::vector<std::string> argv;  // as given, for the ranks a supervisor starts
};

// Thrown by an action that has already said everything: main returns `code`.
struct SilentExit {
  int code;
};

// --log-level and -q, shown in "Global options" of every --help.
void add_global_options(CLI::App& app, GlobalOptions& global);

void add_run_command(CLI::App& app, Action& selected, const GlobalOptions& global);
void add_eval_command(CLI::App& app, Action& selected);
void add_predict_command(CLI::App& app, Action& selected);
void add_export_command(CLI::App& app, Action& selected);
void add_sweep_command(CLI::App& app, Action& selected, const GlobalOptions& global);
void add_config_command(CLI::App& app, Action& selected);
void add_summary_command(CLI::App& app, Action& selected);
void add_runs_command(CLI::App& app, Action& selected);
void add_report_command(CLI::App& app, Action& selected);
void add_devices_command(CLI::App& app, Action& selected);
void add_bench_command(CLI::App& app, Action& selected);
void add_tune_command(CLI::App& app, Action& selected);
void add_help_command(CLI::App& app, Action& selected);
void add_completion_command(CLI::App& app, Action& selected);

// The subcommands' names, in the order added.
std::vector<std::string> command_names(const CLI::App& app);
// "unknown command 'rnu'; did you mean 'run'?" and the list of commands.
std::string unknown_command_message(const CLI::App& app, const std::string& word);
// The message for argv's first word that is not an option when it names
// no subcommand; nullopt otherwise (no such word, or a known one).
std::optional<std::string> mistyped_command(const CLI::App& app, int argc, char** argv);
// What a failed parse prints, as every other usage error is printed
// ("trainer: error: ...", then a hint): an option no command has is named,
// with the nearest the command has ("did you mean --steps?").
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error);

// train.requeue_signal's number (SIGUSR1, SIGUSR2), 0 for none.
int signal_number(RequeueSignal signal);

// Runs `action` with logging set up; returns the exit code.
int run_guarded(const Action& action, const GlobalOptions& global);

// "trainer 0.1.0 (LibTorch 1.13.0, CPU)", for --version.
std::string version_text();
// "0.1.0": the project's version, for the run's log.
const char* version_number();

// The experiment file plus repeatable --set overrides, shared by every
// subcommand that reads one.
struct ExperimentArgs {
  std::string file;
  std::vector<std::string> overrides;
  void add_to(CLI::App& command, bool file_required = true, const std::string& file_help = "Experiment file (YAML)");
};

// --checkpoint of the commands that read a trained model (eval, predict,
// export): a run directory or a checkpoint file.
struct CheckpointArgs {
  std::string checkpoint;
  // Adds FILE (the experiment, or the run) and --checkpoint to `command`.
  void add_to(CLI::App& command, ExperimentArgs& experiment);
  // The checkpoint named: --checkpoint, or FILE when that names a run
  // directory or a checkpoint file (`trainer eval runs/exp/latest`), which
  // then gives no experiment file. Throws UsageError when neither does.
  CheckpointChoice choose(ExperimentArgs& experiment, const std::string& command_name) const;
};

}  // namespace trainer::app
