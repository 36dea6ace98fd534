#pragma once
// This rank's batches of one training epoch, after the steps an interrupted
// run already did, checked to be as many as every other rank's.
#include <cstdint>

#include "distributed/communicator.h"
#include "feed/sampler.h"
#include "spec/experiment_config.h"

namespace trainer {

// The epoch's order (seed, epoch, data.shuffle) split into this rank's
// batches of train.batch_size, at most `steps_per_epoch` of them, the first
// `skip_steps` dropped. Throws DistributedError when the ranks disagree on
// the number of steps (they would wait for each other forever).
RankBatches epoch_batches(const ExperimentConfig& config, int64_t train_size, int64_t epoch, int64_t skip_steps,
                          int64_t steps_per_epoch, Communicator& communicator);

}  // namespace trainer
