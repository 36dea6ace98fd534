#pragma once
// A classifier's answer as `trainer predict` writes it: the k most probable
// classes, each with its number, its name where the data names it, and its
// probability.
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "models/model.h"
#include "spec/data_info.h"
#include "spec/experiment_config.h"

namespace trainer {

// The model's output [N, classes] as probabilities: softmax of the logits,
// or the output itself where the last layer applies softmax in `net`.
torch::Tensor class_probabilities(const torch::Tensor& output, const Model& model, const ExperimentConfig& config);

// One row of probabilities [classes] as [{"label", "class", "probability"}...],
// most probable first.
nlohmann::ordered_json top_classes(const torch::Tensor& probabilities, const DataInfo& info, int64_t k);

}  // namespace trainer
