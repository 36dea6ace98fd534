// image_degrade's degradations: camera-shake kernels, blur, noise and JPEG,
// each reproducible from its seed.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "degrade/image_degrade.h"

using namespace trainer;

namespace {

// A window of smooth structure and fine detail (what blur visibly changes).
PixelWindow textured_window(int64_t height, int64_t width, int64_t channels) {
  PixelWindow w{height, width, channels, {}};
  w.values.resize(static_cast<size_t>(height * width * channels));
  std::mt19937_64 random(5);
  std::uniform_real_distribution<float> detail(0, 60);
  for (int64_t r = 0; r < height; ++r)
    for (int64_t c = 0; c < width; ++c)
      for (int64_t ch = 0; ch < channels; ++ch)
        w.at(r, c, ch) = static_cast<float>(100 + 80 * std::sin(0.2 * static_cast<double>(r + 2 * c + ch))) + detail(random);
  return w;
}

DegradeConfig motion_only() {
  DegradeConfig config;
  config.motion_blur.probability = 1;
  config.motion_blur.length = {12, 12};
  return config;
}

double mean_absolute_difference(const PixelWindow& a, const PixelWindow& b) {
  double sum = 0;
  for (size_t i = 0; i < a.values.size(); ++i) sum += std::abs(a.values[i] - b.values[i]);
  return sum / static_cast<double>(a.values.size());
}

// The centre of `window` without `margin` pixels on every side.
PixelWindow centre(const PixelWindow& window, int64_t margin) {
  PixelWindow out{window.height - 2 * margin, window.width - 2 * margin, window.channels, {}};
  for (int64_t r = 0; r < out.height; ++r)
    for (int64_t c = 0; c < out.width; ++c)
      for (int64_t ch = 0; ch < out.channels; ++ch) out.values.push_back(window.at(r + margin, c + margin, ch));
  return out;
}

}  // namespace

TEST_CASE("a camera-shake kernel: odd, normalised, centred, as long as asked, one per seed", "[data][degrade]") {
  for (const double length : {3.0, 12.0, 40.0}) {
    INFO("length " << length);
    std::mt19937_64 random(11);
    const BlurKernel kernel = motion_blur_kernel(length, random);
    CHECK(kernel.size % 2 == 1);
    CHECK(std::accumulate(kernel.weights.begin(), kernel.weights.end(), 0.0) == Approx(1.0).epsilon(1e-5));
    double row = 0, column = 0;
    int64_t extent_rows = 0, extent_columns = 0, first_row = kernel.size, first_column = kernel.size;
    for (int64_t r = 0; r < kernel.size; ++r)
      for (int64_t c = 0; c < kernel.size; ++c) {
        const float w = kernel.weights[static_cast<size_t>(r * kernel.size + c)];
        CHECK(w >= 0);
        row += w * static_cast<double>(r);
        column += w * static_cast<double>(c);
        if (w > 0) {
          first_row = std::min(first_row, r), first_column = std::min(first_column, c);
          extent_rows = std::max(extent_rows, r), extent_columns = std::max(extent_columns, c);
        }
      }
    // Centred on its centre of mass: the blurred image is not shifted.
    CHECK(row == Approx(static_cast<double>(kernel.radius())).margin(1e-3));
    CHECK(column == Approx(static_cast<double>(kernel.radius())).margin(1e-3));
    // A path of `length` pixels reaches no further than that.
    CHECK(std::max(extent_rows - first_row, extent_columns - first_column) <= length + 2);
    CHECK(kernel.size <= 2 * length + 5);
  }
  std::mt19937_64 a(1), b(1), c(2);
  const auto ka = motion_blur_kernel(20, a), kb = motion_blur_kernel(20, b), kc = motion_blur_kernel(20, c);
  CHECK(ka.weights == kb.weights);
  CHECK(ka.weights != kc.weights);
}

TEST_CASE("a degradation: drawn and applied the same from one seed, another from another", "[data][degrade]") {
  DegradeConfig config = motion_only();
  config.noise.probability = 1;
  config.noise.sigma = {0.01, 0.02};
  config.jpeg.probability = 1;
  config.jpeg.quality = {40, 60};
  const auto degrade = [&](uint64_t seed) {
    std::mt19937_64 random(seed);
    const Degradation d = draw_degradation(config, random);
    const PixelWindow sharp = textured_window(32 + 2 * d.margin(), 40 + 2 * d.margin(), 3);
    return std::pair{apply_degradation(d, sharp), centre(sharp, d.margin())};
  };
  const auto [first, sharp] = degrade(7);
  const auto [again, unused] = degrade(7);
  const auto [other, unused2] = degrade(8);
  CHECK(first.height == 32);
  CHECK(first.width == 40);
  CHECK(first.channels == 3);
  CHECK(first.values == again.values);
  CHECK(first.values != other.values);
  // Degraded, and still the same picture.
  const double change = mean_absolute_difference(first, sharp);
  CHECK(change > 3);
  CHECK(change < 40);
  for (float v : first.values) {
    CHECK(v == std::round(v));  // 8-bit values, as a file holds
    if (v < 0 || v > 255) FAIL("value " << v << " outside 0..255");
  }
}

TEST_CASE("each degradation does what it says", "[data][degrade]") {
  std::mt19937_64 random(3);
  SECTION("blur keeps a flat image flat, and smooths detail") {
    Degradation d;
    d.motion = motion_blur_kernel(15, random);
    d.gaussian_sigma = 1.5;
    PixelWindow flat{20 + 2 * d.margin(), 20 + 2 * d.margin(), 1, {}};
    flat.values.assign(static_cast<size_t>(flat.height * flat.width), 77.0f);
    for (float v : apply_degradation(d, flat).values) CHECK(v == 77.0f);
    const PixelWindow sharp = textured_window(20 + 2 * d.margin(), 20 + 2 * d.margin(), 1);
    const PixelWindow blurred = apply_degradation(d, sharp);
    // Neighbouring pixels differ less once blurred.
    const auto roughness = [](const PixelWindow& w) {
      double sum = 0;
      for (int64_t r = 0; r < w.height; ++r)
        for (int64_t c = 1; c < w.width; ++c) sum += std::abs(w.at(r, c, 0) - w.at(r, c - 1, 0));
      return sum;
    };
    CHECK(roughness(blurred) < 0.7 * roughness(centre(sharp, d.margin())));
  }
  SECTION("noise of the standard deviation asked") {
    Degradation d;
    d.noise_sigma = 0.02 * 255;
    PixelWindow flat{64, 64, 3, {}};
    flat.values.assign(64 * 64 * 3, 128.0f);
    const PixelWindow noisy = apply_degradation(d, flat);
    double sum = 0, squares = 0;
    for (float v : noisy.values) sum += v - 128, squares += (v - 128) * (v - 128);
    const double n = static_cast<double>(noisy.values.size());
    CHECK(sum / n == Approx(0).margin(0.2));
    // Rounding to 8 bits adds 1/12 to the variance.
    CHECK(std::sqrt(squares / n) == Approx(std::sqrt(5.1 * 5.1 + 1.0 / 12)).epsilon(0.05));
  }
  SECTION("JPEG: low quality changes more than high quality") {
    const PixelWindow sharp = textured_window(48, 48, 3);
    Degradation low, high;
    low.jpeg_quality = 10;
    high.jpeg_quality = 95;
    const double low_change = mean_absolute_difference(apply_degradation(low, sharp), sharp);
    const double high_change = mean_absolute_difference(apply_degradation(high, sharp), sharp);
    CHECK(high_change < low_change);
    CHECK(low_change > 2);
  }
  SECTION("probabilities: 0 never, 1 always, and the other draws do not move") {
    DegradeConfig config;
    config.motion_blur.probability = 0;
    std::mt19937_64 a(9), b(9);
    const Degradation none = draw_degradation(config, a);
    CHECK_FALSE(none.motion);
    CHECK(none.margin() == 0);
    config.gaussian_blur.probability = 1;
    const Degradation gaussian = draw_degradation(config, b);
    CHECK(gaussian.gaussian_sigma >= 0.5);
    CHECK(gaussian.gaussian_sigma <= 2.0);
    CHECK(a() == b());  // the same number of draws either way
  }
}
