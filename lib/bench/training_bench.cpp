#include "bench/training_bench.h"

#include <cmath>
#include <optional>

#include "device/device_memory.h"
#include "device/device_select.h"
#include "device/runtime.h"
#include "feed/batch_feed.h"
#include "feed/data_placement.h"
#include "feed/sampler.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer_factory.h"
#include "train/experiment_setup.h"
#include "train/mixed_precision.h"
#include "train/parameter_groups.h"
#include "train/train_step.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/stopwatch.h"

namespace trainer {
namespace {

class StepRunner {
 public:
  StepRunner(const ExperimentConfig& config, const torch::Device& device)
      : config_(config),
        device_(device),
        experiment_(prepare_experiment(config, device)),
        optimizer_(make_optimizer(config.optimizer, lr_scale_groups(experiment_.model, config.optimizer.lr_scale))),
        precision_(config, device),
        step_(config, experiment_.model, *optimizer_, precision_, device) {
    // The data where a run would keep it, so that the bench times the run's step.
    if (const std::string placed = place_data(experiment_.data, config.data.on_device, device, gpu_budget_bytes(device));
        !placed.empty())
      log().info("{}", placed);
  }

  int64_t train_size() const { return experiment_.data.train.size(); }

  // `steps` steps of `batch` samples (the training set cycled as needed),
  // at the learning rates the schedule gives the first steps of a run; the
  // phases' seconds are added to `times` when given.
  void run(int64_t batch, int64_t steps, StepTimes* times) {
    std::vector<int64_t> order;
    for (int64_t epoch = 1; static_cast<int64_t>(order.size()) < batch * steps; ++epoch) {
      const auto more = epoch_order(train_size(), config_.experiment.seed, epoch, config_.data.shuffle);
      order.insert(order.end(), more.begin(), more.end());
    }
    order.resize(static_cast<size_t>(batch * steps));
    LoaderOptions options = loader_options(config_.data);
    options.batch_size = batch;
    options.epoch = 1;
    BatchFeed loader(experiment_.data.train, std::move(order), options, device_);
    const double steps_per_epoch = std::ceil(static_cast<double>(train_size()) / static_cast<double>(batch));
    std::optional<StepTimer> timer;
    if (times) timer.emplace(device_, *times);
    StepExtras extras;
    extras.timer = timer ? &*timer : nullptr;
    for (int64_t step = 0;; ++step) {
      if (timer) timer->start();
      auto next = loader.next();
      if (!next) break;
      const double lr = scheduled_lr(config_.optimizer.schedule, *config_.optimizer.lr,
                                     static_cast<double>(step) / steps_per_epoch,
                                     static_cast<double>(config_.train.epochs));
      step_.run(*next, lr, 1.0, false, extras);
    }
  }

  // Whether two steps of `batch` fit the budget.
  bool fits(int64_t batch) {
    try {
      run(batch, 2, nullptr);
      return true;
    } catch (const OutOfMemoryError&) {
      return false;
    } catch (const c10::OutOfMemoryError&) {
      return false;
    }
  }

  const MixedPrecision& precision() const { return precision_; }

 private:
  const ExperimentConfig& config_;
  torch::Device device_;
  Experiment experiment_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  MixedPrecision precision_;
  TrainStep step_;
};

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
