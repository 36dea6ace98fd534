// The epoch log: the documented record format and metrics.jsonl.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "test_paths.h"
#include "runs/epoch_log.h"
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
  SECTION("loss scaling's and a graphed run's fields end the record and parse") {
    record.loss_scale = 32768;
    record.skipped_steps = 2;
    record.graphed = true;
    record.graphed_steps = 12;
    const std::string line = format_epoch_record(record, "01:02:03");
    CHECK_THAT(line, Catch::EndsWith(",Loss Scale:32768,Skipped Steps:2,Graphed Steps:12\n\n"));
    CHECK(std::regex_match(line, grammar));
    CHECK_THAT(format_metrics_json(record), Catch::Contains("\"graphed_steps\":12"));
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
  // The GPU's idle share: GPU runs only.
  CHECK_THAT(json, !Catch::Contains("gpu_idle_for_data"));
  record.gpu_idle_for_data_seconds = 0.002;
  CHECK_THAT(format_metrics_json(record),
             Catch::Contains("\"gpu_idle_for_data_seconds\":0.002,\"gpu_idle_for_data_fraction\":0.002"));
}
