#include "optim/optimizer_factory.h"

#include "optim/fused_optimizers.h"
#include "optim/nadam.h"

namespace trainer {

namespace {

namespace optim = torch::optim;
using Params = std::vector<torch::Tensor>;

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

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& config, Params params) {
  return std::visit([&](const auto& entry) {
    auto optimizer = build_optimizer(entry, params, resolved_lr(config), resolved_weight_decay(config));
    // The fused passes (optimizer.fused) keep LibTorch's state and arithmetic.
    optimizer->set_fused(config.fused);
    return std::unique_ptr<torch::optim::Optimizer>(std::move(optimizer));
  }, config.keys);
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

}  // namespace trainer
