#include "bench/training_bench.h"

#include "data/batch_loader.h"
#include "data/sampler.h"
#include "device/memory_budget.h"
#include "train/experiment_setup.h"
#include "train/loss.h"
#include "train/optimizer_factory.h"
#include "train/precision_forward.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/stopwatch.h"

namespace trainer {
namespace {

class StepRunner {
 public:
  explicit StepRunner(const ExperimentConfig& config)
      : config_(config),
        experiment_(prepare_experiment(config)),
        optimizer_(make_optimizer(config.optimizer, experiment_.model.net->parameters())),
        autocast_(run_autocast_dtype(config)) {}

  int64_t train_size() const { return experiment_.data.train.size(); }

  // `steps` steps of `batch` samples (the training set cycled as needed);
  // the phases' seconds are added to `times` when given.
  void run(int64_t batch, int64_t steps, StepTimes* times) {
    std::vector<int64_t> order;
    for (int64_t epoch = 1; static_cast<int64_t>(order.size()) < batch * steps; ++epoch) {
      const auto more = epoch_order(train_size(), config_.experiment.seed, epoch, config_.data.shuffle);
      order.insert(order.end(), more.begin(), more.end());
    }
    order.resize(static_cast<size_t>(batch * steps));
    LoaderOptions options;
    options.batch_size = batch;
    options.workers = config_.data.workers;
    options.prefetch = config_.data.prefetch;
    BatchLoader loader(experiment_.data.train, std::move(order), options);
    auto& model = experiment_.model;
    while (true) {
      Stopwatch clock;
      auto next = loader.next();
      if (!next) break;
      const double data = clock.seconds();
      model.net->zero_grad(/*set_to_none=*/true);
      const auto output = forward_in_precision(model, next->inputs, autocast_);
      const auto loss = compute_loss(config_.loss, output, next->labels, model.final_softmax);
      const double forward = clock.seconds();
      loss.backward();
      const double backward = clock.seconds();
      optimizer_->step();
      const double done = clock.seconds();
      if (times) {
        times->data += data;
        times->forward += forward - data;
        times->backward += backward - forward;
        times->optimizer += done - backward;
      }
    }
  }

  // Whether two steps of `batch` fit the budget.
  bool fits(int64_t batch) {
    try {
      run(batch, 2, nullptr);
      return true;
    } catch (const OutOfMemoryError&) {
      return false;
    }
  }

 private:
  const ExperimentConfig& config_;
  Experiment experiment_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  torch::ScalarType autocast_;
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
  configure_runtime(config);
  StepRunner runner(config);
  TrainingBenchResult result;
  result.experiment = experiment_name;
  const auto dtype = run_autocast_dtype(config);
  result.precision = dtype == torch::kFloat32 ? "fp32" : dtype == torch::kBFloat16 ? "bf16 autocast" : "fp16 autocast";
  result.batch_size = config.train.batch_size;
  result.steps = options.steps;
  result.memory_budget_bytes = config.memory_limit.mib * 1024 * 1024;
  runner.run(config.train.batch_size, options.warmup, nullptr);
  reset_cpu_memory_peak();
  runner.run(config.train.batch_size, options.steps, &result.times);
  result.peak_memory_bytes = cpu_memory_usage().peak_bytes;
  if (options.find_max_batch) result.max_batch = largest_fitting_batch(runner, config.train.batch_size);
  return result;
}

}  // namespace trainer
