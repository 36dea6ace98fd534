#include "train/batch_of_one.h"

#include <algorithm>
#include <string>
#include <vector>

#include "feed/sampler.h"
#include "util/error.h"

namespace trainer {
namespace {

struct BatchOfOne {
  int rank = -1;  // -1: none
  int64_t global_size = 0;  // the samples of the step it is part of
};

// The first rank and step whose batch holds one sample, as rank_batches
// (feed/sampler.h) splits an epoch into steps and shards: the counts alone
// decide the batch sizes, whatever the order, so this holds for every epoch.
BatchOfOne find_batch_of_one(int64_t train_size, int64_t batch_size, const TrainConfig& train, int world) {
  const int64_t max_steps = train.steps_per_epoch > 0 ? train.steps_per_epoch * train.accumulate : 0;
  for (const int64_t size : step_sizes(train_size, batch_size * world, max_steps))
    for (int rank = 0; rank < world; ++rank)
      if (shard_of(size, rank, world).size == 1) return {rank, size};
  return {};
}

}  // namespace

void check_no_batch_of_one(const Model& model, const TrainConfig& train, int64_t train_size, int world) {
  if (model.batch_of_one_refused_by.empty() || train_size == 0) return;
  const int64_t batch_size = train.batch_size.value;
  const BatchOfOne found = find_batch_of_one(train_size, batch_size, train, world);
  if (found.rank < 0) return;
  // With two samples a batch or more, only an epoch's last, shorter step can leave one.
  const std::string over = "over " + std::to_string(train_size) + " training samples";
  std::string leaves = over + " leaves the epoch's last batch 1 sample";
  if (world > 1)
    leaves = over + " and " + std::to_string(world) + " ranks leaves rank " + std::to_string(found.rank) +
             " a batch of 1 sample (its share of the last step's " + std::to_string(found.global_size) + ")";
  if (batch_size == 1) leaves = "makes every batch 1 sample";
  // The nearest batch sizes either side that leave no rank one sample.
  std::vector<std::string> fits;
  for (int64_t step = 1; step <= std::max<int64_t>(batch_size, 64) && fits.size() < 2; ++step)
    for (const int64_t candidate : {batch_size + step, batch_size - step})
      if (candidate > 1 && fits.size() < 2 && find_batch_of_one(train_size, candidate, train, world).rank < 0)
        fits.push_back(std::to_string(candidate));
  std::string fix = "choose a train.batch_size that leaves none";
  if (!fits.empty()) fix += " (" + fits.front() + (fits.size() > 1 ? " or " + fits.back() : "") + ")";
  fix += ", or change data.max_train_samples";
  throw ConfigError({"train.batch_size: " + std::to_string(batch_size) + " " + leaves + ", and " +
                     model.batch_of_one_refused_by +
                     " cannot train on one: it normalises each channel over the batch, and one sample gives it one "
                     "value a channel; " + fix});
}

}  // namespace trainer
