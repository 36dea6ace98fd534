#include "train/loss.h"

#include "train/scripted_loss.h"
#include "util/error.h"

namespace trainer {
namespace {

namespace F = torch::nn::functional;

bool outputs_logits(const LossConfig& config, bool final_softmax) {
  return final_softmax || (config.name == LossKind::kSparseCategoricalCrossentropy && config.from_logits);
}

// Integer class labels become one-hot rows, so mse/mae compare probabilities.
torch::Tensor regression_target(const torch::Tensor& labels, const torch::Tensor& like) {
  if (labels.is_floating_point()) return labels.reshape(like.sizes());
  return F::one_hot(labels, like.size(1)).to(like.scalar_type());
}

}  // namespace

torch::Tensor predictions(const LossConfig& config, const torch::Tensor& output, bool final_softmax) {
  return outputs_logits(config, final_softmax) ? torch::softmax(output, 1) : output;
}

torch::Tensor compute_loss(const LossConfig& config, const torch::Tensor& output, const torch::Tensor& labels,
                           bool final_softmax, const torch::Tensor& class_weights) {
  switch (config.name) {
    case LossKind::kSparseCategoricalCrossentropy: {
      const bool logits = outputs_logits(config, final_softmax);
      // Probabilities: clip as Keras does before the log.
      const torch::Tensor scores = logits ? output : output.clamp(1e-7, 1.0 - 1e-7).log();
      if (config.label_smoothing == 0 && !class_weights.defined())
        return logits ? F::cross_entropy(scores, labels) : F::nll_loss(scores, labels);
      // PyTorch's smoothing and weighting. On log-probabilities its
      // log-softmax changes nothing but the clipping's last bits.
      auto options = F::CrossEntropyFuncOptions().label_smoothing(config.label_smoothing);
      if (class_weights.defined()) options.weight(class_weights.to(scores.scalar_type()));
      return F::cross_entropy(scores, labels, options);
    }
    case LossKind::kMse: {
      const auto predicted = predictions(config, output, final_softmax);
      return F::mse_loss(predicted, regression_target(labels, predicted));
    }
    case LossKind::kMae:
    case LossKind::kL1: {
      const auto predicted = predictions(config, output, final_softmax);
      return F::l1_loss(predicted, regression_target(labels, predicted));
    }
    case LossKind::kCharbonnier: {
      // mean(sqrt(d^2 + eps^2)): L1 away from zero, smooth at it.
      const auto predicted = predictions(config, output, final_softmax);
      const auto difference = predicted - regression_target(labels, predicted);
      return (difference.square() + config.epsilon * config.epsilon).sqrt().mean();
    }
    case LossKind::kTorchScript:
      return scripted_loss(config.path, predictions(config, output, final_softmax), labels);
  }
  throw std::logic_error("unhandled loss kind");
}

torch::Tensor class_weight_tensor(const LossConfig& config, const torch::Tensor& labels, int64_t classes) {
  const ClassWeights& weights = config.class_weights;
  if (!weights.any() || classes <= 0) return {};
  if (!weights.balanced) {
    if (static_cast<int64_t>(weights.values.size()) != classes)
      throw ConfigError({"loss.class_weights: " + std::to_string(weights.values.size()) + " weights for " +
                         std::to_string(classes) + " classes; give one a class, or balanced"});
    return torch::tensor(weights.values, torch::kFloat32);
  }
  // n / (classes x n_c); a class without samples weighs nothing.
  const torch::Tensor counts = torch::bincount(labels.flatten().to(torch::kInt64).cpu(), {}, classes).to(torch::kFloat64);
  const torch::Tensor balanced = static_cast<double>(labels.numel()) / (static_cast<double>(classes) * counts);
  return torch::where(counts > 0, balanced, torch::zeros_like(balanced)).to(torch::kFloat32);
}

}  // namespace trainer
