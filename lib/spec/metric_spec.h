#pragma once
// A metric named in `metrics:` ("accuracy", "top5", "precision", "recall",
// "f1", "mse", "mae", "psnr", "ssim"), decoded
// once into what it computes; the training loop never compares strings.
#include <cstdint>
#include <optional>
#include <string>

namespace trainer {

enum class MetricKind { kAccuracy, kTopK, kPrecision, kRecall, kF1, kMse, kMae, kPsnr, kSsim };

struct MetricSpec {
  MetricKind kind = MetricKind::kAccuracy;
  int64_t k = 1;  // kTopK: how many of the highest scores may hold the label

  // Classification metrics read class labels; the others compare outputs
  // with targets (one-hot labels for a classifier; psnr and ssim images).
  bool needs_classes() const { return kind == MetricKind::kAccuracy || kind == MetricKind::kTopK || per_class(); }
  // Macro averages over classes (precision, recall, f1): not sums over
  // samples but read from the confusion matrix the epoch counts.
  bool per_class() const {
    return kind == MetricKind::kPrecision || kind == MetricKind::kRecall || kind == MetricKind::kF1;
  }
  bool higher_is_better() const { return kind != MetricKind::kMse && kind != MetricKind::kMae; }
  // The epoch record's name: "Accuracy", "Top5 Accuracy", "Precision", "Recall", "F1", "MSE", "MAE", "PSNR", "SSIM".
  std::string display_name() const;
  // The metrics.jsonl key: "accuracy", "top5_accuracy", "precision", "recall", "f1", "mse", "mae", "psnr", "ssim".
  std::string json_key() const;
};

// The metric `name` stands for; nothing when it names none.
std::optional<MetricSpec> parse_metric(const std::string& name);

}  // namespace trainer
