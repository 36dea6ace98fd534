// Graph models end to end: they train, resume exactly, and a bad graph is a
// configuration error before anything is written.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli_runner.h"
#include "epoch_records.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

// Residual blocks (one repeated, one with a projection shortcut), a named
// skip joined by concatenate, batchnorm's moving statistics and dropout's
// random state: everything a resume must restore.
std::string graph_experiment(const std::string& dir) {
  const std::string path = dir + "/graph.yaml";
  std::ofstream(path) << R"(experiment: {name: graph, seed: 11}
data:
  dataset: synthetic
  synthetic: {train_samples: 256, valid_samples: 64, shape: [3, 8, 8], classes: 3}
model:
  layers:
    - {type: conv2d, filters: 8, kernel_size: 3, padding: same, activation: relu, name: stem}
    - type: residual
      repeat: 2
      activation: relu
      layers:
        - {type: conv2d, filters: 8, kernel_size: 3, padding: same}
        - {type: batchnorm}
        - {type: activation, activation: relu}
        - {type: spatial_dropout2d, rate: 0.2}
        - {type: conv2d, filters: 8, kernel_size: 3, padding: same}
    - type: residual
      layers: [{type: conv2d, filters: 16, kernel_size: 3, strides: 2, padding: same}]
      shortcut: [{type: conv2d, filters: 16, kernel_size: 1, strides: 2}]
    - {type: upsampling2d, size: 2, name: up}
    - {type: concatenate, inputs: [stem, up]}
    - {type: global_avgpool}
    - {type: dense, units: classes, activation: softmax}
optimizer: {name: adam, lr: 0.01}
train: {epochs: 4, batch_size: 32}
cpu_threads: 1
log: {dir: )" << dir << "/runs, run_name: full}\n";
  return path;
}

}  // namespace

TEST_CASE("a graph model trains, and resuming reproduces the uninterrupted run", "[e2e][graph][resume]") {
  const std::string dir = fresh_dir("e2e-graph-resume");
  const std::string experiment = graph_experiment(dir);
  const auto full = run_trainer({"run", experiment}, dir);
  INFO(full.err);
  REQUIRE(full.exit_code == 0);
  const auto expected = parse_records(full.out);
  REQUIRE(expected.size() == 4);
  CHECK(expected[3].loss < expected[0].loss);

  const auto part = run_trainer({"run", experiment, "--set", "train.epochs=2", "--set", "log.run_name=part"}, dir);
  REQUIRE(part.exit_code == 0);
  const auto rest = run_trainer({"run", experiment, "--resume", dir + "/runs/graph/part"}, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  const auto resumed = parse_records(rest.out);
  REQUIRE(resumed.size() == 2);
  CHECK(resumed[0].values == expected[2].values);
  CHECK(resumed[1].values == expected[3].values);
}

TEST_CASE("trainer summary of a graph: Connected to, trainable and non-trainable, MiB", "[e2e][graph][summary]") {
  const std::string dir = fresh_dir("e2e-graph-summary");
  const auto result = run_trainer({"summary", graph_experiment(dir)}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("Connected to"));
  CHECK_THAT(result.out, Catch::Contains("concatenate") && Catch::Contains("stem[0][0], up[0][0]"));
  // Two batchnorms of 8 channels: 16 moving means and variances each way.
  CHECK_THAT(result.out, Catch::Contains("Non-trainable params: 32 (128 B)"));
  CHECK_THAT(result.out, Catch::Contains(" KiB)\nTrainable params: "));
}

TEST_CASE("a graph whose shapes do not fit is exit 2 naming the line and shapes, nothing written", "[e2e][graph][errors]") {
  const std::string dir = fresh_dir("e2e-graph-errors");
  const std::string experiment = graph_experiment(dir);
  SECTION("a merge of different shapes") {
    // The concatenation of 8 and 16 channels at 8x8 and 4x4 (no upsampling).
    const auto result = run_trainer({"run", experiment, "--set", "model.layers.3.size=1"}, dir);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("model.layers[4] (concatenate, input (None, 8, 8, 8)): concatenate needs "
                                           "equal shapes apart from axis 1: (None, 8, 8, 8) from stem, "
                                           "(None, 16, 4, 4) from up"));
    CHECK_FALSE(fs::exists(dir + "/runs"));
  }
  SECTION("a tensor read before it is defined") {
    std::string text = read_text(experiment);
    text.replace(text.find("inputs: [stem, up]"), 18, "inputs: [stem, late]");
    std::ofstream(dir + "/late.yaml") << text;
    const auto result = run_trainer({"run", dir + "/late.yaml"}, dir);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(dir + "/late.yaml:21:") &&
                               Catch::Contains("no tensor is named 'late'"));
    CHECK_FALSE(fs::exists(dir + "/runs"));
  }
}

TEST_CASE("a graph error is reported before the data is read", "[e2e][graph][errors]") {
  // A Reuters experiment whose data does not exist: the model is checked
  // first, from the length the config gives, so the kernel longer than the
  // sequence is the error (exit 2), not the missing data (exit 3).
  const std::string dir = fresh_dir("e2e-graph-before-data");
  const std::string path = dir + "/reuters.yaml";
  std::ofstream(path) << "data: {dataset: reuters, path: " << dir << "/absent.npz, sequence_length: 50, num_words: 100}\n"
                      << "model:\n  layers:\n"
                      << "    - {type: embedding, input_dim: vocabulary, output_dim: 4}\n"
                      << "    - {type: conv1d, filters: 4, kernel_size: 80}\n"
                      << "    - {type: global_maxpool}\n"
                      << "    - {type: dense, units: classes, activation: softmax}\n"
                      << "log: {dir: " << dir << "/runs}\n";
  for (const std::string command : {"run", "summary"}) {
    const auto result = run_trainer({command, path}, dir);
    INFO(command << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(path + ":5:") && Catch::Contains("model.layers[1] (conv1d, input (None, 4, 50))") &&
                               Catch::Contains("kernel_size 80 is larger than the input's 50"));
    CHECK_THAT(result.err, !Catch::Contains("absent.npz"));
  }
  CHECK_FALSE(fs::exists(dir + "/runs"));
  // With a kernel that fits, the missing data is what is reported.
  const auto fitting = run_trainer({"run", path, "--set", "model.layers.1.kernel_size=5"}, dir);
  CHECK(fitting.exit_code == 3);
  CHECK_THAT(fitting.err, Catch::Contains("absent.npz"));
}
