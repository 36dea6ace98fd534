#pragma once
#include "config/experiment_config.h"
#include "data/dataset.h"
#include "distributed/communicator.h"
#include "models/model.h"
#include "train/epoch_log.h"

namespace trainer {

// Metrics of `model` over all of `data`, in eval mode without gradients;
// the model is left in training mode. Batches go to `device` (the model's). With several ranks each evaluates its
// shard and the sums are all-reduced: every sample counted exactly once, no
// padding duplicates.
std::vector<MetricValue> validate_model(Model& model, const TensorDataset& data, const ExperimentConfig& config,
                                        const torch::Device& device, Communicator& communicator);

}  // namespace trainer
