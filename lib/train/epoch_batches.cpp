#include "train/epoch_batches.h"

#include <algorithm>

#include "util/error.h"

namespace trainer {

RankBatches epoch_batches(const ExperimentConfig& config, int64_t train_size, int64_t epoch, int64_t skip_steps,
                          int64_t steps_per_epoch, Communicator& communicator) {
  const auto order = epoch_order(train_size, config.experiment.seed, epoch, config.data.shuffle);
  RankBatches batches = rank_batches(order, config.train.batch_size.value, communicator.rank(), communicator.world_size(),
                                     steps_per_epoch);
  skip_steps = std::min<int64_t>(skip_steps, static_cast<int64_t>(batches.batch_sizes.size()));
  int64_t skipped_samples = 0;
  for (int64_t i = 0; i < skip_steps; ++i) skipped_samples += batches.batch_sizes[static_cast<size_t>(i)];
  batches.order.erase(batches.order.begin(), batches.order.begin() + skipped_samples);
  batches.batch_sizes.erase(batches.batch_sizes.begin(), batches.batch_sizes.begin() + skip_steps);
  batches.global_sizes.erase(batches.global_sizes.begin(), batches.global_sizes.begin() + skip_steps);
  if (communicator.world_size() > 1) {
    // The count and its negation in one all-reduce of the maximum: equal
    // counts on every rank exactly when max == -max(-count) == min.
    auto counts = torch::tensor({static_cast<double>(batches.batch_sizes.size()),
                                 -static_cast<double>(batches.batch_sizes.size())}, torch::kFloat64);
    communicator.all_reduce(counts, ReduceOp::kMax);
    if (counts[0].item<double>() != -counts[1].item<double>())
      throw DistributedError("the ranks disagree on the number of steps in epoch " + std::to_string(epoch) + " (" +
                             std::to_string(static_cast<int64_t>(-counts[1].item<double>())) + " to " +
                             std::to_string(static_cast<int64_t>(counts[0].item<double>())) + ")",
                             "start every rank with the same experiment file and data");
  }
  return batches;
}

}  // namespace trainer
