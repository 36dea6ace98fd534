#include <catch2/catch.hpp>

#include "train/cuda_graph_plan.h"
#include "train/graphed_step.h"

using namespace trainer;

TEST_CASE("a step is captured on a GPU unless something the host decides is in it", "[train][cuda_graph]") {
  ExperimentConfig config;
  CaptureFacts facts;
  facts.gpu = true;
  CHECK(plan_cuda_graph(config, facts).capture);

  const auto reason_with = [&](auto change) {
    ExperimentConfig changed = config;
    CaptureFacts changed_facts = facts;
    change(changed, changed_facts);
    const CapturePlan plan = plan_cuda_graph(changed, changed_facts);
    CHECK_FALSE(plan.capture);
    return plan.reason;
  };
  CHECK(reason_with([](auto& c, auto&) { c.train.cuda_graph = CudaGraphMode::kOff; }) == "train.cuda_graph: off");
  CHECK(reason_with([](auto&, auto& f) { f.gpu = false; }) == "the run is not on a GPU");
  CHECK_THAT(reason_with([](auto& c, auto&) { c.train.accumulate = 2; }), Catch::StartsWith("train.accumulate > 1"));
  CHECK_THAT(reason_with([](auto&, auto& f) { f.masked_sequences = true; }), Catch::StartsWith("masked sequences"));
  CHECK_THAT(reason_with([](auto&, auto& f) { f.scripted = true; }), Catch::StartsWith("a torchscript layer"));
  CHECK(reason_with([](auto&, auto& f) { f.optimizer = "Adam with AMSGrad"; }) ==
        "the optimizer (Adam with AMSGrad)");
  // on asks for a capture; whether one is possible is the same question.
  config.train.cuda_graph = CudaGraphMode::kOn;
  CHECK(plan_cuda_graph(config, facts).capture);
  // Data-parallel steps are captured in two parts around the all-reduce.
  facts.data_parallel = true;
  CHECK(plan_cuda_graph(config, facts).capture);
}

TEST_CASE("validation's forward is captured where the model allows it, whatever the step and optimizer",
          "[train][cuda_graph]") {
  ExperimentConfig config;
  CaptureFacts facts;
  facts.gpu = true;
  facts.data_parallel = true;
  facts.optimizer = "Adam with AMSGrad";
  config.train.accumulate = 4;
  CHECK(plan_validation_graph(config, facts).capture);
  CHECK_FALSE(plan_cuda_graph(config, facts).capture);
  facts.masked_sequences = true;
  CHECK_THAT(plan_validation_graph(config, facts).reason, Catch::StartsWith("masked sequences"));
  facts.masked_sequences = false;
  facts.scripted = true;
  CHECK_THAT(plan_validation_graph(config, facts).reason, Catch::StartsWith("a torchscript layer"));
  facts.scripted = false;
  config.train.cuda_graph = CudaGraphMode::kOff;
  CHECK_FALSE(plan_validation_graph(config, facts).capture);
  config.train.cuda_graph = CudaGraphMode::kAuto;
  facts.gpu = false;
  CHECK(plan_validation_graph(config, facts).reason == "the run is not on a GPU");
}

TEST_CASE("auto keeps a graph unless its replay is slower than the eager step by more than 5 %",
          "[train][cuda_graph]") {
  CHECK(graph_pays(1.0e-3, 0.25e-3));
  CHECK(graph_pays(1.0e-3, 1.04e-3));
  CHECK_FALSE(graph_pays(1.0e-3, 1.06e-3));
}

TEST_CASE("auto's race holds each side's fastest timed step", "[train][cuda_graph]") {
  StepRace race;
  CHECK(race.eager == 0);
  // One eager step slowed by something else on the machine does not decide.
  race.eager_step(5.0e-3);
  race.eager_step(1.0e-3);
  race.replayed_step(1.2e-3);
  race.replayed_step(0.9e-3);
  race.replayed_step(3.0e-3);
  CHECK(race.eager == 1.0e-3);
  CHECK(race.replay == 0.9e-3);
  CHECK(race.graph_pays());
  race.replay = 0;
  race.replayed_step(1.1e-3);
  CHECK_FALSE(race.graph_pays());
}
