#pragma once
// How a run computes on its device: the forward pass under autocast (bf16 on
// CPUs, fp16 or bf16 on GPUs) with the output in fp32, so loss and metrics
// are fp32 either way; and, with dynamic loss scaling (fp16), backward on the
// scaled loss and an optimizer step only when the unscaled gradients are
// finite.
#include <optional>
#include <string>
#include <vector>

#include "device/autocast.h"
#include "models/model.h"
#include "spec/experiment_config.h"
#include "train/loss_scaler.h"
#include "train/precision_choice.h"

namespace trainer {

// The autocast type the run uses for `model` on `device` (kFloat32: none):
// the config's, unless a GPU keeps fp32 for a small model (train/precision_choice.h).
inline torch::ScalarType run_autocast_dtype(const ExperimentConfig& config, const torch::Device& device,
                                            const Model& model) {
  return choose_precision(config, device, model).autocast;
}

// The network's output for `inputs` (already on the model's device), in fp32.
inline torch::Tensor forward_in_precision(Model& model, const torch::Tensor& inputs, torch::ScalarType autocast) {
  AutocastScope scope(inputs.device().type(), autocast);
  return model.forward(inputs).to(torch::kFloat32);
}

class MixedPrecision {
 public:
  MixedPrecision(const ExperimentConfig& config, const torch::Device& device, const Model& model);

  torch::ScalarType autocast() const { return autocast_; }
  // "fp32", "bf16 autocast, fp32 weights", "fp16 autocast, fp32 weights,
  // dynamic loss scaling from 65536": for the run's log.
  std::string describe() const;
  // "fp32", "bf16" or "fp16": the type the forward pass runs in (run.json).
  std::string type_name() const { return autocast_name(autocast_); }
  // Why a GPU kept fp32, or why fp32 may be faster, for a small model; "" else.
  const std::string& note() const { return note_; }

  torch::Tensor forward(Model& model, const torch::Tensor& inputs) const {
    return forward_in_precision(model, inputs, autocast_);
  }
  // loss.backward(), on the scaled loss when loss scaling is on.
  void backward(const torch::Tensor& loss) const;
  // After backward and any gradient averaging: unscales the gradients and
  // updates the scale. False when they are not finite: skip the optimizer
  // step. Always true without loss scaling. Waits for the device once.
  bool unscale_and_check(const std::vector<torch::Tensor>& parameters);
  // The same without the wait: the verdict as a device flag (1: skip the
  // step) for CapturableStep; undefined without loss scaling.
  torch::Tensor unscale_on_device(const std::vector<torch::Tensor>& parameters);

  // Null when the run does not scale its loss.
  LossScaler* scaler() { return scaler_ ? &*scaler_ : nullptr; }
  const LossScaler* scaler() const { return scaler_ ? &*scaler_ : nullptr; }

 private:
  torch::ScalarType autocast_;
  std::string note_;
  std::optional<LossScaler> scaler_;
};

}  // namespace trainer
