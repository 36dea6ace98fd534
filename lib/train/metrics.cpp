#include "train/metrics.h"

#include <stdexcept>

#include "train/image_quality.h"
#include "train/loss.h"

namespace trainer {

MetricAccumulator::MetricAccumulator(const LossConfig& loss, const std::vector<std::string>& metrics,
                                     bool final_softmax, double value_range, int64_t classes)
    : loss_(loss), final_softmax_(final_softmax), value_range_(value_range) {
  bool per_class = false;
  for (const auto& name : metrics) {
    const auto spec = parse_metric(name);
    if (!spec) throw std::logic_error("metric '" + name + "' passed validation but names no metric");
    metrics_.push_back(*spec);
    per_class = per_class || spec->per_class();
  }
  if (per_class && classes <= 0) throw std::logic_error("precision, recall and f1 need the model's class count");
  if (per_class) classes_ = classes;
  reset();
}

void MetricAccumulator::reset() {
  // Zeroed where they are: a captured step (train.cuda_graph) adds into
  // this very tensor at every replay.
  if (sums_.defined() && !sums_.is_cpu()) sums_.zero_();
  else sums_ = torch::zeros({static_cast<int64_t>(metrics_.size()) + 1 + classes_ * classes_}, torch::kFloat64);
  samples_ = 0;
  snapshot_ = DeferredRead();
  running_.clear();
}

void MetricAccumulator::add(const torch::Tensor& batch_loss, const torch::Tensor& output, const torch::Tensor& labels) {
  add_sums(batch_loss, output, labels);
  add_samples(labels.size(0));
}

void MetricAccumulator::add_sums(const torch::Tensor& batch_loss, const torch::Tensor& output,
                                 const torch::Tensor& labels) {
  torch::NoGradGuard no_grad;
  const int64_t count = labels.size(0);
  std::vector<torch::Tensor> parts{batch_loss.detach().to(torch::kFloat64) * static_cast<double>(count)};
  const auto predicted = predictions(loss_, output.detach(), final_softmax_);
  for (const auto& metric : metrics_) {
    switch (metric.kind) {
      case MetricKind::kPrecision:
      case MetricKind::kRecall:
      case MetricKind::kF1:
        // A placeholder: results() reads them from the confusion counts.
        parts.push_back(torch::zeros({}, torch::TensorOptions(torch::kFloat64).device(predicted.device())));
        break;
      case MetricKind::kAccuracy:
        parts.push_back(predicted.argmax(1).eq(labels).sum().to(torch::kFloat64));
        break;
      case MetricKind::kTopK: {
        const auto top = std::get<1>(predicted.topk(std::min<int64_t>(metric.k, predicted.size(1)), 1));
        parts.push_back(top.eq(labels.unsqueeze(1)).any(1).sum().to(torch::kFloat64));
        break;
      }
      case MetricKind::kMse:
      case MetricKind::kMae: {
        // Class labels are compared as one-hot rows.
        const auto target = labels.is_floating_point()
                                ? labels.reshape(predicted.sizes()).to(predicted.scalar_type())
                                : torch::nn::functional::one_hot(labels, predicted.size(1)).to(predicted.scalar_type());
        const auto error = metric.kind == MetricKind::kMse ? (predicted - target).pow(2) : (predicted - target).abs();
        // Keras: the mean over a sample's values, summed over samples here.
        parts.push_back(error.flatten(1).mean(1).sum().to(torch::kFloat64));
        break;
      }
      case MetricKind::kPsnr:
        parts.push_back(image_psnr(predicted, labels, value_range_).sum());
        break;
      case MetricKind::kSsim:
        parts.push_back(image_ssim(predicted, labels, value_range_).sum());
        break;
    }
  }
  auto batch_sums = torch::stack(parts);
  if (classes_ > 0) {
    // One count per (true class, predicted class) pair, on the device; not
    // bincount, whose CUDA kernel reads the largest pair on the host.
    const auto pairs = labels.to(torch::kLong) * classes_ + predicted.argmax(1);
    const auto counts = torch::zeros({classes_ * classes_}, batch_sums.options())
                            .index_add_(0, pairs, torch::ones(pairs.sizes(), batch_sums.options()));
    batch_sums = torch::cat({batch_sums, counts});
  }
  // The sums live where the batches are: no host sync per step on a GPU.
  if (sums_.device() != batch_loss.device()) sums_ = sums_.to(batch_loss.device());
  sums_ += batch_sums.to(sums_.device());
}

std::vector<MetricValue> MetricAccumulator::results() const { return results_of(sums_.cpu(), samples_); }

std::vector<MetricValue> MetricAccumulator::results_of(const torch::Tensor& host_sums, int64_t samples) const {
  const auto sums = host_sums.contiguous();
  const auto* values = sums.data_ptr<double>();
  const double n = samples > 0 ? static_cast<double>(samples) : 1.0;
  std::vector<MetricValue> out{{"Loss", "loss", static_cast<float>(values[0] / n)}};
  const MacroScores macro = classes_ > 0 ? macro_scores(class_scores(confusion_of(sums))) : MacroScores{};
  for (size_t i = 0; i < metrics_.size(); ++i) {
    double value = values[i + 1] / n;
    if (metrics_[i].kind == MetricKind::kPrecision) value = macro.precision;
    if (metrics_[i].kind == MetricKind::kRecall) value = macro.recall;
    if (metrics_[i].kind == MetricKind::kF1) value = macro.f1;
    out.push_back({metrics_[i].display_name(), metrics_[i].json_key(), static_cast<float>(value)});
  }
  return out;
}

ConfusionMatrix MetricAccumulator::confusion() const { return confusion_of(sums_.cpu()); }

ConfusionMatrix MetricAccumulator::confusion_of(const torch::Tensor& host_sums) const {
  ConfusionMatrix matrix;
  if (classes_ == 0) return matrix;
  matrix.classes = classes_;
  const auto counts = host_sums.contiguous().narrow(0, static_cast<int64_t>(metrics_.size()) + 1, classes_ * classes_);
  const auto* values = counts.data_ptr<double>();
  for (int64_t i = 0; i < classes_ * classes_; ++i) matrix.counts.push_back(static_cast<int64_t>(values[i]));
  return matrix;
}

std::vector<std::pair<std::string, double>> MetricAccumulator::running_values() {
  // The loss and the first metric: what the progress bar has room for.
  const auto first_two = [](const std::vector<MetricValue>& results) {
    std::vector<std::pair<std::string, double>> values;
    for (const MetricValue& value : results) {
      values.emplace_back(value.key, value.value);
      if (values.size() == 2) break;
    }
    return values;
  };
  if (!sums_.is_cuda()) return first_two(results());
  if (snapshot_.ready()) running_ = first_two(results_of(snapshot_.take(), snapshot_samples_));
  if (!snapshot_.pending() && samples_ > 0 && (running_.empty() || snapshot_clock_.seconds() >= 1.0)) {
    snapshot_.start(sums_);
    snapshot_samples_ = samples_;
    snapshot_clock_.reset();
  }
  return running_;
}

double MetricAccumulator::loss_sum() const { return sums_[0].item<double>(); }

torch::Tensor MetricAccumulator::loss_non_finite() const {
  return torch::isfinite(sums_.slice(0, 0, 1)).logical_not().to(torch::kFloat64);
}

torch::Tensor MetricAccumulator::state() const {
  return torch::cat({sums_.cpu(), torch::tensor({static_cast<double>(samples_)}, torch::kFloat64)});
}

void MetricAccumulator::load_state(const torch::Tensor& state) {
  const torch::Tensor sums = state.narrow(0, 0, state.size(0) - 1);
  // In place where they are (see reset()).
  if (sums_.defined() && sums_.sizes() == sums.sizes()) sums_.copy_(sums);
  else sums_ = sums.clone();
  samples_ = static_cast<int64_t>(state[state.size(0) - 1].item<double>());
}

}  // namespace trainer
