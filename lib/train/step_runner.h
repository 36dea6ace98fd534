#pragma once
// Training steps outside a run, for the commands that measure an experiment
// rather than train it (`trainer bench`, `trainer tune lr`): the run's own
// step (model, optimizer, precision, data where a run keeps it) on batches
// of any size, the training set cycled in the order a run's epochs take it.
// Nothing is saved; the weights are changed.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <vector>

#include "feed/batch_feed.h"
#include "train/experiment_setup.h"
#include "train/mixed_precision.h"
#include "train/train_step.h"

namespace trainer {

struct FeedRate {
  int64_t batches = 0, samples = 0;
  double seconds = 0;  // from the feed's start (its threads') to the last batch ready on the device
};

class StepRunner {
 public:
  StepRunner(const ExperimentConfig& config, const torch::Device& device);

  int64_t train_size() const { return experiment_.data.train.size(); }

  // `steps` steps of `batch` samples at the learning rates the schedule
  // gives the first steps of a run; the phases' seconds are added to
  // `times` when given.
  void run(int64_t batch, int64_t steps, StepTimes* times);

  // A step of `batch` samples at each of `rates` in turn, telling
  // `after_step` the step (from 0) and the batch's mean loss; it returns
  // false to stop there.
  void run_at_rates(int64_t batch, const std::vector<double>& rates,
                    const std::function<bool(int64_t step, double loss)>& after_step);

  // The input pipeline alone, as a run's feed delivers batches of `batch`
  // samples to the step's device (loader threads, pinned copies, the
  // degradation a GPU applies), with no step: up to `batches` batches or
  // until `seconds` have passed, whichever comes first.
  FeedRate feed_rate(int64_t batch, int64_t batches, double seconds);

  // Whether two steps of `batch` fit the budget.
  bool fits(int64_t batch);

  const MixedPrecision& precision() const { return precision_; }
  const Model& model() const { return experiment_.model; }

  // train.cuda_graph for the steps from now on, where the plan allows it
  // (its reason otherwise): `bench` times the eager and the graphed steps.
  CapturePlan enable_graph(int64_t batch);
  bool graph_captured() const { return step_.graphed() && step_.graphed()->captured(); }

 private:
  // The first `batch` x `steps` samples of the run's epochs, one after another.
  std::vector<int64_t> sample_order(int64_t batch, int64_t steps) const;
  // A feed of those samples in batches of `batch`, as a run's first epoch loads them.
  std::unique_ptr<BatchFeed> open_feed(int64_t batch, int64_t steps) const;

  const ExperimentConfig& config_;
  torch::Device device_;
  Experiment experiment_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  MixedPrecision precision_;
  TrainStep step_;
};

}  // namespace trainer
