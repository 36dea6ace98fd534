// What a run records for TensorBoard and for the step-time question, read
// back by a reader that is not trainer's (tests/tensorboard/read_events.py):
// per-step and per-epoch scalars that agree with metrics.jsonl, the config,
// a restart mark on resume, images of an image-to-image model, and the
// step-time split in metrics.jsonl.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "json_lines.h"
#include "images/image_codec.h"
#include "experiment_files.h"
#include "tensorboard/python_event_reader.h"

using namespace trainer::testing;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::vector<std::string> event_files(const std::string& run_dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(run_dir))
    if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

json read_events(const std::string& file) {
  const auto events = python_reads_events(file);
  REQUIRE(events.has_value());
  return *events;
}


// 400 samples in batches of 20: 20 steps an epoch.
std::string tensorboard_experiment(const std::string& dir, const std::string& run_name) {
  return write_mlp_experiment(dir, small_mlp("tb", run_name, "metrics: [accuracy]\ntrain: {epochs: 3, batch_size: 20}\n"));
}

}  // namespace

TEST_CASE("a run writes a TensorBoard event file that agrees with metrics.jsonl", "[e2e][tensorboard]") {
  if (!system_python_has("google.protobuf")) {
    WARN(kNeedsPythonProtobuf);
    return;
  }
  const std::string dir = fresh_dir("tensorboard-run");
  const auto result = run_trainer({"run", tensorboard_experiment(dir, "run"), "--set", "log.scalars_every=5"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const std::string run = dir + "/runs/tb/run";
  CHECK_THAT(result.err, Catch::Contains("TensorBoard: " + run + "/events.out.tfevents."));
  const auto files = event_files(run);
  REQUIRE(files.size() == 1);
  const json events = read_events(files[0]);
  INFO(events.dump().substr(0, 2000));
  CHECK(events["file_version"] == "brain.Event:2");
  CHECK(events["restarts"].empty());
  CHECK_THAT(events["texts"]["config"].get<std::string>(), Catch::Contains("    experiment:") &&
                                                           Catch::Contains("scalars_every: 5"));
  // Every 5th of 60 steps, each the mean loss of its 5 batches: finite, falling overall.
  const json& step_loss = events["scalars"]["step/loss"];
  REQUIRE(step_loss.size() == 12);
  for (size_t i = 0; i < step_loss.size(); ++i) {
    CHECK(step_loss[i][0] == 5 * (i + 1));
    CHECK(std::isfinite(step_loss[i][1].get<double>()));
  }
  CHECK(step_loss[11][1].get<double>() < step_loss[0][1].get<double>());
  CHECK(events["scalars"]["step/lr"].size() == 12);
  CHECK(events["scalars"]["step/samples_per_second"][0][1].get<double>() > 0);
  // Epoch scalars at the step that ends the epoch, equal to metrics.jsonl (as float32).
  const auto lines = metrics_of(run);
  REQUIRE(lines.size() == 3);
  for (const std::string key : {"loss", "accuracy", "val_loss", "val_accuracy", "lr", "data_wait_fraction"}) {
    const json& points = events["scalars"]["epoch/" + key];
    INFO(key);
    REQUIRE(points.size() == 3);
    for (size_t e = 0; e < 3; ++e) {
      CHECK(points[e][0] == 20 * (e + 1));
      CHECK(points[e][1].get<double>() == Approx(lines[e][key].get<double>()).epsilon(1e-6).margin(1e-9));
    }
  }
  // The step-time split: shares of the step time that add up to one.
  double shares = 0;
  for (const std::string phase : {"data", "forward", "backward", "all_reduce", "optimizer"}) {
    const json& points = events["scalars"]["step_time/" + phase];
    REQUIRE(points.size() == 3);
    shares += points[2][1].get<double>();
  }
  CHECK(shares == Approx(1.0).epsilon(1e-5));
  CHECK(events["scalars"]["epoch/epoch"][2][1] == 3.0);
  CHECK(events["scalars"]["memory/peak_mib"][0][1].get<double>() > 0);
  CHECK(events["images"].empty());  // a classifier
}

TEST_CASE("metrics.jsonl carries where each epoch's step time went", "[e2e][tensorboard]") {
  const std::string dir = fresh_dir("tensorboard-step-times");
  const auto result = run_trainer(
      {"--log-level", "debug", "run", tensorboard_experiment(dir, "run"), "--set", "log.tensorboard=false"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const std::string run = dir + "/runs/tb/run";
  CHECK(event_files(run).empty());
  CHECK_THAT(result.err, Catch::Contains("epoch 3: step time data "));
  for (const json& line : metrics_of(run)) {
    INFO(line.dump());
    CHECK(line["timed_steps"] == 20);  // every step on a CPU
    CHECK(line["peak_memory_bytes"].get<int64_t>() > 0);
    double sum = 0;
    for (const std::string key : {"data_seconds", "forward_seconds", "backward_seconds", "optimizer_seconds"}) {
      CHECK(line[key].get<double>() > 0);
      sum += line[key].get<double>();
    }
    CHECK(line["all_reduce_seconds"] == 0.0);  // one process
    // Phases of the steps, inside the epoch's training time.
    CHECK(sum <= line["train_seconds"].get<double>());
  }
  // Switched off, the split is not taken.
  const auto untimed = run_trainer({"run", tensorboard_experiment(dir, "untimed"), "--set", "log.step_times=false"}, dir);
  REQUIRE(untimed.exit_code == 0);
  for (const json& line : metrics_of(dir + "/runs/tb/untimed")) CHECK_FALSE(line.contains("timed_steps"));
}

TEST_CASE("a resumed run adds an event file that marks the restart", "[e2e][tensorboard][resume]") {
  if (!system_python_has("google.protobuf")) {
    WARN(kNeedsPythonProtobuf);
    return;
  }
  const std::string dir = fresh_dir("tensorboard-resume");
  const std::string experiment = tensorboard_experiment(dir, "run");
  REQUIRE(run_trainer({"run", experiment, "--set", "train.epochs=2"}, dir).exit_code == 0);
  const std::string run = dir + "/runs/tb/run";
  const auto rest = run_trainer({"run", "--resume", run, "--set", "train.epochs=3"}, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  const auto files = event_files(run);
  REQUIRE(files.size() == 2);
  json second;
  for (const auto& file : files) {
    const json events = read_events(file);
    if (!events["restarts"].empty()) second = events;
  }
  INFO(second.dump().substr(0, 2000));
  REQUIRE(second.is_object());
  // Two epochs of 20 steps were done: TensorBoard drops older points from step 41 on.
  CHECK(second["restarts"] == json::parse("[41]"));
  CHECK(second["scalars"]["epoch/loss"] == json::array({json::array({60, second["scalars"]["epoch/loss"][0][1]})}));
}

TEST_CASE("an image-to-image run records input, output and target images each epoch", "[e2e][tensorboard]") {
  if (!system_python_has("google.protobuf")) {
    WARN(kNeedsPythonProtobuf);
    return;
  }
  const std::string dir = fresh_dir("tensorboard-images");
  // 8 pairs of 12 x 10 grey images: target a gradient, input half as bright.
  for (int n = 0; n < 8; ++n)
    for (const std::string folder : {"blur", "sharp"}) {
      trainer::Image image{10, 12, 1, {}};
      for (int y = 0; y < 10; ++y)
        for (int x = 0; x < 12; ++x)
          image.pixels.push_back(static_cast<uint8_t>((x * 20 + y * 5 + n * 3) / (folder == "blur" ? 2 : 1)));
      fs::create_directories(dir + "/pairs/" + folder);
      const std::string path = dir + "/pairs/" + folder + "/" + std::to_string(n) + ".png";
      std::ofstream(path, std::ios::binary) << trainer::encode_png(image, path);
    }
  std::ofstream(dir + "/pairs.yaml") << "experiment: {name: pairs}\n"
                                     << "data: {dataset: image_pairs, path: " << dir << "/pairs, validation_split: 0.25,"
                                     << " images: {color_mode: grayscale}}\n"
                                     << "model:\n  layers:\n    - {type: conv2d, filters: 1, kernel_size: 1}\n"
                                     << "loss: {name: l1}\nmetrics: [psnr]\n"
                                     << "train: {epochs: 2, batch_size: 2}\n"
                                     << "log: {dir: " << dir << "/runs, run_name: run}\n";
  const auto result = run_trainer({"run", dir + "/pairs.yaml"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto files = event_files(dir + "/runs/pairs/run");
  REQUIRE(files.size() == 1);
  const json images = read_events(files[0])["images"];
  INFO(images.dump());
  // Two validation samples (a quarter of 8): each its input, output and target, both epochs.
  CHECK(images.size() == 6);
  for (const std::string tag : {"images/valid-0/input", "images/valid-0/output", "images/valid-1/target"}) {
    REQUIRE(images.contains(tag));
    REQUIRE(images[tag].size() == 2);
    CHECK(images[tag][1][0] == 6);   // the global step after epoch 2 (3 steps an epoch)
    CHECK(images[tag][1][1] == 10);  // height
    CHECK(images[tag][1][2] == 12);  // width
    CHECK(images[tag][1][3] == 1);   // grey
    CHECK(images[tag][1][4].get<int>() > 0);
  }
}

TEST_CASE("the log names the folder to point TensorBoard at: log.dir, or the run where it lives elsewhere",
          "[e2e][tensorboard]") {
  const std::string dir = fresh_dir("tensorboard-logdir");
  const std::string experiment = tensorboard_experiment(dir, "run");
  const auto below = run_trainer({"run", experiment, "--set", "train.epochs=1"}, dir);
  INFO(below.err);
  REQUIRE(below.exit_code == 0);
  CHECK_THAT(below.err, Catch::Contains("(tensorboard --logdir " + dir + "/runs)"));

  const std::string elsewhere = dir + "/scratch/run";
  const auto placed = run_trainer({"run", experiment, "--set", "train.epochs=1", "--run-dir", elsewhere}, dir);
  REQUIRE(placed.exit_code == 0);
  CHECK_THAT(placed.err, Catch::Contains("(tensorboard --logdir " + elsewhere + ")"));
  const auto resumed = run_trainer({"run", "--resume", elsewhere, "--set", "train.epochs=2"}, dir);
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.err, Catch::Contains("(tensorboard --logdir " + elsewhere + ")"));
}
