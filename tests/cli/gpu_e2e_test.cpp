// GPU training end to end: the real binary on the visible GPUs (each test
// skips without them: gpu_runs.h).
#include <catch2/catch.hpp>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "epoch_records.h"
#include "experiment_files.h"
#include "gpu_runs.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

std::string gpu_experiment(const std::string& dir, const std::string& devices, const std::string& extra = "",
                           int64_t units = 4096) {
  MlpExperiment spec;
  spec.samples = 2000;
  spec.features = 512;
  spec.units = units;
  spec.run_name = "run";
  spec.extra = "devices: " + devices + "\noptimizer: {name: adam, lr: 0.001}\ntrain: {epochs: 3, batch_size: 32}\n" +
               extra;
  return write_mlp_experiment(dir, spec);
}

// Two runs' three epoch records, their losses the same to `epsilon`.
void require_same_three_losses(const std::string& out, const std::string& other_out, double epsilon) {
  const auto a = parse_records(out), b = parse_records(other_out);
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i].loss == Approx(b[i].loss).epsilon(epsilon));
}

}  // namespace

TEST_CASE("GPU: gpu:0 trains, states the device mapping, and resumes on the CPU", "[gpu][e2e]") {
  const std::string dir = fresh_dir("gpu-train");
  if (skip_without_gpus(dir, 1)) return;
  const std::string experiment = gpu_experiment(dir, "gpu:0");
  const auto result = run_trainer({"run", experiment}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto epochs = parse_records(result.out);
  REQUIRE(epochs.size() == 3);
  CHECK(epochs[2].loss < epochs[0].loss);
  CHECK_THAT(result.err, Catch::Contains("device gpu:0 = physical GPU") && Catch::Contains("compute "));
  // A GPU checkpoint evaluates on the CPU to the same metrics (within fp32
  // reduction-order noise: compared as text would be too strict).
  const auto eval = run_trainer({"eval", experiment, "--set", "devices=cpu", "--checkpoint",
                                 dir + "/runs/mlp/run/checkpoints/epoch-0003.pt"},
                                dir);
  INFO(eval.err);
  CHECK(eval.exit_code == 0);
  CHECK_THAT(eval.out, Catch::Contains("Valid Loss:"));
}

TEST_CASE("GPU: data held on the GPU trains as data copied from host memory, and resumes exactly",
          "[gpu][e2e][data]") {
  const std::string dir = fresh_dir("gpu-on-device");
  if (skip_without_gpus(dir, 1)) return;
  const std::string experiment = gpu_experiment(dir, "gpu:0", "", 256);
  const auto held = run_trainer({"run", experiment, "--set", "data.on_device=true", "--set", "log.run_name=held"}, dir);
  INFO(held.err);
  REQUIRE(held.exit_code == 0);
  CHECK_THAT(held.err, Catch::Contains("held on gpu:0"));
  const auto copied = run_trainer({"run", experiment, "--set", "data.on_device=false", "--set", "log.run_name=copied"},
                                  dir);
  INFO(copied.err);
  REQUIRE(copied.exit_code == 0);
  CHECK_THAT(copied.err, Catch::Contains("kept in host memory"));
  // The same batches in the same order: the same figures, to float noise.
  require_same_three_losses(held.out, copied.out, 1e-4);
  // Two epochs, then one more on resume: the third record as the full run's.
  const auto part = run_trainer({"run", experiment, "--set", "data.on_device=true", "--set", "train.epochs=2",
                                 "--set", "log.run_name=part"},
                                dir);
  REQUIRE(part.exit_code == 0);
  const auto resumed = run_trainer({"run", "--resume", dir + "/runs/mlp/part", "--set", "train.epochs=3"}, dir);
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  const auto rest = parse_records(resumed.out);
  REQUIRE(rest.size() == 1);
  CHECK(figures_of(rest[0].values) == figures_of(parse_records(held.out)[2].values));
}

TEST_CASE("GPU: a run's step split times one step in 20, NVML samples the card, the profile is written",
          "[gpu][e2e][monitoring]") {
  const std::string dir = fresh_dir("gpu-monitoring");
  if (skip_without_gpus(dir, 1)) return;
  // 2000 samples in batches of 32: 63 steps an epoch, 4 of them timed.
  const auto result = run_trainer({"run", gpu_experiment(dir, "gpu:0", "", 1024), "--set", "train.profile.epoch=2",
                                   "--set", "train.profile.steps=5"},
                                  dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const std::string run = dir + "/runs/mlp/run";
  CHECK(fs::exists(run + "/profile-2.json"));
  // Under train.cuda_graph: auto the steps replay a graph unless eager steps
  // measured faster: one range for the replay, or the eager phases.
  const std::string trace = read_text(run + "/profile-2.json");
  CHECK_THAT(trace, Catch::Contains("\"trainer/step\""));
  CHECK_THAT(trace, Catch::Contains("\"trainer/graph_replay\"") || Catch::Contains("\"trainer/forward\""));
  const bool nvml = result.err.find("GPU utilisation not sampled") == std::string::npos;
  std::ifstream metrics(run + "/metrics.jsonl");
  for (std::string line; std::getline(metrics, line);) {
    const auto epoch = nlohmann::json::parse(line);
    INFO(line);
    CHECK(epoch["steps"] == 63);
    CHECK(epoch["timed_steps"] == 4);
    CHECK(epoch["forward_seconds"].get<double>() > 0);
    if (nvml) {
      CHECK(epoch["gpu_samples"].get<int64_t>() >= 1);
      CHECK(epoch["gpu_utilization"].get<double>() >= 0);
      CHECK(epoch["gpu_memory_used_bytes"].get<int64_t>() > 0);
    }
  }
  if (!nvml) WARN("NVML was not loadable here: " << result.err.substr(result.err.find("GPU utilisation not sampled")));
}

TEST_CASE("GPU: fp16 trains with loss scaling, bf16 trains", "[gpu][e2e][precision]") {
  const std::string dir = fresh_dir("gpu-precision");
  if (skip_without_gpus(dir, 1)) return;
  const std::string experiment = gpu_experiment(dir, "gpu:0");
  const auto fp16 = run_trainer({"run", experiment, "--set", "precision=fp16", "--set", "log.run_name=fp16"}, dir);
  INFO(fp16.err);
  REQUIRE(fp16.exit_code == 0);
  CHECK_THAT(fp16.err, Catch::Contains("fp16 autocast, fp32 weights, dynamic loss scaling from 65536"));
  const auto half = parse_records(fp16.out);
  REQUIRE(half.size() == 3);
  CHECK(half[2].loss < half[0].loss);
  CHECK_THAT(half[0].values, Catch::Contains(",Loss Scale:") && Catch::Contains(",Skipped Steps:"));
  const auto bf16 = run_trainer({"run", experiment, "--set", "precision=bf16", "--set", "log.run_name=bf16"}, dir);
  INFO(bf16.err);
  REQUIRE(bf16.exit_code == 0);
  const auto brain = parse_records(bf16.out);
  REQUIRE(brain.size() == 3);
  CHECK(brain[2].loss < brain[0].loss);
  // This MLP's step (2.1 M multiply-adds a sample, batch 32) is under the
  // line: an explicit type is kept with a note, mixed_precision keeps fp32.
  CHECK_THAT(bf16.err, Catch::Contains("precision: bf16 as asked, though this model's step is"));
  const auto left = run_trainer({"run", experiment, "--set", "mixed_precision=true", "--set", "log.run_name=mixed"}, dir);
  INFO(left.err);
  REQUIRE(left.exit_code == 0);
  CHECK_THAT(left.err, Catch::Contains("; precision fp32\n") &&
                           Catch::Contains("mixed_precision: fp32 kept on the GPU instead of fp16"));
  CHECK_THAT(parse_records(left.out).at(0).values, !Catch::Contains("Loss Scale:"));
}

TEST_CASE("GPU: memory_limit caps the caching allocator and past it is exit code 6", "[gpu][e2e][memory]") {
  const std::string dir = fresh_dir("gpu-memory");
  if (skip_without_gpus(dir, 1)) return;
  // 8.4M parameters: weights, gradients and Adam's two moments take 135 MB,
  // and Adam's step makes temporaries of parameter size: the run peaks near
  // 260 MB (measured on an H100), which a batch of 32 adds little to. The
  // activations of a batch of 2000 (2000 x 16384 floats, 131 MB each, three or
  // more alive at once) do not fit.
  const std::string experiment = gpu_experiment(dir, "gpu:0", "memory_limit: 384MiB\n", 16384);
  const auto fits = run_trainer({"run", experiment, "--set", "train.epochs=1"}, dir);
  INFO(fits.err);
  REQUIRE(fits.exit_code == 0);
  CHECK_THAT(fits.err, Catch::Contains("memory budget: 384.0 MiB of gpu:0's"));
  const std::string checkpoint = dir + "/runs/mlp/run/checkpoints/epoch-0001.pt";
  const std::string saved = read_text(checkpoint);
  const auto big = run_trainer({"run", experiment, "--resume", dir + "/runs/mlp/run", "--set", "train.epochs=2",
                                "--set", "train.batch_size=2000", "--force"},
                               dir);
  INFO(big.err);
  CHECK(big.exit_code == 6);
  CHECK_THAT(big.err, Catch::Contains("gpu:0: out of memory under memory_limit 384.0 MiB") &&
                          Catch::Contains("lower train.batch_size (2000 now)"));
  CHECK(read_text(checkpoint) == saved);
}

TEST_CASE("GPU: bench compares the CPU and gpu:0 on one product", "[gpu][e2e][bench]") {
  const std::string dir = fresh_dir("gpu-bench");
  if (skip_without_gpus(dir, 1)) return;
  const auto result = run_trainer({"bench", "--device", "cpu,gpu:0", "--shape", "1000x100x10000", "--repeat", "3"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("gpu:0") && Catch::Contains("speed-up"));
}

TEST_CASE("GPU: two ranks share gpu:0 through Gloo", "[gpu][e2e][dist]") {
  const std::string dir = fresh_dir("gpu-shared");
  if (skip_without_gpus(dir, 1)) return;
  const auto result = run_trainer({"run", gpu_experiment(dir, "gpu:0,0"), "--set", "train.epochs=1"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(parse_records(result.out).size() == 1);
  CHECK_THAT(read_text(dir + "/runs/mlp/run/worklog.0"), Catch::Contains("shared by several ranks"));
}

TEST_CASE("GPU: SIGTERM stops two ranks sharing gpu:0 after the same step (its votes read a step late), and they resume",
          "[gpu][e2e][dist][signal]") {
  const std::string dir = fresh_dir("gpu-shared-sigterm");
  if (skip_without_gpus(dir, 1)) return;
  MlpExperiment spec;
  spec.samples = 20000;  // 625 steps an epoch: the signal lands inside one
  spec.features = 512;
  spec.units = 1024;
  spec.run_name = "run";
  spec.extra = "devices: gpu:0,0\noptimizer: {name: adam, lr: 0.001}\ntrain: {epochs: 3, batch_size: 32}\n";
  const std::string experiment = write_mlp_experiment(dir, spec);
  const auto cut = signal_mid_run({"run", experiment}, dir, dir + "/runs/mlp/run", SIGTERM);
  INFO(cut.err);
  if (finished_before_signal(cut)) return;
  REQUIRE(cut.exit_code == 9);
  CHECK_THAT(cut.err, Catch::Contains("checkpoint saved to"));
  // Both ranks name the same epoch and step.
  std::smatch first, second;
  REQUIRE(std::regex_search(cut.err, first, std::regex("trainer: interrupted (in epoch [0-9]+ after step [0-9]+)")));
  REQUIRE(std::regex_search(cut.err, second,
                            std::regex("trainer \\[rank 1\\]: interrupted (in epoch [0-9]+ after step [0-9]+)")));
  CHECK(first[1].str() == second[1].str());
  const auto rest = run_trainer({"run", experiment, "--resume", dir + "/runs/mlp/run"}, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  CHECK(parse_records(cut.out).size() + parse_records(rest.out).size() == 3);
}

TEST_CASE("GPU: gpu:all trains data-parallel over NCCL", "[gpu][e2e][dist]") {
  const std::string dir = fresh_dir("gpu-nccl");
  if (skip_without_gpus(dir, 2)) return;
  const auto result = run_trainer({"run", gpu_experiment(dir, "gpu:all")}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto epochs = parse_records(result.out);
  REQUIRE(epochs.size() == 3);
  CHECK(epochs[2].loss < epochs[0].loss);
  CHECK_THAT(read_text(dir + "/runs/mlp/run/worklog.1"), Catch::Contains("gloo + nccl"));
}

TEST_CASE("GPU: instance norms run fused with their ReLU, dropout and padding, and train as the unfused layers",
          "[gpu][e2e][fused]") {
  const std::string dir = fresh_dir("gpu-fused");
  if (skip_without_gpus(dir, 1)) return;
  // Two chains: norm, ReLU, padding; and norm, ReLU, dropout (rate 0 here,
  // so that both runs compute the same values).
  const auto write = [&](const std::string& name, double rate) {
    std::ofstream(dir + "/" + name + ".yaml")
        << "experiment: {name: fused, seed: 3}\n"
           "data: {dataset: synthetic, synthetic: {shape: [3, 32, 32], classes: 4, train_samples: 512, "
           "valid_samples: 128}}\n"
           "model:\n  layers:\n"
           "    - {type: conv2d, filters: 16, kernel_size: 3}\n"
           "    - {type: instancenorm}\n"
           "    - {type: activation, activation: relu}\n"
           "    - {type: reflection_padding2d, padding: 1}\n"
           "    - {type: conv2d, filters: 16, kernel_size: 3}\n"
           "    - {type: instancenorm}\n"
           "    - {type: activation, activation: relu}\n"
           "    - {type: dropout, rate: "
        << rate
        << "}\n"
           "    - {type: global_avgpool}\n"
           "    - {type: dense, units: classes, activation: softmax}\n"
           "optimizer: {name: adam, lr: 0.01}\n"
           "train: {epochs: 3, batch_size: 32}\ndevices: gpu:0\ngpu: {cudnn_benchmark: false, fused_kernels: true}\n";
    return dir + "/" + name + ".yaml";
  };
  const auto fused = run_trainer({"run", write("plain", 0), "--set", "log.run_name=fused"}, dir);
  INFO(fused.err);
  REQUIRE(fused.exit_code == 0);
  CHECK_THAT(fused.err, Catch::Contains("fused kernels: 2 instance norms run with the ReLU"));
  const auto unfused =
      run_trainer({"run", write("plain", 0), "--set", "log.run_name=unfused", "--set", "gpu.fused_kernels=false"}, dir);
  INFO(unfused.err);
  REQUIRE(unfused.exit_code == 0);
  CHECK_THAT(unfused.err, !Catch::Contains("fused kernels:"));
  require_same_three_losses(fused.out, unfused.out, 2e-3);
  // Channels-last: the channel-tiled kernels, every norm fused.
  const auto last = run_trainer({"run", write("plain", 0), "--set", "log.run_name=channels-last", "--set",
                                 "gpu.channels_last=true"},
                                dir);
  INFO(last.err);
  REQUIRE(last.exit_code == 0);
  CHECK_THAT(last.err, Catch::Contains("fused kernels: 2 instance norms run") && Catch::Contains("channels-last"));
  require_same_three_losses(last.out, unfused.out, 2e-3);
  // With dropout, in bf16: the kernels' dropout and half-precision paths.
  const auto dropped = run_trainer({"run", write("dropout", 0.3), "--set", "log.run_name=dropout", "--set",
                                    "precision=bf16"},
                                   dir);
  INFO(dropped.err);
  REQUIRE(dropped.exit_code == 0);
  const auto c = parse_records(dropped.out);
  REQUIRE(c.size() == 3);
  for (const auto& epoch : c) CHECK(std::isfinite(epoch.loss));
}

TEST_CASE("GPU: convolutions run without the biases the instance norms after them cancel, and train as with them",
          "[gpu][e2e]") {
  const std::string dir = fresh_dir("gpu-cancelled-bias");
  if (skip_without_gpus(dir, 1)) return;
  // Two convolutions an instance norm reads, and a third with its ReLU
  // first, whose bias stays.
  std::ofstream(dir + "/model.yaml")
      << "experiment: {name: biases, seed: 5}\n"
         "data: {dataset: synthetic, synthetic: {shape: [3, 24, 24], classes: 4, train_samples: 512, "
         "valid_samples: 128}}\n"
         "model:\n  layers:\n"
         "    - {type: conv2d, filters: 8, kernel_size: 3}\n"
         "    - {type: instancenorm}\n"
         "    - {type: conv2d_transpose, filters: 8, kernel_size: 3, strides: 2, padding: same}\n"
         "    - {type: instancenorm}\n"
         "    - {type: conv2d, filters: 8, kernel_size: 3, activation: relu}\n"
         "    - {type: instancenorm}\n"
         "    - {type: global_avgpool}\n"
         "    - {type: dense, units: classes, activation: softmax}\n"
         "optimizer: {name: adamw, lr: 0.01}\n"
         "train: {epochs: 3, batch_size: 32}\ndevices: gpu:0\ngpu: {cudnn_benchmark: false}\n";
  const auto skipped = run_trainer({"run", dir + "/model.yaml", "--set", "log.run_name=skipped"}, dir);
  INFO(skipped.err);
  REQUIRE(skipped.exit_code == 0);
  CHECK_THAT(skipped.err, Catch::Contains("2 convolutions run without their biases"));
  const auto kept = run_trainer(
      {"run", dir + "/model.yaml", "--set", "log.run_name=kept", "--set", "gpu.skip_cancelled_biases=false"}, dir);
  INFO(kept.err);
  REQUIRE(kept.exit_code == 0);
  CHECK_THAT(kept.err, !Catch::Contains("without their biases"));
  require_same_three_losses(skipped.out, kept.out, 2e-3);
  // The skipped run's checkpoint resumes in the other (the same parameters).
  const auto resumed = run_trainer({"run", "--resume", dir + "/runs/biases/skipped", "--set", "train.epochs=4", "--set",
                                    "gpu.skip_cancelled_biases=false"},
                                   dir);
  INFO(resumed.err);
  CHECK(resumed.exit_code == 0);
  CHECK(parse_records(resumed.out).size() == 1);
}
