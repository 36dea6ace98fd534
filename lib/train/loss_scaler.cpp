#include "train/loss_scaler.h"

#include "util/error.h"

namespace trainer {

LossScaler::LossScaler() : LossScaler(Options{}) {}

LossScaler::LossScaler(const Options& options, const torch::Device& device) : options_(options) {
  const auto on_device = torch::TensorOptions(torch::kFloat64).device(device);
  scale_ = torch::full({}, options.initial_scale, on_device);
  good_steps_ = torch::zeros({}, on_device);
  skipped_ = torch::zeros({}, on_device);
}

torch::Tensor LossScaler::unscale(const std::vector<torch::Tensor>& parameters) const {
  torch::NoGradGuard no_grad;
  // Multiplying a float32 gradient by a float64 scalar tensor computes in
  // float32, as a host double did.
  const torch::Tensor inverse = scale_.reciprocal();
  std::vector<torch::Tensor> non_finite;
  for (const auto& parameter : parameters) {
    auto gradient = parameter.grad();
    if (!gradient.defined()) continue;
    gradient.mul_(inverse);
    non_finite.push_back(torch::isfinite(gradient).all().logical_not());
  }
  if (non_finite.empty()) return torch::zeros_like(scale_);
  return torch::stack(non_finite).any().to(torch::kFloat64);
}

void LossScaler::update(const torch::Tensor& non_finite) {
  torch::NoGradGuard no_grad;
  const torch::Tensor finite = 1 - non_finite;
  // An overflow restarts the count; a good step adds one.
  good_steps_.mul_(finite).add_(finite);
  const torch::Tensor grow = good_steps_.ge(static_cast<double>(options_.growth_interval)).to(torch::kFloat64);
  // backoff on an overflow, growth when the interval is full, else 1: each
  // term is exact, so the scale stays what host arithmetic gave.
  scale_.mul_(non_finite * options_.backoff_factor + finite * (1 + grow * (options_.growth_factor - 1)));
  good_steps_.mul_(1 - grow);
  skipped_.add_(non_finite);
}

double LossScaler::scale_value() const { return scale_.item<double>(); }

int64_t LossScaler::skipped_steps() const { return static_cast<int64_t>(skipped_.item<double>()); }

void LossScaler::reset_skipped_steps() { skipped_.zero_(); }

torch::Tensor LossScaler::state() const { return torch::stack({scale_, good_steps_, skipped_}).to(torch::kCPU); }

void LossScaler::load_state(const torch::Tensor& state) {
  if (state.numel() != 3) throw IoError("the checkpoint's loss-scaler state has " + std::to_string(state.numel()) +
                                        " values, expected 3");
  const auto values = state.to(torch::kFloat64).reshape({3}).to(scale_.device());
  scale_.copy_(values[0]);
  good_steps_.copy_(values[1]);
  skipped_.copy_(values[2]);
}

}  // namespace trainer
