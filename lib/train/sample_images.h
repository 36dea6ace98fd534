#pragma once
// For models whose targets are images: the first few validation samples
// through the model, as PNG pictures of input, output and target, so that
// TensorBoard and the run's report show how the restoration looks epoch by
// epoch.
#include <vector>

#include "data/dataset.h"
#include "models/model.h"
#include "spec/experiment_config.h"
#include "watch/run_observer.h"

namespace trainer {

inline constexpr int64_t kSampleImages = 3;

// "valid-0/input", "valid-0/output", "valid-0/target", ... for the first
// `count` validation samples (their fixed validation windows). The model
// runs in eval mode without gradients and is left in training mode.
std::vector<NamedImage> sample_images(Model& model, const TensorDataset& valid, const ExperimentConfig& config,
                                      const torch::Device& device, int64_t count = kSampleImages);

}  // namespace trainer
