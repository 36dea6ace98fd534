// What the run's TensorBoard observer records, read back by Python's
// protobuf (tests/tensorboard/read_events.py): the tags at the global step,
// the config as Markdown code, the restart of a resumed run, and the
// optional series only when there is something to plot.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tensorboard/python_event_reader.h"
#include "test_paths.h"
#include "watch/tensorboard_log.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

EpochRecord an_epoch() {
  EpochRecord record;
  record.epoch = 2;
  record.train = {{"Loss", "loss", 0.5f}, {"Accuracy", "accuracy", 0.75f}};
  record.valid = {{"Loss", "loss", 0.625f}};
  record.lr = 0.01;
  record.seconds = 4;
  record.train_seconds = 2;
  record.data_wait_seconds = 0.5;
  record.samples_per_second = 1000;
  return record;
}

}  // namespace

TEST_CASE("the TensorBoard log: steps and epochs on one axis, the config, a resume's restart", "[watch][tensorboard]") {
  if (!system_python_has("google.protobuf")) {
    WARN(kNeedsPythonProtobuf);
    return;
  }
  const std::string dir = fresh_dir("tensorboard-log");
  std::string path;
  {
    TensorBoardLog log(dir);
    path = log.path();
    log.on_start(40, "experiment: {name: x}\ntrain: {epochs: 3}\n");
    log.on_step({50, 2, 0.75, 0.01, 900, 0});
    log.on_epoch(an_epoch(), 60);
  }
  const auto read = python_reads_events(path);
  REQUIRE(read.has_value());
  const nlohmann::json& events = *read;
  INFO(events.dump());
  CHECK(events["restarts"] == nlohmann::json::parse("[41]"));
  CHECK(events["texts"]["config"] == "    experiment: {name: x}\n    train: {epochs: 3}\n");
  CHECK(events["scalars"]["step/loss"] == nlohmann::json::parse("[[50, 0.75]]"));
  CHECK(events["scalars"]["step/samples_per_second"] == nlohmann::json::parse("[[50, 900.0]]"));
  CHECK(events["scalars"]["epoch/accuracy"] == nlohmann::json::parse("[[60, 0.75]]"));
  CHECK(events["scalars"]["epoch/val_loss"] == nlohmann::json::parse("[[60, 0.625]]"));
  CHECK(events["scalars"]["epoch/data_wait_fraction"] == nlohmann::json::parse("[[60, 0.25]]"));
  // Nothing to plot: no loss scaling, no timed steps, no memory figure, no GPU.
  for (const char* absent : {"step/loss_scale", "epoch/loss_scale", "step_time/forward", "memory/peak_mib",
                             "gpu/utilization"})
    CHECK_FALSE(events["scalars"].contains(absent));
}

TEST_CASE("a fresh run's TensorBoard log marks no restart", "[watch][tensorboard]") {
  if (!system_python_has("google.protobuf")) {
    WARN(kNeedsPythonProtobuf);
    return;
  }
  const std::string dir = fresh_dir("tensorboard-log-fresh");
  std::string path;
  {
    TensorBoardLog log(dir);
    path = log.path();
    log.on_start(0, "experiment: {name: x}\n");
  }
  const auto read = python_reads_events(path);
  REQUIRE(read.has_value());
  CHECK((*read)["restarts"].empty());
}
