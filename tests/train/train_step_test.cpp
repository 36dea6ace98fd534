#include <catch2/catch.hpp>

#include "config/config_loader.h"
#include "models/model_fixtures.h"
#include "optim/optimizer_factory.h"
#include "train/train_step.h"
#include "util/error.h"

using namespace trainer;

namespace {

// A dense classifier of 8 features into 3 classes, trained by plain SGD.
struct StepFixture {
  // `dense_keys` are added to the dense layer's.
  // `more_yaml`: further top-level keys.
  explicit StepFixture(const std::string& optimizer_yaml, const std::string& dense_keys = "",
                       const std::string& more_yaml = "")
      : config(parse_experiment("data: {dataset: synthetic}\n"
                                "model: {layers: [{type: dense, units: 3, activation: softmax" + dense_keys + "}]}\n"
                                "optimizer: " + optimizer_yaml + "\n" + more_yaml,
                                "step.yaml")),
        model(build_model(config.model, info())),
        optimizer(make_optimizer(config.optimizer, model.net->parameters())),
        precision(config, torch::Device(torch::kCPU), model),
        step(config, model, *optimizer, precision, torch::Device(torch::kCPU)) {
    torch::manual_seed(7);
    batch.inputs = 10 * torch::randn({16, 8});
    batch.labels = torch::randint(0, 3, {16}, torch::kInt64);
  }
  static DataInfo info() { return testing::feature_rows(8, 3); }
  // The L2 norm of how far the parameters moved in one step at `lr`.
  double step_length(double lr, const StepExtras& extras = {}) {
    std::vector<torch::Tensor> before;
    for (const auto& p : model.net->parameters()) before.push_back(p.detach().clone());
    step.run(batch, lr, 1.0, false, extras);
    double squares = 0;
    const auto after = model.net->parameters();
    for (size_t i = 0; i < before.size(); ++i) squares += (after[i].detach() - before[i]).pow(2).sum().item<double>();
    return std::sqrt(squares);
  }

  ExperimentConfig config;
  Model model;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  MixedPrecision precision;
  TrainStep step;
  Batch batch;
};

}  // namespace

TEST_CASE("a training step clips the gradient to clip_norm", "[train][step]") {
  StepFixture unclipped("{name: sgd, lr: 1.0}");
  StepFixture clipped("{name: sgd, lr: 1.0, clip_norm: 0.01}");
  // The same weights and batch: only the clipping differs.
  REQUIRE(unclipped.step_length(1.0) > 0.1);
  CHECK(clipped.step_length(1.0) == Approx(0.01).epsilon(1e-3));
}

TEST_CASE("a gradient under clip_norm is left as it is", "[train][step]") {
  // The same starting weights (the fixture draws them from the global generator).
  torch::manual_seed(3);
  StepFixture unclipped("{name: sgd, lr: 1.0}");
  torch::manual_seed(3);
  StepFixture loose("{name: sgd, lr: 1.0, clip_norm: 1000000}");
  const double free_step = unclipped.step_length(1.0);
  REQUIRE(free_step > 0.1);
  CHECK(loose.step_length(1.0) == free_step);
}

TEST_CASE("a training step runs at the learning rate it is given", "[train][step]") {
  StepFixture fixture("{name: sgd, lr: 1.0}");
  CHECK(fixture.step_length(0.0) == 0.0);
  const double at_half = fixture.step_length(0.5);
  CHECK(at_half > 0);
}

TEST_CASE("a training step adds its phases to the timer and its loss to the meters", "[train][step]") {
  StepFixture fixture("{name: sgd, lr: 0.1}");
  StepTimes times;
  StepTimer timer(torch::Device(torch::kCPU), times);
  MetricAccumulator meters(fixture.config.loss, fixture.config.metrics, fixture.model.final_softmax);
  StepExtras extras;
  extras.timer = &timer;
  extras.meters = &meters;
  timer.start();
  fixture.step_length(0.1, extras);
  CHECK(times.data > 0);
  CHECK(times.forward > 0);
  CHECK(times.backward > 0);
  CHECK(times.optimizer > 0);
  CHECK(meters.samples() == 16);
  CHECK(std::isfinite(meters.results()[0].value));
}

TEST_CASE("kernel_regularizer adds its penalty to the loss the step minimises and the meters report",
          "[train][step]") {
  torch::manual_seed(21);
  StepFixture plain("{name: sgd, lr: 0.1}");
  torch::manual_seed(21);
  StepFixture penalised("{name: sgd, lr: 0.1}", ", kernel_regularizer: {l1: 0.25, l2: 0.5}");
  const torch::Tensor kernel = penalised.model.net->named_parameters()["l0_0.weight"];
  REQUIRE(torch::equal(kernel, plain.model.net->named_parameters()["l0_0.weight"]));
  const torch::Tensor before = kernel.detach().clone();
  const double penalty = 0.25 * before.abs().sum().item<double>() + 0.5 * before.square().sum().item<double>();
  CHECK(weight_penalty(penalised.model).item<double>() == Approx(penalty));
  CHECK_FALSE(weight_penalty(plain.model).defined());

  MetricAccumulator plain_meters(plain.config.loss, plain.config.metrics, plain.model.final_softmax);
  MetricAccumulator penalised_meters(penalised.config.loss, penalised.config.metrics, penalised.model.final_softmax);
  StepExtras extras;
  extras.meters = &plain_meters;
  plain.step_length(0.1, extras);
  extras.meters = &penalised_meters;
  penalised.step_length(0.1, extras);
  CHECK(penalised_meters.results()[0].value == Approx(plain_meters.results()[0].value + penalty).epsilon(1e-5));
  // SGD: the penalised kernel moved further by lr * (l1 * sign(w) + 2 * l2 * w); the bias is not penalised.
  const torch::Tensor extra = plain.model.net->named_parameters()["l0_0.weight"] - kernel;
  CHECK(torch::allclose(extra.detach(), 0.1 * (0.25 * before.sign() + 2 * 0.5 * before), 1e-4, 1e-6));
  CHECK(torch::allclose(plain.model.net->named_parameters()["l0_0.bias"],
                        penalised.model.net->named_parameters()["l0_0.bias"]));
}

TEST_CASE("a step of a graphed run, taken eagerly, moves the weights as an ordinary step and counts its samples",
          "[train][step][cuda_graph]") {
  for (const std::string optimizer :
       {"{name: adam, lr: 0.01, clip_norm: 0.5}", "{name: adam, lr: 0.01}", "{name: sgd, lr: 0.01, clip_norm: 0.5}", "{name: nadam, lr: 0.01}", "{name: momentum, lr: 0.1}"}) {
    INFO(optimizer);
    // The fixture draws its weights before seeding: seeded here, both start alike.
    torch::manual_seed(1);
    StepFixture plain(optimizer);
    torch::manual_seed(1);
    StepFixture graphed(optimizer);
    // A full batch of 64 never comes: every step is one of the eager ones
    // (warm-up, shorter batches) that share the captured step's optimizer.
    graphed.step.enable_graph(64);
    REQUIRE(graphed.step.graphed() != nullptr);
    MetricAccumulator plain_meters(plain.config.loss, {"accuracy"}, true);
    MetricAccumulator graphed_meters(graphed.config.loss, {"accuracy"}, true);
    for (int t = 1; t <= 10; ++t) {
      const double lr = 0.01 * t;
      StepExtras plain_extras, graphed_extras;
      plain_extras.meters = &plain_meters;
      graphed_extras.meters = &graphed_meters;
      plain.step.run(plain.batch, lr, 1.0, false, plain_extras);
      graphed.step.run(graphed.batch, lr, 1.0, false, graphed_extras);
    }
    const auto a = plain.model.net->parameters(), b = graphed.model.net->parameters();
    for (size_t i = 0; i < a.size(); ++i) CHECK(torch::allclose(a[i], b[i], 1e-5, 1e-6));
    CHECK(graphed.step.graphed()->eager_steps() == 10);
    CHECK(graphed.step.graphed()->replayed_steps() == 0);
    CHECK(graphed_meters.samples() == 160);
    CHECK(graphed_meters.loss_sum() == Approx(plain_meters.loss_sum()).epsilon(1e-5));
  }
}

TEST_CASE("fp16 loss scaling in a graphed run skips on the device the steps a plain run skips on the host",
          "[train][step][cuda_graph][scaler]") {
  // A scale of 1e38 overflows the gradients at first; each skip halves it
  // until they are finite, and then it grows every 3 good steps. Loss
  // scaling works on any precision (loss_scale.mode: dynamic), so the CPU
  // runs the decision a GPU's graph captures.
  const std::string scaling = "loss_scale: {mode: dynamic, initial: 1.0e38, growth_interval: 3}\n";
  for (const std::string optimizer : {"{name: adam, lr: 0.01}", "{name: momentum, lr: 0.1, clip_norm: 0.5}",
                                      "{name: nadam, lr: 0.01}"}) {
    INFO(optimizer);
    torch::manual_seed(1);
    StepFixture plain(optimizer, "", scaling);
    torch::manual_seed(1);
    StepFixture graphed(optimizer, "", scaling);
    graphed.step.enable_graph(64);
    int64_t plain_skips = 0, graphed_skips = 0;
    for (int t = 1; t <= 12; ++t) {
      const StepOutcome a = plain.step.run(plain.batch, 0.01);
      const StepOutcome b = graphed.step.run(graphed.batch, 0.01);
      plain_skips += a.stepped ? 0 : 1;
      CHECK(b.stepped);
      REQUIRE(b.skipped_on_device.defined());
      graphed_skips += static_cast<int64_t>(b.skipped_on_device.item<double>());
    }
    CHECK(plain_skips > 0);
    CHECK(plain_skips < 12);
    CHECK(graphed_skips == plain_skips);
    CHECK(graphed.precision.scaler()->skipped_steps() == plain_skips);
    CHECK(graphed.precision.scaler()->scale_value() == plain.precision.scaler()->scale_value());
    const auto a = plain.model.net->parameters(), b = graphed.model.net->parameters();
    for (size_t i = 0; i < a.size(); ++i) CHECK(torch::allclose(a[i], b[i], 1e-5, 1e-6));
  }
}

TEST_CASE("a capture that fails leaves a graphed run's steps eager under auto and is a config error under on",
          "[train][step][cuda_graph]") {
  // This build's graphs cannot capture (no CUDA, or the CPU): the same path
  // as a step CUDA refuses to capture.
  torch::manual_seed(1);
  StepFixture plain("{name: adam, lr: 0.01}");
  torch::manual_seed(1);
  StepFixture graphed("{name: adam, lr: 0.01}");
  graphed.step.enable_graph(16);
  for (int t = 1; t <= 6; ++t) {
    plain.step.run(plain.batch, 0.01);
    graphed.step.run(graphed.batch, 0.01);
  }
  const auto a = plain.model.net->parameters(), b = graphed.model.net->parameters();
  for (size_t i = 0; i < a.size(); ++i) CHECK(torch::allclose(a[i], b[i], 1e-5, 1e-6));
  CHECK(graphed.step.graphed()->eager_steps() == 6);
  CHECK_FALSE(graphed.step.graphed()->captured());

  StepFixture strict("{name: adam, lr: 0.01}");
  strict.config.train.cuda_graph = CudaGraphMode::kOn;
  strict.step.enable_graph(16);
  for (int t = 1; t <= 3; ++t) strict.step.run(strict.batch, 0.01);
  try {
    strict.step.run(strict.batch, 0.01);
    FAIL("the failed capture was not an error");
  } catch (const ConfigError& error) {
    CHECK_THAT(error.what(), Catch::Contains("train.cuda_graph: on, but the training step could not be captured"));
  }
}
