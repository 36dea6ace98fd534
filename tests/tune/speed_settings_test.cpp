// `trainer tune FILE`: the settings it tries on each kind of device, the
// file it writes (torch-free), and the command end to end: the file it
// writes is an experiment trainer reads, with the values it kept.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "experiment_files.h"
#include "tune/speed_settings.h"

using namespace trainer;
using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> keys_of(const std::vector<SpeedKnob>& knobs) {
  std::vector<std::string> keys;
  for (const auto& knob : knobs) keys.push_back(knob.key);
  return keys;
}

}  // namespace

TEST_CASE("trainer tune tries threads on a CPU, cuDNN's switches on a GPU, the experiment's own value first",
          "[tune]") {
  SpeedPlanInput cpu;
  cpu.cores = 6;
  cpu.threads = "0";
  cpu.precision = "fp32";
  cpu.workers = "2";
  cpu.batch_size = 64;
  cpu.train_size = 100;
  const auto knobs = plan_speed_knobs(cpu);
  CHECK(keys_of(knobs) == std::vector<std::string>{"cpu_threads", "precision", "data.workers", "train.batch_size"});
  CHECK(knobs[0].values == std::vector<std::string>{"0", "1", "2", "4", "6"});
  CHECK(knobs[1].values == std::vector<std::string>{"fp32", "bf16"});
  CHECK(knobs[2].values == std::vector<std::string>{"2", "1", "4"});
  // Twice 64 is past the 100 samples: one batch of them all, not tried.
  CHECK(knobs[3].values == std::vector<std::string>{"64", "32"});
  CHECK(knobs[3].changes_training);
  CHECK_FALSE(knobs[0].changes_training);

  SpeedPlanInput gpu = cpu;
  gpu.gpu = true;
  gpu.precision = "bf16";
  gpu.batch_size = 0;  // auto: already the largest that fits
  const auto gpu_knobs = plan_speed_knobs(gpu);
  CHECK(keys_of(gpu_knobs) ==
        std::vector<std::string>{"precision", "gpu.channels_last", "gpu.cudnn_benchmark", "data.workers"});
  CHECK(gpu_knobs[0].values == std::vector<std::string>{"bf16", "fp32", "fp16"});
  CHECK(gpu_knobs[1].values == std::vector<std::string>{"false", "true"});
  // With trainer's CUDA kernels built, fused against unfused too.
  gpu.has_fused_kernels = true;
  const auto fused_knobs = plan_speed_knobs(gpu);
  CHECK(keys_of(fused_knobs) == std::vector<std::string>{"precision", "gpu.channels_last", "gpu.cudnn_benchmark",
                                                         "gpu.fused_kernels", "data.workers"});
  CHECK(fused_knobs[3].values == std::vector<std::string>{"false", "true"});
}

TEST_CASE("the tuned file extends the experiment with every kept value, nested, the table as comments", "[tune]") {
  SpeedTuneResult result;
  result.experiment_file = "configs/x.yaml";
  result.device = "cpu";
  result.steps = 30;
  result.warmup = 5;
  result.trials = {{"cpu_threads", "0", 100.0, "", false},
                   {"cpu_threads", "1", 150.0, "", true},
                   {"train.batch_size", "64", 150.0, "", false},
                   {"train.batch_size", "128", std::nullopt, "does not fit memory_limit", false},
                   {"train.batch_size", "32", 200.0, "", true}};
  result.chosen = {{"cpu_threads", "1"}, {"train.batch_size", "32"}};
  result.changes_training = {"train.batch_size"};
  result.start_speed = 100;
  result.tuned_speed = 210;
  const std::string yaml = format_tuned_yaml(result, "../configs/x.yaml");
  CHECK_THAT(yaml, Catch::EndsWith("extends: ../configs/x.yaml\ncpu_threads: 1\ntrain:\n  batch_size: 32\n"));
  CHECK_THAT(yaml, Catch::Contains("# Tuned 210 samples/s against the experiment's 100 (2.10x).") &&
                       Catch::Contains("#   train.batch_size  128    -          does not fit memory_limit") &&
                       Catch::Contains("# train.batch_size changes what the run computes"));
  CHECK(settings_that_change({"precision", "train.batch_size"}) == "precision and train.batch_size change");
  const std::string table = format_speed_table(result);
  CHECK_THAT(table, Catch::Contains("cpu_threads       1      150        kept") &&
                        Catch::Contains("tuned                    210        2.10x"));
  const auto json = nlohmann::json::parse(format_speed_json(result));
  CHECK(json["chosen"]["train.batch_size"] == "32");
  CHECK(json["trials"][3]["samples_per_second"].is_null());
  CHECK(json["trials"][3]["error"] == "does not fit memory_limit");
}

TEST_CASE("trainer tune FILE measures the speed settings and writes a file trainer runs", "[tune][e2e]") {
  const std::string dir = fresh_dir("tune-speed");
  MlpExperiment spec = small_mlp("tuned", "");
  spec.extra = "train: {batch_size: 16}\n";
  const std::string experiment = write_mlp_experiment(dir, spec);
  const auto tuned = run_trainer({"tune", experiment, "--steps", "3", "--warmup", "1", "--json"}, dir);
  INFO(tuned.err);
  REQUIRE(tuned.exit_code == 0);
  const auto result = nlohmann::json::parse(tuned.out);
  CHECK(result["start_samples_per_second"].get<double>() > 0);
  CHECK(result["tuned_samples_per_second"].get<double>() > 0);
  // Every setting measured (the experiment's own value first), one kept each.
  std::map<std::string, int> kept, tried;
  for (const auto& trial : result["trials"]) {
    tried[trial["setting"]] += 1;
    kept[trial["setting"]] += trial["kept"].get<bool>() ? 1 : 0;
    CHECK(trial["samples_per_second"].get<double>() > 0);
  }
  CHECK(result["trials"][0]["setting"] == "cpu_threads");
  CHECK(result["trials"][0]["value"] == "1");  // the file's cpu_threads
  for (const std::string key : {"cpu_threads", "precision", "data.workers", "train.batch_size"}) {
    INFO(key);
    CHECK(tried[key] >= 2);
    CHECK(kept[key] == 1);
  }
  // The file beside the experiment is an experiment: it extends it and sets the kept values.
  const std::string file = dir + "/tuned.tuned.yaml";
  REQUIRE(fs::exists(file));
  CHECK_THAT(read_text(file), Catch::Contains("extends: tuned.yaml\n"));
  const auto resolved = run_trainer({"config", file}, dir);
  INFO(resolved.err);
  REQUIRE(resolved.exit_code == 0);
  const std::string batch = result["chosen"]["train.batch_size"];
  const std::string threads = result["chosen"]["cpu_threads"];
  CHECK_THAT(resolved.out, Catch::Contains("  batch_size: " + batch + "\n") &&
                               Catch::Contains("\ncpu_threads: " + threads + "\n") &&
                               Catch::Contains("name: tuned\n"));
  CHECK_FALSE(fs::exists(dir + "/runs"));

  SECTION("-o writes the file elsewhere, extends: relative to it") {
    fs::create_directories(dir + "/elsewhere");
    const auto moved =
        run_trainer({"tune", experiment, "--steps", "2", "--warmup", "0", "-o", dir + "/elsewhere/t.yaml"}, dir);
    INFO(moved.err);
    REQUIRE(moved.exit_code == 0);
    CHECK_THAT(moved.out, Catch::Contains("setting") && Catch::Contains("kept") && Catch::Contains("tuned"));
    CHECK_THAT(read_text(dir + "/elsewhere/t.yaml"), Catch::Contains("extends: ../tuned.yaml\n"));
    CHECK(run_trainer({"config", dir + "/elsewhere/t.yaml"}, dir).exit_code == 0);
  }
}
