// trainer predict's captured forward passes: which inputs replay, and that
// a replay computes what the eager pass does (on a GPU; skipped without).
#include <catch2/catch.hpp>

#include <torch/torch.h>

#include "infer/forward_graphs.h"
#include "models/model_fixtures.h"

namespace trainer {

TEST_CASE("predict's forward graphs leave CPU inputs and a disabled run to the eager pass", "[infer][cuda_graph]") {
  int calls = 0;
  const auto twice = [&](const torch::Tensor& x) {
    ++calls;
    return x * 2;
  };
  ForwardGraphs enabled(twice, true);
  for (int i = 0; i < 3; ++i) CHECK(torch::equal(enabled(torch::ones({2, 3})), torch::full({2, 3}, 2.0)));
  CHECK(calls == 3);
  CHECK(enabled.eager() == 3);
  CHECK(enabled.replayed() == 0);
  CHECK(enabled.summary() == "cuda_graph: 0 of 3 forward passes replayed a captured graph (0 shapes captured)");
  ForwardGraphs disabled(twice, false);
  disabled(torch::ones({1}));
  CHECK(disabled.summary().empty());
}

TEST_CASE("predict's forward graphs are refused with the reason", "[infer][cuda_graph]") {
  ExperimentConfig config = testing::experiment_of("model:\n  layers: [{type: dense, units: 3}]\n");
  Model model = build_model(config.model, testing::feature_rows(4, 3));
  CHECK(forward_graphs_refusal(config, model, torch::kCPU) == "not a GPU run");
  config.train.cuda_graph = CudaGraphMode::kOff;
  CHECK(forward_graphs_refusal(config, model, torch::Device(torch::kCUDA, 0)) == "train.cuda_graph: off");
  config.train.cuda_graph = CudaGraphMode::kAuto;
  if (!cuda_graphs_built()) {
    CHECK(forward_graphs_refusal(config, model, torch::Device(torch::kCUDA, 0)) == "this build has no CUDA");
    return;
  }
  CHECK(forward_graphs_refusal(config, model, torch::Device(torch::kCUDA, 0)).empty());
  model.scripted = true;
  CHECK_THAT(forward_graphs_refusal(config, model, torch::Device(torch::kCUDA, 0)), Catch::Contains("torchscript"));
}

TEST_CASE("GPU: predict's forward graphs replay repeated shapes, to the eager pass's values", "[infer][cuda_graph][gpu]") {
  if (!torch::cuda::is_available() || !cuda_graphs_built()) {
    WARN("SKIPPED: needs a CUDA GPU and a CUDA build");
    return;
  }
  torch::manual_seed(2);
  torch::nn::Sequential net(torch::nn::Linear(16, 32), torch::nn::ReLU(), torch::nn::Linear(32, 4));
  net->to(torch::kCUDA);
  net->eval();
  torch::NoGradGuard no_grad;
  ForwardGraphs forward([&](const torch::Tensor& x) { return net->forward(x); }, true);
  std::vector<torch::Tensor> outputs;
  std::vector<torch::Tensor> inputs;
  for (int i = 0; i < 5; ++i) {
    inputs.push_back(torch::randn({8, 16}, torch::kCUDA));
    outputs.push_back(forward(inputs.back()));
  }
  // The first warms up, the second is captured and replayed, and so on.
  CHECK(forward.eager() == 1);
  CHECK(forward.replayed() == 4);
  CHECK(forward.captured_shapes() == 1);
  // Each output is its own: later replays did not overwrite earlier ones.
  for (size_t i = 0; i < inputs.size(); ++i) CHECK(torch::allclose(outputs[i], net->forward(inputs[i]), 1e-5, 1e-6));
  // Other shapes: each warms up first; past kMaxShapes, eager.
  for (int64_t rows = 1; rows <= 5; ++rows)
    for (int i = 0; i < 2; ++i) forward(torch::randn({rows, 16}, torch::kCUDA));
  CHECK(forward.captured_shapes() == ForwardGraphs::kMaxShapes);
  CHECK(forward.eager() == 1 + 3 + 2 * 2);
}

}  // namespace trainer
