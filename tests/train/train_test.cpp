#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "config/config_loader.h"
#include "models/model_fixtures.h"
#include "test_paths.h"
#include "train/experiment_setup.h"
#include "runs/checkpoint.h"
#include "train/loss.h"
#include "train/metrics.h"
#include "optim/optimizer_factory.h"
#include "train/validation.h"
#include "util/error.h"
#include "util/torch_compat.h"

using namespace trainer;

TEST_CASE("softmax + cross-entropy is computed stably from logits", "[train][loss]") {
  LossConfig config;
  const auto logits = torch::tensor({{1000.0f, 0.0f, -1000.0f}, {0.0f, 0.0f, 0.0f}});
  const auto labels = torch::tensor({0, 2}, torch::kInt64);
  const auto loss = compute_loss(config, logits, labels, /*final_softmax=*/true);
  CHECK(std::isfinite(loss.item<float>()));
  CHECK(loss.item<float>() == Approx(std::log(3.0f) / 2));
  SECTION("probabilities (no declared softmax) are clipped before the log") {
    const auto probs = torch::tensor({{1.0f, 0.0f}, {0.5f, 0.5f}});
    const auto p_loss = compute_loss(config, probs, torch::tensor({1, 0}, torch::kInt64), false);
    CHECK(p_loss.item<float>() == Approx((-std::log(1e-7f) - std::log(0.5f)) / 2).epsilon(1e-4));
  }
}

TEST_CASE("label smoothing and class weights: PyTorch's cross-entropy, from logits or probabilities", "[train][loss]") {
  torch::manual_seed(4);
  const torch::Tensor logits = torch::randn({6, 3});
  const torch::Tensor labels = torch::tensor({0, 2, 1, 1, 0, 2}, torch::kInt64);
  const torch::Tensor log_p = torch::log_softmax(logits, 1);
  LossConfig config;
  config.from_logits = true;
  SECTION("smoothing: (1 - s) on the label, s / classes on each class") {
    config.label_smoothing = 0.2;
    const torch::Tensor nll = -log_p.gather(1, labels.view({-1, 1})).squeeze(1);
    const double expected = (0.8 * nll - 0.2 * log_p.mean(1)).mean().item<double>();
    CHECK(compute_loss(config, logits, labels, false).item<double>() == Approx(expected).epsilon(1e-6));
    // A model that outputs probabilities (softmax last) gets the same loss.
    config.from_logits = false;
    CHECK(compute_loss(config, torch::softmax(logits, 1), labels, false).item<double>() ==
          Approx(expected).epsilon(1e-5));
  }
  SECTION("class weights: the weighted mean of the samples' losses") {
    const torch::Tensor weights = torch::tensor({1.0f, 3.0f, 0.5f});
    const torch::Tensor nll = -log_p.gather(1, labels.view({-1, 1})).squeeze(1);
    const torch::Tensor w = weights.index_select(0, labels);
    const double expected = ((w * nll).sum() / w.sum()).item<double>();
    CHECK(compute_loss(config, logits, labels, false, weights).item<double>() == Approx(expected).epsilon(1e-6));
  }
  SECTION("balanced weights from the counts; a list of the wrong length is refused") {
    config.class_weights.balanced = true;
    const torch::Tensor balanced = class_weight_tensor(config, torch::tensor({0, 0, 0, 1}, torch::kInt64), 3);
    REQUIRE(balanced.numel() == 3);
    CHECK(balanced[0].item<float>() == Approx(4.0 / 9));  // n / (classes x n_c) = 4 / (3 x 3)
    CHECK(balanced[1].item<float>() == Approx(4.0 / 3));
    CHECK(balanced[2].item<float>() == 0.0f);  // no samples
    config.class_weights = {false, {1.0, 2.0}};
    CHECK_THROWS_WITH(class_weight_tensor(config, labels, 3), Catch::Contains("2 weights for 3 classes"));
    config.class_weights = {};
    CHECK_FALSE(class_weight_tensor(config, labels, 3).defined());
  }
}

TEST_CASE("metrics are exact counts over the epoch", "[train][metrics]") {
  LossConfig loss;
  MetricAccumulator meters(loss, {"accuracy", "top2", "mse"}, true);
  const auto logits = torch::tensor({{3.0f, 2.0f, 1.0f}, {1.0f, 3.0f, 2.0f}, {1.0f, 2.0f, 3.0f}});
  meters.add(torch::tensor(0.5f), logits, torch::tensor({0, 2, 0}, torch::kInt64));
  meters.add(torch::tensor(2.0f), logits.narrow(0, 0, 1), torch::tensor({1}, torch::kInt64));
  const auto results = meters.results();
  REQUIRE(results.size() == 4);
  CHECK(results[0].name == "Loss");
  CHECK(results[0].value == Approx((0.5 * 3 + 2.0) / 4));
  CHECK(results[1].name == "Accuracy");
  CHECK(results[1].value == Approx(1.0 / 4));
  CHECK(results[2].name == "Top2 Accuracy");
  CHECK(results[2].key == "top2_accuracy");
  CHECK(results[2].value == Approx(3.0 / 4));
  CHECK(results[3].name == "MSE");
  SECTION("state round trip, for mid-epoch checkpoints") {
    MetricAccumulator other(loss, {"accuracy", "top2", "mse"}, true);
    other.load_state(meters.state());
    CHECK(other.samples() == 4);
    CHECK(other.results()[1].value == results[1].value);
  }
}

TEST_CASE("precision, recall and f1 are macro averages of the epoch's confusion counts", "[train][metrics][classes]") {
  LossConfig loss;
  MetricAccumulator meters(loss, {"f1", "accuracy", "precision", "recall"}, true, 1.0, 3);
  const auto logits = torch::tensor({{3.0f, 2.0f, 1.0f}, {1.0f, 3.0f, 2.0f}, {1.0f, 2.0f, 3.0f}});
  // Predicted 0 1 2, then 0: true 0 2 2, then 1.
  meters.add(torch::tensor(0.5f), logits, torch::tensor({0, 2, 2}, torch::kInt64));
  meters.add(torch::tensor(1.0f), logits.narrow(0, 0, 1), torch::tensor({1}, torch::kInt64));
  const ConfusionMatrix matrix = meters.confusion();
  REQUIRE(matrix.classes == 3);
  CHECK(matrix.counts == std::vector<int64_t>{1, 0, 0, /**/ 1, 0, 0, /**/ 0, 1, 1});
  const MacroScores macro = macro_scores(class_scores(matrix));
  const auto results = meters.results();
  REQUIRE(results.size() == 5);
  CHECK(results[1].key == "f1");
  CHECK(results[1].value == Approx(macro.f1));
  CHECK(results[2].value == Approx(2.0 / 4));
  CHECK(results[3].name == "Precision");
  // Precision: class 0 1/2, class 1 0/1, class 2 1/1; recall: 1/1, 0/1, 1/2.
  CHECK(results[3].value == Approx((0.5 + 0 + 1) / 3));
  CHECK(results[4].value == Approx((1 + 0 + 0.5) / 3));
  SECTION("the counts travel with the sums, for mid-epoch checkpoints and the ranks' all-reduce") {
    MetricAccumulator other(loss, {"f1", "accuracy", "precision", "recall"}, true, 1.0, 3);
    other.load_state(meters.state());
    CHECK(other.confusion().counts == matrix.counts);
    CHECK(other.results()[1].value == results[1].value);
  }
  SECTION("without per-class metrics nothing is counted") {
    CHECK(MetricAccumulator(loss, {"accuracy"}, true, 1.0, 3).confusion().empty());
    CHECK_THROWS(MetricAccumulator(loss, {"f1"}, true));
  }
}

TEST_CASE("a last layer with fewer outputs than classes is a config error before training", "[train][config]") {
  const auto config_with = [](const std::string& last) {
    return parse_experiment("data: {dataset: synthetic}\nloss: {from_logits: true}\nmodel: {layers: [{type: flatten}, " + last + "]}\n",
                            "classes.yaml");
  };
  DataInfo info;
  info.name = "synthetic";
  info.input_shape = {4};
  info.classes = 9;
  CHECK_THROWS_WITH(build_seeded_model(config_with("{type: dense, units: 8}"), info),
                    Catch::Contains("model.layers[1]: the model outputs (None, 8) but the synthetic data has 9 "
                                    "classes") && Catch::Contains("units: classes"));
  CHECK(build_seeded_model(config_with("{type: dense, units: classes}"), info).summary.back().output_shape ==
        std::vector<int64_t>{9});
  // Regression losses compare values, not classes.
  auto mse = config_with("{type: dense, units: 1}");
  mse.loss.name = LossKind::kMse;
  CHECK_NOTHROW(build_seeded_model(mse, info));
}

TEST_CASE("the validation batch: the training batch on a CPU, 4 x it on a GPU, never past the data", "[train]") {
  ExperimentConfig config;
  config.train.batch_size.value = 32;
  CHECK(validation_batch_size(config, torch::kCPU, 10000) == 32);
  CHECK(validation_batch_size(config, torch::Device(torch::kCUDA, 0), 10000) == 128);
  CHECK(validation_batch_size(config, torch::Device(torch::kCUDA, 0), 100) == 32);
  CHECK(validation_batch_size(config, torch::kCPU, 20) == 20);
  config.train.batch_size.value = std::numeric_limits<int64_t>::max() / 2;  // no overflow in 4 x
  CHECK(validation_batch_size(config, torch::Device(torch::kCUDA, 0), 10000) == 10000);
  config.train.valid_batch_size = 500;
  CHECK(validation_batch_size(config, torch::kCPU, 10000) == 500);
}
