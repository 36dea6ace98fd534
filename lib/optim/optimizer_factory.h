#pragma once
#include <torch/torch.h>

#include <memory>

#include "spec/experiment_config.h"

namespace trainer {

// Parameters that train at `lr_scale` times the learning rate.
struct ParameterGroup {
  std::vector<torch::Tensor> params;
  double lr_scale = 1.0;
};

// The optimizer named in `config` over `params`, with Keras's defaults
// filled in by the config loader.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& config,
                                                        std::vector<torch::Tensor> params);
// The same with one parameter group of the optimizer per group, in order.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& config,
                                                        const std::vector<ParameterGroup>& groups);

// Each of `groups` groups' rate: `lr` times its scale (`scales`, one a
// group in the groups' order; empty: 1 for all).
std::vector<double> group_rates(size_t groups, double lr, const std::vector<double>& scales);
// Sets every group's rate to group_rates'.
void set_learning_rate(torch::optim::Optimizer& optimizer, double lr, const std::vector<double>& scales = {});

}  // namespace trainer
