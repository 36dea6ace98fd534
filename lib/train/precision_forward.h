#pragma once
// The network's forward pass in the run's precision, its output in fp32:
// under autocast (bf16 on CPUs) when the config asks for it, so the loss and
// metrics are computed in fp32 either way.
#include "config/experiment_config.h"
#include "device/autocast.h"
#include "models/model.h"

namespace trainer {

inline torch::ScalarType run_autocast_dtype(const ExperimentConfig& config) {
  return autocast_dtype(config.precision, config.mixed_precision, /*gpu=*/false);
}

inline torch::Tensor forward_in_precision(Model& model, const torch::Tensor& inputs, torch::ScalarType autocast) {
  AutocastScope scope(torch::kCPU, autocast);
  return model.forward(inputs).to(torch::kFloat32);
}

}  // namespace trainer
