#include "train/epoch_feed.h"

#include "train/epoch_batches.h"

namespace trainer {

std::unique_ptr<EpochFeed> open_epoch_feed(const ExperimentConfig& config, const TensorDataset& train, int64_t epoch,
                                           int64_t skip_batches, int64_t batches_per_epoch, Communicator& communicator,
                                           const torch::Device& device) {
  RankBatches batches = epoch_batches(config, train.size(), epoch, skip_batches, batches_per_epoch, communicator);
  LoaderOptions options = loader_options(config.data);
  options.batch_sizes = batches.batch_sizes;
  options.epoch = epoch;
  auto opened = std::make_unique<EpochFeed>();
  opened->epoch = epoch;
  opened->skip_batches = skip_batches;
  opened->global_sizes = std::move(batches.global_sizes);
  opened->feed = std::make_unique<BatchFeed>(train, std::move(batches.order), options, device);
  return opened;
}

}  // namespace trainer
