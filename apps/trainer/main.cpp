// trainer: train neural networks from a YAML experiment file on LibTorch.
// Parses the command line, runs the chosen subcommand inside run_guarded
// (which maps every failure to the documented exit code). Nothing else.
#include <cstdio>

#include "commands.h"
#include "util/error.h"
#include "util/heap_reuse.h"

int main(int argc, char** argv) {
  trainer::keep_freed_memory_for_reuse();  // before LibTorch allocates anything large
  CLI::App app{"trainer: train neural networks from a YAML experiment file on LibTorch"};
  app.set_version_flag("--version", trainer::app::version_text());
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand

  trainer::app::GlobalOptions global;
  global.argv.assign(argv, argv + argc);
  trainer::app::add_global_options(app, global);

  trainer::app::Action action;
  trainer::app::add_run_command(app, action, global);
  trainer::app::add_sweep_command(app, action, global);
  trainer::app::add_eval_command(app, action);
  trainer::app::add_predict_command(app, action);
  trainer::app::add_export_command(app, action);
  trainer::app::add_config_command(app, action);
  trainer::app::add_summary_command(app, action);
  trainer::app::add_runs_command(app, action);
  trainer::app::add_report_command(app, action);
  trainer::app::add_devices_command(app, action);
  trainer::app::add_bench_command(app, action);
  trainer::app::add_tune_command(app, action);
  trainer::app::add_help_command(app, action);
  trainer::app::add_completion_command(app, action);
  // Also on each subcommand, so that `trainer run --help` lists them.
  for (CLI::App* command : app.get_subcommands({})) trainer::app::add_global_options(*command, global);

  if (const auto message = trainer::app::mistyped_command(app, argc, argv)) {
    std::fprintf(stderr, "trainer: error: %s\n", message->c_str());
    return static_cast<int>(trainer::ExitCode::kUsage);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
    std::fputs(trainer::app::parse_error_message(app, e).c_str(), stderr);
    return static_cast<int>(trainer::ExitCode::kUsage);
  }
  return trainer::app::run_guarded(action, global);
}
