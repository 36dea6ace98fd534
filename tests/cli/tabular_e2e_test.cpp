// A regression on a CSV table, end to end: the loss (MSE) and MAE fall, and
// a model with the wrong number of outputs is refused before training.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "cli_runner.h"
#include "epoch_records.h"

using namespace trainer::testing;

namespace {

// y = 2 a - b + 0.5 c on 300 rows of a smooth pseudo-random walk.
std::string write_table(const std::string& dir) {
  std::ofstream out(dir + "/table.csv");
  out << "a,b,c,y\n";
  for (int i = 0; i < 300; ++i) {
    const double a = std::sin(0.37 * i), b = std::cos(0.21 * i + 1), c = std::sin(0.11 * i + 2);
    out << a << "," << b << "," << c << "," << 2 * a - b + 0.5 * c << "\n";
  }
  return dir + "/table.csv";
}

std::string experiment(const std::string& dir, int outputs) {
  const std::string path = dir + "/reg.yaml";
  std::ofstream(path) << "experiment: {name: reg, seed: 2}\n"
                      << "data: {dataset: tabular, path: " << write_table(dir) << ", tabular: {task: regression}}\n"
                      << "model: {layers: [{type: dense, units: 16, activation: relu}, {type: dense, units: " << outputs
                      << "}]}\n"
                      << "optimizer: {name: adam, lr: 0.01}\n"
                      << "train: {epochs: 4, batch_size: 16}\n"
                      << "log: {dir: " << dir << "/runs}\n";
  return path;
}

}  // namespace

TEST_CASE("a tabular regression trains: MSE and MAE fall", "[e2e][tabular]") {
  const std::string dir = fresh_dir("e2e-tabular");
  const auto result = run_trainer({"run", experiment(dir, 1)}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.err, Catch::Contains("input 3 floats, 1 real target"));
  const auto epochs = parse_records(result.out);
  REQUIRE(epochs.size() == 4);
  CHECK(epochs[3].loss < 0.5 * epochs[0].loss);
  CHECK_THAT(epochs[0].values, Catch::Contains(",MAE:") && Catch::Contains(",Valid MAE:"));

  SECTION("two outputs for one target: a config error naming the last layer") {
    const auto wrong = run_trainer({"run", experiment(dir, 2)}, dir);
    CHECK(wrong.exit_code == 2);
    CHECK_THAT(wrong.err, Catch::Contains("model.layers[1]: the model outputs (None, 2) but the tabular targets are "
                                          "(None, 1); the last layer must give one output per target (units: 1)"));
  }
}
