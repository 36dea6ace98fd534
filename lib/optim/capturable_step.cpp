#include "optim/capturable_step.h"

#include "optim/nadam.h"
#include "optim/optimizer_state.h"

namespace trainer {
namespace {

namespace optim = torch::optim;

template <typename T> const T* as(const optim::Optimizer& optimizer) { return dynamic_cast<const T*>(&optimizer); }
template <typename T> const T& options_of(const optim::OptimizerParamGroup& group) {
  return static_cast<const T&>(group.options());
}

torch::Tensor zeros_like_param(const torch::Tensor& param) {
  return torch::zeros_like(param, torch::MemoryFormat::Preserve);
}

// Adam's, AdamW's and NAdam's state: two moments, zero at first, and a step count.
template <typename State, typename States> State& moments_of(States& states, const torch::Tensor& param) {
  return state_of<State>(states, param, [&](State& fresh) {
    fresh.exp_avg(zeros_like_param(param));
    fresh.exp_avg_sq(zeros_like_param(param));
  });
}

}  // namespace

std::string CapturableStep::unsupported(const optim::Optimizer& optimizer) {
  for (const auto& group : optimizer.param_groups()) {
    if (as<optim::Adam>(optimizer) && options_of<optim::AdamOptions>(group).amsgrad()) return "Adam with AMSGrad";
    if (as<optim::AdamW>(optimizer) && options_of<optim::AdamWOptions>(group).amsgrad()) return "AdamW with AMSGrad";
    if (as<optim::SGD>(optimizer) && options_of<optim::SGDOptions>(group).dampening() != 0) return "SGD with dampening";
    if (as<optim::RMSprop>(optimizer)) {
      const auto& options = options_of<optim::RMSpropOptions>(group);
      if (options.momentum() != 0 || options.centered()) return "RMSprop with momentum or centered";
    }
  }
  if (as<optim::SGD>(optimizer) || as<optim::Adam>(optimizer) || as<optim::AdamW>(optimizer) ||
      as<optim::RMSprop>(optimizer) || as<optim::Adagrad>(optimizer) || as<NAdam>(optimizer))
    return "";
  return "an optimizer without a device-side step";
}

CapturableStep::CapturableStep(optim::Optimizer& optimizer) : optimizer_(optimizer) {
  const std::string why = unsupported(optimizer);
  TORCH_CHECK(why.empty(), "CapturableStep: ", why);
  if (as<optim::SGD>(optimizer)) kind_ = Kind::kSgd;
  else if (as<optim::Adam>(optimizer)) kind_ = Kind::kAdam;
  else if (as<optim::AdamW>(optimizer)) kind_ = Kind::kAdamW;
  else if (as<optim::RMSprop>(optimizer)) kind_ = Kind::kRmsprop;
  else if (as<optim::Adagrad>(optimizer)) kind_ = Kind::kAdagrad;
  else kind_ = Kind::kNadam;
  fused_groups_ = fused_kernels_for(kind_);
  auto& groups = optimizer.param_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& params = groups[g].params();
    const torch::Device device = params.empty() ? torch::Device(torch::kCPU) : params.front().device();
    rates_.push_back(device_scalar(groups[g].options().get_lr(), device, scalar_type()));
    written_rates_.push_back(groups[g].options().get_lr());
    for (const auto& param : params) {
      Slot slot;
      slot.param = param;
      slot.group = g;
      slots_.push_back(std::move(slot));
    }
  }
}

void CapturableStep::set_learning_rates(const std::vector<double>& rates) {
  auto& groups = optimizer_.param_groups();
  for (size_t g = 0; g < rates_.size() && g < rates.size(); ++g) {
    groups[g].options().set_lr(rates[g]);
    // A constant rate is written once: each fill is a kernel launch, and a
    // small model's graphed step is bound by the host's launches.
    if (rates[g] == written_rates_[g]) continue;
    rates_[g].fill_(rates[g]);
    written_rates_[g] = rates[g];
  }
}

// The optimizer's own state of the slot's parameter, made as its first step
// would make it; its step count copied to the device once.
CapturableStep::Slot& CapturableStep::slot_of(size_t index, const torch::Tensor& param) {
  Slot& slot = slots_[index];
  if (slot.step.defined()) return slot;
  auto& states = optimizer_.state();
  const torch::Device device = param.device();
  switch (kind_) {
    case Kind::kSgd: {
      if (options_of<optim::SGDOptions>(optimizer_.param_groups()[slot.group]).momentum() != 0) {
        // LibTorch's first step copies the gradient into the buffer; with no
        // dampening, a zero buffer times momentum plus the gradient is that copy.
        auto& state = state_of<optim::SGDParamState>(states, param, [&](optim::SGDParamState& fresh) {
          fresh.momentum_buffer(zeros_like_param(param));
        });
        slot.first = state.momentum_buffer();
      }
      slot.step = device_scalar(0, device, scalar_type());
      break;
    }
    case Kind::kAdam: with_moments(slot, moments_of<optim::AdamParamState>(states, param)); break;
    case Kind::kAdamW: with_moments(slot, moments_of<optim::AdamWParamState>(states, param)); break;
    case Kind::kRmsprop: {
      auto& state = state_of<optim::RMSpropParamState>(states, param, [&](optim::RMSpropParamState& fresh) {
        fresh.square_avg(zeros_like_param(param));
      });
      slot.second = state.square_avg();
      slot.step = device_scalar(static_cast<double>(state.step()), device);
      break;
    }
    case Kind::kAdagrad: {
      // Adagrad makes every parameter's state in its constructor.
      auto& state = state_of<optim::AdagradParamState>(states, param, [&](optim::AdagradParamState& fresh) {
        const auto& options = options_of<optim::AdagradOptions>(optimizer_.param_groups()[slot.group]);
        fresh.sum(torch::full_like(param, options.initial_accumulator_value(), torch::MemoryFormat::Preserve));
      });
      slot.second = state.sum();
      slot.step = device_scalar(static_cast<double>(state.step()), device);
      break;
    }
    case Kind::kNadam: {
      auto& state = moments_of<NAdamParamState>(states, param);
      with_moments(slot, state);
      slot.mu_product = device_scalar(state.mu_product(), device, torch::kFloat32);
      break;
    }
  }
  return slot;
}

void CapturableStep::step(const torch::Tensor& skip) {
  torch::NoGradGuard no_grad;
  std::vector<bool> stepped(slots_.size(), false);
  if (fused_groups_) {
    const torch::Tensor found_inf = skip.defined() ? skip.to(torch::kFloat32) : skip;
    for (size_t g = 0; g < rates_.size(); ++g) step_group_fused(g, found_inf, stepped);
  } else if (kind_ == Kind::kNadam) {
    for (size_t g = 0; g < rates_.size(); ++g) step_group_nadam(g, skip, stepped);
  }
  // The flag as a boolean, made only for a tensor left to this path (the
  // fused kernels read it as it is).
  torch::Tensor skipped;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const torch::Tensor& param = slots_[i].param;
    if (stepped[i] || !param.grad().defined()) continue;
    Slot& slot = slot_of(i, param);
    if (skip.defined() && !skipped.defined()) skipped = skip.to(torch::kBool);
    if (!skipped.defined()) {
      update(slot, param.grad());
      continue;
    }
    // Each optimizer's arithmetic stays as it is: the slot's tensors are
    // kept, stepped, and put back where the flag says so. Overflowed
    // gradients make NaNs in the stepped values, which the choice discards.
    std::vector<torch::Tensor> changed, before;
    for (const torch::Tensor* tensor : {&slot.param, &slot.step, &slot.mu_product, &slot.first, &slot.second})
      if (tensor->defined()) {
        changed.push_back(*tensor);
        before.push_back(tensor->clone());
      }
    update(slot, param.grad());
    for (size_t k = 0; k < changed.size(); ++k) changed[k].copy_(torch::where(skipped, before[k], changed[k]));
  }
}

// Each optimizer's arithmetic in its own order (LibTorch 1.13's and 2.x's
// C++ optimizers, nadam.cpp), with the host numbers of a step replaced by
// device scalars. Multiplying a float32 tensor by a float64 scalar tensor
// computes in float32, as the host scalars did.
void CapturableStep::update(Slot& slot, const torch::Tensor& gradient) {
  const auto& group = optimizer_.param_groups()[slot.group];
  const torch::Tensor& lr = rates_[slot.group];
  torch::Tensor param = slot.param;
  torch::Tensor grad = gradient;
  slot.step.add_(1);
  const torch::Tensor& step = slot.step;
  switch (kind_) {
    case Kind::kSgd: {
      const auto& options = options_of<optim::SGDOptions>(group);
      if (options.weight_decay() != 0) grad = grad.add(param, options.weight_decay());
      if (options.momentum() != 0) {
        slot.first.mul_(options.momentum()).add_(grad, 1 - options.dampening());
        grad = options.nesterov() ? grad.add(slot.first, options.momentum()) : slot.first;
      }
      param.sub_(grad * lr);
      break;
    }
    case Kind::kAdam:
    case Kind::kAdamW: {
      double beta1, beta2, eps, decay;
      if (kind_ == Kind::kAdam) {
        const auto& options = options_of<optim::AdamOptions>(group);
        std::tie(beta1, beta2) = options.betas();
        eps = options.eps();
        decay = options.weight_decay();
        if (decay != 0) grad = grad.add(param, decay);
      } else {
        const auto& options = options_of<optim::AdamWOptions>(group);
        std::tie(beta1, beta2) = options.betas();
        eps = options.eps();
        decay = options.weight_decay();
        if (decay != 0) param.mul_(1 - lr * decay);
      }
      const torch::Tensor bias_correction1 = 1 - torch::pow(beta1, step);
      const torch::Tensor bias_correction2 = 1 - torch::pow(beta2, step);
      slot.first.mul_(beta1).add_(grad, 1 - beta1);
      slot.second.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
      const torch::Tensor denom = (slot.second.sqrt() / bias_correction2.sqrt()).add_(eps);
      param.sub_(slot.first / denom * (lr / bias_correction1));
      break;
    }
    case Kind::kRmsprop: {
      const auto& options = options_of<optim::RMSpropOptions>(group);
      if (options.weight_decay() != 0) grad = grad.add(param, options.weight_decay());
      slot.second.mul_(options.alpha()).addcmul_(grad, grad, 1 - options.alpha());
      const torch::Tensor average = slot.second.sqrt().add_(options.eps());
      param.sub_(grad / average * lr);
      break;
    }
    case Kind::kAdagrad: {
      const auto& options = options_of<optim::AdagradOptions>(group);
      if (options.weight_decay() != 0) grad = grad.add(param, options.weight_decay());
      const torch::Tensor rate = lr / (1 + (step - 1) * options.lr_decay());
      slot.second.addcmul_(grad, grad, 1.0);
      const torch::Tensor deviation = slot.second.sqrt().add_(options.eps());
      param.sub_(grad / deviation * rate);
      break;
    }
    case Kind::kNadam: {
      const auto& options = options_of<NAdamOptions>(group);
      const double beta1 = options.beta1(), beta2 = options.beta2();
      const torch::Tensor mu = beta1 * (1.0 - 0.5 * torch::pow(0.96, step * options.momentum_decay()));
      const torch::Tensor mu_next = beta1 * (1.0 - 0.5 * torch::pow(0.96, (step + 1) * options.momentum_decay()));
      // The product in float32, as nadam.cpp and torch.optim.NAdam keep it.
      slot.mu_product.mul_(mu.to(torch::kFloat32));
      const torch::Tensor mu_product_next = slot.mu_product * mu_next.to(torch::kFloat32);
      const torch::Tensor bias_correction2 = 1 - torch::pow(beta2, step);
      const torch::Tensor gradient_step = lr * (1.0 - mu) / (1.0 - slot.mu_product.to(torch::kFloat64));
      const torch::Tensor momentum_step = lr * mu_next / (1.0 - mu_product_next.to(torch::kFloat64));
      if (options.weight_decay() != 0) grad = grad.add(param, options.weight_decay());
      slot.first.mul_(beta1).add_(grad, 1.0 - beta1);
      slot.second.mul_(beta2).addcmul_(grad, grad, 1.0 - beta2);
      const torch::Tensor denom = slot.second.div(bias_correction2).sqrt_().add_(options.eps());
      param.sub_(grad / denom * gradient_step);
      param.sub_(slot.first / denom * momentum_step);
      break;
    }
  }
}

void CapturableStep::store_state() {
  auto& states = optimizer_.state();
  for (const Slot& slot : slots_) {
    if (!slot.step.defined() || kind_ == Kind::kSgd) continue;
    auto& state = *states.at(compat::optimizer_state_key(slot.param));
    const auto step = static_cast<int64_t>(slot.step.item<double>());
    switch (kind_) {
      case Kind::kAdam: static_cast<optim::AdamParamState&>(state).step(step); break;
      case Kind::kAdamW: static_cast<optim::AdamWParamState&>(state).step(step); break;
      case Kind::kRmsprop: static_cast<optim::RMSpropParamState&>(state).step(step); break;
      case Kind::kAdagrad: static_cast<optim::AdagradParamState&>(state).step(step); break;
      case Kind::kNadam: {
        auto& nadam = static_cast<NAdamParamState&>(state);
        nadam.step(step);
        nadam.mu_product(slot.mu_product.item<float>());
        break;
      }
      case Kind::kSgd: break;
    }
  }
}

}  // namespace trainer
