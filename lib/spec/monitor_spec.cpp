#include "spec/monitor_spec.h"

#include "spec/metric_spec.h"

namespace trainer {
namespace {

// The figures a run reports each epoch: the loss, then the valid metrics.
std::vector<std::pair<std::string, bool>> figures(const std::vector<std::string>& metrics) {
  std::vector<std::pair<std::string, bool>> out{{"loss", false}};
  for (const auto& name : metrics)
    if (const auto spec = parse_metric(name)) out.emplace_back(spec->json_key(), spec->higher_is_better());
  return out;
}

}  // namespace

std::optional<MonitorSpec> resolve_monitor(const TrainConfig& train, const std::vector<std::string>& metrics) {
  const std::string prefix = "val_";
  const bool validation = train.monitor.rfind(prefix, 0) == 0;
  std::string name = validation ? train.monitor.substr(prefix.size()) : train.monitor;
  if (const auto spec = parse_metric(name)) name = spec->json_key();  // "top5" -> "top5_accuracy"
  for (const auto& [figure, higher] : figures(metrics)) {
    if (figure != name) continue;
    MonitorSpec spec;
    spec.key = (validation ? prefix : "") + figure;
    spec.validation = validation;
    spec.figure = figure;
    spec.higher_is_better = train.mode == MonitorMode::kAuto ? higher : train.mode == MonitorMode::kMax;
    return spec;
  }
  return std::nullopt;
}

std::string monitor_choices(const std::vector<std::string>& metrics) {
  std::string out;
  for (const auto& [figure, higher] : figures(metrics)) out += (out.empty() ? "" : ", ") + figure + ", val_" + figure;
  return out;
}

}  // namespace trainer
