#include "optim/nadam.h"

#include <cmath>

#include "optim/fused_pass.h"
#include "kernels/nadam_kernel.h"
#include "optim/optimizer_state.h"

namespace trainer {

void NAdamOptions::serialize(torch::serialize::OutputArchive& archive) const {
  _TORCH_OPTIM_SERIALIZE_TORCH_ARG(lr);
  _TORCH_OPTIM_SERIALIZE_TORCH_ARG(beta1);
  _TORCH_OPTIM_SERIALIZE_TORCH_ARG(beta2);
  _TORCH_OPTIM_SERIALIZE_TORCH_ARG(eps);
  _TORCH_OPTIM_SERIALIZE_TORCH_ARG(weight_decay);
  _TORCH_OPTIM_SERIALIZE_TORCH_ARG(momentum_decay);
}

void NAdamOptions::serialize(torch::serialize::InputArchive& archive) {
  _TORCH_OPTIM_DESERIALIZE_TORCH_ARG(double, lr);
  _TORCH_OPTIM_DESERIALIZE_TORCH_ARG(double, beta1);
  _TORCH_OPTIM_DESERIALIZE_TORCH_ARG(double, beta2);
  _TORCH_OPTIM_DESERIALIZE_TORCH_ARG(double, eps);
  _TORCH_OPTIM_DESERIALIZE_TORCH_ARG(double, weight_decay);
  _TORCH_OPTIM_DESERIALIZE_TORCH_ARG(double, momentum_decay);
}

void NAdamParamState::serialize(torch::serialize::OutputArchive& archive) const {
  _TORCH_OPTIM_SERIALIZE_TORCH_ARG(step);
  _TORCH_OPTIM_SERIALIZE_TORCH_ARG(mu_product);
  _TORCH_OPTIM_SERIALIZE_TORCH_ARG(exp_avg);
  _TORCH_OPTIM_SERIALIZE_TORCH_ARG(exp_avg_sq);
}

void NAdamParamState::serialize(torch::serialize::InputArchive& archive) {
  _TORCH_OPTIM_DESERIALIZE_TORCH_ARG(int64_t, step);
  _TORCH_OPTIM_DESERIALIZE_TORCH_ARG(double, mu_product);
  _TORCH_OPTIM_DESERIALIZE_TORCH_ARG(torch::Tensor, exp_avg);
  _TORCH_OPTIM_DESERIALIZE_TORCH_ARG(torch::Tensor, exp_avg_sq);
}

NAdam::NAdam(std::vector<torch::Tensor> params, NAdamOptions defaults)
    : NAdam(std::vector<torch::optim::OptimizerParamGroup>{torch::optim::OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}

NAdam::NAdam(std::vector<torch::optim::OptimizerParamGroup> groups, NAdamOptions defaults)
    : Optimizer(std::move(groups), std::make_unique<NAdamOptions>(defaults)) {}

namespace {

void fused_update(torch::Tensor& param, const torch::Tensor& grad, NAdamParamState& state,
                  const NAdamCoefficients& c) {
  float* p = param.data_ptr<float>();
  const float* g = grad.data_ptr<float>();
  float* m = state.exp_avg().data_ptr<float>();
  float* v = state.exp_avg_sq().data_ptr<float>();
  for_chunks(param.numel(), [&](int64_t begin, int64_t end) {
    nadam_update(p + begin, g + begin, m + begin, v + begin, end - begin, c);
  });
}

// The parameters of one group the CPU loop does not take (GPU parameters
// above all), updated together: each tensor operation of the update runs
// once for all of them. On a GPU these are LibTorch's multi-tensor kernels,
// a few launches where the per-tensor path makes eight for each parameter
// (a fifth of a GPU step of the Reuters model); elsewhere LibTorch runs the
// tensor operations one by one. The same operations in the same order as
// the per-tensor path, each parameter with its own bias corrections.
struct MultiTensorUpdate {
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
  std::vector<c10::Scalar> bias_corrections2, gradient_steps, momentum_steps;

  void add(const torch::Tensor& param, const torch::Tensor& grad, NAdamParamState& state, double bias_correction2,
           double gradient_step, double momentum_step) {
    params.push_back(param);
    grads.push_back(grad);
    exp_avgs.push_back(state.exp_avg());
    exp_avg_sqs.push_back(state.exp_avg_sq());
    bias_corrections2.emplace_back(bias_correction2);
    gradient_steps.emplace_back(gradient_step);
    momentum_steps.emplace_back(momentum_step);
  }

  void run(const NAdamOptions& options) {
    if (params.empty()) return;
    if (options.weight_decay() != 0) grads = at::_foreach_add(grads, params, options.weight_decay());
    at::_foreach_mul_(exp_avgs, options.beta1());
    at::_foreach_add_(exp_avgs, grads, 1.0 - options.beta1());
    at::_foreach_mul_(exp_avg_sqs, options.beta2());
    at::_foreach_addcmul_(exp_avg_sqs, grads, grads, 1.0 - options.beta2());
    auto denoms = at::_foreach_div(exp_avg_sqs, bias_corrections2);
    at::_foreach_sqrt_(denoms);
    at::_foreach_add_(denoms, options.eps());
    at::_foreach_addcdiv_(params, grads, denoms, gradient_steps);
    at::_foreach_addcdiv_(params, exp_avgs, denoms, momentum_steps);
  }
};

}  // namespace

torch::Tensor NAdam::step(LossClosure closure) {
  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure) {
    torch::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups_) {
    const auto& options = static_cast<const NAdamOptions&>(group.options());
    MultiTensorUpdate together;
    for (auto& param : group.params()) {
      if (!param.grad().defined()) continue;
      auto grad = param.grad();
      auto& state = state_of<NAdamParamState>(state_, param, [&](NAdamParamState& fresh) {
        fresh.exp_avg(torch::zeros_like(param, torch::MemoryFormat::Preserve));
        fresh.exp_avg_sq(torch::zeros_like(param, torch::MemoryFormat::Preserve));
      });
      state.step(state.step() + 1);
      const double step = static_cast<double>(state.step());
      const double beta1 = options.beta1(), beta2 = options.beta2();

      // Momentum schedule of torch.optim.NAdam: mu_t and the next mu_{t+1}.
      const double mu = beta1 * (1.0 - 0.5 * std::pow(0.96, step * options.momentum_decay()));
      const double mu_next = beta1 * (1.0 - 0.5 * std::pow(0.96, (step + 1) * options.momentum_decay()));
      // torch keeps the product in a float32 scalar tensor; so do we, to
      // match it bit for bit. Keras and PyTorch >= 2.0 bias-correct the
      // second term with mu_product * mu_next (PyTorch 1.13 multiplied by mu
      // twice, a bug fixed in 2.0).
      const float mu_product = static_cast<float>(state.mu_product()) * static_cast<float>(mu);
      const float mu_product_next = mu_product * static_cast<float>(mu_next);
      state.mu_product(mu_product);
      const double bias_correction2 = 1.0 - std::pow(beta2, step);

      const double gradient_step = -options.lr() * (1.0 - mu) / (1.0 - mu_product);
      const double momentum_step = -options.lr() * mu_next / (1.0 - mu_product_next);
      if (fused_ && fusable(param, {&grad, &state.exp_avg(), &state.exp_avg_sq()})) {
        NAdamCoefficients c;
        c.weight_decay = static_cast<float>(options.weight_decay());
        c.beta1 = static_cast<float>(beta1);
        c.one_minus_beta1 = static_cast<float>(1.0 - beta1);
        c.beta2 = static_cast<float>(beta2);
        c.one_minus_beta2 = static_cast<float>(1.0 - beta2);
        c.bias_correction2 = static_cast<float>(bias_correction2);
        c.eps = static_cast<float>(options.eps());
        c.gradient_step = static_cast<float>(gradient_step);
        c.momentum_step = static_cast<float>(momentum_step);
        fused_update(param, param.grad(), state, c);
        ++fused_updates_;
        continue;
      }
      if (fused_ && !grad.is_sparse()) {  // GPUs, and what the CPU loop does not take
        together.add(param, grad, state, bias_correction2, gradient_step, momentum_step);
        ++fused_updates_;
        continue;
      }
      if (options.weight_decay() != 0) grad = grad.add(param, options.weight_decay());
      state.exp_avg().mul_(beta1).add_(grad, 1.0 - beta1);
      state.exp_avg_sq().mul_(beta2).addcmul_(grad, grad, 1.0 - beta2);
      const auto denom = state.exp_avg_sq().div(bias_correction2).sqrt_().add_(options.eps());
      param.addcdiv_(grad, denom, gradient_step);
      param.addcdiv_(state.exp_avg(), denom, momentum_step);
    }
    together.run(options);
  }
  return loss;
}

void NAdam::save(torch::serialize::OutputArchive& archive) const {
  torch::optim::serialize<NAdamParamState, NAdamOptions>(archive, *this);
}

void NAdam::load(torch::serialize::InputArchive& archive) {
  torch::optim::serialize<NAdamParamState, NAdamOptions>(archive, *this);
}

}  // namespace trainer
