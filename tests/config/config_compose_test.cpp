// Experiment files that compose: extends chains, ${VAR} interpolation, and
// `trainer config --explain`'s origins.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "config/config_loader.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

namespace {

const char* kBase = R"(experiment: {name: base, seed: 7}
data:
  dataset: synthetic
  synthetic: {train_samples: 64, valid_samples: 16, shape: [8], classes: 3}
model:
  layers:
    - {type: dense, units: 16, activation: relu}
    - {type: dense, units: classes, activation: softmax}
metrics: [accuracy, top2]
train: {epochs: 3, batch_size: 16}
)";

std::vector<std::string> problems_loading(const std::string& path) {
  try {
    load_experiment(path);
  } catch (const ConfigError& e) {
    return e.problems();
  }
  return {};
}

// DIR with base.yaml, mid/lr.yaml (extends ../base.yaml) and top.yaml (extends mid/lr.yaml).
std::string chain_dir(const std::string& name) {
  const std::string dir = testing::fresh_dir(name);
  std::filesystem::create_directories(dir + "/mid");
  std::ofstream(dir + "/base.yaml") << kBase;
  std::ofstream(dir + "/mid/lr.yaml") << "extends: ../base.yaml\nexperiment: {name: lr}\noptimizer:\n  lr: 0.05\n"
                                        "train: {epochs: 5}\n";
  std::ofstream(dir + "/top.yaml") << "extends: mid/lr.yaml\nmetrics: [accuracy]\ntrain: {batch_size: 8}\n";
  return dir;
}

}  // namespace

TEST_CASE("extends: a chain of files, the later keys over the earlier, lists replaced", "[config][extends]") {
  const std::string dir = chain_dir("extends-chain");
  const ExperimentConfig config = load_experiment(dir + "/top.yaml");
  CHECK(config.experiment.name == "lr");    // mid over base
  CHECK(config.experiment.seed == 7);       // base's, kept beside mid's name
  CHECK(*config.optimizer.lr == 0.05);      // mid
  CHECK(config.train.epochs == 5);          // mid
  CHECK(config.train.batch_size.value == 8);      // top, beside mid's epochs
  CHECK(config.metrics == std::vector<std::string>{"accuracy"});  // replaced, not appended
  CHECK(config.model.layers.size() == 2);   // base
  // What a writer checks its output against: every file of the chain, in turn.
  CHECK(experiment_files(dir + "/top.yaml") ==
        std::vector<std::string>{dir + "/top.yaml", dir + "/mid/lr.yaml", dir + "/base.yaml"});
  CHECK(experiment_files(dir + "/base.yaml") == std::vector<std::string>{dir + "/base.yaml"});

  SECTION("a problem in a base file is reported at its own file and line") {
    std::ofstream(dir + "/base.yaml", std::ios::app) << "optimizer: {nme: adam}\n";
    const auto problems = problems_loading(dir + "/top.yaml");
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0], Catch::StartsWith(dir + "/base.yaml:11:") &&
                                Catch::Contains("unknown key 'optimizer.nme' (did you mean 'optimizer.name'?)"));
  }
  SECTION("a cycle is an error showing it") {
    std::ofstream(dir + "/base.yaml", std::ios::app) << "extends: top.yaml\n";
    const auto problems = problems_loading(dir + "/top.yaml");
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0], Catch::Contains("extends: a cycle: " + dir + "/top.yaml -> " + dir + "/mid/lr.yaml -> " +
                                            dir + "/base.yaml -> " + dir + "/top.yaml"));
  }
  SECTION("a missing base is an error at the extends line, with the chain") {
    std::ofstream(dir + "/mid/lr.yaml") << "extends: nowhere.yaml\n";
    const auto problems = problems_loading(dir + "/top.yaml");
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == dir + "/mid/lr.yaml:1:10: extends: " + dir + "/mid/nowhere.yaml does not exist (" + dir +
                             "/top.yaml -> " + dir + "/mid/lr.yaml -> " + dir + "/mid/nowhere.yaml)");
  }
  SECTION("a key given twice in a file that extends another is refused, as in one that does not") {
    std::ofstream(dir + "/top.yaml") << "extends: mid/lr.yaml\ntrain:\n  epochs: 1\n  epochs: 3\n";
    const auto problems = problems_loading(dir + "/top.yaml");
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] ==
          dir + "/top.yaml:4:3: duplicate key 'train.epochs' (first at " + dir + "/top.yaml:3:3)");
    std::ofstream(dir + "/top.yaml") << "extends: mid/lr.yaml\nmetrics: [accuracy]\nmetrics: [top2]\n";
    CHECK_THAT(problems_loading(dir + "/top.yaml").at(0),
               Catch::Contains("top.yaml:3:1: duplicate key 'metrics' (first at " + dir + "/top.yaml:2:1)"));
  }
  SECTION("extends must be one path") {
    std::ofstream(dir + "/top.yaml") << "extends: [a.yaml, b.yaml]\n";
    CHECK_THAT(problems_loading(dir + "/top.yaml").at(0),
               Catch::Contains("top.yaml:1:10: extends: expected the path of one experiment file"));
  }
}

TEST_CASE("${VAR} and ${VAR:-default} take environment variables, an unset one is an error at its line",
          "[config][env]") {
  const std::string dir = testing::fresh_dir("config-env");
  std::ofstream(dir + "/base.yaml") << kBase;
  std::ofstream(dir + "/env.yaml") << "extends: base.yaml\nlog:\n  dir: ${TRAINER_TEST_RUNS}/x\n"
                                      "  run_name: job-${TRAINER_TEST_JOB:-local}\ntrain:\n  epochs: ${TRAINER_TEST_EPOCHS}\n"
                                      "experiment: {name: \"cost$${HOME}\"}\n";
  setenv("TRAINER_TEST_RUNS", "/scratch/me", 1);
  unsetenv("TRAINER_TEST_JOB");
  setenv("TRAINER_TEST_EPOCHS", "4", 1);
  const ExperimentConfig config = load_experiment(dir + "/env.yaml");
  CHECK(config.log.dir == "/scratch/me/x");
  CHECK(config.log.run_name == "job-local");
  CHECK(config.train.epochs == 4);  // a number once expanded
  CHECK(config.experiment.name == "cost${HOME}");
  setenv("TRAINER_TEST_JOB", "1234", 1);
  CHECK(load_experiment(dir + "/env.yaml").log.run_name == "job-1234");

  unsetenv("TRAINER_TEST_EPOCHS");
  const auto problems = problems_loading(dir + "/env.yaml");
  REQUIRE(problems.size() == 1);  // not reported again as a value of the wrong type
  CHECK(problems[0] == dir + "/env.yaml:6:11: train.epochs: ${TRAINER_TEST_EPOCHS} is not set in the environment "
                             "(give a default: ${TRAINER_TEST_EPOCHS:-VALUE})");
  setenv("TRAINER_TEST_EPOCHS", "many", 1);
  CHECK_THAT(problems_loading(dir + "/env.yaml").at(0),
             Catch::Contains("env.yaml:6:11: train.epochs: expected an integer, got 'many'"));
  std::ofstream(dir + "/bad.yaml") << "extends: base.yaml\nlog: {run_name: \"${1X}\"}\n";
  CHECK_THAT(problems_loading(dir + "/bad.yaml").at(0), Catch::Contains("log.run_name: '${1X}' is not a variable name"));
  unsetenv("TRAINER_TEST_RUNS");
  unsetenv("TRAINER_TEST_JOB");
  unsetenv("TRAINER_TEST_EPOCHS");
}

TEST_CASE("config --explain says which file, --set or default each value came from", "[config][extends]") {
  const std::string dir = chain_dir("config-explain");
  const auto rows = explain_experiment(dir + "/top.yaml", {"optimizer.name=sgd"});
  const auto origin = [&](const std::string& key) {
    for (const auto& row : rows)
      if (row.key == key) return row.value + " from " + row.origin;
    return std::string("missing");
  };
  CHECK(origin("experiment.name") == "lr from " + dir + "/mid/lr.yaml:2:20");
  CHECK(origin("experiment.seed") == "7 from " + dir + "/base.yaml:1:32");
  CHECK(origin("train.batch_size") == "8 from " + dir + "/top.yaml:3:21");
  CHECK(origin("optimizer.name") == "sgd from --set optimizer.name=sgd");
  CHECK(origin("train.keep_checkpoints") == "3 from default");
  CHECK(origin("model.layers") == "2 layers from " + dir + "/base.yaml:7:5");
}
