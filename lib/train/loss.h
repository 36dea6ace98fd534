#pragma once
#include <torch/torch.h>

#include "spec/experiment_config.h"

namespace trainer {

// Mean loss of a batch. `output` is what the network returns; with
// `final_softmax` those are logits of a softmax that the model declared (the
// loss applies log-softmax itself: stable, as Keras does internally).
torch::Tensor compute_loss(const LossConfig& config, const torch::Tensor& output, const torch::Tensor& labels,
                           bool final_softmax);

// Class probabilities (or raw outputs, for a model without a softmax that
// was not declared to output logits) for metrics.
torch::Tensor predictions(const LossConfig& config, const torch::Tensor& output, bool final_softmax);

}  // namespace trainer
