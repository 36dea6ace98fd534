#include "train/image_quality.h"

#include <cmath>

namespace trainer {
namespace {

// Both images in float64, the target shaped as the output.
std::pair<torch::Tensor, torch::Tensor> as_double(const torch::Tensor& output, const torch::Tensor& target) {
  return {output.detach().to(torch::kFloat64), target.detach().reshape(output.sizes()).to(torch::kFloat64)};
}

// The normalised 11 x 11 Gaussian of sigma 1.5, one per channel, for a
// depthwise convolution: [channels, 1, 11, 11].
torch::Tensor gaussian_window(int64_t channels, const torch::TensorOptions& options) {
  const torch::Tensor x = torch::arange(kSsimWindow, options) - (kSsimWindow - 1) / 2;
  torch::Tensor g = (-x.square() / (2 * 1.5 * 1.5)).exp();
  g = g / g.sum();
  return g.outer(g).expand({channels, 1, kSsimWindow, kSsimWindow}).contiguous();
}

}  // namespace

torch::Tensor image_psnr(const torch::Tensor& output, const torch::Tensor& target, double value_range) {
  const auto [x, y] = as_double(output, target);
  const double peak = value_range * value_range;
  const torch::Tensor mse = (x - y).square().flatten(1).mean(1).clamp_min(peak * 1e-10);
  return 10 * (peak / mse).log10();
}

torch::Tensor image_ssim(const torch::Tensor& output, const torch::Tensor& target, double value_range) {
  const auto [x, y] = as_double(output, target);
  const int64_t channels = x.size(1);
  const torch::Tensor window = gaussian_window(channels, x.options());
  namespace F = torch::nn::functional;
  const auto mean = [&](const torch::Tensor& t) { return F::conv2d(t, window, F::Conv2dFuncOptions().groups(channels)); };
  const torch::Tensor mu_x = mean(x), mu_y = mean(y);
  const torch::Tensor var_x = mean(x * x) - mu_x.square();
  const torch::Tensor var_y = mean(y * y) - mu_y.square();
  const torch::Tensor cov = mean(x * y) - mu_x * mu_y;
  const double c1 = std::pow(0.01 * value_range, 2), c2 = std::pow(0.03 * value_range, 2);
  const torch::Tensor map = ((2 * mu_x * mu_y + c1) * (2 * cov + c2)) /
                            ((mu_x.square() + mu_y.square() + c1) * (var_x + var_y + c2));
  return map.flatten(1).mean(1);
}

}  // namespace trainer
