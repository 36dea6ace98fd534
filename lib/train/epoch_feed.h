#pragma once
// One training epoch's batches for this rank and the feed that delivers
// them. The training loop opens the next epoch's as soon as an epoch's steps
// are done, so that the loader's threads fill their queue while that epoch
// validates, shows its pictures and saves its checkpoint: the next epoch's
// first steps then find their batches made (as PyTorch's persistent
// DataLoader workers do), where a feed opened at the epoch's start made its
// first step wait for a whole batch to be assembled.
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "data/dataset.h"
#include "distributed/communicator.h"
#include "feed/batch_feed.h"
#include "spec/experiment_config.h"

namespace trainer {

struct EpochFeed {
  int64_t epoch = 0;
  int64_t skip_batches = 0;           // batches an interrupted run already trained
  std::vector<int64_t> global_sizes;  // all ranks' samples in each batch
  std::unique_ptr<BatchFeed> feed;
};

// The epoch's order (epoch_batches.h) as this rank's batches, their loader
// started. Every rank must call it at the same point: the ranks agree on the
// number of steps through `communicator`. `train` must outlive the feed.
std::unique_ptr<EpochFeed> open_epoch_feed(const ExperimentConfig& config, const TensorDataset& train, int64_t epoch,
                                           int64_t skip_batches, int64_t batches_per_epoch, Communicator& communicator,
                                           const torch::Device& device);

}  // namespace trainer
