#pragma once
// How image_degrade turns a window of a sharp image into its degraded input
// (torch-free): motion blur along a random camera trajectory, Gaussian blur,
// noise and JPEG compression, each drawn from a random generator the caller
// seeds, so that one seed gives one degradation.
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "spec/image_pipeline_config.h"

namespace trainer {

// Pixels as float, row by row, channels together (as Image), 0..255.
struct PixelWindow {
  int64_t height = 0;
  int64_t width = 0;
  int64_t channels = 0;
  std::vector<float> values;

  float& at(int64_t row, int64_t column, int64_t channel) {
    return values[static_cast<size_t>((row * width + column) * channels + channel)];
  }
  float at(int64_t row, int64_t column, int64_t channel) const {
    return values[static_cast<size_t>((row * width + column) * channels + channel)];
  }
};

// A square, odd-sized convolution kernel whose weights sum to 1.
struct BlurKernel {
  int64_t size = 1;
  std::vector<float> weights{1.0f};  // size x size, row by row
  int64_t radius() const { return size / 2; }
};

// The point spread function of a camera shaken along a random trajectory of
// `length` pixels: Boracchi and Foi's random walk ("Modeling the performance
// of image restoration from motion blur", 2012), with the parameters
// DeblurGAN's generate_trajectory.py draws (2000 steps, its exposure
// constants), splatted bilinearly and centred on its centre of mass so that
// the blurred image stays aligned with the sharp one.
BlurKernel motion_blur_kernel(double length, std::mt19937_64& random);

// One degradation, drawn before it is applied: the margin it needs around a
// window is known in advance.
struct Degradation {
  std::optional<BlurKernel> motion;
  double gaussian_sigma = 0;  // 0: none
  double noise_sigma = 0;     // of 255; 0: none
  uint64_t noise_key = 0;     // names the noise: see counter_normal
  int jpeg_quality = 0;       // 0: none

  // Pixels each blur reads beyond the window on every side.
  int64_t margin() const;
};

// Both blurs as one kernel (the motion kernel convolved with the Gaussian's;
// a single tap where there is no blur), of radius margin(): a valid
// convolution with it is the two valid convolutions apply_degradation does,
// one after the other.
BlurKernel combined_blur(const Degradation& degradation);

// A standard normal value that depends on (key, index) alone: splitmix64
// hashes and the Box-Muller transform, in integer and double arithmetic that
// a GPU repeats exactly (degrade/deferred_degradation.h), so that noise is the
// same wherever a degradation is applied. Noise value i of a window is
// counter_normal(noise_key, i), i counting its values in PixelWindow's
// order.
double counter_normal(uint64_t key, uint64_t index);

Degradation draw_degradation(const DegradeConfig& config, std::mt19937_64& random);

// `sharp` is a window with degradation.margin() extra pixels on every side;
// returns its centre, degraded, rounded to 8-bit values as a file would hold
// them.
PixelWindow apply_degradation(const Degradation& degradation, const PixelWindow& sharp);

}  // namespace trainer
