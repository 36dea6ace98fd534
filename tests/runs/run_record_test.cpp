// run.json's pieces: statuses, best and last, metrics.jsonl read back, and
// the supervisor's settling of a record rank 0 could not finish.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "runs/run_record.h"

using namespace trainer;
using namespace trainer::testing;
using nlohmann::json;

TEST_CASE("a run's status follows its exit code", "[train][runjson]") {
  CHECK(run_status_for_exit_code(0) == "done");
  CHECK(run_status_for_exit_code(7) == "diverged");
  CHECK(run_status_for_exit_code(9) == "interrupted");
  for (int code : {1, 2, 3, 4, 5, 6, 8, 130}) CHECK(run_status_for_exit_code(code) == "failed");
}

TEST_CASE("best follows the metric's direction, and a NaN is the last value but never the best", "[train][runjson]") {
  MetricHistory loss;
  for (auto [epoch, value] : std::vector<std::pair<int, double>>{{1, 0.9}, {2, 0.4}, {3, 0.6}}) loss.add(epoch, value);
  CHECK(*loss.best == 0.4);
  CHECK(loss.best_epoch == 2);
  CHECK(*loss.last == 0.6);
  CHECK(loss.last_epoch == 3);
  MetricHistory accuracy;
  accuracy.higher_is_better = true;
  for (auto [epoch, value] : std::vector<std::pair<int, double>>{{1, 0.5}, {2, 0.8}, {3, 0.7}}) accuracy.add(epoch, value);
  CHECK(*accuracy.best == 0.8);
  CHECK(accuracy.best_epoch == 2);
  accuracy.add(4, std::nan(""));
  CHECK_FALSE(accuracy.last.has_value());
  CHECK(accuracy.last_epoch == 4);
  CHECK(*accuracy.best == 0.8);
}

TEST_CASE("a resumed run's record reads metrics.jsonl, skipping lines that are not records", "[train][runjson]") {
  const std::string dir = fresh_dir("run-record-resume");
  ExperimentConfig config;
  config.experiment.name = "r";
  config.metrics = {"accuracy"};
  config.train.epochs = 5;
  RunRecord record(RunDir{dir}, config, "0.1.0", 1);
  record.set_metrics_jsonl("{\"epoch\":1,\"loss\":0.9,\"accuracy\":0.5,\"val_loss\":1.0}\n"
                           "not json\n{\"no_epoch\":1}\n"
                           "{\"epoch\":2,\"loss\":0.7,\"accuracy\":null,\"val_loss\":0.8}\n");
  json back = json::parse(record.to_json());
  CHECK(back["epochs_done"] == 2);
  CHECK(back["metrics"]["loss"]["best"] == 0.7);
  CHECK(back["metrics"]["accuracy"]["last"].is_null());  // null in metrics.jsonl: NaN
  CHECK(back["metrics"]["accuracy"]["best"] == 0.5);
  CHECK_FALSE(back["metrics"].contains("val_accuracy"));  // never measured
  // Read again after metrics.jsonl was cut back to the checkpoint: replaced, not added.
  record.set_metrics_jsonl("{\"epoch\":1,\"loss\":0.9,\"accuracy\":0.5}\n");
  back = json::parse(record.to_json());
  CHECK(back["epochs_done"] == 1);
  CHECK(back["metrics"]["loss"]["last"] == 0.9);
  CHECK_FALSE(back["metrics"].contains("val_loss"));
  CHECK(back["status"] == "running");
  record.finish(4, "cannot write x");
  record.write();
  back = json::parse(read_text(dir + "/run.json"));
  CHECK(back["status"] == "failed");
  CHECK(back["exit_code"] == 4);
  CHECK(back["error"] == "cannot write x");
}

TEST_CASE("run.json says the type the forward pass ran in, once it is known", "[train][runjson]") {
  ExperimentConfig config;
  config.experiment.name = "p";
  RunRecord record(RunDir{fresh_dir("run-record-precision")}, config, "0.1.0", 1);
  CHECK(json::parse(record.to_json())["precision"].is_null());
  record.set_precision("bf16");
  CHECK(json::parse(record.to_json())["precision"] == "bf16");
}

TEST_CASE("the supervisor settles run.json with the run's exit code", "[train][runjson]") {
  const std::string dir = fresh_dir("run-record-settle");
  ExperimentConfig config;
  RunRecord record(RunDir{dir}, config, "0.1.0", 2);
  record.write();
  SECTION("rank 0 killed: still running, now failed with the code and a pointer to the logs") {
    CHECK(settle_run_json(dir, 8).empty());
    const json back = json::parse(read_text(dir + "/run.json"));
    CHECK(back["status"] == "failed");
    CHECK(back["exit_code"] == 8);
    CHECK(back["ended_at"].is_string());
    CHECK_THAT(back["error"].get<std::string>(), Catch::Contains("worklog.N"));
    CHECK(back["world_size"] == 2);  // the rest kept
  }
  SECTION("rank 0 recorded the same code: the file is left as it is") {
    record.finish(9, "interrupted in epoch 1");
    record.write();
    const std::string before = read_text(dir + "/run.json");
    CHECK(settle_run_json(dir, 9).empty());
    CHECK(read_text(dir + "/run.json") == before);
  }
  SECTION("another code wins, rank 0's message stays") {
    record.finish(8, "rank 1 failed: data error");
    record.write();
    CHECK(settle_run_json(dir, 3).empty());
    const json back = json::parse(read_text(dir + "/run.json"));
    CHECK(back["status"] == "failed");
    CHECK(back["exit_code"] == 3);
    CHECK(back["error"] == "rank 1 failed: data error");
  }
  SECTION("no run.json: nothing to do; a damaged one: said, and left alone") {
    CHECK(settle_run_json(dir + "/nowhere", 0).empty());
    std::ofstream(dir + "/run.json") << "{\"status\": ";
    CHECK_THAT(settle_run_json(dir, 0), Catch::Contains("is not a JSON object"));
    CHECK(read_text(dir + "/run.json") == "{\"status\": ");
  }
}
