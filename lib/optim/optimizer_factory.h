#pragma once
#include <torch/torch.h>

#include <memory>

#include "spec/experiment_config.h"

namespace trainer {

// The optimizer named in `config` over `params`, with Keras's defaults
// filled in by the config loader.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& config,
                                                        std::vector<torch::Tensor> params);

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

}  // namespace trainer
