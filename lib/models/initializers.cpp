#include "models/initializers.h"

#include <cmath>

namespace trainer {
namespace {

// Keras's VarianceScaling(distribution="truncated_normal"): a normal cut at
// two standard deviations, widened so that the variance is scale / fan.
void truncated_normal(torch::Tensor& weight, double variance) {
  constexpr double kTruncationCorrection = 0.87962566103423978;  // stddev of N(0, 1) cut at +-2
  const double stddev = std::sqrt(variance) / kTruncationCorrection;
  weight.normal_(0, stddev);
  for (torch::Tensor outside = weight.abs() > 2 * stddev; outside.any().item<bool>();
       outside = weight.abs() > 2 * stddev)
    weight.masked_scatter_(outside, torch::empty_like(weight).normal_(0, stddev).masked_select(outside));
}

}  // namespace

void initialise_kernel(torch::Tensor& weight, Initializer scheme, int64_t fan_in, int64_t fan_out) {
  torch::NoGradGuard no_grad;
  switch (scheme) {
    case Initializer::kDefault:
    case Initializer::kGlorotUniform: {
      const double limit = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
      weight.uniform_(-limit, limit);
      return;
    }
    case Initializer::kHeUniform: {
      const double limit = std::sqrt(6.0 / static_cast<double>(fan_in));
      weight.uniform_(-limit, limit);
      return;
    }
    case Initializer::kHeNormal: truncated_normal(weight, 2.0 / static_cast<double>(fan_in)); return;
    case Initializer::kOrthogonal: torch::nn::init::orthogonal_(weight); return;
    case Initializer::kZeros: weight.zero_(); return;
    case Initializer::kOnes: weight.fill_(1.0); return;
    case Initializer::kPytorch: return;
  }
}

void initialise_bias(torch::Tensor& bias, Initializer scheme) {
  if (!bias.defined()) return;
  torch::NoGradGuard no_grad;
  if (scheme == Initializer::kOnes) bias.fill_(1.0);
  else if (scheme != Initializer::kPytorch) bias.zero_();
}

}  // namespace trainer
