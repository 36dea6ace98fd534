#pragma once
// The learning-rate range test (Smith's, as fastai's lr_find and
// Lightning's Tuner.lr_find run it): from a fresh model, one step at each
// of a rising series of rates, exponentially spaced, the loss smoothed as it
// goes; stopped when the loss runs away. The rate where the smoothed loss
// falls fastest is the suggestion. The reading of the curve is torch-free
// (lr_range_curve.h); this runs the steps.
#include <cstdint>

#include "spec/experiment_config.h"
#include "tune/lr_range_curve.h"

namespace trainer {

struct LrRangeOptions {
  int64_t steps = 100;
  double min_lr = 1e-7;
  double max_lr = 10;
};

// Runs the test on the experiment's model, data, optimizer and batch size
// (train.batch_size), on its first device. Throws what preparing the
// experiment throws (ConfigError, DataError, DeviceError, OutOfMemoryError).
LrRangeCurve run_lr_range_test(const ExperimentConfig& config, const LrRangeOptions& options);

}  // namespace trainer
