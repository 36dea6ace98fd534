#include "sweep/sweep_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "report/run_files.h"
#include "runs/run_dir.h"
#include "util/error.h"
#include "util/json.h"
#include "util/logging.h"
#include "util/atomic_file.h"
#include "util/read_file.h"
#include "util/signals.h"
#include "util/text.h"

extern char** environ;

namespace trainer {
namespace {

namespace fs = std::filesystem;

// What run.json says of an earlier attempt at a point: "done", "pruned", ...
std::string status_before(const std::string& run_dir) {
  try {
    return read_run_listing(run_dir).status;
  } catch (const Error&) {
    return {};  // no run.json, or a damaged one: not known to be done
  }
}

// The monitored value of every epoch in the point's metrics.jsonl (a line
// still being written is skipped until it is whole).
std::map<int64_t, double> monitored_values(const std::string& run_dir, const std::string& key) {
  std::map<int64_t, double> values;
  const auto text = read_text_file(run_dir + "/metrics.jsonl");
  for (const NumberRecord& record : read_number_lines(text.value_or(""))) {
    const auto epoch = record.find("epoch");
    const auto value = record.find(key);
    if (epoch != record.end() && value != record.end()) values[static_cast<int64_t>(epoch->second)] = value->second;
  }
  return values;
}

// A pruned point's run stopped as an interrupted one does; its run.json
// says why, for `trainer runs` and the report.
void mark_pruned(const std::string& run_dir) {
  const std::string path = run_dir + "/run.json";
  auto json = nlohmann::ordered_json::parse(read_text_file(path).value_or(""), nullptr, false);
  if (!json.is_object()) return;
  json["status"] = "pruned";
  try {
    write_file_atomic(path, json_line(json));
  } catch (const Error& e) {
    log().warn("sweep: cannot mark {} as pruned: {}", path, e.what());
  }
}

// The best value of `key` by the run's own verdicts (train.monitor's
// best_epoch), its epoch, the epochs done and their seconds.
void read_results(PointOutcome& outcome, const std::string& key) {
  std::map<int64_t, double> values;
  int64_t best_epoch = 0;
  const auto text = read_text_file(outcome.run_dir + "/metrics.jsonl");
  for (const NumberRecord& record : read_number_lines(text.value_or(""))) {
    const auto number = [&](const char* name) {
      const auto found = record.find(name);
      return found == record.end() ? std::nullopt : std::optional<double>(found->second);
    };
    const int64_t epoch = static_cast<int64_t>(number("epoch").value_or(0));
    outcome.epochs_done = std::max(outcome.epochs_done, epoch);
    outcome.seconds += number("epoch_seconds").value_or(0);
    if (const auto value = number(key.c_str()); value && !std::isnan(*value)) values[epoch] = *value;
    if (const auto best = number("best_epoch")) best_epoch = static_cast<int64_t>(*best);
  }
  if (const auto found = values.find(best_epoch); found != values.end()) {
    outcome.best = found->second;
    outcome.best_epoch = best_epoch;
  }
}

class PointLauncher {
 public:
  explicit PointLauncher(const SweepSettings& settings) : settings_(settings) {}

  // Starts the point (on `device`, when given), or returns 0 when it was
  // done (or pruned, while pruning) before.
  pid_t start(PointOutcome& outcome, const std::string& device) {
    const std::string before = status_before(outcome.run_dir);
    if (before == "done" || (before == "pruned" && settings_.prune.rule != PruneRule::kNone)) {
      outcome.status = before;
      outcome.skipped = true;
      outcome.exit_code = before == "done" ? 0 : static_cast<int>(ExitCode::kInterrupted);
      return 0;
    }
    std::vector<std::string> args{settings_.executable};
    args.insert(args.end(), settings_.global_args.begin(), settings_.global_args.end());
    args.push_back("run");
    if (!list_checkpoints(RunDir{outcome.run_dir}).empty()) {
      args.insert(args.end(), {"--resume", outcome.run_dir});  // its own config.yaml
    } else {
      set_aside_failed_attempt(outcome.run_dir);
      args.push_back(settings_.file);
      for (const auto& set : settings_.fixed) args.insert(args.end(), {"--set", set});
      for (const auto& set : outcome.point.overrides) args.insert(args.end(), {"--set", set});
      args.insert(args.end(), {"--run-dir", outcome.run_dir});
    }
    if (settings_.threads_per_point > 0)
      args.insert(args.end(), {"--set", "cpu_threads=" + std::to_string(settings_.threads_per_point)});
    // After the point's own --set, so that it wins; a resumed point's
    // config.yaml allows the device to change.
    if (!device.empty()) {
      args.insert(args.end(), {"--set", "devices=" + device});
      outcome.device = device;
    }
    return spawn(args, outcome.run_dir + ".log");
  }

 private:
  // A run directory with no checkpoint cannot be resumed and `--run-dir`
  // takes only an empty one: the attempt is kept beside it, not deleted.
  static void set_aside_failed_attempt(const std::string& run_dir) {
    std::error_code error;
    if (!fs::exists(run_dir, error) || fs::is_empty(run_dir, error)) return;
    for (int n = 1;; ++n) {
      const std::string aside = run_dir + ".failed-" + std::to_string(n);
      if (fs::exists(aside, error)) continue;
      fs::rename(run_dir, aside, error);
      if (error) throw IoError("cannot move the failed attempt " + run_dir + " aside: " + error.message());
      log().info("sweep: the earlier attempt at {} had no checkpoint; kept as {}", run_dir, aside);
      return;
    }
  }

  // In a process group of its own, so that a Ctrl-C reaches the sweep
  // alone, which passes exactly one SIGTERM on (two would stop a run
  // without its checkpoint). Output appended to `log_path`.
  pid_t spawn(std::vector<std::string> args, const std::string& log_path) const {
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    short flags = POSIX_SPAWN_SETPGROUP;
    // The requeue signal blocked until the point's handler unblocks it: one
    // passed on while the point starts up waits instead of killing it.
    if (settings_.requeue_signal != 0) {
      sigset_t blocked;
      sigemptyset(&blocked);
      sigaddset(&blocked, settings_.requeue_signal);
      posix_spawnattr_setsigmask(&attributes, &blocked);
      flags |= POSIX_SPAWN_SETSIGMASK;
    }
    posix_spawnattr_setflags(&attributes, flags);
    posix_spawnattr_setpgroup(&attributes, 0);
    pid_t pid = -1;
    const int error = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error != 0) throw IoError("cannot start " + args[0] + ": " + std::strerror(error));
    return pid;
  }

  const SweepSettings& settings_;
};

std::string six_digits(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string prune_reason(PruneRule rule) {
  return rule == PruneRule::kMedian ? "its best so far is worse than the median of the others at that epoch"
                                    : "not among the best 1/factor of the points at this rung";
}

std::string status_of_exit(int code) {
  if (code == 0) return "done";
  if (code == static_cast<int>(ExitCode::kInterrupted)) return "interrupted";
  if (code == static_cast<int>(ExitCode::kRequeue)) return "requeue";
  return "failed";
}

}  // namespace

SweepOutcome run_sweep(const SweepPlan& plan, const SweepSettings& settings) {
  SweepOutcome result;
  for (const auto& point : plan.points) {
    PointOutcome outcome;
    outcome.point = point;
    outcome.run_dir = settings.sweep_dir + "/" + point.name;
    outcome.status = "not started";
    result.points.push_back(outcome);
  }
  std::error_code error;
  fs::create_directories(settings.sweep_dir, error);
  if (error) throw IoError("cannot create " + settings.sweep_dir + ": " + error.message());
  install_signal_counters();
  install_requeue_handler(settings.requeue_signal);
  PointLauncher launcher(settings);
  std::map<pid_t, size_t> running;  // pid -> point
  std::map<pid_t, size_t> slot_of;  // pid -> its --devices slot
  std::vector<bool> slot_busy(settings.device_slots.size(), false);
  size_t next = 0;
  int signals_passed_on = 0;
  // The epochs of earlier runs of the sweep count as the others' values;
  // only epochs trained now are judged.
  PointPruner pruner(settings.prune, settings.higher_is_better, plan.points.size());
  std::vector<int64_t> judged_up_to(plan.points.size(), 0);
  std::vector<uintmax_t> metrics_size(plan.points.size(), 0);
  std::map<pid_t, int64_t> pruning;  // pid -> the epoch after which it was told to stop
  if (settings.prune.rule != PruneRule::kNone)
    for (size_t i = 0; i < plan.points.size(); ++i)
      for (const auto& [epoch, value] : monitored_values(result.points[i].run_dir, settings.monitor)) {
        pruner.record(i, epoch, value);
        judged_up_to[i] = std::max(judged_up_to[i], epoch);
      }
  // Reads what the running points wrote since the last look and stops the
  // ones the rule judges weak.
  const auto judge_running_points = [&] {
    for (const auto& [pid, index] : running) {
      if (pruning.count(pid)) continue;
      const std::string metrics = result.points[index].run_dir + "/metrics.jsonl";
      std::error_code size_error;
      const uintmax_t size = fs::file_size(metrics, size_error);
      if (size_error || size == metrics_size[index]) continue;
      metrics_size[index] = size;
      for (const auto& [epoch, value] : monitored_values(result.points[index].run_dir, settings.monitor)) {
        if (epoch <= judged_up_to[index]) continue;
        judged_up_to[index] = epoch;
        if (!pruner.should_stop(index, epoch, value)) continue;
        log().info("sweep: pruning {} after epoch {} ({} {}: {})", result.points[index].point.name, epoch,
                   settings.monitor, six_digits(value), prune_reason(settings.prune.rule));
        kill(pid, SIGTERM);
        pruning[pid] = epoch;
        break;
      }
    }
  };
  while (true) {
    const int signals = received_signal_count();
    if (signals > signals_passed_on) {
      // The first: every point saves and stops (exit 9). A second: at once.
      result.interrupted = true;
      for (const auto& [pid, index] : running) kill(pid, signals_passed_on == 0 ? SIGTERM : SIGKILL);
      signals_passed_on = signals;
      log().warn("sweep: interrupted; {} the running points", signals == 1 ? "stopping" : "killing");
    }
    if (requeue_requested() && !result.requeued) {
      result.requeued = true;
      for (const auto& [pid, index] : running) kill(pid, settings.requeue_signal);
      log().warn("sweep: requeue signal; the running points save a checkpoint and stop, no more start (exit 10: "
                 "run the same sweep again to go on)");
    }
    while (!result.interrupted && !result.requeued && running.size() < static_cast<size_t>(settings.parallel) && next < plan.points.size()) {
      PointOutcome& outcome = result.points[next++];
      // A free slot exists: fewer points run than there are slots.
      const auto slot = static_cast<size_t>(std::find(slot_busy.begin(), slot_busy.end(), false) - slot_busy.begin());
      const pid_t pid = launcher.start(outcome, slot < slot_busy.size() ? settings.device_slots[slot] : "");
      if (pid > 0 && slot < slot_busy.size()) {
        slot_busy[slot] = true;
        slot_of[pid] = slot;
      }
      if (pid == 0) {
        log().info("sweep: {} was {} before; skipped", outcome.point.name, outcome.status);
        continue;
      }
      outcome.status = "running";
      running[pid] = next - 1;
      log().info("sweep: started {} ({} of {}){} in {}", outcome.point.name, next, plan.points.size(),
                 outcome.device.empty() ? "" : " on " + outcome.device, outcome.run_dir);
    }
    if (running.empty() && (result.interrupted || result.requeued || next >= plan.points.size())) break;
    if (settings.prune.rule != PruneRule::kNone && !result.interrupted) judge_running_points();
    int status = 0;
    const pid_t done = waitpid(-1, &status, WNOHANG);
    if (done <= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    const auto found = running.find(done);
    if (found == running.end()) continue;
    PointOutcome& outcome = result.points[found->second];
    running.erase(found);
    if (const auto held = slot_of.find(done); held != slot_of.end()) {
      slot_busy[held->second] = false;
      slot_of.erase(held);
    }
    outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    outcome.status = status_of_exit(outcome.exit_code);
    // Told to stop by the rule, not by the user: pruned (a point that ended
    // its last epoch first is simply done).
    if (pruning.erase(done) && outcome.status == "interrupted" && !result.interrupted) {
      outcome.status = "pruned";
      mark_pruned(outcome.run_dir);
    }
    const bool fine = outcome.status == "done" || outcome.status == "pruned";
    log().info("sweep: {} {} (exit code {}){}", outcome.point.name, outcome.status, outcome.exit_code,
               fine ? "" : "; its output: " + outcome.run_dir + ".log");
  }
  for (auto& outcome : result.points) read_results(outcome, settings.monitor);
  return result;
}

std::string format_sweep_table(const SweepOutcome& outcome, const SweepSettings& settings) {
  std::vector<const PointOutcome*> order;
  for (const auto& point : outcome.points) order.push_back(&point);
  // Points that trained to the end by their best value, then the pruned
  // ones (judged on fewer epochs), then those without a value.
  const auto group = [](const PointOutcome* p) { return !p->best ? 2 : p->status == "pruned" ? 1 : 0; };
  std::stable_sort(order.begin(), order.end(), [&](const PointOutcome* a, const PointOutcome* b) {
    if (group(a) != group(b)) return group(a) < group(b);
    if (!a->best) return false;
    return settings.higher_is_better ? *a->best > *b->best : *a->best < *b->best;
  });
  std::vector<std::vector<std::string>> rows{{"point", "status", "epochs", "best " + settings.monitor, "at epoch", "time"}};
  for (const PointOutcome* point : order) {
    const std::string best = point->best ? six_digits(*point->best) : "-";
    std::string status = point->status;
    if (point->status == "failed") status += " (exit " + std::to_string(point->exit_code) + ")";
    if (point->skipped) status += " (before)";
    rows.push_back({point->point.name, status, std::to_string(point->epochs_done), best,
                    point->best ? std::to_string(point->best_epoch) : "-",
                    point->seconds > 0 ? format_time_taken(point->seconds) : "-"});
  }
  return format_text_table(rows);
}

std::string format_sweep_json(const SweepOutcome& outcome, const SweepSettings& settings) {
  nlohmann::ordered_json json;
  json["sweep_dir"] = settings.sweep_dir;
  json["monitor"] = settings.monitor;
  json["prune"] = prune_rule_name(settings.prune.rule);
  if (settings.prune.rule != PruneRule::kNone) {
    json["prune_min_epochs"] = settings.prune.min_epochs;
    if (settings.prune.rule == PruneRule::kAsha) json["prune_factor"] = json_number(settings.prune.factor);
  }
  json["interrupted"] = outcome.interrupted;
  json["requeued"] = outcome.requeued;
  json["points"] = nlohmann::ordered_json::array();
  for (const auto& point : outcome.points) {
    nlohmann::ordered_json entry;
    entry["name"] = point.point.name;
    entry["overrides"] = point.point.overrides;
    entry["run_dir"] = point.run_dir;
    if (!point.device.empty()) entry["device"] = point.device;
    entry["status"] = point.status;
    entry["skipped"] = point.skipped;
    entry["exit_code"] = point.exit_code >= 0 ? nlohmann::ordered_json(point.exit_code) : nlohmann::ordered_json(nullptr);
    entry["epochs_done"] = point.epochs_done;
    entry["best"] = point.best ? json_number(*point.best) : nlohmann::ordered_json(nullptr);
    entry["best_epoch"] = point.best ? nlohmann::ordered_json(point.best_epoch) : nlohmann::ordered_json(nullptr);
    json["points"].push_back(entry);
  }
  return json_line(json);
}

int sweep_exit_code(const SweepOutcome& outcome) {
  if (outcome.interrupted) return static_cast<int>(ExitCode::kInterrupted);
  if (outcome.requeued) return static_cast<int>(ExitCode::kRequeue);
  for (const auto& point : outcome.points)
    if (point.status == "failed") return point.exit_code;
  return 0;
}

}  // namespace trainer
