#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "config/config_loader.h"
#include "device/device_list.h"
#include "device/runtime.h"
#include "distributed/launch_env.h"
#include "distributed/supervisor.h"
#include "runs/resume_config.h"
#include "runs/run_dir.h"
#include "runs/run_record.h"
#include "train/run_training.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/signals.h"
#include "util/text.h"

namespace trainer::app {

int signal_number(RequeueSignal signal) {
  switch (signal) {
    case RequeueSignal::kUsr1: return SIGUSR1;
    case RequeueSignal::kUsr2: return SIGUSR2;
    case RequeueSignal::kNone: return 0;
  }
  return 0;
}

namespace {

struct RunArgs {
  ExperimentArgs experiment;
  std::string resume;
  std::string devices;
  int nnodes = 1;
  int node_rank = 0;
  std::string master;
  bool force = false;
  std::string run_dir;
};

bool same_directory(const std::string& a, const std::string& b) {
  std::error_code error;
  return std::filesystem::weakly_canonical(a, error) == std::filesystem::weakly_canonical(b, error);
}

const char* from_environment(const char* name) { return std::getenv(name); }

// A new run's config is the file's; a resumed run's is its own config.yaml,
// changed only where the file or --set asks and a resume allows (or --force).
ExperimentConfig config_to_run(const RunArgs& args, const std::vector<std::string>& overrides) {
  if (args.resume.empty()) {
    if (args.experiment.file.empty())
      throw UsageError("trainer run needs an experiment FILE, or --resume RUN_DIR to continue a run",
                       "trainer run configs/fashion_mnist_quickstart.yaml");
    return load_experiment(args.experiment.file, overrides);
  }
  // Under a launcher rank 0 holds the run for the others: only it may check.
  if (!launch_from_environment(from_environment)) check_run_dir_free(args.resume);
  ResumeConfig resumed = resolve_resume_config(args.resume, args.experiment.file, overrides, args.force);
  for (const ConfigChange& change : resumed.changes) {
    if (may_change_on_resume(change))
      log().info("resuming with {}: {} -> {} (was in {}/config.yaml)", change.key, change.before, change.after,
                 resumed.run_dir);
    else
      log().warn("resuming with {}: {} -> {} (--force: the run no longer continues the same computation)",
                 change.key, change.before, change.after);
  }
  return resumed.config;
}

std::string run_dir_for(const ExperimentConfig& config, const RunArgs& args) {
  return open_run_dir(config.log.dir, config.experiment.name, config.log.run_name, args.resume, args.run_dir).path;
}

// Several devices and no launcher around: this process starts the ranks.
int supervise_ranks(const RunArgs& args, const ExperimentConfig& config, const GlobalOptions& global) {
  SupervisorPlan plan;
  plan.argv = global.argv;
  plan.local_ranks = static_cast<int>(config.devices.entries.size());
  plan.nnodes = args.nnodes;
  plan.node_rank = args.node_rank;
  plan.requeue_signal = signal_number(config.train.requeue_signal);
  if (args.node_rank >= args.nnodes)
    throw UsageError("--node-rank " + std::to_string(args.node_rank) + " is not below --nnodes " +
                     std::to_string(args.nnodes));
  if (args.nnodes > 1 && args.master.empty())
    throw UsageError("--nnodes " + std::to_string(args.nnodes) + " needs --master HOST:PORT",
                     "the address of node 0, where rank 0 serves the rendezvous store; the same on every node");
  if (!args.master.empty()) std::tie(plan.master_addr, plan.master_port) = parse_host_port(args.master, "--master");
  // A new run's directory is made on node 0; a resumed one is found on any.
  if (args.node_rank == 0 || !args.resume.empty()) plan.run_dir = run_dir_for(config, args);
  // Node 0's supervisor writes the run for its ranks; other nodes share the
  // folder (one file system) and write only their worklogs.
  ProcessLock lock;
  if (args.node_rank == 0 && !plan.run_dir.empty()) lock = lock_run_dir(RunDir{plan.run_dir});
  log().info("starting {} on this node ({} in all){}", count_of(plan.local_ranks, "rank"), plan.local_ranks * plan.nnodes,
             plan.run_dir.empty() ? "" : "; logs in " + plan.run_dir + "/worklog.N");
  const int exit_code = supervise(plan);
  // The ranks' exit codes are the supervisor's to combine, and a rank 0
  // killed outright recorded nothing: run.json ends with the run's own code.
  if (!plan.run_dir.empty())
    if (const std::string problem = settle_run_json(plan.run_dir, exit_code); !problem.empty()) log().warn("{}", problem);
  return exit_code;
}

}  // namespace

void add_run_command(CLI::App& app, Action& selected, const GlobalOptions& global) {
  auto args = std::make_shared<RunArgs>();
  auto* command = app.add_subcommand("run", "Train an experiment; epoch records go to stdout");
  args->experiment.add_to(*command, /*file_required=*/false);
  command->add_option("--resume", args->resume,
                      "Continue a run: its run directory or a checkpoint file (FILE optional: the run's config.yaml)");
  command->add_flag("--force", args->force, "With --resume: accept config changes that alter what the run computes");
  command->add_option("--run-dir", args->run_dir,
                      "A new run's directory, exactly (instead of log.dir/NAME/RUN_NAME); must be empty or absent");
  command->add_option("--devices", args->devices, "Same as --set devices=... (e.g. cpu or cpu,cpu)");
  command->add_option("--nnodes", args->nnodes, "Machines taking part (multi-node by hand)")->check(CLI::Range(1, 100000));
  command->add_option("--node-rank", args->node_rank, "This machine's index, 0 to nnodes-1")
      ->check(CLI::Range(0, 100000));
  command->add_option("--master", args->master, "HOST:PORT of node 0's rendezvous store (several nodes)");
  command->callback([args, &selected, &global] {
    selected = [args, &global] {
      auto overrides = args->experiment.overrides;
      if (!args->devices.empty()) overrides.push_back("devices=" + args->devices);
      if (!args->run_dir.empty() && !args->resume.empty()) {
        // `--run-dir X --resume X`: a script's one command line for starting and continuing.
        if (!same_directory(args->run_dir, args->resume))
          throw UsageError("--run-dir " + args->run_dir + " and --resume " + args->resume + " name different runs",
                           "--resume RUN_DIR alone continues a run in its own directory");
        args->run_dir.clear();
      }
      ExperimentConfig config = config_to_run(*args, overrides);
      // Before any rank starts: a GPU that is not there is exit code 5 now.
      config.devices.entries = expand_devices(config.devices.entries);
      check_precision_supported(config, config.devices.entries.front() != "cpu");
      RunOptions options;
      options.version = version_number();
      options.resume = args->resume;
      options.run_dir = args->run_dir;
      options.quiet = global.quiet;
      options.launch = launch_from_environment(from_environment);
      const auto devices = static_cast<int>(config.devices.entries.size());
      if (!options.launch && (devices > 1 || args->nnodes > 1)) throw SilentExit{supervise_ranks(*args, config, global)};
      if (options.launch && devices > 1 && devices != options.launch->local_world_size)
        throw UsageError("devices lists " + std::to_string(devices) + " entries but the launcher started " +
                         std::to_string(options.launch->local_world_size) + " ranks on this node",
                         "list one device per rank, or a single device for all of them");
      install_interrupt_handlers();
      install_requeue_handler(signal_number(config.train.requeue_signal));
      run_training(config, options);
    };
  });
}

}  // namespace trainer::app
