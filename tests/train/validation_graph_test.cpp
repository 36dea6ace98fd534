// Validation through a ValidationGraph (train.cuda_graph): where the capture
// fails (this build: no CUDA, or the CPU) every batch runs eagerly into the
// graph's meters, and the figures are those of plain validation, however
// many times it runs. On a GPU the replays themselves are tested end to end
// (tests/cli/cuda_graph_e2e_test.cpp).
#include <catch2/catch.hpp>

#include "config/config_loader.h"
#include "distributed/communicator.h"
#include "models/model_fixtures.h"
#include "train/validation.h"

using namespace trainer;

TEST_CASE("validation with a graph that cannot capture gives plain validation's figures, every time",
          "[train][cuda_graph]") {
  const ExperimentConfig config = parse_experiment(
      "data: {dataset: synthetic}\n"
      "model: {layers: [{type: dense, units: 16, activation: relu, kernel_regularizer: {l2: 0.01}},"
      " {type: dropout, rate: 0.5}, {type: dense, units: 3, activation: softmax}]}\n"
      "metrics: [accuracy, precision]\n"
      "train: {batch_size: 8, valid_batch_size: 8}\n",
      "validation.yaml");
  torch::manual_seed(4);
  Model model = build_model(config.model, testing::feature_rows(5, 3));
  // 8 + 8 + 4 samples: two full batches and a shorter one.
  const TensorDataset data{torch::randn({20, 5}), torch::randint(0, 3, {20}, torch::kInt64)};
  auto communicator = make_single_process_communicator();
  const torch::Device cpu(torch::kCPU);

  const Validation plain = validate_model(model, data, config, cpu, *communicator);
  ValidationGraph graph(validation_meters(model, config), cpu, 8);
  for (int time = 1; time <= 2; ++time) {
    INFO("validation " << time);
    const Validation graphed = validate_model(model, data, config, cpu, *communicator, nullptr, &graph);
    REQUIRE(graphed.metrics.size() == plain.metrics.size());
    for (size_t i = 0; i < plain.metrics.size(); ++i) {
      INFO(plain.metrics[i].name);
      CHECK(graphed.metrics[i].value == Approx(plain.metrics[i].value).epsilon(1e-6));
    }
    CHECK(graphed.confusion.counts == plain.confusion.counts);
    CHECK_FALSE(graph.captured());
    CHECK(graph.replayed_batches() == 0);
  }
}
