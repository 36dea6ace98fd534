#pragma once
// The largest batch that fits a memory budget, found by trying: two steps
// of each candidate batch (doubling, then bisecting), as `trainer bench
// --find-max-batch` reports it and `train.batch_size: auto` uses it.
#include <cstdint>

#include "spec/experiment_config.h"
#include "train/step_runner.h"

namespace trainer {

struct BatchSearch {
  int64_t largest = 0;      // 0: not even a batch of 1 fits
  bool whole_data = false;  // the whole training set fits: the data, not the memory, set the limit
};

// Doubling from `start` (capped at the training set's size) while two steps
// fit, then bisecting between the last that fitted and the first that did not.
BatchSearch largest_fitting_batch(StepRunner& runner, int64_t start);

// train.batch_size: auto made a number on `device`: the largest fitting
// batch rounded down to a multiple of 8 (the whole training set when it
// all fits), logged with what limited it. Throws UsageError without
// memory_limit or with several devices, OutOfMemoryError when not even one
// sample fits.
int64_t find_auto_batch_size(const ExperimentConfig& config, const torch::Device& device);

// The same with the runner of a command that measures steps (bench, tune).
int64_t auto_batch_size_with(StepRunner& runner, const ExperimentConfig& config);

}  // namespace trainer
