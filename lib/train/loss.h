#pragma once
#include <torch/torch.h>

#include "spec/experiment_config.h"

namespace trainer {

// Mean loss of a batch. `output` is what the network returns; with
// `final_softmax` those are logits of a softmax that the model declared (the
// loss applies log-softmax itself: stable, as Keras does internally).
// `class_weights` (one a class, on the output's device; undefined: none)
// weighs the cross-entropy's samples, as the training step's loss does.
torch::Tensor compute_loss(const LossConfig& config, const torch::Tensor& output, const torch::Tensor& labels,
                           bool final_softmax, const torch::Tensor& class_weights = {});

// loss.class_weights as one weight a class (undefined without them),
// `balanced` from the counts of `labels` (class ids). Throws ConfigError when
// a list does not give one weight to each of the `classes`.
torch::Tensor class_weight_tensor(const LossConfig& config, const torch::Tensor& labels, int64_t classes);

// Class probabilities (or raw outputs, for a model without a softmax that
// was not declared to output logits) for metrics.
torch::Tensor predictions(const LossConfig& config, const torch::Tensor& output, bool final_softmax);

}  // namespace trainer
