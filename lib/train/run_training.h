#pragma once
// `trainer run` and `trainer eval`: the training loop and checkpoint evaluation.
#include <optional>
#include <string>
#include <vector>

#include "distributed/launch_env.h"
#include "runs/epoch_log.h"
#include "spec/experiment_config.h"

namespace trainer {

struct RunOptions {
  std::string version;      // the program's, for the log header: "0.1.0"
  std::string resume;       // run directory or checkpoint; empty: a new run
  std::string run_dir;      // --run-dir: a new run's directory, exactly; empty: under log.dir
  bool quiet = false;       // no progress bar
  // This process's rank when it is one of several; empty: a single process.
  std::optional<LaunchInfo> launch;
};

struct RunSummary {
  std::string run_dir;
  std::vector<EpochRecord> records;  // of this invocation
};

// Trains as the config says. Throws DivergedError, InterruptedError (after
// saving a checkpoint), DataError, IoError, DistributedError.
RunSummary run_training(const ExperimentConfig& config, const RunOptions& options);

struct CheckpointEvaluation {
  int64_t epoch = 0;          // epochs done when it was saved
  int64_t step_in_epoch = 0;  // mid-epoch checkpoints: steps into the next
  std::vector<MetricValue> valid;
  ConfusionMatrix confusion;             // with precision, recall or f1 among the metrics
  std::vector<std::string> class_names;  // where the data names its classes
};

// Validation metrics of the model in `checkpoint`.
CheckpointEvaluation evaluate_checkpoint(const ExperimentConfig& config, const std::string& checkpoint);

}  // namespace trainer
