#pragma once
// `trainer bench FILE`: timed training steps of an experiment, without a run
// directory: where the step time goes, and the peak memory.
#include "bench/training_report.h"
#include "spec/experiment_config.h"

namespace trainer {

struct TrainingBenchOptions {
  int64_t steps = 20;
  int64_t warmup = 3;
  // Also search the largest batch whose steps fit memory_limit (which must
  // be set): doubling from train.batch_size, then bisecting.
  bool find_max_batch = false;
  // Also time the input pipeline alone (its batches, no steps), so that the
  // report says whether it keeps up with the steps.
  bool time_feed = false;
};

// Throws UsageError (find_max_batch without a budget), DataError, OutOfMemoryError.
TrainingBenchResult run_training_bench(const std::string& experiment_name, const ExperimentConfig& config,
                                       const TrainingBenchOptions& options);

}  // namespace trainer
