// run_training and evaluate_checkpoint called in-process, as `trainer run`
// and `trainer eval` call them: what a run returns, leaves on disk, how it
// resumes and how it stops when its loss diverges. (tests/cli/ runs the
// binary for the signals, the ranks and the output format.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "config/config_loader.h"
#include "test_paths.h"
#include "train/run_training.h"
#include "util/error.h"
#include "util/read_file.h"

using namespace trainer;
using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

ExperimentConfig tiny_experiment(const std::vector<std::string>& overrides = {}) {
  return parse_experiment(R"(experiment: {name: tiny, seed: 4}
data:
  dataset: synthetic
  synthetic: {train_samples: 96, valid_samples: 32, shape: [8], classes: 3}
model:
  layers:
    - {type: dense, units: 16, activation: relu}
    - {type: dense, units: classes, activation: softmax}
optimizer: {name: adam, lr: 0.01}
metrics: [accuracy]
train: {epochs: 3, batch_size: 16}
cpu_threads: 1
)",
                          "tiny.yaml", overrides);
}

RunOptions options_in(const std::string& run_dir) {
  RunOptions options;
  options.version = "test";
  options.run_dir = run_dir;
  options.quiet = true;
  return options;
}

float value_of(const std::vector<MetricValue>& values, const std::string& key) {
  for (const auto& value : values)
    if (value.key == key) return value.value;
  FAIL("no " << key);
  return 0;
}

}  // namespace

TEST_CASE("run_training returns a record per epoch and leaves the run that eval reads back", "[train][run]") {
  const std::string run_dir = fresh_dir("run-training") + "/run";
  const ExperimentConfig config = tiny_experiment();
  const RunSummary summary = run_training(config, options_in(run_dir));
  CHECK(summary.run_dir == run_dir);
  REQUIRE(summary.records.size() == 3);
  for (size_t i = 0; i < summary.records.size(); ++i) {
    INFO("epoch " << i + 1);
    CHECK(summary.records[i].epoch == static_cast<int64_t>(i) + 1);
    CHECK(summary.records[i].steps == 6);  // 96 samples in batches of 16
    CHECK_FALSE(summary.records[i].valid.empty());
  }
  CHECK(value_of(summary.records[2].train, "loss") < value_of(summary.records[0].train, "loss"));
  CHECK(fs::exists(run_dir + "/checkpoints/epoch-0003.pt"));
  CHECK_THAT(read_text_file(run_dir + "/run.json").value_or(""), Catch::Contains("\"status\":\"done\""));

  // The last checkpoint's validation is the last epoch's.
  const CheckpointEvaluation evaluation = evaluate_checkpoint(config, run_dir + "/checkpoints/epoch-0003.pt");
  CHECK(evaluation.epoch == 3);
  CHECK(value_of(evaluation.valid, "loss") == Approx(value_of(summary.records[2].valid, "loss")).epsilon(1e-6));
  CHECK(value_of(evaluation.valid, "accuracy") == value_of(summary.records[2].valid, "accuracy"));
}

TEST_CASE("run_training resumes a run: its next epoch is the uninterrupted run's", "[train][run][resume]") {
  const std::string dir = fresh_dir("run-training-resume");
  const RunSummary whole = run_training(tiny_experiment(), options_in(dir + "/whole"));
  REQUIRE(whole.records.size() == 3);

  run_training(tiny_experiment({"train.epochs=2"}), options_in(dir + "/cut"));
  RunOptions resume = options_in("");
  resume.resume = dir + "/cut";
  const RunSummary rest = run_training(tiny_experiment(), resume);
  CHECK(rest.run_dir == dir + "/cut");
  REQUIRE(rest.records.size() == 1);  // this invocation's epochs only
  CHECK(rest.records[0].epoch == 3);
  for (const char* key : {"loss", "accuracy"}) {
    INFO(key);
    CHECK(value_of(rest.records[0].train, key) == value_of(whole.records[2].train, key));
    CHECK(value_of(rest.records[0].valid, key) == value_of(whole.records[2].valid, key));
  }
}

TEST_CASE("run_training stops a diverged run with DivergedError and keeps no checkpoint", "[train][run][errors]") {
  const std::string run_dir = fresh_dir("run-training-diverged") + "/run";
  const ExperimentConfig config =
      tiny_experiment({"optimizer.name=sgd", "optimizer.lr=1e30", "train.check_finite_every=2"});
  CHECK_THROWS_AS(run_training(config, options_in(run_dir)), DivergedError);
  CHECK_FALSE(fs::exists(run_dir + "/checkpoints/epoch-0001.pt"));
}
