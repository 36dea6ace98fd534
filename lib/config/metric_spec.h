#pragma once
// A metric named in `metrics:` ("accuracy", "top5", "mse", "mae"), decoded
// once into what it computes; the training loop never compares strings.
#include <cstdint>
#include <optional>
#include <string>

namespace trainer {

enum class MetricKind { kAccuracy, kTopK, kMse, kMae };

struct MetricSpec {
  MetricKind kind = MetricKind::kAccuracy;
  int64_t k = 1;  // kTopK: how many of the highest scores may hold the label

  // The epoch record's name: "Accuracy", "Top5 Accuracy", "MSE", "MAE".
  std::string display_name() const;
  // The metrics.jsonl key: "accuracy", "top5_accuracy", "mse", "mae".
  std::string json_key() const;
};

// The metric `name` stands for; nothing when it names none.
std::optional<MetricSpec> parse_metric(const std::string& name);

}  // namespace trainer
