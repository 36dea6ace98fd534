#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "models/layer_summary.h"
#include "test_paths.h"
#include "train/epoch_log.h"
#include "train/lr_schedule.h"
#include "train/progress_line.h"
#include "train/run_dir.h"
#include "util/error.h"

using namespace trainer;

namespace {

// The epoch-record regex documented in README.md, read from there so the
// documentation and this test cannot disagree.
std::regex documented_record_regex() {
  std::ifstream in(testing::source_dir() + "/README.md");
  std::string line;
  while (std::getline(in, line))
    if (line.find("<!-- epoch-record-regex -->") != std::string::npos) break;
  std::getline(in, line);  // ```
  std::getline(in, line);
  REQUIRE_FALSE(line.empty());
  return std::regex(line);
}

}  // namespace

TEST_CASE("epoch records follow the documented format", "[train][log]") {
  EpochRecord record;
  record.epoch = 1;
  record.train = {{"Loss", "loss", 1.96735072f}, {"Accuracy", "accuracy", 0.489200622f}};
  record.valid = {{"Loss", "loss", 1.64124215f}, {"Accuracy", "accuracy", 0.582813919f}};
  const std::string text = format_epoch_record(record, "17:13:26");
  CHECK(text == std::string(80, '=') +
                    "17:13:26\nEpoch=1,Loss:1.96735072,Accuracy:0.489200622,Valid Loss:1.64124215,Valid "
                    "Accuracy:0.582813919\n\n");

  const std::regex grammar = documented_record_regex();
  std::smatch match;
  REQUIRE(std::regex_match(text, match, grammar));
  CHECK(match[1].str() == "17:13:26");
  CHECK(match[2].str() == "1");

  SECTION("extra metrics, epochs without validation, odd values still parse") {
    record.epoch = 12;
    record.train.push_back({"Top5 Accuracy", "top5_accuracy", 1e-10f});
    record.valid.clear();
    CHECK(std::regex_match(format_epoch_record(record, "01:02:03"), grammar));
  }
  SECTION("a malformed record does not parse") {
    CHECK_FALSE(std::regex_match(std::string(79, '=') + "17:13:26\nEpoch=1,Loss:1\n\n", grammar));
    CHECK_FALSE(std::regex_match(std::string(80, '=') + "17:13:26\nEpoch=1;Loss:1\n\n", grammar));
  }
}

TEST_CASE("metrics.jsonl lines carry every metric and the timings", "[train][log]") {
  EpochRecord record;
  record.epoch = 3;
  record.train = {{"Loss", "loss", 0.5f}, {"Top5 Accuracy", "top5_accuracy", 0.75f}};
  record.valid = {{"Loss", "loss", 0.25f}};
  record.seconds = 2;
  record.train_seconds = 1;
  record.data_wait_seconds = 0.01;
  const std::string json = format_metrics_json(record);
  CHECK_THAT(json, Catch::StartsWith("{\"epoch\":3,\"loss\":0.5,\"top5_accuracy\":0.75,\"val_loss\":0.25,"));
  CHECK_THAT(json, Catch::Contains("\"data_wait_fraction\":0.01"));
  CHECK(json.back() == '\n');
}

TEST_CASE("learning-rate schedules", "[train][schedule]") {
  ScheduleConfig schedule;
  CHECK(scheduled_lr(schedule, 0.1, 3.5, 10) == Approx(0.1));
  schedule.name = ScheduleKind::kStep;
  schedule.gamma = 0.5;
  schedule.step_epochs = 2;
  CHECK(scheduled_lr(schedule, 0.1, 1.99, 10) == Approx(0.1));
  CHECK(scheduled_lr(schedule, 0.1, 2.0, 10) == Approx(0.05));
  CHECK(scheduled_lr(schedule, 0.1, 4.5, 10) == Approx(0.025));
  schedule.name = ScheduleKind::kExponential;
  CHECK(scheduled_lr(schedule, 0.1, 1.0, 10) == Approx(0.05));
  schedule.name = ScheduleKind::kCosine;
  schedule.min_lr = 0.01;
  CHECK(scheduled_lr(schedule, 0.1, 0, 10) == Approx(0.1));
  CHECK(scheduled_lr(schedule, 0.1, 5, 10) == Approx(0.055));
  CHECK(scheduled_lr(schedule, 0.1, 10, 10) == Approx(0.01));
  SECTION("linear warm-up scales any schedule") {
    schedule.name = ScheduleKind::kConstant;
    schedule.warmup_epochs = 2;
    CHECK(scheduled_lr(schedule, 0.1, 0, 10) == Approx(0.0));
    CHECK(scheduled_lr(schedule, 0.1, 0.5, 10) == Approx(0.025));
    CHECK(scheduled_lr(schedule, 0.1, 2, 10) == Approx(0.1));
  }
}

TEST_CASE("run directories, checkpoint listing, pruning and resume points", "[train][rundir]") {
  const std::string root = testing::fresh_dir("rundirs");
  const RunDir first = create_run_dir(root, "exp", "fixed");
  const RunDir second = create_run_dir(root, "exp", "fixed");
  CHECK(first.path == root + "/exp/fixed");
  CHECK(second.path == root + "/exp/fixed-2");  // never reuses a run

  for (int epoch : {1, 2, 3, 10}) std::ofstream(first.checkpoint_for(epoch, 0)) << "x";
  std::ofstream(first.checkpoint_for(11, 5)) << "x";
  auto files = list_checkpoints(first);
  REQUIRE(files.size() == 5);
  CHECK_THAT(files.back(), Catch::EndsWith("epoch-0011-step-0000005.pt"));
  prune_checkpoints(first, 2);
  files = list_checkpoints(first);
  REQUIRE(files.size() == 2);
  CHECK_THAT(files[0], Catch::EndsWith("epoch-0010.pt"));

  CHECK(find_resume_point(first.path).checkpoints.front() == files.back());
  CHECK(find_resume_point(files[0]).run.path == first.path);
  CHECK_THROWS_AS(find_resume_point(second.path), UsageError);
  CHECK_THROWS_WITH(find_resume_point(root + "/nothing"), Catch::Contains("no such run directory"));

  SECTION("resuming drops metrics of epochs after the checkpoint") {
    // Any key order is a record; a line cut short by a full disk is not.
    std::ofstream(first.metrics()) << "{\"epoch\":1,\"loss\":1}\n{\"loss\":1,\"epoch\":2}\n{\"epoch\":2,\"lo\n"
                                      "{\"epoch\":3,\"loss\":1}\n";
    truncate_metrics(first, 2);
    std::ifstream in(first.metrics());
    std::stringstream kept;
    kept << in.rdbuf();
    CHECK(kept.str() == "{\"epoch\":1,\"loss\":1}\n{\"loss\":1,\"epoch\":2}\n");
  }
}

TEST_CASE("model summary table", "[models][summary]") {
  const std::string table = format_summary("m", {{"dense", {10}, 332856, 332856, {}}, {"dropout", {10}, 0, 0, {}}}, false);
  CHECK_THAT(table, Catch::Contains("dense                        (None, 10)                      332,856"));
  CHECK_THAT(table, Catch::Contains("Total params: 332,856 (1.27 MiB)\nTrainable params: 332,856 (1.27 MiB)\n"
                                    "Non-trainable params: 0 (0 B)"));
}

TEST_CASE("progress line: durations with hours when there are any", "[train][progress]") {
  CHECK(format_duration(0) == "00:00");
  CHECK(format_duration(42.4) == "00:42");
  CHECK(format_duration(723) == "12:03");
  CHECK(format_duration(3723) == "1:02:03");
  CHECK(format_duration(90000) == "25:00:00");
  CHECK(format_duration(-1) == "00:00");
}

TEST_CASE("progress line: everything on a wide terminal, least useful parts dropped on a narrow one",
          "[train][progress]") {
  ProgressState state;
  state.phase = "Epoch 3/10";
  state.step = 120;
  state.steps = 469;
  state.elapsed_seconds = 12;
  state.samples_per_second = 5123;
  state.values = {{"loss", 0.4321}, {"accuracy", 0.8412}};
  const std::string wide = format_progress_line(state, 120);
  CHECK(wide == "Epoch 3/10 [=======>                    ] 120/469 00:12 ETA 00:35 loss 0.4321 accuracy 0.8412 "
                "5123 samples/s");
  for (int width = 1; width <= 160; ++width) {
    INFO("width " << width);
    CHECK(static_cast<int>(format_progress_line(state, width).size()) <= std::max(1, width - 1));
  }
  // Narrower: samples/s goes first, then the metric, the bar, the loss, the times.
  CHECK_THAT(format_progress_line(state, 90), Catch::Contains("samples/s") && Catch::Contains("[==>      ]"));
  CHECK_THAT(format_progress_line(state, 80), !Catch::Contains("samples/s") && Catch::Contains("accuracy"));
  CHECK_THAT(format_progress_line(state, 70), !Catch::Contains("accuracy") && Catch::Contains("["));
  CHECK(format_progress_line(state, 40) == "Epoch 3/10 120/469 00:12 ETA 00:35");
  CHECK(format_progress_line(state, 30) == "Epoch 3/10 120/469");
  CHECK(format_progress_line(state, 8) == "Epoch 3");
}

TEST_CASE("progress line: the bar fills with the steps done", "[train][progress]") {
  ProgressState state;
  state.phase = "Valid 1/1";
  state.steps = 10;
  state.step = 10;
  CHECK_THAT(format_progress_line(state, 80), Catch::Contains("[============================]"));
  state.step = 0;
  CHECK_THAT(format_progress_line(state, 80), Catch::Contains("[>                           ]"));
  CHECK_THAT(format_progress_line(state, 80), Catch::Contains("00:00 ETA 00:00"));
}
