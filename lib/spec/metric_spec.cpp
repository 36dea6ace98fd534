#include "spec/metric_spec.h"

#include <regex>

namespace trainer {

std::string MetricSpec::display_name() const {
  switch (kind) {
    case MetricKind::kAccuracy: return "Accuracy";
    case MetricKind::kTopK: return "Top" + std::to_string(k) + " Accuracy";
    case MetricKind::kPrecision: return "Precision";
    case MetricKind::kRecall: return "Recall";
    case MetricKind::kF1: return "F1";
    case MetricKind::kMse: return "MSE";
    case MetricKind::kMae: return "MAE";
    case MetricKind::kPsnr: return "PSNR";
    case MetricKind::kSsim: return "SSIM";
  }
  return "?";
}

std::string MetricSpec::json_key() const {
  switch (kind) {
    case MetricKind::kAccuracy: return "accuracy";
    case MetricKind::kTopK: return "top" + std::to_string(k) + "_accuracy";
    case MetricKind::kPrecision: return "precision";
    case MetricKind::kRecall: return "recall";
    case MetricKind::kF1: return "f1";
    case MetricKind::kMse: return "mse";
    case MetricKind::kMae: return "mae";
    case MetricKind::kPsnr: return "psnr";
    case MetricKind::kSsim: return "ssim";
  }
  return "?";
}

std::optional<MetricSpec> parse_metric(const std::string& name) {
  if (name == "accuracy") return MetricSpec{MetricKind::kAccuracy, 1};
  if (name == "precision") return MetricSpec{MetricKind::kPrecision, 0};
  if (name == "recall") return MetricSpec{MetricKind::kRecall, 0};
  if (name == "f1") return MetricSpec{MetricKind::kF1, 0};
  if (name == "mse") return MetricSpec{MetricKind::kMse, 0};
  if (name == "mae") return MetricSpec{MetricKind::kMae, 0};
  if (name == "psnr") return MetricSpec{MetricKind::kPsnr, 0};
  if (name == "ssim") return MetricSpec{MetricKind::kSsim, 0};
  static const std::regex top_k(R"(^top([1-9]\d{0,5})$)");
  std::smatch match;
  if (std::regex_match(name, match, top_k)) return MetricSpec{MetricKind::kTopK, std::stoll(match[1].str())};
  return std::nullopt;
}

}  // namespace trainer
