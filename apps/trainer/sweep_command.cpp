#include <unistd.h>

#include <regex>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "config/config_diff.h"
#include "config/config_loader.h"
#include "config/yaml_codec.h"
#include "device/device_list.h"
#include "device/thread_budget.h"
#include "report/html_report.h"
#include "spec/checks.h"
#include "spec/monitor_spec.h"
#include "sweep/sweep_runner.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/text.h"

namespace trainer::app {
namespace {

struct SweepArgs {
  std::string file;
  std::vector<std::string> sets;
  int64_t random = 0;
  uint64_t seed = 0;
  int parallel = 1;
  bool parallel_given = false;
  std::string devices;  // --devices: the pool each point takes one device of
  int per_device = 1;
  std::string name;
  std::string prune_rule = "none";
  PruneSettings prune;
};

std::string this_executable() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw IoError("cannot find this program's path (/proc/self/exe): " + error.message());
  return path.string();
}

// Every point's config, checked before any starts: a bad value is one
// error now, not a failed run per point later.
std::vector<ExperimentConfig> check_points(const SweepArgs& args, const SweepPlan& plan) {
  std::vector<ExperimentConfig> configs;
  for (const SweepPoint& point : plan.points) {
    std::vector<std::string> overrides = plan.fixed;
    overrides.insert(overrides.end(), point.overrides.begin(), point.overrides.end());
    configs.push_back(load_experiment(args.file, overrides));
  }
  return configs;
}

// Points sharing a GPU must each keep to a budget, or the first to grow
// takes the card from the others.
void require_budgets(const std::vector<ExperimentConfig>& configs, int per_device, const std::string& option) {
  if (per_device <= 1) return;
  for (const ExperimentConfig& config : configs)
    if (config.memory_limit.mib == 0)
      throw UsageError(option + ": points sharing a GPU need memory_limit, so that together they fit it",
                       "set it for every point: --set memory_limit=20GiB (the card's memory / " +
                           std::to_string(per_device) + " at most)");
}

// --devices LIST with --per-device M: every device of the list M times,
// each a place for one point at a time. Checked against this machine (a GPU
// not there is a device error before any point starts).
std::vector<std::string> device_slots(const SweepArgs& args, const std::vector<ExperimentConfig>& configs) {
  if (args.parallel_given)
    throw UsageError("--parallel and --devices both say how many points train at once",
                     "--devices alone: one point per device at a time (--per-device M for M)");
  DeviceList pool;
  if (!Codec<DeviceList>::decode(YAML::Load(args.devices), pool))
    throw UsageError("--devices " + args.devices + ": expected cpu, gpu:N,M,... or gpu:all");
  static const std::regex form(R"(^(cpu|gpu:(\d+|all))$)");
  for (const std::string& entry : pool.entries)
    if (!std::regex_match(entry, form))
      throw UsageError("--devices: '" + entry + "' is not a device; expected cpu, gpu:N,M,... or gpu:all");
  if (pool.entries.front() != "cpu")
    require_budgets(configs, args.per_device, "--per-device " + std::to_string(args.per_device));
  const std::vector<std::string> devices = expand_devices(pool.entries);
  if (devices.empty()) throw DeviceError("--devices " + args.devices + ": no GPU is visible");
  std::vector<std::string> slots;
  for (int round = 0; round < args.per_device; ++round) slots.insert(slots.end(), devices.begin(), devices.end());
  return slots;
}

// `--parallel N` with points on GPUs (the same list for every point): the
// list is the pool, each point gets one of its GPUs, N / GPUs points share
// each (rounded up).
std::vector<std::string> parallel_gpu_slots(int parallel, const std::vector<ExperimentConfig>& configs) {
  const std::vector<std::string>& entries = configs.front().devices.entries;
  for (const ExperimentConfig& config : configs)
    if (config.devices.entries != entries)
      throw UsageError("--parallel " + std::to_string(parallel) +
                           ": the points train on different devices, so they cannot share them out",
                       "name the GPUs for the points: --devices gpu:0,1,2,3");
  const std::vector<std::string> devices = expand_devices(entries);
  if (devices.empty()) throw DeviceError("--parallel " + std::to_string(parallel) + ": no GPU is visible");
  const int per_device = (parallel + static_cast<int>(devices.size()) - 1) / static_cast<int>(devices.size());
  require_budgets(configs, per_device,
                  "--parallel " + std::to_string(parallel) + " on " + std::to_string(devices.size()) + " GPUs");
  std::vector<std::string> slots;
  for (int round = 0; round < per_device; ++round) slots.insert(slots.end(), devices.begin(), devices.end());
  slots.resize(static_cast<size_t>(parallel));
  return slots;
}

// A rule that can stop no point before its last epoch would be asked for
// and quietly prune nothing.
void refuse_idle_pruning(const PruneSettings& prune, const std::vector<ExperimentConfig>& configs) {
  if (prune.rule == PruneRule::kNone) return;
  int64_t longest = 0;
  for (const ExperimentConfig& config : configs) longest = std::max(longest, config.train.epochs);
  if (prune.min_epochs < longest) return;
  const std::string rule = prune_rule_name(prune.rule);
  if (longest == 1)
    throw UsageError("--prune " + rule + ": the points train one epoch (train.epochs), so none can be stopped early",
                     "train longer (--set train.epochs=10) or leave out --prune");
  throw UsageError("--prune-min-epochs " + std::to_string(prune.min_epochs) + ": no point trains more than " +
                       count_of(longest, "epoch") + " (train.epochs), so --prune " + rule +
                       " could stop none before its end",
                   "judge from an earlier epoch: --prune-min-epochs " + std::to_string(longest - 1) + " or less");
}

SweepSettings settle(const SweepArgs& args, const SweepPlan& plan, const std::vector<ExperimentConfig>& configs,
                     const GlobalOptions& global) {
  const ExperimentConfig& first = configs.front();
  SweepSettings settings;
  settings.executable = this_executable();
  settings.global_args = {"--log-level", global.log_level, "--quiet"};
  settings.file = args.file;
  settings.fixed = plan.fixed;
  const std::string name = args.name.empty() ? std::filesystem::path(args.file).stem().string() : args.name;
  // The rule of experiment and run names: the sweep's folder lies in LOG_DIR/EXPERIMENT.
  if (const std::string problem = directory_name_problem(name, false); !problem.empty())
    throw UsageError("--name '" + excerpt(name) + "': expected " + problem,
                     "the sweep's folder is LOG_DIR/EXPERIMENT/sweep-NAME");
  settings.sweep_dir = first.log.dir + "/" + first.experiment.name + "/sweep-" + name;
  const auto monitor = resolve_monitor(first.train, first.metrics);
  settings.monitor = monitor ? monitor->key : first.train.monitor;
  settings.higher_is_better = monitor && monitor->higher_is_better;
  settings.prune = args.prune;
  settings.requeue_signal = signal_number(first.train.requeue_signal);
  settings.prune.rule = args.prune_rule == "median" ? PruneRule::kMedian
                        : args.prune_rule == "asha" ? PruneRule::kAsha
                                                    : PruneRule::kNone;
  refuse_idle_pruning(settings.prune, configs);
  if (args.per_device > 1 && args.devices.empty())
    throw UsageError("--per-device " + std::to_string(args.per_device) + " shares the devices of --devices",
                     "give them: --devices gpu:0,1 --per-device 2");
  if (!args.devices.empty()) {
    settings.device_slots = device_slots(args, configs);
  } else if (args.parallel > 1 && first.devices.entries.front() != "cpu") {
    settings.device_slots = parallel_gpu_slots(args.parallel, configs);
  } else if (args.parallel > 1) {
    for (const ExperimentConfig& config : configs)
      if (config.devices.entries.size() > 1 || config.devices.entries.front() != "cpu")
        throw UsageError("--parallel " + std::to_string(args.parallel) +
                             ": points that run on several devices would share them",
                         "give each point a device of its own: --devices gpu:0,1,2,3 (or gpu:all)");
  }
  // The cores this process may use, split between the points at once.
  const int cores = choose_threads(read_thread_limits(1, false)).threads;
  settings.parallel = settings.device_slots.empty() ? args.parallel : static_cast<int>(settings.device_slots.size());
  if (settings.device_slots.empty() && settings.parallel > cores) {
    log().warn("sweep: --parallel {} is more than the {} cores here; running {} at a time", args.parallel, cores, cores);
    settings.parallel = cores;
  }
  if (first.cpu_threads == 0) settings.threads_per_point = std::max(1, cores / settings.parallel);
  else if (first.cpu_threads * settings.parallel > cores)
    log().warn("sweep: cpu_threads {} x {} points at once is more than the {} cores here", first.cpu_threads,
               settings.parallel, cores);
  return settings;
}

// A point run before with other settings (the same --name, another fixed
// --set or an edited file) would be skipped or resumed as if it matched:
// refused, naming what differs, as `run --resume` refuses such a change.
void refuse_changed_points(const SweepPlan& plan, const std::vector<ExperimentConfig>& configs,
                           const std::string& sweep_dir) {
  for (size_t i = 0; i < plan.points.size(); ++i) {
    const std::string earlier = sweep_dir + "/" + plan.points[i].name + "/config.yaml";
    if (!std::filesystem::exists(earlier)) continue;
    std::string changes;
    for (const ConfigChange& change : diff_configs(load_recorded_experiment(earlier), configs[i]))
      // train.epochs too: a point done at 2 epochs would be skipped as done at 3.
      if (!may_change_on_resume(change) || change.key == "train.epochs")
        changes += (changes.empty() ? "" : ", ") + change.key + ": " + change.before + " -> " + change.after;
    if (!changes.empty())
      throw UsageError("sweep point " + plan.points[i].name + " was run before with other settings (" + changes +
                           "): " + earlier,
                       "give this sweep another --name, or remove " + sweep_dir + "/" + plan.points[i].name);
  }
}

}  // namespace

void add_sweep_command(CLI::App& app, Action& selected, const GlobalOptions& global) {
  auto args = std::make_shared<SweepArgs>();
  auto* command = app.add_subcommand(
      "sweep", "Train every combination of --set KEY=[V1,V2,...] values, each a run of its own, and compare them");
  command->add_option("FILE", args->file, "Experiment file (YAML)")->required();
  command->add_option("--set", args->sets,
                      "KEY=[V1,V2,...] is an axis of the grid, KEY=loguniform(A,B), uniform(A,B) or int(A,B) an axis drawn "
                      "from (with --random); KEY=VALUE a value every point shares (repeatable)")
      ->type_name("KEY=VALUES")
      ->allow_extra_args(false);
  command->add_option("--random", args->random, "Train K points drawn from the grid instead of all of it (with a range: K points drawn)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  command->add_option("--seed", args->seed, "Seed of --random's draw")->capture_default_str();
  command->add_option("--parallel", args->parallel,
                      "Points trained at once, the cores split between them (points on GPUs: each on one GPU of "
                      "their devices list)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str()
      ->each([args](const std::string&) { args->parallel_given = true; });
  command->add_option("--devices", args->devices,
                      "Each point trains on one device of this list, one point per device at a time: gpu:0,1,2,3 or "
                      "gpu:all (the points' own devices setting is replaced)")
      ->type_name("LIST");
  command->add_option("--per-device", args->per_device,
                      "--devices: points sharing each device at once (on GPUs each needs memory_limit)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  command->add_option("--prune", args->prune_rule,
                      "Stop weak points early: median (worse than the others' median at the same epoch), asha "
                      "(successive halving) or none")
      ->check(CLI::IsMember({"none", "median", "asha"}))
      ->capture_default_str();
  command->add_option("--prune-min-epochs", args->prune.min_epochs,
                      "Epochs every point trains before it may be pruned (asha: its first rung)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30))
      ->capture_default_str();
  command->add_option("--prune-factor", args->prune.factor,
                      "asha: rungs at min-epochs x factor^k; the best 1/factor at each rung go on")
      ->check(CLI::Range(1.5, 100.0))
      ->capture_default_str();
  command->add_option("--name", args->name, "The sweep's folder: LOG_DIR/EXPERIMENT/sweep-NAME (default: FILE's stem)");
  command->callback([args, &selected, &global] {
    selected = [args, &global] {
      SweepPlan plan = plan_sweep(args->sets);
      sample_points(plan, args->random, args->seed);
      if (plan.has_range() && static_cast<int64_t>(plan.points.size()) < args->random)
        log().warn("sweep: the axes hold only {} distinct points; training those", plan.points.size());
      const std::vector<ExperimentConfig> configs = check_points(*args, plan);
      const SweepSettings settings = settle(*args, plan, configs, global);
      refuse_changed_points(plan, configs, settings.sweep_dir);
      if (!settings.device_slots.empty())
        log().info("sweep: each point on one device, a place each: {}", join(settings.device_slots, ", "));
      log().info("sweep: {} points, {} at a time{}; runs in {}", plan.points.size(), settings.parallel,
                 settings.threads_per_point > 0 ? ", " + count_of(settings.threads_per_point, "thread") + " each"
                                                : std::string(),
                 settings.sweep_dir);
      const SweepOutcome outcome = run_sweep(plan, settings);
      const std::string table = format_sweep_table(outcome, settings);
      std::fwrite(table.data(), 1, table.size(), stdout);
      std::fflush(stdout);
      write_file_atomic(settings.sweep_dir + "/sweep.json", format_sweep_json(outcome, settings));
      std::vector<std::string> runs;
      for (const auto& point : outcome.points)
        if (std::filesystem::exists(point.run_dir + "/metrics.jsonl")) runs.push_back(point.run_dir);
      if (!runs.empty()) {
        try {
          write_report(runs, settings.sweep_dir + "/report.html");
          log().info("sweep: the points compared in {}/report.html; every point in {}/sweep.json", settings.sweep_dir,
                     settings.sweep_dir);
        } catch (const Error& e) {
          log().warn("sweep: no report: {}", e.what());
        }
      }
      if (const int code = sweep_exit_code(outcome); code != 0) throw SilentExit{code};
    };
  });
}

}  // namespace trainer::app
