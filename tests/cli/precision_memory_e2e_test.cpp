// End-to-end: mixed precision on the CPU and the memory budget, through the
// real binary.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "cli_runner.h"
#include "epoch_records.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

TEST_CASE("a bf16 run on CPU trains and says so", "[e2e][precision]") {
  const std::string dir = fresh_dir("e2e-bf16");
  const auto result = run_trainer({"run", write_dropout_experiment(dir), "--set", "precision=bf16"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto epochs = parse_records(result.out);
  REQUIRE(epochs.size() == 4);
  CHECK(epochs[3].loss < epochs[0].loss);
  CHECK_THAT(result.err, Catch::Contains("precision bf16 autocast, fp32 weights"));
  // Whether this machine's CPU computes bf16 itself, as `trainer devices` says.
  const std::string devices = run_trainer({"devices"}, dir).out;
  const bool emulated = devices.find("bf16: emulated") != std::string::npos;
  REQUIRE_THAT(devices, Catch::Contains("bf16: emulated") || Catch::Contains("bf16: native") ||
                           Catch::Contains("bf16: not known"));
  CHECK((result.err.find("precision: bf16 as asked, though this CPU has no AVX-512-BF16") != std::string::npos) ==
        emulated);
  SECTION("mixed_precision: bf16 where the CPU computes it; where LibTorch emulates it, fp32 and why") {
    const auto mixed = run_trainer({"run", write_dropout_experiment(dir), "--set", "mixed_precision=true", "--set",
                                    "log.run_name=mixed"},
                                   dir);
    INFO(mixed.err);
    REQUIRE(mixed.exit_code == 0);
    if (emulated) {
      CHECK_THAT(mixed.err, Catch::Contains("precision fp32") &&
                                Catch::Contains("mixed_precision: fp32 kept on the CPU instead of bf16"));
    } else {
      CHECK_THAT(mixed.err, Catch::Contains("precision bf16 autocast, fp32 weights"));
      CHECK_THAT(mixed.err, !Catch::Contains("fp32 kept"));
    }
  }
  SECTION("fp16 on a CPU: refused with a hint, or with loss scaling where the LibTorch has it") {
    const bool cpu_fp16 = run_trainer({"devices", "--json"}, dir).out.find("\"fp16\"") != std::string::npos;
    const auto fp16 = run_trainer({"run", write_dropout_experiment(dir), "--set", "precision=fp16", "--set",
                                   "log.run_name=fp16"},
                                  dir);
    INFO(fp16.err);
    if (!cpu_fp16) {
      CHECK(fp16.exit_code == 2);
      CHECK_THAT(fp16.err, Catch::Contains("on a CPU use bf16"));
    } else {
      REQUIRE(fp16.exit_code == 0);
      CHECK_THAT(fp16.err, Catch::Contains("fp16 autocast, fp32 weights, dynamic loss scaling from 65536"));
      const auto half = parse_records(fp16.out);
      REQUIRE(half.size() == 4);
      CHECK(half[3].loss < half[0].loss);
      CHECK_THAT(half[0].values, Catch::Contains(",Loss Scale:"));
    }
  }
}

namespace {

double field_of(const std::string& values, const std::string& name) {
  const auto at = values.find("," + name + ":");
  REQUIRE(at != std::string::npos);
  return std::stod(values.substr(at + name.size() + 2));
}

}  // namespace

// The scaler's real overflow path, on a CPU: a scale past fp32's range makes
// the scaled loss inf, as fp16 gradients overflow on a GPU.
TEST_CASE("dynamic loss scaling skips overflowing steps, logs them and resumes exactly", "[e2e][precision][scaler]") {
  const std::string dir = fresh_dir("e2e-loss-scale");
  const std::string experiment = write_dropout_experiment(dir);
  const std::vector<std::string> scaling{"--set", "loss_scale.mode=dynamic", "--set", "loss_scale.initial=1e39",
                                         "--set", "loss_scale.growth_interval=4"};
  auto args = std::vector<std::string>{"run", experiment};
  args.insert(args.end(), scaling.begin(), scaling.end());
  const auto full = run_trainer(args, dir);
  INFO(full.err);
  REQUIRE(full.exit_code == 0);
  CHECK_THAT(full.err, Catch::Contains("fp32, dynamic loss scaling from 1e+39"));
  const auto epochs = parse_records(full.out);
  REQUIRE(epochs.size() == 4);
  // 1e39 and 5e38 are inf in fp32: at least two skipped steps, then a scale
  // that fits, which doubles after 4 good steps and backs off again.
  CHECK(field_of(epochs[0].values, "Skipped Steps") >= 2);
  CHECK(field_of(epochs[0].values, "Loss Scale") <= 5e38);
  CHECK(field_of(epochs[3].values, "Skipped Steps") >= 1);
  CHECK(epochs[3].loss < epochs[0].loss);
  const std::string metrics = read_text(dir + "/runs/e2e/full/metrics.jsonl");
  CHECK_THAT(metrics, Catch::Contains("\"loss_scale\":") && Catch::Contains("\"skipped_steps\":"));

  SECTION("the scaler's state is in the checkpoint: a resumed run continues it") {
    auto part_args = args;
    part_args.insert(part_args.end(), {"--set", "train.epochs=2", "--set", "log.run_name=part"});
    REQUIRE(run_trainer(part_args, dir).exit_code == 0);
    auto rest_args = args;
    rest_args.insert(rest_args.end(), {"--resume", dir + "/runs/e2e/part"});
    const auto rest = run_trainer(rest_args, dir);
    INFO(rest.err);
    REQUIRE(rest.exit_code == 0);
    const auto resumed = parse_records(rest.out);
    REQUIRE(resumed.size() == 2);
    CHECK(resumed[0].values == epochs[2].values);
    CHECK(resumed[1].values == epochs[3].values);
  }
  SECTION("without loss scaling the record has no scaler fields") {
    const auto plain = run_trainer({"run", experiment, "--set", "train.epochs=1", "--set", "log.run_name=plain"}, dir);
    REQUIRE(plain.exit_code == 0);
    CHECK_THAT(plain.out, !Catch::Contains("Loss Scale"));
  }
}

namespace {

std::vector<std::string> list_checkpoint_names(const std::string& run_dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(run_dir + "/checkpoints")) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("a batch past memory_limit stops with exit code 6 and the checkpoint intact", "[e2e][memory]") {
  const std::string dir = fresh_dir("e2e-memory");
  MlpExperiment spec;
  spec.name = "wide";
  spec.run_name = "run";
  spec.samples = 2000;
  spec.features = 512;
  spec.extra = "optimizer: {name: adam, lr: 0.001}\ntrain: {epochs: 1, batch_size: 32}\nmemory_limit: 64MiB\n";
  const std::string experiment = write_mlp_experiment(dir, spec);
  const auto first = run_trainer({"run", experiment}, dir);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.err, Catch::Contains("memory budget: 64.0 MiB on the CPU") && Catch::Contains("peak memory"));
  const std::string checkpoint = dir + "/runs/wide/run/checkpoints/epoch-0001.pt";
  const std::string saved = read_text(checkpoint);
  REQUIRE_FALSE(saved.empty());

  // A larger batch changes what the run computes: --force.
  const auto big = run_trainer({"run", experiment, "--resume", dir + "/runs/wide/run", "--set", "train.epochs=2",
                                "--set", "train.batch_size=2000", "--force"},
                               dir);
  INFO(big.err);
  CHECK(big.exit_code == 6);
  CHECK_THAT(big.err, Catch::Contains("would exceed memory_limit 64.0 MiB") && Catch::Contains("peak") &&
                          Catch::Contains("lower train.batch_size (2000 now)"));
  CHECK(read_text(checkpoint) == saved);
  CHECK(list_checkpoint_names(dir + "/runs/wide/run") == std::vector<std::string>{"best.pt", "epoch-0001.pt"});
}
