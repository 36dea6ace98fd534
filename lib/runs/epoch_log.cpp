#include "runs/epoch_log.h"

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
  if (record.graphed) line += ",Graphed Steps:" + std::to_string(record.graphed_steps);
  return std::string(80, '=') + clock + "\n" + line + "\n\n";
}

std::string describe_step_times(const EpochRecord& record) {
  const StepTimes& t = record.step_times;
  const double total = t.total() > 0 ? t.total() : 1.0;
  char text[200];
  std::snprintf(text, sizeof text,
                "data %.1f%%, forward %.1f%%, backward %.1f%%, all-reduce %.1f%%, optimizer %.1f%% (%lld of %lld steps "
                "timed)",
                100 * t.data / total, 100 * t.forward / total, 100 * t.backward / total, 100 * t.all_reduce / total,
                100 * t.optimizer / total, static_cast<long long>(record.timed_steps),
                static_cast<long long>(record.steps));
  return text;
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
  if (record.gpu_idle_for_data_seconds) {
    json["gpu_idle_for_data_seconds"] = json_number(*record.gpu_idle_for_data_seconds);
    json["gpu_idle_for_data_fraction"] = json_number(
        record.train_seconds > 0 ? *record.gpu_idle_for_data_seconds / record.train_seconds : 0.0);
  }
  if (record.timed_steps > 0) {
    const StepTimes& t = record.step_times;
    json["data_seconds"] = json_number(t.data);
    json["forward_seconds"] = json_number(t.forward);
    json["backward_seconds"] = json_number(t.backward);
    json["all_reduce_seconds"] = json_number(t.all_reduce);
    json["optimizer_seconds"] = json_number(t.optimizer);
    json["timed_steps"] = record.timed_steps;
  }
  if (record.peak_memory_bytes > 0) json["peak_memory_bytes"] = record.peak_memory_bytes;
  if (record.gpu_samples > 0) {
    json["gpu_utilization"] = json_number(record.gpu_utilization);
    json["gpu_memory_used_bytes"] = record.gpu_memory_used_bytes;
    json["gpu_samples"] = record.gpu_samples;
  }
  if (record.loss_scale > 0) {
    json["loss_scale"] = json_number(record.loss_scale);
    json["skipped_steps"] = record.skipped_steps;
  }
  if (record.graphed) json["graphed_steps"] = record.graphed_steps;
  if (record.monitored) {
    json["improved"] = record.improved;
    json["best_epoch"] = record.best_epoch;
  }
  if (record.stopped_early) json["stopped_early"] = true;
  // Last: long for many classes, and after the figures a reader scans for.
  if (!record.valid_confusion.empty()) add_class_scores(json, record.valid_confusion, "val_");
  return json_line(json);
}

void add_class_scores(nlohmann::ordered_json& json, const ConfusionMatrix& matrix, const std::string& prefix) {
  auto rows = nlohmann::ordered_json::array();
  for (int64_t truth = 0; truth < matrix.classes; ++truth) {
    auto row = nlohmann::ordered_json::array();
    for (int64_t guess = 0; guess < matrix.classes; ++guess) row.push_back(matrix.at(truth, guess));
    rows.push_back(row);
  }
  json[prefix + "confusion_matrix"] = rows;
  const ClassScores scores = class_scores(matrix);
  const auto numbers = [](const std::vector<double>& values) {
    auto out = nlohmann::ordered_json::array();
    for (double v : values) out.push_back(json_number(v));
    return out;
  };
  nlohmann::ordered_json per_class;
  per_class["precision"] = numbers(scores.precision);
  per_class["recall"] = numbers(scores.recall);
  per_class["f1"] = numbers(scores.f1);
  per_class["support"] = scores.support;
  json[prefix + "per_class"] = per_class;
}

}  // namespace trainer
