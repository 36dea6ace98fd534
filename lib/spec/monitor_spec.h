#pragma once
// train.monitor decoded: which epoch figure decides the best epoch (and early
// stopping), and which way it improves.
#include <optional>
#include <string>
#include <vector>

#include "spec/train_config.h"

namespace trainer {

struct MonitorSpec {
  std::string key;  // the metrics.jsonl key: "val_loss", "accuracy", "val_top5_accuracy"
  bool validation = false;  // a val_ figure: measured only on the epochs that validate
  std::string figure;       // the key without val_: "loss", "accuracy", "top5_accuracy"
  bool higher_is_better = false;
};

// The figure `train.monitor` names among the loss and `metrics` (by their
// metrics.jsonl keys or as written in `metrics:`, "top5" for
// "top5_accuracy"), with or without val_. nullopt when it names none.
std::optional<MonitorSpec> resolve_monitor(const TrainConfig& train, const std::vector<std::string>& metrics);

// Every name resolve_monitor accepts, for an error message: "loss, val_loss, accuracy, val_accuracy".
std::string monitor_choices(const std::vector<std::string>& metrics);

}  // namespace trainer
