#include "train/validation.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "feed/batch_feed.h"
#include "feed/sampler.h"
#include "train/loss.h"
#include "train/metrics.h"
#include "train/mixed_precision.h"

namespace trainer {

int64_t validation_batch_size(const ExperimentConfig& config, const torch::Device& device, int64_t samples) {
  if (config.train.valid_batch_size > 0) return config.train.valid_batch_size;
  const int64_t batch = config.train.batch_size.value;
  // batch_size was checked against the training set, not this one: no overflow past it.
  const int64_t wanted = device.is_cuda() && batch <= samples / 4 ? 4 * batch : batch;
  return std::max<int64_t>(1, std::min(wanted, samples));
}

namespace {

// The order and loader options of this rank's shard of the validation set.
BatchFeed shard_loader(const TensorDataset& data, const ExperimentConfig& config, const torch::Device& device,
                       const Communicator& communicator) {
  const Shard shard = shard_of(data.size(), communicator.rank(), communicator.world_size());
  std::vector<int64_t> order(static_cast<size_t>(shard.size));
  std::iota(order.begin(), order.end(), shard.begin);
  LoaderOptions options = loader_options(config.data);
  options.batch_size = validation_batch_size(config, device, std::max<int64_t>(1, data.size()));
  return BatchFeed(data, std::move(order), options, device);
}

void sum_over_ranks(MetricAccumulator& meters, Communicator& communicator) {
  auto sums = meters.state();
  communicator.all_reduce(sums);
  meters.load_state(sums);
}

}  // namespace

std::vector<MetricValue> identity_baseline(const TensorDataset& data, const ExperimentConfig& config,
                                           Communicator& communicator) {
  torch::NoGradGuard no_grad;
  MetricAccumulator meters(config.loss, config.metrics, false, config.data.images.value_range());
  BatchFeed loader = shard_loader(data, config, torch::kCPU, communicator);
  while (auto batch = loader.next())
    meters.add(compute_loss(config.loss, batch->inputs, batch->labels, false), batch->inputs, batch->labels);
  sum_over_ranks(meters, communicator);
  return meters.results();
}

MetricAccumulator validation_meters(const Model& model, const ExperimentConfig& config) {
  return MetricAccumulator(config.loss, config.metrics, model.final_softmax, config.data.images.value_range(),
                           model.output_classes());
}

Validation validate_model(Model& model, const TensorDataset& data, const ExperimentConfig& config,
                          const torch::Device& device, Communicator& communicator, ProgressBar* progress,
                          ValidationGraph* graph) {
  torch::NoGradGuard no_grad;
  model.net->eval();
  std::optional<MetricAccumulator> own;
  if (!graph) own.emplace(validation_meters(model, config));
  MetricAccumulator& meters = graph ? graph->meters() : *own;
  meters.reset();
  BatchFeed loader = shard_loader(data, config, device, communicator);
  const int64_t steps = loader.batch_count();
  const auto autocast = run_autocast_dtype(config, device, model);
  // Keras's validation loss includes the kernel penalties: the same for
  // every batch. A captured forward computes them itself: a tensor of this
  // validation's would be gone by the next one's replays.
  const torch::Tensor penalty = graph ? torch::Tensor() : weight_penalty(model);
  const auto sums = [&](const torch::Tensor& inputs, const torch::Tensor& labels) {
    const auto output = forward_in_precision(model, inputs, autocast);
    auto loss = compute_loss(config.loss, output, labels, model.final_softmax);
    const torch::Tensor batch_penalty = graph ? weight_penalty(model) : penalty;
    meters.add_sums(batch_penalty.defined() ? loss + batch_penalty : loss, output, labels);
  };
  int64_t step = 0;
  if (progress) progress->start_validation(steps);
  while (auto batch = loader.next()) {
    if (!graph || !graph->replays(*batch) || !graph->run(*batch, sums)) {
      sums(batch->inputs.to(device), batch->labels.to(device));
      if (graph) graph->count_eager(*batch);
    }
    meters.add_samples(batch->size());
    if (progress) progress->update(++step, meters.samples(), [&] { return meters.running_values(); });
  }
  if (progress) progress->finish();
  model.train_mode();
  sum_over_ranks(meters, communicator);
  return {meters.results(), meters.confusion()};
}

}  // namespace trainer
