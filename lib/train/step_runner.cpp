#include "train/step_runner.h"

#include <cmath>
#include <memory>
#include <optional>

#include "device/device_memory.h"
#include "device/device_select.h"
#include "feed/data_placement.h"
#include "feed/sampler.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer_factory.h"
#include "train/metrics.h"
#include "train/parameter_groups.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/stopwatch.h"

namespace trainer {

StepRunner::StepRunner(const ExperimentConfig& config, const torch::Device& device)
    : config_(config),
      device_(device),
      experiment_(prepare_experiment(config, device)),
      optimizer_(make_optimizer(config.optimizer, lr_scale_groups(experiment_.model, config.optimizer.lr_scale))),
      precision_(config, device, experiment_.model),
      step_(config, experiment_.model, *optimizer_, precision_, device) {
  // The data where a run would keep it, so that the steps are the run's.
  if (const std::string placed = place_data(experiment_.data, config.data.on_device, device, gpu_budget_bytes(device));
      !placed.empty())
    log().info("{}", placed);
  if (!precision_.note().empty()) log().info("{}", precision_.note());
}

std::vector<int64_t> StepRunner::sample_order(int64_t batch, int64_t steps) const {
  std::vector<int64_t> order;
  for (int64_t epoch = 1; static_cast<int64_t>(order.size()) < batch * steps; ++epoch) {
    const auto more = epoch_order(train_size(), config_.experiment.seed, epoch, config_.data.shuffle);
    order.insert(order.end(), more.begin(), more.end());
  }
  order.resize(static_cast<size_t>(batch * steps));
  return order;
}

std::unique_ptr<BatchFeed> StepRunner::open_feed(int64_t batch, int64_t steps) const {
  LoaderOptions options = loader_options(config_.data);
  options.batch_size = batch;
  options.epoch = 1;
  return std::make_unique<BatchFeed>(experiment_.data.train, sample_order(batch, steps), options, device_);
}

void StepRunner::run(int64_t batch, int64_t steps, StepTimes* times) {
  const std::unique_ptr<BatchFeed> loader = open_feed(batch, steps);
  const double steps_per_epoch = std::ceil(static_cast<double>(train_size()) / static_cast<double>(batch));
  std::unique_ptr<StepTimer> timer;
  if (times) timer = std::make_unique<StepTimer>(device_, *times);
  StepExtras extras;
  extras.timer = timer.get();
  for (int64_t step = 0;; ++step) {
    if (timer) timer->start();
    auto next = loader->next();
    if (!next) break;
    const double lr = scheduled_lr(config_.optimizer.schedule, *config_.optimizer.lr,
                                   static_cast<double>(step) / steps_per_epoch,
                                   static_cast<double>(config_.train.epochs));
    step_.run(*next, lr, 1.0, false, extras);
  }
  if (timer) timer->collect();
}

FeedRate StepRunner::feed_rate(int64_t batch, int64_t batches, double seconds) {
  FeedRate rate;
  synchronize(device_);
  // The start counts: a run's epochs wait for their feed's first batches too
  // (the next epoch's feed opens while the last one validates).
  Stopwatch clock;
  const std::unique_ptr<BatchFeed> feed = open_feed(batch, batches);
  while (rate.batches < batches && clock.seconds() < seconds) {
    auto next = feed->next();
    if (!next) break;
    ++rate.batches;
    rate.samples += next->size();
  }
  // The copies and the on-device degradation are queued work: done when the GPU has done them.
  synchronize(device_);
  rate.seconds = clock.seconds();
  return rate;
}

void StepRunner::run_at_rates(int64_t batch, const std::vector<double>& rates,
                              const std::function<bool(int64_t step, double loss)>& after_step) {
  const std::unique_ptr<BatchFeed> loader = open_feed(batch, static_cast<int64_t>(rates.size()));
  MetricAccumulator meters(config_.loss, {}, experiment_.model.final_softmax);
  StepExtras extras;
  extras.meters = &meters;
  for (size_t step = 0; step < rates.size(); ++step) {
    auto next = loader->next();
    if (!next) break;
    meters.reset();
    step_.run(*next, rates[step], 1.0, false, extras);
    if (!after_step(static_cast<int64_t>(step), meters.results().at(0).value)) break;
  }
}

CapturePlan StepRunner::enable_graph(int64_t batch) {
  const CapturePlan plan = plan_cuda_graph(
      config_, capture_facts(config_, experiment_.model, *optimizer_, device_, /*data_parallel=*/false));
  if (plan.capture) step_.enable_graph(batch);
  return plan;
}

bool StepRunner::fits(int64_t batch) {
  try {
    run(batch, 2, nullptr);
    return true;
  } catch (const OutOfMemoryError&) {
    return false;
  } catch (const c10::OutOfMemoryError&) {
    return false;
  }
}

}  // namespace trainer
