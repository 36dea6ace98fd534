#include "train/validation.h"

#include <numeric>

#include "data/batch_loader.h"
#include "data/sampler.h"
#include "train/loss.h"
#include "train/metrics.h"
#include "train/mixed_precision.h"

namespace trainer {

std::vector<MetricValue> validate_model(Model& model, const TensorDataset& data, const ExperimentConfig& config,
                                        const torch::Device& device, Communicator& communicator) {
  torch::NoGradGuard no_grad;
  model.net->eval();
  MetricAccumulator meters(config.loss, config.metrics, model.final_softmax);
  const Shard shard = shard_of(data.size(), communicator.rank(), communicator.world_size());
  std::vector<int64_t> order(static_cast<size_t>(shard.size));
  std::iota(order.begin(), order.end(), shard.begin);
  LoaderOptions options = loader_options(config.data);
  options.batch_size = config.train.valid_batch_size > 0 ? config.train.valid_batch_size : 4 * config.train.batch_size;
  BatchLoader loader(data, std::move(order), options);
  const auto autocast = run_autocast_dtype(config, device);
  while (auto batch = loader.next()) {
    const auto inputs = batch->inputs.to(device);
    const auto labels = batch->labels.to(device);
    const auto output = forward_in_precision(model, inputs, autocast);
    meters.add(compute_loss(config.loss, output, labels, model.final_softmax), output, labels);
  }
  model.net->train();
  auto sums = meters.state();
  communicator.all_reduce(sums);
  meters.load_state(sums);
  return meters.results();
}

}  // namespace trainer
