#include "train/image_quality.h"

#include <cmath>

namespace trainer {
namespace {

// Both images in float64, the target shaped as the output.
std::pair<torch::Tensor, torch::Tensor> as_double(const torch::Tensor& output, const torch::Tensor& target) {
  return {output.detach().to(torch::kFloat64), target.detach().reshape(output.sizes()).to(torch::kFloat64)};
}

// The normalised 11-tap Gaussian of sigma 1.5, [11]. The 11 x 11 window is
// its outer product, so a window's weighted mean is two passes of 11 taps
// (down the columns, then along the rows) instead of one of 121. The
// 121-tap depthwise convolution in float64, which CPUs run without oneDNN,
// took some 1.1 s for a batch of 8 128-pixel images, about 60 % of a
// training step of deblur_resnet_small.yaml; the two passes take 0.035 s.
// scripts/bench/metric_cost.sh times an epoch with the metrics and without.
torch::Tensor gaussian_taps(const torch::TensorOptions& options) {
  const torch::Tensor x = torch::arange(kSsimWindow, options) - (kSsimWindow - 1) / 2;
  const torch::Tensor g = (-x.square() / (2 * 1.5 * 1.5)).exp();
  return g / g.sum();
}

// The Gaussian-weighted mean of every 11 x 11 window wholly inside the
// images, channel by channel: [N, C, H, W] -> [N, C, H - 10, W - 10].
torch::Tensor window_means(const torch::Tensor& t) {
  namespace F = torch::nn::functional;
  const int64_t channels = t.size(1);
  const torch::Tensor taps = gaussian_taps(t.options());
  const auto pass = [&](const torch::Tensor& in, std::vector<int64_t> shape) {
    return F::conv2d(in, taps.view(shape).expand({channels, 1, shape[2], shape[3]}).contiguous(),
                     F::Conv2dFuncOptions().groups(channels));
  };
  return pass(pass(t, {1, 1, kSsimWindow, 1}), {1, 1, 1, kSsimWindow});
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
  // The five maps whose window means SSIM needs, filtered in one call.
  const std::vector<torch::Tensor> means = window_means(torch::cat({x, y, x * x, y * y, x * y}, 1)).chunk(5, 1);
  const torch::Tensor& mu_x = means[0];
  const torch::Tensor& mu_y = means[1];
  const torch::Tensor var_x = means[2] - mu_x.square();
  const torch::Tensor var_y = means[3] - mu_y.square();
  const torch::Tensor cov = means[4] - mu_x * mu_y;
  const double c1 = std::pow(0.01 * value_range, 2), c2 = std::pow(0.03 * value_range, 2);
  const torch::Tensor map = ((2 * mu_x * mu_y + c1) * (2 * cov + c2)) /
                            ((mu_x.square() + mu_y.square() + c1) * (var_x + var_y + c2));
  return map.flatten(1).mean(1);
}

}  // namespace trainer
