// RUN_DIR/run.json, the record scripts read: one for each way a run ends.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;  // keeps the keys in the order written

namespace {

ordered_json read_run_json(const std::string& run_dir) {
  const std::string text = read_text(run_dir + "/run.json");
  INFO(run_dir + "/run.json: " + text);
  REQUIRE_FALSE(text.empty());
  return ordered_json::parse(text);
}

std::string absolute(const std::string& path) { return fs::absolute(path).lexically_normal().string(); }

// 16 features, 4 classes, accuracy and MSE besides the loss.
std::string run_json_experiment(const std::string& dir, const std::string& extra = "") {
  return write_mlp_experiment(
      dir, small_mlp("small", "run", "metrics: [accuracy, mse]\ntrain: {epochs: 3, batch_size: 20}\n" + extra));
}

}  // namespace

TEST_CASE("run.json of a finished run: status, times, best and last metrics, paths", "[e2e][runjson]") {
  const std::string dir = fresh_dir("runjson-done");
  const auto result = run_trainer({"run", run_json_experiment(dir)}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const std::string run = dir + "/runs/small/run";
  const ordered_json record = read_run_json(run);
  CHECK(record["format"] == 1);
  CHECK(record["status"] == "done");
  CHECK(record["exit_code"] == 0);
  CHECK(record["error"].is_null());
  CHECK(record["experiment"] == "small");
  CHECK(record["epochs"] == 3);
  CHECK(record["epochs_done"] == 3);
  CHECK(record["devices"] == ordered_json::array({"cpu"}));
  CHECK(record["world_size"] == 1);
  CHECK(record["precision"] == "fp32");
  CHECK(record["pid"].get<int>() > 0);
  CHECK(record["host"].get<std::string>().size() > 0);
  // RFC 3339 with the offset; a string comparison orders them.
  CHECK_THAT(record["started_at"].get<std::string>(),
             Catch::Matches(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d)"));
  CHECK(record["ended_at"].get<std::string>() >= record["started_at"].get<std::string>());
  CHECK(record["resumed_from"].is_null());

  // Best and last agree with metrics.jsonl, value for value.
  std::vector<ordered_json> epochs;
  std::istringstream lines(read_text(run + "/metrics.jsonl"));
  for (std::string line; std::getline(lines, line);) epochs.push_back(ordered_json::parse(line));
  REQUIRE(epochs.size() == 3);
  const ordered_json& metrics = record["metrics"];
  CHECK(record["monitor"] == "val_loss");  // train.monitor's default: what best.pt went by
  std::vector<std::string> keys;
  for (const auto& item : metrics.items()) keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{"loss", "accuracy", "mse", "val_loss", "val_accuracy", "val_mse"});
  for (const std::string& key : keys) {
    INFO(key);
    double best = epochs[0][key];
    int best_epoch = 1;
    const bool higher = key.find("accuracy") != std::string::npos;
    for (int i = 1; i < 3; ++i)
      if (higher ? epochs[i][key] > best : epochs[i][key] < best) best = epochs[i][key], best_epoch = i + 1;
    CHECK(metrics[key]["last"] == epochs[2][key]);
    CHECK(metrics[key]["last_epoch"] == 3);
    CHECK(metrics[key]["best"] == best);
    CHECK(metrics[key]["best_epoch"] == best_epoch);
    CHECK(metrics[key]["higher_is_better"] == higher);
  }

  const ordered_json& paths = record["paths"];
  CHECK(paths["run_dir"] == absolute(run));
  CHECK(paths["config"] == absolute(run + "/config.yaml"));
  CHECK(paths["log"] == absolute(run + "/train.log"));
  CHECK(paths["metrics"] == absolute(run + "/metrics.jsonl"));
  CHECK(paths["checkpoints"] == absolute(run + "/checkpoints"));
  CHECK(paths["last_checkpoint"] == absolute(run + "/checkpoints/epoch-0003.pt"));
  for (const char* key : {"config", "log", "metrics", "last_checkpoint"}) CHECK(fs::exists(paths[key].get<std::string>()));
  // latest leads to it.
  CHECK(read_run_json(dir + "/runs/small/latest")["pid"] == record["pid"]);
}

TEST_CASE("run.json while running, interrupted, then resumed to the end", "[e2e][runjson][signal]") {
  const std::string dir = fresh_dir("runjson-interrupted");
  MlpExperiment spec;
  spec.name = "long";
  spec.samples = 60000;
  spec.features = 64;
  spec.units = 256;
  spec.run_name = "run";
  // Only the signal ends this run, however slow or busy the machine; the
  // resume below sets the epochs it ends at.
  spec.extra = "train: {epochs: 100000, batch_size: 32}\n";
  const std::string experiment = write_mlp_experiment(dir, spec);
  const std::string run = dir + "/runs/long/run";
  const pid_t pid = spawn_trainer({"run", experiment}, dir);
  for (int i = 0; i < 1200 && !fs::exists(run + "/run.json"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  const ordered_json running = read_run_json(run);
  CHECK(running["status"] == "running");
  CHECK(running["exit_code"].is_null());
  CHECK(running["ended_at"].is_null());
  CHECK(running["pid"] == pid);
  CHECK(running["epochs_done"] == 0);
  CHECK(running["paths"]["last_checkpoint"].is_null());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGTERM);
  const auto cut = wait_trainer_within(pid, dir, 120);
  INFO(cut.err);
  REQUIRE_FALSE(cut.killed_at_deadline);
  REQUIRE(cut.exit_code == 9);
  const ordered_json interrupted = read_run_json(run);
  CHECK(interrupted["status"] == "interrupted");
  CHECK(interrupted["exit_code"] == 9);
  CHECK_THAT(interrupted["error"].get<std::string>(), Catch::Contains("interrupted in epoch"));
  CHECK(interrupted["ended_at"].is_string());
  REQUIRE(interrupted["paths"]["last_checkpoint"].is_string());
  CHECK(fs::exists(interrupted["paths"]["last_checkpoint"].get<std::string>()));

  // Two epochs past those the interrupted run finished.
  const int end = interrupted["epochs_done"].get<int>() + 2;
  const auto rest = run_trainer({"run", "--resume", run, "--set", "train.epochs=" + std::to_string(end)}, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  const ordered_json done = read_run_json(run);
  CHECK(done["status"] == "done");
  CHECK(done["exit_code"] == 0);
  CHECK(done["error"].is_null());
  CHECK(done["epochs_done"] == end);
  CHECK(done["resumed_from"] == interrupted["paths"]["last_checkpoint"]);
  CHECK(done["pid"] != interrupted["pid"]);
  CHECK(done["metrics"]["loss"]["last_epoch"] == end);
}

TEST_CASE("run.json of a diverged and of a failed run", "[e2e][runjson][errors]") {
  const std::string dir = fresh_dir("runjson-failures");
  SECTION("diverged: exit 7, no epoch recorded") {
    const auto result = run_trainer({"run", run_json_experiment(dir, "optimizer: {name: sgd, lr: 1.0e+30}\n"), "--set",
                                     "train.check_finite_every=2"},
                                    dir);
    CHECK(result.exit_code == 7);
    const ordered_json record = read_run_json(dir + "/runs/small/run");
    CHECK(record["status"] == "diverged");
    CHECK(record["exit_code"] == 7);
    CHECK_THAT(record["error"].get<std::string>(), Catch::Contains("NaN or infinite"));
    CHECK(record["epochs_done"] == 0);
    CHECK(record["metrics"] == ordered_json::object());
    CHECK(record["paths"]["last_checkpoint"].is_null());
  }
  SECTION("diverged after an epoch was saved: the hint names that checkpoint") {
    const auto first = run_trainer({"run", run_json_experiment(dir), "--set", "train.epochs=1"}, dir);
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    const std::string run = dir + "/runs/small/run";
    const auto result = run_trainer({"run", "--resume", run, "--force", "--set", "train.epochs=2", "--set",
                                     "optimizer.lr=1.0e+30", "--set", "train.check_finite_every=2"},
                                    dir);
    CHECK(result.exit_code == 7);
    CHECK_THAT(result.err, Catch::Contains("the last good checkpoint is " + run + "/checkpoints/epoch-0001.pt"));
  }
  SECTION("failed: out of memory is exit 6, the message kept") {
    const auto result = run_trainer({"run", run_json_experiment(dir, "memory_limit: 1MiB\n"), "--set",
                                     "train.batch_size=400", "--set", "model.layers.0.units=4096"},
                                    dir);
    CHECK(result.exit_code == 6);
    const ordered_json record = read_run_json(dir + "/runs/small/run");
    CHECK(record["status"] == "failed");
    CHECK(record["exit_code"] == 6);
    CHECK_THAT(record["error"].get<std::string>(), Catch::Contains("memory_limit"));
  }
}

TEST_CASE("run.json keeps a hostile experiment name, as Python reads it", "[e2e][runjson][json]") {
  if (!system_python_has("json")) {
    WARN("SKIPPED: /usr/bin/python3 cannot import json");
    return;
  }
  const std::string dir = fresh_dir("runjson-hostile");
  // YAML's double-quoted escapes: quotes, a backslash, é and 名 (control
  // characters are refused: names are one line of printable text).
  const auto result = run_trainer({"run", run_json_experiment(dir), "--set", "train.epochs=1", "--set",
                                   R"(experiment.name="my \"quoted\" \\ exp caf\u00e9 \u540d")"},
                                  dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const std::string name = "my \"quoted\" \\ exp caf\u00e9 \u540d";
  const std::string text = read_text(dir + "/runs/" + name + "/run/run.json");
  CHECK(python_reads_json(dir, text, "d['experiment']") == name);
  CHECK(python_reads_json(dir, text, "d['paths']['run_dir']") == absolute(dir + "/runs/" + name + "/run"));
  CHECK(python_reads_json(dir, text, "d['status']") == "done");
  // A tab or \x01 would reach the runs table: refused, and the refusal quotes them escaped.
  const auto control = run_trainer({"run", run_json_experiment(dir), "--set", R"(experiment.name="a\tb\x01")"}, dir);
  CHECK(control.exit_code == 2);
  CHECK_THAT(control.err, Catch::Contains("got 'a\\tb\\x01'"));
}
