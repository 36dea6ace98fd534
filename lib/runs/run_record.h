#pragma once
// RUN_DIR/run.json: where a run stands, for the scripts that start runs and
// the ones that read them afterwards (docs/runs.md "run.json"). Written when
// the run starts, after every epoch, and when it ends; always replaced
// atomically, so a reader sees one whole version. Torch-free.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runs/epoch_log.h"
#include "runs/run_dir.h"
#include "spec/experiment_config.h"

namespace trainer {

// "running" until the run ends, then what its exit code says: 0 done,
// 7 diverged, 9 interrupted, anything else failed.
std::string run_status_for_exit_code(int exit_code);

// The best and the last value of one metrics.jsonl key over the run's epochs.
struct MetricHistory {
  bool higher_is_better = false;
  std::optional<double> last, best;  // empty: no finite value yet
  int64_t last_epoch = 0, best_epoch = 0;
  void add(int64_t epoch, double value);
};

class RunRecord {
 public:
  RunRecord() = default;
  // A run of `config` in `run`, started now by this process.
  RunRecord(const RunDir& run, const ExperimentConfig& config, std::string version, int world_size);

  // A resumed run: the epochs in metrics.jsonl (what it holds now, replacing
  // what was read before) count, so best and last cover the whole run.
  // Unreadable lines are skipped.
  void set_metrics_jsonl(const std::string& text);
  void add_epoch(const EpochRecord& record);
  void set_resumed_from(const std::string& checkpoint) { resumed_from_ = checkpoint; }
  // The epoch checkpoints/best.pt holds, once it is on disk (a best epoch
  // whose copy failed leaves the earlier one): paths.best_checkpoint_epoch.
  void set_best_checkpoint_epoch(int64_t epoch) { best_checkpoint_epoch_ = epoch; }
  // The validation metrics of the inputs themselves (image targets only).
  void set_identity_baseline(std::vector<MetricValue> values) { identity_baseline_ = std::move(values); }
  // The classes' names, where the data names them (image_folder's folders),
  // in the order of the confusion matrix's rows.
  void set_class_names(std::vector<std::string> names) { class_names_ = std::move(names); }
  // The type the forward pass runs in ("fp32", "bf16", "fp16"): the
  // config's, or fp32 where a GPU kept it for a small model.
  void set_precision(std::string precision) { precision_ = std::move(precision); }
  // Ends the record: status from the exit code; `error` is the message of
  // a failure (empty when done).
  void finish(int exit_code, const std::string& error);

  std::string to_json() const;
  // Replaces RUN_DIR/run.json atomically. Throws IoError.
  void write() const;
  const RunDir& run() const { return run_; }

 private:
  RunDir run_;
  std::string monitor_;  // train.monitor's metrics.jsonl key: what "best" means for this run
  std::string experiment_, version_, host_, started_at_, ended_at_, resumed_from_, error_;
  std::vector<std::string> devices_;
  std::vector<MetricValue> identity_baseline_;
  std::vector<std::string> class_names_;
  std::string precision_;
  int pid_ = 0, world_size_ = 1;
  std::optional<int> exit_code_;
  int64_t epochs_ = 0, epochs_done_ = 0;
  std::optional<int64_t> best_checkpoint_epoch_;
  MetricHistory& history_of(const std::string& key);
  std::vector<std::pair<std::string, MetricHistory>> metrics_;  // by metrics.jsonl key, in its order
};

// What a supervisor, which outlives its ranks, knows better than rank 0:
// the exit code of the whole run. Rewrites RUN_DIR/run.json when it still
// says "running" (rank 0 was killed) or holds another exit code. Returns
// what went wrong, empty when nothing did (or there was no run.json).
std::string settle_run_json(const std::string& run_dir, int exit_code);

}  // namespace trainer
