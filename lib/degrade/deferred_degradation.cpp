#include "degrade/deferred_degradation.h"

#include <cmath>

namespace trainer {
namespace {

constexpr double kTwoPi = 6.28318530717958647692;
constexpr double kTwoToMinus53 = 1.0 / 9007199254740992.0;

// The int64 bits of a uint64 constant (two's complement: GCC's conversion).
constexpr int64_t bits(uint64_t value) { return static_cast<int64_t>(value); }

// Logical right shift of int64 values (LibTorch's >> keeps the sign).
torch::Tensor shift_right(const torch::Tensor& x, int64_t k) {
  return x.__rshift__(k).bitwise_and((int64_t{1} << (64 - k)) - 1);
}

// splitmix64 (data/image_degrade.cpp) on int64 tensors: additions and
// products wrap around as uint64 arithmetic does.
torch::Tensor splitmix64_each(torch::Tensor x) {
  x = x + bits(0x9E3779B97F4A7C15ULL);
  x = x.bitwise_xor(shift_right(x, 30)) * bits(0xBF58476D1CE4E5B9ULL);
  x = x.bitwise_xor(shift_right(x, 27)) * bits(0x94D049BB133111EBULL);
  return x.bitwise_xor(shift_right(x, 31));
}

}  // namespace

torch::Tensor counter_normals(const torch::Tensor& keys, int64_t channels, int64_t height, int64_t width) {
  const auto options = keys.options().dtype(torch::kInt64);
  // Value (channel, row, column)'s index in PixelWindow's order.
  const torch::Tensor index = (torch::arange(height, options).view({1, height, 1}) * width +
                               torch::arange(width, options).view({1, 1, width})) * channels +
                              torch::arange(channels, options).view({channels, 1, 1});
  const torch::Tensor first = splitmix64_each(
      keys.view({-1, 1, 1, 1}).bitwise_xor(index.unsqueeze(0) * bits(0xD1B54A32D192ED03ULL)));
  const torch::Tensor second = splitmix64_each(first);
  const torch::Tensor u1 = (shift_right(first, 11) + 1).to(torch::kDouble) * kTwoToMinus53;
  const torch::Tensor u2 = shift_right(second, 11).to(torch::kDouble) * kTwoToMinus53;
  return (u1.log() * -2.0).sqrt() * (u2 * kTwoPi).cos();
}

DeferredDegradation DeferredDegradation::to(const torch::Device& device, bool non_blocking) const {
  DeferredDegradation out = *this;
  out.windows = windows.to(device, non_blocking);
  out.kernels = kernels.to(device, non_blocking);
  out.noise_sigmas = noise_sigmas.to(device, non_blocking);
  out.noise_keys = noise_keys.to(device, non_blocking);
  out.brightness = brightness.to(device, non_blocking);
  return out;
}

DeferredDegradation DeferredDegradation::pinned() const {
  DeferredDegradation out = *this;
  out.windows = windows.pin_memory();
  out.kernels = kernels.pin_memory();
  out.noise_sigmas = noise_sigmas.pin_memory();
  out.noise_keys = noise_keys.pin_memory();
  out.brightness = brightness.pin_memory();
  return out;
}

torch::Tensor DeferredDegradation::finish() const {
  torch::NoGradGuard no_grad;
  const int64_t count = windows.size(0), channels = windows.size(1);
  const int64_t padded_height = windows.size(2), padded_width = windows.size(3);
  const int64_t size = kernels.size(1);
  const int64_t height = padded_height - (size - 1), width = padded_width - (size - 1);
  // Each window convolved with its own kernel, by FFT: the product of the
  // spectra is the circular convolution, whose values from K - 1 on are the
  // valid linear ones apply_degradation computes by direct sums.
  torch::Tensor plane = torch::zeros({count, 1, padded_height, padded_width}, windows.options());
  plane.narrow(2, 0, size).narrow(3, 0, size).copy_(kernels.unsqueeze(1));
  const torch::Tensor spectrum = torch::fft::rfft2(windows) * torch::fft::rfft2(plane);
  torch::Tensor values = torch::fft::irfft2(spectrum, std::vector<int64_t>{padded_height, padded_width})
                             .narrow(2, size - 1, height)
                             .narrow(3, size - 1, width);
  if (noisy)
    values = values + (noise_sigmas.view({-1, 1, 1, 1}) * counter_normals(noise_keys, channels, height, width))
                          .to(values.scalar_type());
  // Grey levels, as a file holds them.
  values = values.clamp(0, 255).round();
  // The augmentations' flips and turns (ImagePatchSource's source_of, as
  // tensor operations), then brightness and the scaling.
  std::vector<torch::Tensor> oriented;
  oriented.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const SampleOrientation& o = orientations[static_cast<size_t>(i)];
    torch::Tensor sample = values[i];
    if (o.flip_vertical) sample = sample.flip({1});
    if (o.flip_horizontal) sample = sample.flip({2});
    if (o.quarter_turns != 0) sample = torch::rot90(sample, o.quarter_turns, {1, 2});
    oriented.push_back(sample);
  }
  values = (torch::stack(oriented) + brightness.view({-1, 1, 1, 1})).clamp(0, 255);
  return values * multiply + add;
}

}  // namespace trainer
