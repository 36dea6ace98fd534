#pragma once
// The run directory: runs/<experiment>/<YYYYmmdd-HHMMSS>/ holding
// config.yaml (the resolved config), train.log, metrics.jsonl and
// checkpoints/epoch-NNNN.pt.
#include <cstdint>
#include <string>
#include <vector>

#include "util/process_lock.h"

namespace trainer {

struct RunDir {
  std::string path;
  // The name asked for when another run had it (this one got "-2", ...).
  std::string taken_name = {};
  std::string config() const { return path + "/config.yaml"; }
  std::string log() const { return path + "/train.log"; }
  std::string metrics() const { return path + "/metrics.jsonl"; }
  std::string steps() const { return path + "/steps.jsonl"; }
  std::string report() const { return path + "/report.html"; }
  // Held by the one process writing the run (lock_run_dir).
  std::string lock() const { return path + "/run.lock"; }
  std::string checkpoints() const { return path + "/checkpoints"; }
  // The best epoch's (train.monitor); never pruned, never resumed from.
  std::string best_checkpoint() const { return checkpoints() + "/best.pt"; }
  std::string checkpoint_for(int64_t epoch, int64_t step_in_epoch) const;
};

// Creates <root>/<experiment>/<run_name or timestamp>/ (a new one: "-2",
// "-3" ... is appended when the name is taken, and taken_name says so).
// Throws IoError.
RunDir create_run_dir(const std::string& root, const std::string& experiment, const std::string& run_name);

// The directory `--run-dir` names, exactly: made when missing, used when
// empty; UsageError when it holds anything (resume it instead).
RunDir create_exact_run_dir(const std::string& path);

// Points <root>/<experiment>/latest at `run` when the run lives there: a
// relative symlink, replaced atomically (a new link renamed over the old).
// Returns what went wrong, empty when nothing did (or nothing was to do).
std::string update_latest_link(const RunDir& run, const std::string& root, const std::string& experiment);

// Makes this process the only writer of `run` while the lock lives: a
// second `trainer run --resume` of a run still training is refused (a
// UsageError naming the holder's pid and host) before it writes anything.
ProcessLock lock_run_dir(const RunDir& run);

// Throws lock_run_dir's UsageError when the run that `--resume` names is
// held by another process, before anything else is said about it (a run
// still in its first epoch has no checkpoint yet). Only where no other rank
// of the same run can hold it: a single process, or a supervisor.
void check_run_dir_free(const std::string& resume_target);

// The checkpoints in `run`, oldest first.
std::vector<std::string> list_checkpoints(const RunDir& run);

// Removes all but the newest `keep` checkpoints.
void prune_checkpoints(const RunDir& run, int64_t keep);

struct ResumePoint {
  RunDir run;
  // Newest first: a resumed run takes the first that loads. Only the one
  // named when `--resume` names a file.
  std::vector<std::string> checkpoints;
  bool named_file = false;
};

// `--resume` takes a run directory (its checkpoints) or a checkpoint file.
// Throws UsageError when neither is found.
ResumePoint find_resume_point(const std::string& run_dir_or_checkpoint);

// The run directory of a `trainer run`, decided once, by the process that
// starts the run (a single process, the supervisor, or rank 0 under a
// launcher), and handed to the ranks: resuming, the resumed run's; otherwise
// a new one: `exact` (--run-dir) when given, else under `root`
// (create_run_dir; a taken name is warned about at every log level).
RunDir open_run_dir(const std::string& root, const std::string& experiment, const std::string& run_name,
                    const std::string& resume, const std::string& exact = {});

// Keeps the metrics.jsonl lines of epochs <= `epoch` (a resumed run rewrites
// what comes after), atomically.
void truncate_metrics(const RunDir& run, int64_t epoch);
// The same for any JSON-lines file: keeps the lines whose integer `key` is
// <= `last`. Nothing happens when the file does not exist.
void truncate_jsonl(const std::string& path, const std::string& key, int64_t last);

// A resume that changed keys (run_command checked they may change):
// config.yaml becomes `config_yaml`, the config in force, and the earlier one
// is kept as config.resume-N.yaml.
void keep_config_in_force(const RunDir& run, const std::string& config_yaml);

// Removes what killed writers of this run left (kill -9 during a
// checkpoint), saying so.
void remove_debris(const RunDir& run);

}  // namespace trainer
