#pragma once
// The training loop of `trainer run`, one process (rank) of it:
// training_loop.cpp holds the epochs and steps (and run_training,
// run_training.h, which drives this class), training_loop_run_dir.cpp the
// run directory (new or resumed), its records and logs,
// training_loop_checkpoints.cpp the checkpoints (best.pt included),
// training_loop_stops.cpp the stops inside an epoch (divergence, signals).
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "device/deferred_read.h"
#include "device/gpu_monitor.h"
#include "device/runtime.h"
#include "distributed/cluster.h"
#include "distributed/gradient_reducer.h"
#include "optim/weight_average.h"
#include "runs/checkpoint.h"
#include "runs/epoch_monitor.h"
#include "runs/run_dir.h"
#include "runs/run_record.h"
#include "train/epoch_feed.h"
#include "train/experiment_setup.h"
#include "train/metrics.h"
#include "train/mixed_precision.h"
#include "train/run_training.h"
#include "train/step_monitor.h"
#include "train/step_profiler.h"
#include "train/train_step.h"
#include "train/validation_graph.h"
#include "watch/progress.h"
#include "watch/run_observer.h"

namespace trainer {

class TrainingLoop {
 public:
  TrainingLoop(const ExperimentConfig& config, const RunOptions& options);

  RunSummary run();

  // RUN_DIR/run.json's last version, once the run directory exists: rank 0
  // writes it. A failure to write it must not hide why the run ended, so it
  // is only warned about when the run failed anyway.
  void record_end(int exit_code, const std::string& error);

  // Tells the other ranks this one is failing, so they stop at once and name it.
  void mark_failed(const std::string& reason) { cluster_.mark_failed(reason); }

 private:
  // training_loop.cpp: epochs and steps.
  EpochRecord run_epoch(int64_t epoch);
  // The epoch's steps; fills `record`'s step counts and data waits.
  void train_steps(int64_t epoch, EpochRecord& record);
  // train.cuda_graph: whether the steps are captured, logged; a prevented
  // `on` is a config error. Validation's forward likewise, where the model
  // allows it.
  void plan_graph();
  void sum_over_ranks(MetricAccumulator& meters);
  void report_step(int64_t epoch, double lr);
  // The per-step point still waiting for its loss on a GPU, to the observers.
  void flush_step_point();

  // training_loop_stops.cpp: stopping inside an epoch.
  // A diverged run stops within `check_finite_every` steps instead of
  // training on NaN to the epoch's end, and saves nothing. Every rank checks
  // after the same step and learns whether any rank's loss diverged.
  void stop_if_diverged(int64_t epoch, int64_t step);
  std::string diverged_hint() const;
  // Whether a data-parallel step's summed votes (StepOutcome::stop_votes)
  // say stop; on a GPU those of the step before.
  bool stop_voted(const torch::Tensor& votes);
  [[noreturn]] void stop_for_interrupt(int64_t epoch, int64_t step);

  // training_loop_run_dir.cpp: the run directory, its records and logs.
  // Takes run_lock_ (rank 0 outside a supervisor); throws UsageError when
  // another process holds the run.
  void lock_run();
  void start_new_run();
  void resume_run();
  RunRecord run_record() const;
  // Rank 0 records the run for TensorBoard (and whatever else watches it).
  void open_observers();
  void open_logs();
  void log_header() const;
  // What the model must beat: the validation inputs taken as they are.
  void log_identity_baseline();

  // training_loop_checkpoints.cpp: checkpoints, best.pt, metrics.jsonl.
  // Every rank enters; rank 0 writes once all have finished the step, and
  // the others wait until the file is complete.
  // `to`: that file instead of the epoch's (which pruning may remove).
  std::string save(int64_t epochs_done, int64_t step_in_epoch, const std::string& to = {});
  // train.monitor's verdict on the epoch, into the record and the counters
  // the next checkpoint carries. Every rank reaches the same verdict: the
  // figures are sums over all ranks.
  MonitorVerdict judge(EpochRecord& record);
  // checkpoints/best.pt: the epoch's checkpoint when one was just written
  // (a hard link to it, else a copy), else a checkpoint of its own.
  void keep_best(int64_t epoch, const std::string& saved);
  // Puts best.pt's weights back into the model (every rank loads the same file).
  void restore_best();
  void append_metrics(const EpochRecord& record);

  const ExperimentConfig& config_;
  RunOptions options_;
  torch::Device device_;
  RuntimeInfo runtime_;
  Cluster cluster_;
  Experiment experiment_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  MixedPrecision precision_;
  MetricAccumulator meters_;
  ProgressBar progress_;
  std::unique_ptr<GradientReducer> reducer_;
  std::unique_ptr<WeightAverage> average_;  // train.ema
  std::unique_ptr<TrainStep> step_;
  std::unique_ptr<ValidationGraph> validation_graph_;  // null: validation runs eagerly
  StepMonitor monitor_;
  StepProfiler profiler_;
  EpochMonitor best_;  // train.monitor: best.pt and early stopping
  std::unique_ptr<GpuMonitor> gpu_monitor_;  // GPUs with NVML
  std::vector<std::unique_ptr<RunObserver>> observers_;  // rank 0's
  RunDir run_;
  ProcessLock run_lock_;  // rank 0's, unless a supervisor of this node's ranks holds it
  RunRecord record_;  // rank 0's
  TrainingState state_;
  int64_t steps_per_epoch_ = 0;    // optimizer steps
  int64_t batches_per_epoch_ = 0;  // batches of train.batch_size: train.accumulate to a step
  DeferredRead divergence_check_;  // on a GPU, the last check's verdict in flight
  DeferredRead stop_vote_read_;    // on a GPU, the last data-parallel step's stop votes in flight
  int64_t divergence_step_ = 0;    // the step it was taken after
  // The next epoch's batches, opened when the last epoch's steps ended.
  std::unique_ptr<EpochFeed> next_epoch_;
};

}  // namespace trainer
