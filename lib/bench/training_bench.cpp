#include "bench/training_bench.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "device/device_memory.h"
#include "device/device_select.h"
#include "device/runtime.h"
#include "train/batch_size_search.h"
#include "train/step_runner.h"
#include "util/error.h"
#include "util/stopwatch.h"

namespace trainer {

namespace {

constexpr int64_t kFeedBatches = 100;
constexpr double kFeedSeconds = 10;

// The eager steps' figures beside the same steps replaying one captured
// step: its warm-up and capture first, then the steps timed as the eager
// ones were.
void measure_graphed_steps(StepRunner& runner, const torch::Device& device, int64_t batch,
                           const TrainingBenchOptions& options, TrainingBenchResult& result) {
  const CapturePlan plan = runner.enable_graph(batch);
  if (!plan.capture) {
    result.graph_note = plan.reason;
    return;
  }
  runner.run(batch, kGraphWarmupSteps + 2, nullptr);
  if (!runner.graph_captured()) {
    result.graph_note = "the step could not be captured (the log says why)";
    return;
  }
  synchronize(device);
  Stopwatch clock;
  runner.run(batch, options.steps, nullptr);
  synchronize(device);
  result.graphed_wall_seconds = clock.seconds();
}

}  // namespace

TrainingBenchResult run_training_bench(const std::string& experiment_name, const ExperimentConfig& config,
                                       const TrainingBenchOptions& options) {
  if (options.find_max_batch && config.memory_limit.mib == 0)
    throw UsageError("--find-max-batch needs a memory budget", "set memory_limit, e.g. --set memory_limit=2GiB");
  const torch::Device device = primary_device(config.devices.entries);
  configure_runtime(config, device);
  StepRunner runner(config, device);
  // The experiment as a run would train it: an automatic batch found first.
  const int64_t batch =
      config.train.batch_size.automatic ? auto_batch_size_with(runner, config) : config.train.batch_size.value;
  TrainingBenchResult result;
  result.experiment = experiment_name;
  result.device = device_entry(device);
  result.precision = runner.precision().describe();
  result.forward_multiply_adds = runner.model().forward_multiply_adds();
  result.batch_size = batch;
  result.steps = options.steps;
  result.memory_budget_bytes = config.memory_limit.mib * 1024 * 1024;
  runner.run(batch, options.warmup, nullptr);
  reset_device_memory_peak(device);
  runner.run(batch, options.steps, &result.times);
  if (device.is_cuda()) {
    // The phases' split waited for the GPU at each phase's end; the speed
    // comes from the same steps run as a training run runs them.
    synchronize(device);
    Stopwatch clock;
    runner.run(batch, options.steps, nullptr);
    synchronize(device);
    result.wall_seconds = clock.seconds();
    measure_graphed_steps(runner, device, batch, options, result);
  }
  result.peak_memory_bytes = device_memory_usage(device).peak_bytes;
  if (options.time_feed) {
    // Enough batches that the feed's start and its filled queue (data.prefetch
    // batches made ahead) weigh little; a slow pipeline stops at the time limit.
    const FeedRate feed = runner.feed_rate(batch, std::max<int64_t>(options.steps, kFeedBatches), kFeedSeconds);
    result.feed_samples = feed.samples;
    result.feed_seconds = feed.seconds;
    result.data_workers = config.data.workers;
  }
  if (options.find_max_batch) {
    const BatchSearch found = largest_fitting_batch(runner, batch);
    result.max_batch = found.largest;
    result.max_batch_is_data_size = found.whole_data;
  }
  return result;
}

}  // namespace trainer
