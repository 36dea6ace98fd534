#pragma once
// Image quality of a model's output against its target, per image, as
// scikit-image computes it: the metrics psnr and ssim.
#include <torch/torch.h>

namespace trainer {

// Images [N, C, H, W] of values spanning `value_range` (1 for [0, 1]); both
// return [N] float64.

// 10 log10(range^2 / MSE) over each image's values (skimage's
// peak_signal_noise_ratio); capped at 100 dB, where skimage gives infinity
// for identical images, so that an epoch's mean stays finite.
torch::Tensor image_psnr(const torch::Tensor& output, const torch::Tensor& target, double value_range);

// The mean SSIM of each image over its channels (Wang et al. 2004): 11 x 11
// Gaussian windows of sigma 1.5 wholly inside the image, K1 0.01, K2 0.03,
// population covariances; skimage's structural_similarity with
// gaussian_weights=True, use_sample_covariance=False, and tf.image.ssim.
// Images must be at least 11 x 11 pixels.
torch::Tensor image_ssim(const torch::Tensor& output, const torch::Tensor& target, double value_range);

// The smallest height and width image_ssim takes.
inline constexpr int64_t kSsimWindow = 11;

}  // namespace trainer
