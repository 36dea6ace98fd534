#include "optim/fused_optimizers.h"

#include <cmath>
#include <optional>

#include "kernels/adam_kernel.h"
#include "optim/fused_pass.h"
#include "optim/libtorch_fused_kernels.h"
#include "optim/optimizer_state.h"
#include "kernels/root_mean_square_kernel.h"
#include "util/torch_compat.h"

namespace trainer {

namespace {

// Runs the closure with gradients on, as every LibTorch optimizer does.
torch::Tensor evaluate(const torch::optim::Optimizer::LossClosure& closure) {
  if (!closure) return {};
  torch::AutoGradMode enable_grad(true);
  return closure();
}

// Calls f(param, options) for each parameter with a gradient, group by group:
// the walk every pass and every check of whether a pass fits makes.
template <typename Options, typename F>
void for_each_updated(torch::optim::Optimizer& optimizer, F&& f) {
  for (auto& group : optimizer.param_groups()) {
    const auto& options = static_cast<const Options&>(group.options());
    for (auto& param : group.params())
      if (param.grad().defined()) f(param, options);
  }
}

// Whether fits(param, options) holds for each parameter with a gradient.
template <typename Options, typename F>
bool all_updated_fit(torch::optim::Optimizer& optimizer, F&& fits) {
  bool all = true;
  for_each_updated<Options>(optimizer, [&](torch::Tensor& param, const Options& options) {
    all = all && fits(param, options);
  });
  return all;
}

// The Adam or AdamW state of `param`, started as the base class starts it.
template <typename State>
State& adam_state(torch::optim::Optimizer& optimizer, const torch::Tensor& param) {
  return state_of<State>(optimizer.state(), param, [&](State& fresh) {
    fresh.step(0);
    fresh.exp_avg(torch::zeros_like(param, torch::MemoryFormat::Preserve));
    fresh.exp_avg_sq(torch::zeros_like(param, torch::MemoryFormat::Preserve));
  });
}

// Whether every parameter with a gradient, and its state, fits the loop.
template <typename State, typename Options>
bool adam_fits(torch::optim::Optimizer& optimizer) {
  return all_updated_fit<Options>(optimizer, [&](torch::Tensor& param, const Options& options) {
    if (options.amsgrad() || !fusable(param, {&param.grad()})) return false;
    const auto& state = adam_state<State>(optimizer, param);
    return fusable(param, {&state.exp_avg(), &state.exp_avg_sq()});
  });
}

// One step of Adam (decoupled: AdamW) over every parameter with a gradient.
template <typename State, typename Options>
int64_t adam_step(torch::optim::Optimizer& optimizer, bool decoupled) {
  int64_t updates = 0;
  for_each_updated<Options>(optimizer, [&](torch::Tensor& param, const Options& options) {
    const double lr = options.lr(), decay = options.weight_decay();
    const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
    auto& state = adam_state<State>(optimizer, param);
    state.step(state.step() + 1);
    const auto step = static_cast<double>(state.step());
    AdamCoefficients c;
    c.shrinks = decoupled && decay != 0;
    c.shrink = static_cast<float>(1 - lr * decay);
    c.l2_decay = decoupled ? 0.0f : static_cast<float>(decay);
    c.beta1 = static_cast<float>(beta1);
    c.one_minus_beta1 = static_cast<float>(1 - beta1);
    c.beta2 = static_cast<float>(beta2);
    c.one_minus_beta2 = static_cast<float>(1 - beta2);
    c.sqrt_bias_correction2 = static_cast<float>(std::sqrt(1 - std::pow(beta2, step)));
    c.eps = static_cast<float>(options.eps());
    c.step = static_cast<float>(-(lr / (1 - std::pow(beta1, step))));
    float* p = param.data_ptr<float>();
    const float* g = param.grad().data_ptr<float>();
    const torch::Tensor& exp_avg = state.exp_avg();  // a Tensor: data_ptr<float> is no dependent name
    const torch::Tensor& exp_avg_sq = state.exp_avg_sq();
    float* m = exp_avg.data_ptr<float>();
    float* v = exp_avg_sq.data_ptr<float>();
    for_chunks(param.numel(), [&](int64_t begin, int64_t end) {
      adam_update(p + begin, g + begin, m + begin, v + begin, end - begin, c);
    });
    ++updates;
  });
  return updates;
}

// Whether Adam's multi-tensor step takes these parameters: what the loop
// does not take (GPU parameters above all), as long as the gradients are
// dense and AMSGrad is off.
template <typename Options>
bool adam_multi_tensor_fits(torch::optim::Optimizer& optimizer) {
  return all_updated_fit<Options>(optimizer, [](torch::Tensor& param, const Options& options) {
    return !options.amsgrad() && !param.grad().is_sparse();
  });
}

// One step of Adam (decoupled: AdamW) with each tensor operation of
// LibTorch's step run once for all of a group's parameters (_foreach_: on a
// GPU a few kernel launches in all rather than about eight per parameter).
// The operations and their order are the base class's.
template <typename State, typename Options>
int64_t adam_multi_tensor_step(torch::optim::Optimizer& optimizer, bool decoupled) {
  int64_t updates = 0;
  for (auto& group : optimizer.param_groups()) {
    const auto& options = static_cast<const Options&>(group.options());
    const double lr = options.lr(), decay = options.weight_decay();
    const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
    std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
    std::vector<c10::Scalar> sqrt_bias_corrections2, steps;
    for (auto& param : group.params()) {
      if (!param.grad().defined()) continue;
      auto& state = adam_state<State>(optimizer, param);
      state.step(state.step() + 1);
      const auto step = static_cast<double>(state.step());
      params.push_back(param);
      grads.push_back(param.grad());
      exp_avgs.push_back(state.exp_avg());
      exp_avg_sqs.push_back(state.exp_avg_sq());
      sqrt_bias_corrections2.emplace_back(std::sqrt(1 - std::pow(beta2, step)));
      steps.emplace_back(-(lr / (1 - std::pow(beta1, step))));
    }
    if (params.empty()) continue;
    if (decay != 0) {
      if (decoupled)
        at::_foreach_mul_(params, 1 - lr * decay);
      else
        grads = at::_foreach_add(grads, params, decay);
    }
    at::_foreach_mul_(exp_avgs, beta1);
    at::_foreach_add_(exp_avgs, grads, 1 - beta1);
    at::_foreach_mul_(exp_avg_sqs, beta2);
    at::_foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - beta2);
    auto denoms = at::_foreach_sqrt(exp_avg_sqs);
    at::_foreach_div_(denoms, sqrt_bias_corrections2);
    at::_foreach_add_(denoms, options.eps());
    at::_foreach_addcdiv_(params, exp_avgs, denoms, steps);
    updates += static_cast<int64_t>(params.size());
  }
  return updates;
}

// Whether LibTorch's fused Adam kernel takes these parameters: each group's
// of one type and device (a list of the kernel's is), dense, each with its
// gradient and state laid out as it is (the kernel walks them as flat
// arrays), no AMSGrad, no sparse gradient; and a LibTorch that has the
// kernel. It is there for GPU parameters; on a CPU it takes what trainer's
// loop does not (float64), as LibTorch 2.x has it there too.
template <typename State, typename Options>
bool adam_fused_kernel_fits(torch::optim::Optimizer& optimizer) {
#if TRAINER_HAS_FUSED_OPTIMIZERS
  for (auto& group : optimizer.param_groups()) {
    const auto& options = static_cast<const Options&>(group.options());
    const torch::Tensor* like = nullptr;
    for (auto& param : group.params()) {
      if (!param.grad().defined()) continue;
      if (!like) like = &param;
      const torch::Tensor& grad = param.grad();
      const bool floating = param.scalar_type() == torch::kFloat || param.scalar_type() == torch::kHalf ||
                            param.scalar_type() == torch::kBFloat16 || param.scalar_type() == torch::kDouble;
      if (options.amsgrad() || !(param.is_cuda() || param.is_cpu()) || !floating || grad.is_sparse() ||
          param.scalar_type() != like->scalar_type() || param.device() != like->device() ||
          grad.scalar_type() != param.scalar_type() || !param.is_non_overlapping_and_dense() ||
          grad.strides() != param.strides())
        return false;
      const auto& state = adam_state<State>(optimizer, param);
      if (state.exp_avg().strides() != param.strides() || state.exp_avg_sq().strides() != param.strides())
        return false;
    }
  }
  return true;
#else
  (void)optimizer;
  return false;
#endif
}

// One step of Adam (decoupled: AdamW) through LibTorch's fused kernel: on
// a GPU one launch a group, where the multi-tensor step launches about
// ten, each a pass over every parameter's memory. The kernel reads each
// parameter's step count from the device: the counts, kept on the host as
// the base class keeps them, go there in one copy a group from pinned
// memory, queued like the step's other work. The values are the base
// class's to within float rounding (the kernel's arithmetic is float32's
// for float32 parameters).
template <typename State, typename Options>
int64_t adam_fused_kernel_step(torch::optim::Optimizer& optimizer, bool decoupled) {
  int64_t updates = 0;
#if TRAINER_HAS_FUSED_OPTIMIZERS
  for (auto& group : optimizer.param_groups()) {
    const auto& options = static_cast<const Options&>(group.options());
    std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
    std::vector<float> counts;
    for (auto& param : group.params()) {
      if (!param.grad().defined()) continue;
      auto& state = adam_state<State>(optimizer, param);
      state.step(state.step() + 1);
      params.push_back(param);
      grads.push_back(param.grad());
      exp_avgs.push_back(state.exp_avg());
      exp_avg_sqs.push_back(state.exp_avg_sq());
      counts.push_back(static_cast<float>(state.step()));
    }
    if (params.empty()) continue;
    const torch::Tensor on_host =
        torch::from_blob(counts.data(), {static_cast<int64_t>(counts.size())}, torch::kFloat32);
    const torch::Device device = params.front().device();
    const torch::Tensor on_device =
        device.is_cpu() ? on_host.clone() : on_host.pin_memory().to(device, /*non_blocking=*/true);
    const std::vector<torch::Tensor> steps = on_device.unbind(0);
    const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
    if (decoupled)
      at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, {}, steps, options.lr(), beta1, beta2,
                        options.weight_decay(), options.eps(), /*amsgrad=*/false, /*maximize=*/false);
    else
      at::_fused_adam_(params, grads, exp_avgs, exp_avg_sqs, {}, steps, options.lr(), beta1, beta2,
                       options.weight_decay(), options.eps(), /*amsgrad=*/false, /*maximize=*/false);
    updates += static_cast<int64_t>(params.size());
  }
#else
  (void)optimizer;
  (void)decoupled;
#endif
  return updates;
}

bool sgd_fits(torch::optim::Optimizer& optimizer) {
  using Options = torch::optim::SGDOptions;
  return all_updated_fit<Options>(optimizer, [&](torch::Tensor& param, const Options& options) {
    if (!fusable(param, {&param.grad()})) return false;
    if (options.momentum() == 0) return true;
    auto found = optimizer.state().find(compat::optimizer_state_key(param));
    if (found == optimizer.state().end()) return true;  // started by the step
    const auto& buffer = static_cast<const torch::optim::SGDParamState&>(*found->second).momentum_buffer();
    return fusable(param, {&buffer});
  });
}

int64_t sgd_step(torch::optim::Optimizer& optimizer) {
  int64_t updates = 0;
  for_each_updated<torch::optim::SGDOptions>(optimizer, [&](torch::Tensor& param, const torch::optim::SGDOptions& options) {
    SgdCoefficients c;
    c.weight_decay = static_cast<float>(options.weight_decay());
    c.momentum = static_cast<float>(options.momentum());
    c.one_minus_dampening = static_cast<float>(1 - options.dampening());
    c.nesterov = options.nesterov();
    c.step = static_cast<float>(-options.lr());
    float* buffer = nullptr;
    if (options.momentum() != 0) {
      // The base class clones the first step's gradient; the loop writes it.
      auto& state = state_of<torch::optim::SGDParamState>(optimizer.state(), param, [&](auto& fresh) {
        fresh.momentum_buffer(torch::empty_like(param, torch::MemoryFormat::Preserve));
        c.first_step = true;
      });
      buffer = state.momentum_buffer().data_ptr<float>();
    }
    float* p = param.data_ptr<float>();
    const float* g = param.grad().data_ptr<float>();
    for_chunks(param.numel(), [&](int64_t begin, int64_t end) {
      sgd_update(p + begin, g + begin, buffer ? buffer + begin : nullptr, end - begin, c);
    });
    ++updates;
  });
  return updates;
}

bool rmsprop_fits(torch::optim::Optimizer& optimizer) {
  using Options = torch::optim::RMSpropOptions;
  return all_updated_fit<Options>(optimizer, [&](torch::Tensor& param, const Options& options) {
    if (options.momentum() != 0 || options.centered() || !fusable(param, {&param.grad()})) return false;
    auto found = optimizer.state().find(compat::optimizer_state_key(param));
    if (found == optimizer.state().end()) return true;  // started by the step
    const auto& state = static_cast<const torch::optim::RMSpropParamState&>(*found->second);
    return fusable(param, {&state.square_avg()});
  });
}

int64_t rmsprop_step(torch::optim::Optimizer& optimizer) {
  using Options = torch::optim::RMSpropOptions;
  int64_t updates = 0;
  for_each_updated<Options>(optimizer, [&](torch::Tensor& param, const Options& options) {
    auto& state = state_of<torch::optim::RMSpropParamState>(optimizer.state(), param, [&](auto& fresh) {
      fresh.step(0);  // as the base class starts it
      fresh.square_avg(torch::zeros_like(param, torch::MemoryFormat::Preserve));
    });
    state.step(state.step() + 1);
    RmspropCoefficients c;
    c.weight_decay = static_cast<float>(options.weight_decay());
    c.alpha = static_cast<float>(options.alpha());
    c.one_minus_alpha = static_cast<float>(1 - options.alpha());
    c.eps = static_cast<float>(options.eps());
    c.step = static_cast<float>(-options.lr());
    float* p = param.data_ptr<float>();
    const float* g = param.grad().data_ptr<float>();
    float* s = state.square_avg().data_ptr<float>();
    for_chunks(param.numel(), [&](int64_t begin, int64_t end) {
      rmsprop_update(p + begin, g + begin, s + begin, end - begin, c);
    });
    ++updates;
  });
  return updates;
}

// Adagrad's constructor starts every parameter's state (its sum).
bool adagrad_fits(torch::optim::Optimizer& optimizer) {
  using Options = torch::optim::AdagradOptions;
  return all_updated_fit<Options>(optimizer, [&](torch::Tensor& param, const Options&) {
    auto found = optimizer.state().find(compat::optimizer_state_key(param));
    if (found == optimizer.state().end()) return false;
    const auto& state = static_cast<const torch::optim::AdagradParamState&>(*found->second);
    return fusable(param, {&param.grad(), &state.sum()});
  });
}

int64_t adagrad_step(torch::optim::Optimizer& optimizer) {
  using Options = torch::optim::AdagradOptions;
  int64_t updates = 0;
  for_each_updated<Options>(optimizer, [&](torch::Tensor& param, const Options& options) {
    auto& state = static_cast<torch::optim::AdagradParamState&>(*optimizer.state()[compat::optimizer_state_key(param)]);
    state.step(state.step() + 1);
    AdagradCoefficients c;
    c.weight_decay = static_cast<float>(options.weight_decay());
    c.eps = static_cast<float>(options.eps());
    c.step = static_cast<float>(
        -(options.lr() / (1 + static_cast<double>(state.step() - 1) * options.lr_decay())));
    float* p = param.data_ptr<float>();
    const float* g = param.grad().data_ptr<float>();
    float* s = state.sum().data_ptr<float>();
    for_chunks(param.numel(), [&](int64_t begin, int64_t end) {
      adagrad_update(p + begin, g + begin, s + begin, end - begin, c);
    });
    ++updates;
  });
  return updates;
}

// Evaluates the closure, then steps every parameter through the first of
// the optimizer's own passes that takes them all (`pass`: the number of
// updates it made, nothing when it does not fit), else through the base
// class.
template <typename Base, typename Pass>
torch::Tensor fused_or_base(Base& optimizer, const torch::optim::Optimizer::LossClosure& closure, bool fused,
                            int64_t& updates, Pass pass) {
  torch::NoGradGuard no_grad;
  torch::Tensor loss = evaluate(closure);
  const std::optional<int64_t> made = fused ? pass() : std::nullopt;
  if (made)
    updates += *made;
  else
    optimizer.Base::step(nullptr);
  return loss;
}

// Adam and AdamW: the loop where every parameter fits it, else LibTorch's
// fused kernel where the LibTorch has it and each group's parameters are
// alike and dense (GPU parameters; on a CPU, float64 ones), else the
// multi-tensor step, else (AMSGrad, sparse gradients) nothing.
template <typename State, typename Options>
std::optional<int64_t> adam_pass(torch::optim::Optimizer& optimizer, bool decoupled) {
  if (adam_fits<State, Options>(optimizer)) return adam_step<State, Options>(optimizer, decoupled);
  if (adam_fused_kernel_fits<State, Options>(optimizer))
    return adam_fused_kernel_step<State, Options>(optimizer, decoupled);
  if (adam_multi_tensor_fits<Options>(optimizer)) return adam_multi_tensor_step<State, Options>(optimizer, decoupled);
  return std::nullopt;
}

}  // namespace

torch::Tensor FusedAdam::step(LossClosure closure) {
  return fused_or_base<torch::optim::Adam>(*this, closure, fused_, fused_updates_, [this] {
    return adam_pass<torch::optim::AdamParamState, torch::optim::AdamOptions>(*this, /*decoupled=*/false);
  });
}

torch::Tensor FusedAdamW::step(LossClosure closure) {
  return fused_or_base<torch::optim::AdamW>(*this, closure, fused_, fused_updates_, [this] {
    return adam_pass<torch::optim::AdamWParamState, torch::optim::AdamWOptions>(*this, /*decoupled=*/true);
  });
}

torch::Tensor FusedSGD::step(LossClosure closure) {
  return fused_or_base<torch::optim::SGD>(*this, closure, fused_, fused_updates_, [this]() -> std::optional<int64_t> {
    if (!sgd_fits(*this)) return std::nullopt;
    return sgd_step(*this);
  });
}

torch::Tensor FusedRMSprop::step(LossClosure closure) {
  return fused_or_base<torch::optim::RMSprop>(*this, closure, fused_, fused_updates_,
                                              [this]() -> std::optional<int64_t> {
                                                if (!rmsprop_fits(*this)) return std::nullopt;
                                                return rmsprop_step(*this);
                                              });
}

torch::Tensor FusedAdagrad::step(LossClosure closure) {
  return fused_or_base<torch::optim::Adagrad>(*this, closure, fused_, fused_updates_,
                                              [this]() -> std::optional<int64_t> {
                                                if (!adagrad_fits(*this)) return std::nullopt;
                                                return adagrad_step(*this);
                                              });
}

}  // namespace trainer
