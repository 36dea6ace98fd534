#include "bench/training_bench.h"

#include <cmath>
#include <optional>

#include "device/device_memory.h"
#include "device/device_select.h"
#include "device/runtime.h"
#include "train/step_runner.h"
#include "util/error.h"
#include "util/stopwatch.h"

namespace trainer {
namespace {

int64_t largest_fitting_batch(StepRunner& runner, int64_t start) {
  const int64_t cap = runner.train_size();
  int64_t good = 0, bad = 0;
  for (int64_t batch = std::min(start, cap);; batch = std::min(batch * 2, cap)) {
    if (!runner.fits(batch)) {
      bad = batch;
      break;
    }
    good = batch;
    if (batch == cap) return good;  // the whole training set fits
  }
  int64_t low = good, high = bad;  // low fits (or 0), high does not
  while (high - low > 1) {
    const int64_t middle = low + (high - low) / 2;
    (runner.fits(middle) ? low : high) = middle;
  }
  return low;
}

}  // namespace

TrainingBenchResult run_training_bench(const std::string& experiment_name, const ExperimentConfig& config,
                                       const TrainingBenchOptions& options) {
  if (options.find_max_batch && config.memory_limit.mib == 0)
    throw UsageError("--find-max-batch needs a memory budget", "set memory_limit, e.g. --set memory_limit=2GiB");
  const torch::Device device = primary_device(config.devices.entries);
  configure_runtime(config, device);
  StepRunner runner(config, device);
  TrainingBenchResult result;
  result.experiment = experiment_name;
  result.device = device_entry(device);
  result.precision = runner.precision().describe();
  result.batch_size = config.train.batch_size;
  result.steps = options.steps;
  result.memory_budget_bytes = config.memory_limit.mib * 1024 * 1024;
  runner.run(config.train.batch_size, options.warmup, nullptr);
  reset_device_memory_peak(device);
  runner.run(config.train.batch_size, options.steps, &result.times);
  if (device.is_cuda()) {
    // The phases' split waited for the GPU at each phase's end; the speed
    // comes from the same steps run as a training run runs them.
    synchronize(device);
    Stopwatch clock;
    runner.run(config.train.batch_size, options.steps, nullptr);
    synchronize(device);
    result.wall_seconds = clock.seconds();
  }
  result.peak_memory_bytes = device_memory_usage(device).peak_bytes;
  if (options.find_max_batch) {
    result.max_batch = largest_fitting_batch(runner, config.train.batch_size);
    result.max_batch_is_data_size = result.max_batch == runner.train_size();
  }
  return result;
}

}  // namespace trainer
