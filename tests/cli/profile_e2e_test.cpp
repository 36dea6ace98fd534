// train.profile: a few steps recorded with LibTorch's profiler into a Chrome
// trace whose events name trainer's phases as ranges inside each step.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;
using json = nlohmann::json;

TEST_CASE("train.profile writes a Chrome trace of the chosen steps with trainer's phases as ranges",
          "[e2e][profile]") {
  const std::string dir = fresh_dir("profile-run");
  const MlpExperiment spec = small_mlp("prof", "run", "train: {epochs: 2, batch_size: 20, profile: {epoch: 2, steps: 4}}\n");
  const auto result = run_trainer({"run", write_mlp_experiment(dir, spec)}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const std::string path = dir + "/runs/prof/run/profile-2.json";
  CHECK_THAT(result.err, Catch::Contains("profile of epoch 2, steps 1 to 4: " + path));
  CHECK_FALSE(fs::exists(dir + "/runs/prof/run/profile-1.json"));
  const std::string text = read_text(path);
  // The trace format: a JSON array of complete events ("ph": "X") with a
  // name, a start and a duration in microseconds.
  const json trace = json::parse(text);
  REQUIRE(trace.is_array());
  std::map<std::string, std::vector<std::pair<double, double>>> ranges;
  bool has_operators = false;
  for (const json& event : trace) {
    REQUIRE(event["ph"] == "X");
    REQUIRE(event["ts"].is_number());
    REQUIRE(event["dur"].is_number());
    const std::string name = event["name"];
    has_operators = has_operators || name.rfind("aten::", 0) == 0;
    if (name.rfind("trainer/", 0) == 0)
      ranges[name].emplace_back(event["ts"].get<double>(), event["ts"].get<double>() + event["dur"].get<double>());
  }
  CHECK(has_operators);
  for (const std::string phase : {"trainer/step", "trainer/data_wait", "trainer/to_device", "trainer/forward",
                                  "trainer/backward", "trainer/optimizer"}) {
    INFO(phase);
    CHECK(ranges[phase].size() == 4);
  }
  CHECK(ranges["trainer/all_reduce"].empty());  // one process
  // Every forward pass lies inside one of the steps.
  for (const auto& [begin, end] : ranges["trainer/forward"]) {
    bool inside = false;
    for (const auto& [step_begin, step_end] : ranges["trainer/step"])
      inside = inside || (step_begin <= begin && end <= step_end);
    CHECK(inside);
  }
  // A strict parser that is not the writer's reads it too.
  if (system_python_has("json")) CHECK(python_reads_json(dir, text, "len(d)") == std::to_string(trace.size()));
}

TEST_CASE("a profile of an epoch past the last is a config error", "[e2e][profile][errors]") {
  const std::string dir = fresh_dir("profile-past");
  const MlpExperiment spec = small_mlp("prof", "", "train: {epochs: 2, profile: {epoch: 3}}\n");
  const auto result = run_trainer({"run", write_mlp_experiment(dir, spec)}, dir);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("prof.yaml:") &&
                             Catch::Contains("train.profile.epoch: 3 is past the last epoch (train.epochs: 2)"));
}
