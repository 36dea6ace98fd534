// train.cuda_graph end to end: a captured step against eager steps on a GPU
// (skipped without one: gpu_runs.h), and what is refused, and why.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "epoch_records.h"
#include "gpu_runs.h"

using namespace trainer::testing;

namespace {

// An MLP with dropout on 500 samples in batches of 32: 15 full batches and
// one of 20 an epoch. `optimizer` is the YAML of the optimizer: mapping.
std::string write_graph_experiment(const std::string& dir, const std::string& optimizer,
                                   const std::string& devices = "gpu:0", const std::string& extra = "") {
  const std::string path = dir + "/graph.yaml";
  std::ofstream(path) << R"(experiment: {name: graph, seed: 5}
data:
  dataset: synthetic
  synthetic: {train_samples: 500, valid_samples: 96, shape: [24], classes: 5}
model:
  layers:
    - {type: dense, units: 64, activation: relu}
    - {type: dropout, rate: 0.2}
    - {type: dense, units: 64, activation: relu}
    - {type: dense, units: classes}
loss: {from_logits: true}
optimizer: )" << optimizer << R"(
metrics: [accuracy, precision]
train: {epochs: 4, batch_size: 32}
devices: )" << devices << R"(
log: {dir: )" << dir << "/runs}\n"
                      << extra;
  return path;
}

// The value of `key` in an epoch record's values ("Valid Loss").
std::string field_of(const std::string& values, const std::string& key) {
  const size_t at = values.find(key + ":");
  REQUIRE(at != std::string::npos);
  const size_t begin = at + key.size() + 1;
  const size_t end = values.find(',', begin);
  return values.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// `experiment` trained eagerly and then graphed (train.cuda_graph: on),
// each run's epoch records (4 of them); the graphed run's stderr in `err`.
std::pair<std::vector<Epoch>, std::vector<Epoch>> eager_and_graphed(const std::string& dir,
                                                                    const std::string& experiment, std::string& err) {
  const auto eager = run_trainer({"run", experiment, "--set", "train.cuda_graph=off", "--run-dir", dir + "/runs/eager"},
                                 dir);
  INFO(eager.err);
  REQUIRE(eager.exit_code == 0);
  const auto graphed = run_trainer({"run", experiment, "--set", "train.cuda_graph=on", "--run-dir", dir + "/runs/graphed"},
                                   dir);
  INFO(graphed.err);
  REQUIRE(graphed.exit_code == 0);
  err = graphed.err;
  auto records = std::make_pair(parse_records(eager.out), parse_records(graphed.out));
  REQUIRE(records.first.size() == 4);
  REQUIRE(records.second.size() == 4);
  return records;
}

int64_t graphed_steps_of(const std::string& values) {
  const std::string key = "Graphed Steps:";
  const size_t at = values.find(key);
  return at == std::string::npos ? -1 : std::stoll(values.substr(at + key.size()));
}

}  // namespace

TEST_CASE("train.cuda_graph: on is refused for a run on the CPU, naming the key", "[cli][cuda_graph]") {
  const std::string dir = fresh_dir("cuda-graph-cpu");
  const auto result = run_trainer(
      {"run", write_graph_experiment(dir, "{name: adam, lr: 0.001}", "cpu"), "--set", "train.cuda_graph=on"}, dir);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("train.cuda_graph: on captures the step on a GPU"));
}

TEST_CASE("GPU: a graphed run trains as an eager one, with every optimizer, a schedule, clipping and dropout",
          "[gpu][e2e][cuda_graph]") {
  const std::string dir = fresh_dir("cuda-graph-optimizers");
  if (skip_without_gpus(dir, 1)) return;
  for (const std::string optimizer :
       {"{name: nadam, lr: 0.002}", "{name: adam, lr: 0.001, weight_decay: 0.01, clip_norm: 0.5}",
        "{name: adamw, lr: 0.001, schedule: {name: cosine}}", "{name: momentum, lr: 0.01, nesterov: true}",
        "{name: rmsprop, lr: 0.001}", "{name: sgd, lr: 0.05, schedule: {name: exponential, gamma: 0.5}}",
        "{name: adagrad, lr: 0.01}"}) {
    INFO(optimizer);
    const std::string experiment = write_graph_experiment(dir, optimizer);
    const auto eager = run_trainer({"run", experiment, "--set", "train.cuda_graph=off", "--run-dir",
                                    dir + "/runs/eager-" + std::to_string(std::hash<std::string>{}(optimizer))},
                                   dir);
    INFO(eager.err);
    REQUIRE(eager.exit_code == 0);
    const auto graphed = run_trainer({"run", experiment, "--set", "train.cuda_graph=on", "--run-dir",
                                      dir + "/runs/graphed-" + std::to_string(std::hash<std::string>{}(optimizer))},
                                     dir);
    INFO(graphed.err);
    REQUIRE(graphed.exit_code == 0);
    CHECK_THAT(graphed.err, Catch::Contains("cuda_graph: full batches replay one captured training step"));
    const auto a = parse_records(eager.out), b = parse_records(graphed.out);
    REQUIRE(a.size() == 4);
    REQUIRE(b.size() == 4);
    // The same arithmetic in another order (the captured optimizer's device
    // scalars): the same losses to float noise, the same dropout masks.
    // Validation (96 samples: 3 batches of 32) replays its own captured
    // forward from the second batch of the first epoch on.
    CHECK_THAT(graphed.err, Catch::Contains("cuda_graph: validation replays one captured forward pass"));
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(b[i].loss == Approx(a[i].loss).epsilon(2e-3));
      CHECK(std::stod(field_of(b[i].values, "Valid Loss")) ==
            Approx(std::stod(field_of(a[i].values, "Valid Loss"))).epsilon(2e-3));
      CHECK(std::stod(field_of(b[i].values, "Valid Precision")) ==
            Approx(std::stod(field_of(a[i].values, "Valid Precision"))).epsilon(1e-2));
    }
    CHECK(graphed_steps_of(a[0].values) == -1);
    // Three eager warm-up steps and the epoch's last, shorter batch.
    CHECK(graphed_steps_of(b[0].values) == 12);
    CHECK(graphed_steps_of(b[3].values) == 15);
  }
}

TEST_CASE("GPU: a graphed run resumed from a checkpoint gives the uninterrupted run's records",
          "[gpu][e2e][cuda_graph]") {
  const std::string dir = fresh_dir("cuda-graph-resume");
  if (skip_without_gpus(dir, 1)) return;
  // A schedule that does not depend on train.epochs, which the two parts change.
  const std::string experiment =
      write_graph_experiment(dir, "{name: adam, lr: 0.002, schedule: {name: exponential, gamma: 0.7}}");
  const auto whole = run_trainer({"run", experiment, "--set", "train.cuda_graph=on", "--run-dir", dir + "/runs/whole"},
                                 dir);
  INFO(whole.err);
  REQUIRE(whole.exit_code == 0);
  const auto part = run_trainer({"run", experiment, "--set", "train.cuda_graph=on", "--set", "train.epochs=2",
                                 "--run-dir", dir + "/runs/part"},
                                dir);
  REQUIRE(part.exit_code == 0);
  const auto rest = run_trainer({"run", "--resume", dir + "/runs/part", "--set", "train.epochs=4"}, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  const auto all = parse_records(whole.out), resumed = parse_records(rest.out);
  REQUIRE(all.size() == 4);
  REQUIRE(resumed.size() == 2);
  // The step counts went to the checkpoint and back: the same bias
  // corrections, the same dropout draws, the same figures to the last digit
  // but the graphed steps (the resumed run warms up again).
  CHECK(figures_of(resumed[0].values) == figures_of(all[2].values));
  CHECK(figures_of(resumed[1].values) == figures_of(all[3].values));
}

TEST_CASE("GPU: what prevents a capture is logged under auto and a config error under on",
          "[gpu][e2e][cuda_graph]") {
  const std::string dir = fresh_dir("cuda-graph-refused");
  if (skip_without_gpus(dir, 1)) return;
  const std::string experiment = write_graph_experiment(dir, "{name: adam, lr: 0.001}");
  const auto automatic = run_trainer({"run", experiment, "--set", "train.epochs=1", "--set", "train.accumulate=2"}, dir);
  INFO(automatic.err);
  REQUIRE(automatic.exit_code == 0);
  CHECK_THAT(automatic.err, Catch::Contains("cuda_graph: eager steps: train.accumulate > 1"));
  const auto on = run_trainer(
      {"run", experiment, "--set", "train.epochs=1", "--set", "train.accumulate=2", "--set", "train.cuda_graph=on"},
      dir);
  CHECK(on.exit_code == 2);
  CHECK_THAT(on.err, Catch::Contains("train.cuda_graph: on, but this run cannot capture its step: train.accumulate"));
}

TEST_CASE("GPU: a data-parallel graphed run (two ranks sharing gpu:0) trains as an eager one",
          "[gpu][e2e][cuda_graph][dist]") {
  const std::string dir = fresh_dir("cuda-graph-ranks");
  if (skip_without_gpus(dir, 1)) return;
  const std::string experiment =
      write_graph_experiment(dir, "{name: adam, lr: 0.001, clip_norm: 1.0}", "gpu:0,0");
  std::string err;
  const auto [a, b] = eager_and_graphed(dir, experiment, err);
  CHECK_THAT(err, Catch::Contains("two graphs, the all-reduce between them"));
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(b[i].loss == Approx(a[i].loss).epsilon(2e-3));
    CHECK(std::stod(field_of(b[i].values, "Valid Loss")) ==
          Approx(std::stod(field_of(a[i].values, "Valid Loss"))).epsilon(2e-3));
  }
  CHECK(graphed_steps_of(b[3].values) > 0);
}

TEST_CASE("GPU: fp16 loss scaling in a graphed run skips the overflowed steps an eager run skips",
          "[gpu][e2e][cuda_graph]") {
  const std::string dir = fresh_dir("cuda-graph-fp16");
  if (skip_without_gpus(dir, 1)) return;
  // A scale of 2^30 overflows fp16 gradients: the first steps are skipped,
  // some of them replays, until the halved scale lets them through; then it
  // grows every 10 good steps.
  const std::string experiment =
      write_graph_experiment(dir, "{name: adam, lr: 0.001}", "gpu:0",
                             "precision: fp16\nloss_scale: {initial: 1073741824, growth_interval: 10}\n");
  std::string err;
  const auto [a, b] = eager_and_graphed(dir, experiment, err);
  CHECK(std::stoi(field_of(a[0].values, "Skipped Steps")) > 3);  // replays among them
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(field_of(b[i].values, "Skipped Steps") == field_of(a[i].values, "Skipped Steps"));
    CHECK(field_of(b[i].values, "Loss Scale") == field_of(a[i].values, "Loss Scale"));
    CHECK(b[i].loss == Approx(a[i].loss).epsilon(5e-3));
  }
  CHECK(graphed_steps_of(b[0].values) == 12);
}

TEST_CASE("GPU: trainer bench FILE puts the graphed steps beside the eager ones", "[gpu][e2e][cuda_graph][bench]") {
  const std::string dir = fresh_dir("cuda-graph-bench");
  if (skip_without_gpus(dir, 1)) return;
  const auto result =
      run_trainer({"bench", write_graph_experiment(dir, "{name: nadam, lr: 0.002}"), "--steps", "30"}, dir);
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("CUDA graph (train.cuda_graph): steps/s") &&
                             Catch::Contains("x the eager steps"));
  const auto as_json = run_trainer(
      {"bench", write_graph_experiment(dir, "{name: nadam, lr: 0.002}"), "--steps", "30", "--json"}, dir);
  REQUIRE(as_json.exit_code == 0);
  const auto figures = nlohmann::json::parse(as_json.out);
  CHECK(figures["graphed_steps_per_second"].get<double>() > 0);
  // The input pipeline alone, its batches gathered on the GPU (the data set held there).
  CHECK(figures["input_samples_per_second"].get<double>() > 0);
  CHECK_THAT(result.out, Catch::Contains("input pipeline alone: samples/s "));
}

TEST_CASE("GPU: under auto a run times its eager step against the replays and says which it keeps",
          "[gpu][e2e][cuda_graph]") {
  const std::string dir = fresh_dir("cuda-graph-race");
  if (skip_without_gpus(dir, 1)) return;
  const auto result = run_trainer(
      {"run", write_graph_experiment(dir, "{name: nadam, lr: 0.002}"), "--set", "train.epochs=1"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.err, Catch::Contains("cuda_graph: the fastest replayed step took") &&
                             Catch::Contains(" ms, the fastest eager one "));
  const auto records = parse_records(result.out);
  REQUIRE(records.size() == 1);
  // Kept: 12 replays; dropped after the race: the 4 replays before it.
  const int64_t graphed = graphed_steps_of(records[0].values);
  CHECK((graphed == 12 || graphed == 4));
}
