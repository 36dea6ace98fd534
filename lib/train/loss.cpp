#include "train/loss.h"

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
                           bool final_softmax) {
  switch (config.name) {
    case LossKind::kSparseCategoricalCrossentropy:
      if (outputs_logits(config, final_softmax)) return F::cross_entropy(output, labels);
      // Probabilities: clip as Keras does before the log.
      return F::nll_loss(output.clamp(1e-7, 1.0 - 1e-7).log(), labels);
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
  }
  throw std::logic_error("unhandled loss kind");
}

}  // namespace trainer
