#include "degrade/image_degrade.h"

#include <algorithm>
#include <cmath>
#include <complex>

#include "images/image_codec.h"

namespace trainer {
namespace {

constexpr double kPi = 3.14159265358979323846;

double uniform(std::mt19937_64& random, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(random);
}

// A value from [low, high] (low itself when they are equal).
double draw(std::mt19937_64& random, const Span& span) { return span.low + (span.high - span.low) * uniform(random, 0, 1); }

// Sebastiano Vigna's splitmix64 finaliser: a 64-bit value's bits well mixed.
uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Draws whatever the probability, so that the draws after it stay put.
bool happens(std::mt19937_64& random, double probability) { return uniform(random, 0, 1) < probability; }

// Boracchi and Foi's trajectory as DeblurGAN's Trajectory.fit writes it: a
// walk of constant speed whose direction is pulled back towards the start
// (centripetal), shaken by Gaussian noise and, rarely, reversed.
std::vector<std::complex<double>> camera_trajectory(double length, std::mt19937_64& random) {
  constexpr int kSteps = 2000;
  static constexpr double kExposures[] = {0.01, 0.009, 0.008, 0.007, 0.005, 0.003};
  const double exposure = kExposures[std::uniform_int_distribution<int>(0, 5)(random)];
  const double centripetal = 0.7 * uniform(random, 0, 1);
  const double big_shake = 0.2 * uniform(random, 0, 1);
  const double gaussian_shake = 10 * uniform(random, 0, 1);
  const double angle = 2 * kPi * uniform(random, 0, 1);
  const double step = length / (kSteps - 1);
  std::normal_distribution<double> normal;
  std::complex<double> velocity = std::polar(1.0, angle) * exposure;
  std::vector<std::complex<double>> points(kSteps);
  for (int t = 0; t + 1 < kSteps; ++t) {
    std::complex<double> turn = 0;
    if (uniform(random, 0, 1) < big_shake * exposure)
      turn = 2.0 * velocity * std::polar(1.0, kPi + (uniform(random, 0, 1) - 0.5));
    const std::complex<double> shake(normal(random), normal(random));
    velocity += turn + exposure * (gaussian_shake * shake - centripetal * points[t]) * step;
    velocity = velocity / std::abs(velocity) * step;
    points[t + 1] = points[t] + velocity;
  }
  return points;
}

// A valid convolution of `in` with `kernel`: the output is 2 * radius
// smaller on each axis. Only the nonzero taps are visited: a motion kernel
// is a thin curve.
PixelWindow convolve_valid(const PixelWindow& in, const BlurKernel& kernel) {
  const int64_t r = kernel.radius();
  PixelWindow out{in.height - 2 * r, in.width - 2 * r, in.channels, {}};
  out.values.assign(static_cast<size_t>(out.height * out.width * out.channels), 0.0f);
  for (int64_t ky = 0; ky < kernel.size; ++ky)
    for (int64_t kx = 0; kx < kernel.size; ++kx) {
      const float w = kernel.weights[static_cast<size_t>(ky * kernel.size + kx)];
      if (w == 0) continue;
      // Convolution: the kernel flipped over the input.
      const int64_t dy = 2 * r - ky, dx = 2 * r - kx;
      for (int64_t y = 0; y < out.height; ++y) {
        const float* from = &in.values[static_cast<size_t>(((y + dy) * in.width + dx) * in.channels)];
        float* to = &out.values[static_cast<size_t>(y * out.width * out.channels)];
        for (int64_t i = 0; i < out.width * out.channels; ++i) to[i] += w * from[i];
      }
    }
  return out;
}

// The 2 * radius + 1 taps of a Gaussian, summing to 1.
std::vector<float> gaussian_taps(double sigma, int64_t radius) {
  std::vector<float> taps(static_cast<size_t>(2 * radius + 1));
  double sum = 0;
  for (int64_t i = -radius; i <= radius; ++i)
    sum += taps[static_cast<size_t>(i + radius)] = static_cast<float>(std::exp(-0.5 * static_cast<double>(i * i) / (sigma * sigma)));
  for (float& tap : taps) tap = static_cast<float>(tap / sum);
  return taps;
}

// Separable Gaussian blur, valid: `radius` pixels lost on every side.
PixelWindow gaussian_blur_valid(const PixelWindow& in, double sigma, int64_t radius) {
  const std::vector<float> taps = gaussian_taps(sigma, radius);
  const int64_t c = in.channels;
  PixelWindow rows{in.height, in.width - 2 * radius, c, {}};
  rows.values.assign(static_cast<size_t>(rows.height * rows.width * c), 0.0f);
  for (int64_t y = 0; y < rows.height; ++y)
    for (int64_t k = 0; k <= 2 * radius; ++k) {
      const float w = taps[static_cast<size_t>(k)];
      const float* from = &in.values[static_cast<size_t>((y * in.width + k) * c)];
      float* to = &rows.values[static_cast<size_t>(y * rows.width * c)];
      for (int64_t i = 0; i < rows.width * c; ++i) to[i] += w * from[i];
    }
  PixelWindow out{in.height - 2 * radius, rows.width, c, {}};
  out.values.assign(static_cast<size_t>(out.height * out.width * c), 0.0f);
  for (int64_t y = 0; y < out.height; ++y)
    for (int64_t k = 0; k <= 2 * radius; ++k) {
      const float w = taps[static_cast<size_t>(k)];
      const float* from = &rows.values[static_cast<size_t>((y + k) * rows.width * c)];
      float* to = &out.values[static_cast<size_t>(y * out.width * c)];
      for (int64_t i = 0; i < out.width * c; ++i) to[i] += w * from[i];
    }
  return out;
}

int64_t gaussian_radius(double sigma) { return sigma > 0 ? static_cast<int64_t>(std::ceil(3 * sigma)) : 0; }

Image to_image(const PixelWindow& window) {
  Image image{window.height, window.width, window.channels, {}};
  image.pixels.reserve(window.values.size());
  for (float v : window.values) image.pixels.push_back(static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 255.0f))));
  return image;
}

}  // namespace

BlurKernel motion_blur_kernel(double length, std::mt19937_64& random) {
  const auto points = camera_trajectory(length, random);
  std::complex<double> centre = 0;
  for (const auto& p : points) centre += p;
  centre /= static_cast<double>(points.size());
  double reach = 0;
  for (const auto& p : points)
    reach = std::max({reach, std::abs(p.real() - centre.real()), std::abs(p.imag() - centre.imag())});
  BlurKernel kernel;
  kernel.size = 2 * (static_cast<int64_t>(std::ceil(reach)) + 1) + 1;
  kernel.weights.assign(static_cast<size_t>(kernel.size * kernel.size), 0.0f);
  const double middle = static_cast<double>(kernel.radius());
  double total = 0;
  // Each point's exposure shared among its four neighbouring pixels.
  for (const auto& p : points) {
    const double x = p.real() - centre.real() + middle, y = p.imag() - centre.imag() + middle;
    const auto x0 = static_cast<int64_t>(std::floor(x)), y0 = static_cast<int64_t>(std::floor(y));
    const double fx = x - static_cast<double>(x0), fy = y - static_cast<double>(y0);
    const double shares[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
    const int64_t xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
    for (int i = 0; i < 4; ++i) {
      kernel.weights[static_cast<size_t>(ys[i] * kernel.size + xs[i])] += static_cast<float>(shares[i]);
      total += shares[i];
    }
  }
  for (float& w : kernel.weights) w = static_cast<float>(w / total);
  return kernel;
}

int64_t Degradation::margin() const { return (motion ? motion->radius() : 0) + gaussian_radius(gaussian_sigma); }

Degradation draw_degradation(const DegradeConfig& config, std::mt19937_64& random) {
  // Every value is drawn whether used or not, so that changing one
  // probability leaves the others' draws as they were.
  Degradation d;
  const bool motion = happens(random, config.motion_blur.probability);
  const double length = draw(random, config.motion_blur.length);
  std::mt19937_64 trajectory_random(random());
  if (motion) d.motion = motion_blur_kernel(length, trajectory_random);
  const bool gaussian = happens(random, config.gaussian_blur.probability);
  const double sigma = draw(random, config.gaussian_blur.sigma);
  if (gaussian) d.gaussian_sigma = sigma;
  const bool noise = happens(random, config.noise.probability);
  const double noise_sigma = draw(random, config.noise.sigma);
  if (noise) d.noise_sigma = noise_sigma * 255;
  const bool jpeg = happens(random, config.jpeg.probability);
  const double quality = draw(random, config.jpeg.quality);
  if (jpeg) d.jpeg_quality = static_cast<int>(std::clamp<long>(std::lround(quality), 1, 100));
  d.noise_key = random();
  return d;
}

BlurKernel combined_blur(const Degradation& degradation) {
  BlurKernel kernel = degradation.motion ? *degradation.motion : BlurKernel{};
  const int64_t radius = gaussian_radius(degradation.gaussian_sigma);
  if (radius == 0) return kernel;
  // The Gaussian's taps as gaussian_blur_valid weighs them, spread over the
  // motion kernel: a full convolution of the two.
  const std::vector<float> taps = gaussian_taps(degradation.gaussian_sigma, radius);
  BlurKernel out;
  out.size = kernel.size + 2 * radius;
  out.weights.assign(static_cast<size_t>(out.size * out.size), 0.0f);
  for (int64_t y = 0; y < kernel.size; ++y)
    for (int64_t x = 0; x < kernel.size; ++x) {
      const float w = kernel.weights[static_cast<size_t>(y * kernel.size + x)];
      if (w == 0) continue;
      for (int64_t i = 0; i <= 2 * radius; ++i)
        for (int64_t j = 0; j <= 2 * radius; ++j)
          out.weights[static_cast<size_t>((y + i) * out.size + x + j)] +=
              w * taps[static_cast<size_t>(i)] * taps[static_cast<size_t>(j)];
    }
  return out;
}

double counter_normal(uint64_t key, uint64_t index) {
  const uint64_t first = splitmix64(key ^ (index * 0xD1B54A32D192ED03ULL));
  const uint64_t second = splitmix64(first);
  // Two uniforms from the top 53 bits; the first in (0, 1], so its log is finite.
  const double u1 = static_cast<double>((first >> 11) + 1) * 0x1.0p-53;
  const double u2 = static_cast<double>(second >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

PixelWindow apply_degradation(const Degradation& degradation, const PixelWindow& sharp) {
  PixelWindow window = degradation.motion ? convolve_valid(sharp, *degradation.motion) : sharp;
  const int64_t radius = gaussian_radius(degradation.gaussian_sigma);
  if (radius > 0) window = gaussian_blur_valid(window, degradation.gaussian_sigma, radius);
  if (degradation.noise_sigma > 0)
    for (size_t i = 0; i < window.values.size(); ++i)
      window.values[i] += static_cast<float>(degradation.noise_sigma * counter_normal(degradation.noise_key, i));
  Image image = to_image(window);
  if (degradation.jpeg_quality > 0)
    image = decode_image(encode_jpeg(image, degradation.jpeg_quality, "a degraded patch"), "a degraded patch",
                         image.channels);
  window.values.assign(image.pixels.begin(), image.pixels.end());
  return window;
}

}  // namespace trainer
