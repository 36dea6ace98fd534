#include "optim/optimizer_factory.h"

#include "optim/fused_optimizers.h"
#include "optim/nadam.h"

namespace trainer {

namespace {

namespace optim = torch::optim;
using Params = std::vector<optim::OptimizerParamGroup>;

// One overload per entry of OptimizerKinds (spec/optimizer_kinds.h), given
// the entry with the optimizer's own keys; each returns its own type, so that
// make_optimizer can set its fused switch.
auto build_optimizer(const SgdOptimizer&, Params params, double lr, double decay) {
  return std::make_unique<FusedSGD>(params, optim::SGDOptions(lr).weight_decay(decay));
}
auto build_optimizer(const MomentumOptimizer& c, Params params, double lr, double decay) {
  return std::make_unique<FusedSGD>(
      params, optim::SGDOptions(lr).momentum(c.momentum).nesterov(c.nesterov).weight_decay(decay));
}
auto build_optimizer(const AdagradOptimizer& c, Params params, double lr, double decay) {
  return std::make_unique<FusedAdagrad>(
      params,
      optim::AdagradOptions(lr).initial_accumulator_value(c.initial_accumulator).eps(c.epsilon).weight_decay(decay));
}
auto build_optimizer(const AdamOptimizer<OptimizerKind::kAdam>& c, Params params, double lr, double decay) {
  return std::make_unique<FusedAdam>(
      params, optim::AdamOptions(lr).betas({c.beta1, c.beta2}).eps(c.epsilon).weight_decay(decay));
}
auto build_optimizer(const AdamOptimizer<OptimizerKind::kAdamw>& c, Params params, double lr, double decay) {
  return std::make_unique<FusedAdamW>(
      params, optim::AdamWOptions(lr).betas({c.beta1, c.beta2}).eps(c.epsilon).weight_decay(decay));
}
auto build_optimizer(const RmspropOptimizer& c, Params params, double lr, double decay) {
  return std::make_unique<FusedRMSprop>(params, optim::RMSpropOptions(lr).alpha(c.rho).eps(c.epsilon).weight_decay(decay));
}
auto build_optimizer(const NadamOptimizer& c, Params params, double lr, double decay) {
  return std::make_unique<NAdam>(params, NAdamOptions(lr)
                                             .beta1(c.beta1)
                                             .beta2(c.beta2)
                                             .eps(c.epsilon)
                                             .weight_decay(decay)
                                             .momentum_decay(c.momentum_decay));
}

}  // namespace

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& config,
                                                        std::vector<torch::Tensor> params) {
  return make_optimizer(config, std::vector<ParameterGroup>{{std::move(params), 1.0}});
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& config,
                                                        const std::vector<ParameterGroup>& groups) {
  const double lr = resolved_lr(config);
  return std::visit([&](const auto& entry) {
    // Given to the constructor (Adagrad makes its state there), each group
    // with the defaults' options, then set to its own rate.
    Params params;
    for (const ParameterGroup& group : groups) params.emplace_back(group.params);
    auto optimizer = build_optimizer(entry, std::move(params), lr, resolved_weight_decay(config));
    for (size_t i = 0; i < groups.size(); ++i) optimizer->param_groups()[i].options().set_lr(lr * groups[i].lr_scale);
    // The fused passes (optimizer.fused) keep LibTorch's state and arithmetic.
    optimizer->set_fused(config.fused);
    return std::unique_ptr<torch::optim::Optimizer>(std::move(optimizer));
  }, config.keys);
}

std::vector<double> group_rates(size_t groups, double lr, const std::vector<double>& scales) {
  std::vector<double> rates;
  for (size_t i = 0; i < groups; ++i) rates.push_back(i < scales.size() ? lr * scales[i] : lr);
  return rates;
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr, const std::vector<double>& scales) {
  auto& groups = optimizer.param_groups();
  const std::vector<double> rates = group_rates(groups.size(), lr, scales);
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(rates[i]);
}

}  // namespace trainer
