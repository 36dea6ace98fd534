#include "train/mixed_precision.h"

#include <sstream>
#include <utility>

namespace trainer {

MixedPrecision::MixedPrecision(const ExperimentConfig& config, const torch::Device& device, const Model& model) {
  PrecisionChoice choice = choose_precision(config, device, model);
  autocast_ = choice.autocast;
  note_ = std::move(choice.note);
  const LossScaleConfig& scaling = config.loss_scale;
  const bool scale = scaling.mode == LossScaling::kDynamic ||
                     (scaling.mode == LossScaling::kAuto && autocast_ == torch::kFloat16);
  if (!scale) return;
  LossScaler::Options options;
  options.initial_scale = scaling.initial;
  options.growth_interval = scaling.growth_interval;
  scaler_.emplace(options, device);
}

std::string MixedPrecision::describe() const {
  std::ostringstream text;
  if (autocast_ == torch::kFloat32) text << "fp32";
  else text << autocast_name(autocast_) << " autocast, fp32 weights";
  if (scaler_) text << ", dynamic loss scaling from " << scaler_->scale_value();
  return text.str();
}

void MixedPrecision::backward(const torch::Tensor& loss) const {
  if (scaler_) scaler_->scale(loss).backward();
  else loss.backward();
}

bool MixedPrecision::unscale_and_check(const std::vector<torch::Tensor>& parameters) {
  if (!scaler_) return true;
  return unscale_on_device(parameters).item<double>() == 0;
}

torch::Tensor MixedPrecision::unscale_on_device(const std::vector<torch::Tensor>& parameters) {
  if (!scaler_) return {};
  const torch::Tensor non_finite = scaler_->unscale(parameters);
  scaler_->update(non_finite);
  return non_finite;
}

}  // namespace trainer
