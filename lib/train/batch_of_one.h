#pragma once
// A model that cannot train on a batch of one sample (a batchnorm reading
// one value a channel: Model::batch_of_one_refused_by), refused before the
// run starts when an epoch would give some rank such a batch. Left to
// LibTorch, the step stops with "Expected more than 1 value per channel when
// training" (an internal error, exit 1) at the epoch's last batch, an epoch
// after the start and before its checkpoint.
#include <cstdint>

#include "models/model.h"
#include "spec/train_config.h"

namespace trainer {

// Throws ConfigError naming the layer, the batch it cannot take and the
// nearest train.batch_size that gives no rank a batch of one.
// `world`: the ranks; `train_size`: the training samples.
void check_no_batch_of_one(const Model& model, const TrainConfig& train, int64_t train_size, int world);

}  // namespace trainer
