#include "train/loss_scaler.h"

#include "util/error.h"

namespace trainer {

LossScaler::LossScaler() : LossScaler(Options{}) {}

LossScaler::LossScaler(const Options& options) : options_(options), scale_(options.initial_scale) {}

bool LossScaler::unscale(const std::vector<torch::Tensor>& parameters) const {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> finite_flags;
  for (const auto& parameter : parameters) {
    auto gradient = parameter.grad();
    if (!gradient.defined()) continue;
    gradient.mul_(1.0 / scale_);
    finite_flags.push_back(torch::isfinite(gradient).all());
  }
  // One host sync for all parameters.
  return finite_flags.empty() || torch::stack(finite_flags).all().item<bool>();
}

void LossScaler::update(bool gradients_finite) {
  if (!gradients_finite) {
    scale_ *= options_.backoff_factor;
    good_steps_ = 0;
    ++skipped_;
    return;
  }
  if (++good_steps_ >= options_.growth_interval) {
    scale_ *= options_.growth_factor;
    good_steps_ = 0;
  }
}

torch::Tensor LossScaler::state() const {
  return torch::tensor({scale_, static_cast<double>(good_steps_), static_cast<double>(skipped_)}, torch::kFloat64);
}

void LossScaler::load_state(const torch::Tensor& state) {
  if (state.numel() != 3) throw IoError("the checkpoint's loss-scaler state has " + std::to_string(state.numel()) +
                                        " values, expected 3");
  const auto values = state.to(torch::kFloat64).contiguous();
  scale_ = values[0].item<double>();
  good_steps_ = static_cast<int64_t>(values[1].item<double>());
  skipped_ = static_cast<int64_t>(values[2].item<double>());
}

}  // namespace trainer
