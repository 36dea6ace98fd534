#pragma once
// The DeblurGAN generator of tests/models/deblur_generator.yaml, built for
// 32-pixel images, and what one batch does to it: the model the passes that
// rewrite a built graph are tested on.
#include <torch/torch.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "models/model_fixtures.h"
#include "test_paths.h"

namespace trainer::testing {

inline Model deblur_generator() {
  torch::manual_seed(4);
  std::ifstream in(source_dir() + "/tests/models/deblur_generator.yaml");
  const ExperimentConfig config = experiment_of(std::string(std::istreambuf_iterator<char>(in), {}));
  return build_model(config.model, images(3, 32, 32, 2));
}

// The output, then each parameter's gradient (undefined where it has none),
// for one batch.
inline std::vector<torch::Tensor> forward_and_gradients(Model& model, const torch::Tensor& image) {
  model.net->zero_grad();
  const torch::Tensor out = model.forward(image);
  (out * torch::linspace(-1, 1, out.numel()).view(out.sizes())).sum().backward();
  std::vector<torch::Tensor> all{out.detach().clone()};
  for (const auto& p : model.net->parameters()) all.push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
  return all;
}

}  // namespace trainer::testing
