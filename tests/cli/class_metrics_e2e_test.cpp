// Per-class metrics end to end: precision, recall and f1 among the metrics
// put each validation's confusion matrix and class scores in metrics.jsonl,
// agreeing with its accuracy and macro F1; trainer eval --json gives the
// same counts for the checkpoint; two ranks count every sample once; the
// report draws them.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "experiment_files.h"

using namespace trainer::testing;
using Json = nlohmann::json;

namespace {

std::vector<Json> epochs_of(const std::string& run) {
  std::vector<Json> epochs;
  std::istringstream lines(read_text(run + "/metrics.jsonl"));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) epochs.push_back(Json::parse(line));
  return epochs;
}

// The matrix's total and its diagonal.
std::pair<int64_t, int64_t> total_and_right(const Json& matrix) {
  int64_t total = 0, right = 0;
  for (size_t truth = 0; truth < matrix.size(); ++truth)
    for (size_t guess = 0; guess < matrix[truth].size(); ++guess) {
      total += matrix[truth][guess].get<int64_t>();
      if (truth == guess) right += matrix[truth][guess].get<int64_t>();
    }
  return {total, right};
}

void check_epoch(const Json& epoch, int64_t valid_samples) {
  INFO(epoch.dump());
  REQUIRE(epoch.contains("val_confusion_matrix"));
  const Json& matrix = epoch["val_confusion_matrix"];
  REQUIRE(matrix.size() == 4);
  const auto [total, right] = total_and_right(matrix);
  CHECK(total == valid_samples);
  CHECK(epoch["val_accuracy"].get<double>() == Approx(static_cast<double>(right) / total).epsilon(1e-6));
  // Macro F1: the mean over the classes that were true or predicted.
  const Json& scores = epoch["val_per_class"];
  double f1 = 0;
  int seen = 0;
  for (size_t c = 0; c < 4; ++c) {
    int64_t predicted = 0;
    for (size_t truth = 0; truth < 4; ++truth) predicted += matrix[truth][c].get<int64_t>();
    if (scores["support"][c].get<int64_t>() == 0 && predicted == 0) continue;
    f1 += scores["f1"][c].get<double>();
    ++seen;
  }
  CHECK(epoch["val_f1"].get<double>() == Approx(f1 / seen).epsilon(1e-6));
  CHECK(epoch.contains("val_precision"));
  CHECK(epoch.contains("recall"));  // training epochs report the averages too
  CHECK_FALSE(epoch.contains("confusion_matrix"));  // the training epoch's counts are not kept
}

}  // namespace

TEST_CASE("precision, recall and f1 record each validation class by class", "[e2e][metrics][classes]") {
  const std::string dir = fresh_dir("e2e-classes");
  const std::string extra = "metrics: [accuracy, f1, precision, recall]\ntrain: {epochs: 2}\n";
  const std::string experiment = write_mlp_experiment(dir, small_mlp("classes", "one", extra));
  const auto result = run_trainer({"run", experiment}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains(",Valid F1:") && Catch::Contains(",Valid Precision:"));
  const std::string run = dir + "/runs/classes/one";
  const auto epochs = epochs_of(run);
  REQUIRE(epochs.size() == 2);
  for (const Json& epoch : epochs) check_epoch(epoch, 50);

  const auto eval = run_trainer({"eval", "--checkpoint", run + "/checkpoints/epoch-0002.pt", "--json"}, dir);
  REQUIRE(eval.exit_code == 0);
  const Json evaluated = Json::parse(eval.out);
  CHECK(evaluated["val_confusion_matrix"] == epochs[1]["val_confusion_matrix"]);
  CHECK(evaluated["val_per_class"] == epochs[1]["val_per_class"]);

  const auto report = run_trainer({"report", run, "-o", dir + "/report.html"}, dir);
  REQUIRE(report.exit_code == 0);
  const std::string html = read_text(dir + "/report.html");
  CHECK_THAT(html, Catch::Contains("<h2>Classes</h2>") && Catch::Contains("validation of epoch 2"));

  SECTION("two ranks count each validation sample once") {
    const auto two = run_trainer({"run", experiment, "--set", "devices=cpu,cpu", "--set", "log.run_name=two"}, dir);
    INFO(two.err);
    REQUIRE(two.exit_code == 0);
    for (const Json& epoch : epochs_of(dir + "/runs/classes/two")) check_epoch(epoch, 50);
  }
  SECTION("without them, no counts") {
    const auto plain = run_trainer({"run", experiment, "--set", "metrics=[accuracy]", "--set", "log.run_name=plain"}, dir);
    REQUIRE(plain.exit_code == 0);
    CHECK_FALSE(epochs_of(dir + "/runs/classes/plain")[0].contains("val_confusion_matrix"));
  }
}
