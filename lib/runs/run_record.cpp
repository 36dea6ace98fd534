#include "runs/run_record.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "spec/monitor_spec.h"
#include "spec/metric_spec.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json.h"
#include "util/read_file.h"
#include "util/text.h"

namespace trainer {
namespace {

using Json = nlohmann::ordered_json;

// RFC 3339 local time with its offset, "2026-11-23T23:10:05+01:00": sortable,
// and every JSON consumer's date parser reads it.
std::string rfc3339_now() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S%z", &local);
  std::string out = text;  // ...+0100: the colon RFC 3339 wants goes in
  if (out.size() > 2) out.insert(out.size() - 2, ":");
  return out;
}

std::string absolute(const std::string& path) {
  std::error_code error;
  const auto full = std::filesystem::absolute(path, error);
  return error ? path : full.lexically_normal().string();
}

Json optional_text(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

// metrics.jsonl keys of the run's metrics and whether more is better: the
// loss and the configured metrics, and their val_ twins.
// In metrics.jsonl's order: the loss, the metrics as configured, then the same with val_.
std::vector<std::pair<std::string, MetricHistory>> metric_keys(const ExperimentConfig& config) {
  std::vector<std::pair<std::string, MetricHistory>> keys{{"loss", {}}};
  for (const std::string& name : config.metrics)
    if (const auto spec = parse_metric(name)) {
      MetricHistory history;
      history.higher_is_better = spec->higher_is_better();
      keys.emplace_back(spec->json_key(), history);
    }
  const size_t train_keys = keys.size();
  for (size_t i = 0; i < train_keys; ++i) keys.emplace_back("val_" + keys[i].first, keys[i].second);
  return keys;
}

}  // namespace

std::string run_status_for_exit_code(int exit_code) {
  switch (static_cast<ExitCode>(exit_code)) {
    case ExitCode::kSuccess: return "done";
    case ExitCode::kDiverged: return "diverged";
    case ExitCode::kInterrupted: return "interrupted";
    case ExitCode::kRequeue: return "requeue";
    default: return "failed";
  }
}

void MetricHistory::add(int64_t epoch, double value) {
  if (!std::isfinite(value)) {
    // A NaN is the last value (the run diverged), never the best.
    last.reset();
    last_epoch = epoch;
    return;
  }
  last = value;
  last_epoch = epoch;
  if (!best || (higher_is_better ? value > *best : value < *best)) {
    best = value;
    best_epoch = epoch;
  }
}

RunRecord::RunRecord(const RunDir& run, const ExperimentConfig& config, std::string version, int world_size)
    : run_(run),
      experiment_(config.experiment.name),
      version_(std::move(version)),
      host_(host_name()),
      started_at_(rfc3339_now()),
      devices_(config.devices.entries),
      pid_(static_cast<int>(getpid())),
      world_size_(world_size),
      epochs_(config.train.epochs),
      metrics_(metric_keys(config)) {
  if (const std::optional<MonitorSpec> monitor = resolve_monitor(config.train, config.metrics)) monitor_ = monitor->key;
}

void RunRecord::set_metrics_jsonl(const std::string& text) {
  for (auto& [key, history] : metrics_) {
    const bool higher_is_better = history.higher_is_better;
    history = MetricHistory();
    history.higher_is_better = higher_is_better;
  }
  epochs_done_ = 0;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const Json epoch = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!epoch.is_object() || !epoch.contains("epoch") || !epoch["epoch"].is_number_integer()) continue;
    const auto number = epoch["epoch"].get<int64_t>();
    for (auto& [key, history] : metrics_)
      if (epoch.contains(key))
        history.add(number, epoch[key].is_number() ? epoch[key].get<double>() : std::nan(""));
    epochs_done_ = std::max(epochs_done_, number);
  }
}

void RunRecord::add_epoch(const EpochRecord& record) {
  // As metrics.jsonl has them: the float's nine digits, so both files agree.
  auto nine_digits = [](float value) { return std::strtod(format_float9(value).c_str(), nullptr); };
  for (const MetricValue& m : record.train) history_of(m.key).add(record.epoch, nine_digits(m.value));
  for (const MetricValue& m : record.valid) history_of("val_" + m.key).add(record.epoch, nine_digits(m.value));
  epochs_done_ = std::max(epochs_done_, record.epoch);
}

MetricHistory& RunRecord::history_of(const std::string& key) {
  for (auto& [name, history] : metrics_)
    if (name == key) return history;
  return metrics_.emplace_back(key, MetricHistory()).second;
}

void RunRecord::finish(int exit_code, const std::string& error) {
  exit_code_ = exit_code;
  error_ = error;
  ended_at_ = rfc3339_now();
}

std::string RunRecord::to_json() const {
  Json metrics = Json::object();
  for (const auto& [key, history] : metrics_) {
    if (history.last_epoch == 0) continue;  // not measured yet (val_ before the first validation)
    metrics[key] = {{"last", history.last ? Json(*history.last) : Json(nullptr)},
                    {"last_epoch", history.last_epoch},
                    {"best", history.best ? Json(*history.best) : Json(nullptr)},
                    {"best_epoch", history.best ? Json(history.best_epoch) : Json(nullptr)},
                    {"higher_is_better", history.higher_is_better}};
  }
  const std::vector<std::string> checkpoints = list_checkpoints(run_);
  Json json;
  json["format"] = 1;
  json["status"] = exit_code_ ? run_status_for_exit_code(*exit_code_) : "running";
  json["exit_code"] = exit_code_ ? Json(*exit_code_) : Json(nullptr);
  json["error"] = optional_text(error_);
  json["experiment"] = experiment_;
  json["trainer_version"] = version_;
  json["host"] = host_;
  json["pid"] = pid_;
  json["started_at"] = started_at_;
  json["ended_at"] = optional_text(ended_at_);
  json["resumed_from"] = optional_text(resumed_from_);
  json["devices"] = devices_;
  json["world_size"] = world_size_;
  json["precision"] = optional_text(precision_);
  json["epochs"] = epochs_;
  json["epochs_done"] = epochs_done_;
  // The figure that decides the best epoch (best.pt, early stopping): what
  // `trainer runs`, the reports and sweeps rank runs by.
  json["monitor"] = optional_text(monitor_);
  json["metrics"] = metrics;
  Json baseline = nullptr;
  for (const auto& m : identity_baseline_) baseline["val_" + m.key] = static_cast<double>(m.value);
  json["identity_baseline"] = baseline;
  if (!class_names_.empty()) json["class_names"] = class_names_;
  json["paths"] = {{"run_dir", absolute(run_.path)},
                   {"config", absolute(run_.config())},
                   {"log", absolute(run_.log())},
                   {"metrics", absolute(run_.metrics())},
                   {"checkpoints", absolute(run_.checkpoints())},
                   {"last_checkpoint", checkpoints.empty() ? Json(nullptr) : Json(absolute(checkpoints.back()))},
                   {"best_checkpoint", std::filesystem::exists(run_.best_checkpoint()) ? Json(absolute(run_.best_checkpoint()))
                                                                         : Json(nullptr)},
                   {"best_checkpoint_epoch", best_checkpoint_epoch_ && std::filesystem::exists(run_.best_checkpoint())
                                                 ? Json(*best_checkpoint_epoch_)
                                                 : Json(nullptr)}};
  return json_line(json);
}

void RunRecord::write() const { write_file_atomic(run_.path + "/run.json", to_json()); }

std::string settle_run_json(const std::string& run_dir, int exit_code) {
  const std::string path = run_dir + "/run.json";
  const std::optional<std::string> text = read_text_file(path);
  if (!text) return "";
  Json json = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return path + " is not a JSON object; left as it is";
  const bool running = json["status"] == "running";
  if (!running && json["exit_code"] == exit_code) return "";
  json["status"] = run_status_for_exit_code(exit_code);
  json["exit_code"] = exit_code;
  if (running) {
    json["ended_at"] = rfc3339_now();
    if (!json["error"].is_string())
      json["error"] = "rank 0 ended without recording why; the ranks' logs are " + run_dir + "/worklog.N";
  }
  try {
    write_file_atomic(path, json_line(json));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace trainer
