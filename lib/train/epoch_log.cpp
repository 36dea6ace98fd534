#include "train/epoch_log.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "util/json.h"
#include "util/text.h"

namespace trainer {
namespace {

std::string pairs(const std::vector<MetricValue>& metrics, const std::string& prefix) {
  std::vector<std::string> parts;
  for (const auto& m : metrics) parts.push_back(prefix + m.name + ":" + format_float9(m.value));
  return join(parts, ",");
}

std::string format_double9(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

}  // namespace

std::string format_epoch_record(const EpochRecord& record, const std::string& clock) {
  std::string line = "Epoch=" + std::to_string(record.epoch) + "," + pairs(record.train, "");
  if (!record.valid.empty()) line += "," + pairs(record.valid, "Valid ");
  if (record.loss_scale > 0)
    line += ",Loss Scale:" + format_double9(record.loss_scale) + ",Skipped Steps:" + std::to_string(record.skipped_steps);
  return std::string(80, '=') + clock + "\n" + line + "\n\n";
}

std::string format_valid_line(const std::vector<MetricValue>& valid) { return pairs(valid, "Valid ") + "\n"; }

std::string format_metrics_json(const EpochRecord& record) {
  nlohmann::ordered_json json;
  json["epoch"] = record.epoch;
  for (const auto& m : record.train) json[m.key] = json_number(m.value);
  for (const auto& m : record.valid) json["val_" + m.key] = json_number(m.value);
  json["lr"] = json_number(record.lr);
  json["steps"] = record.steps;
  json["epoch_seconds"] = json_number(record.seconds);
  json["train_seconds"] = json_number(record.train_seconds);
  json["samples_per_second"] = json_number(record.samples_per_second);
  json["data_wait_seconds"] = json_number(record.data_wait_seconds);
  json["data_wait_fraction"] =
      json_number(record.train_seconds > 0 ? record.data_wait_seconds / record.train_seconds : 0.0);
  if (record.loss_scale > 0) {
    json["loss_scale"] = json_number(record.loss_scale);
    json["skipped_steps"] = record.skipped_steps;
  }
  return json_line(json);
}

}  // namespace trainer
