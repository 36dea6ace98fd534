#include "optim/optimizer_factory.h"

#include <stdexcept>

#include "optim/fused_optimizers.h"
#include "optim/nadam.h"

namespace trainer {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const OptimizerConfig& config,
                                                        std::vector<torch::Tensor> params) {
  namespace optim = torch::optim;
  // Defaults are resolved once, by the config loader (resolve_defaults, with
  // Keras's values per optimizer); guessing one here could silently differ.
  if (!config.lr || !config.weight_decay)
    throw std::logic_error("make_optimizer: optimizer.lr and weight_decay must be resolved by the config loader");
  const double lr = *config.lr;
  const double decay = *config.weight_decay;
  // The fused passes (optimizer.fused) keep LibTorch's state and arithmetic.
  const auto fused = [&](auto optimizer) {
    optimizer->set_fused(config.fused);
    return std::unique_ptr<optim::Optimizer>(std::move(optimizer));
  };
  switch (config.name) {
    case OptimizerKind::kSgd:
      return fused(std::make_unique<FusedSGD>(params, optim::SGDOptions(lr).weight_decay(decay)));
    case OptimizerKind::kMomentum:
      return fused(std::make_unique<FusedSGD>(
          params, optim::SGDOptions(lr).momentum(config.momentum).nesterov(config.nesterov).weight_decay(decay)));
    case OptimizerKind::kAdagrad:
      return fused(std::make_unique<FusedAdagrad>(params, optim::AdagradOptions(lr)
                                                              .initial_accumulator_value(config.initial_accumulator)
                                                              .eps(config.epsilon)
                                                              .weight_decay(decay)));
    case OptimizerKind::kAdam:
      return fused(std::make_unique<FusedAdam>(
          params, optim::AdamOptions(lr).betas({config.beta1, config.beta2}).eps(config.epsilon).weight_decay(decay)));
    case OptimizerKind::kAdamw:
      return fused(std::make_unique<FusedAdamW>(
          params, optim::AdamWOptions(lr).betas({config.beta1, config.beta2}).eps(config.epsilon).weight_decay(decay)));
    case OptimizerKind::kRmsprop:
      return fused(std::make_unique<FusedRMSprop>(
          params, optim::RMSpropOptions(lr).alpha(config.rho).eps(config.epsilon).weight_decay(decay)));
    case OptimizerKind::kNadam:
      return fused(std::make_unique<NAdam>(params, NAdamOptions(lr)
                                                       .beta1(config.beta1)
                                                       .beta2(config.beta2)
                                                       .eps(config.epsilon)
                                                       .weight_decay(decay)
                                                       .momentum_decay(config.momentum_decay)));
  }
  throw std::logic_error("unhandled optimizer kind");
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

}  // namespace trainer
