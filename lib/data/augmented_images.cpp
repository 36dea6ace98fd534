#include "data/augmented_images.h"

#include <cmath>
#include <random>

#include "data/sample_random.h"

namespace trainer {
namespace {

namespace F = torch::nn::functional;

// One sample's choices. All are drawn whatever is enabled, so that switching
// one augmentation on leaves the others' draws as they were.
struct Choices {
  int64_t top = 0, left = 0;  // of the window in the padded image
  bool flip_horizontal = false, flip_vertical = false;
  int64_t quarter_turns = 0;
  double degrees = 0, brightness = 0, contrast = 1, saturation = 1;
};

Choices draw(const AugmentConfig& augment, bool square, std::mt19937_64& random) {
  std::uniform_int_distribution<int64_t> offset(0, 2 * augment.crop_padding);
  std::uniform_int_distribution<int> coin(0, 1), turns(0, 3);
  std::uniform_real_distribution<double> unit(-1, 1);
  Choices c;
  c.top = offset(random);
  c.left = offset(random);
  c.flip_horizontal = coin(random) == 1 && augment.flip_horizontal;
  c.flip_vertical = coin(random) == 1 && augment.flip_vertical;
  const int k = turns(random);
  if (augment.rotate90) c.quarter_turns = square ? k : (k & 1) * 2;
  c.degrees = unit(random) * augment.rotation;
  c.brightness = unit(random) * augment.brightness;
  c.contrast = 1 + unit(random) * augment.contrast;
  c.saturation = 1 + unit(random) * augment.saturation;
  return c;
}

// The images' grey (ITU-R 601 luma, as torchvision's rgb_to_grayscale), [N, 1, H, W].
torch::Tensor grey_of(const torch::Tensor& x) {
  if (x.size(1) != 3) return x.mean(1, true);
  return (x.select(1, 0) * 0.299 + x.select(1, 1) * 0.587 + x.select(1, 2) * 0.114).unsqueeze(1);
}

}  // namespace

AugmentedImageSource::AugmentedImageSource(torch::Tensor images, torch::Tensor labels, const DataConfig& config,
                                           int64_t seed)
    : images_(std::move(images)),
      labels_(std::move(labels).contiguous()),
      augment_(config.augment),
      seed_(seed),
      low_(config.images.scale == PixelScale::kSymmetric ? -1.0 : 0.0),
      high_(low_ + config.images.value_range()) {}

SampleBatch AugmentedImageSource::make_batch(const int64_t* ids, int64_t count, int64_t epoch, bool) const {
  const int64_t h = images_.size(2), w = images_.size(3), pad = augment_.crop_padding;
  std::vector<torch::Tensor> samples;
  std::vector<int64_t> labels;
  std::vector<float> theta, brightness, contrast, saturation;
  const int64_t* label_values = labels_.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) {
    std::mt19937_64 random = sample_generator({seed_, epoch, ids[i], 4});
    const Choices c = draw(augment_, h == w, random);
    torch::Tensor x = images_[ids[i]];
    if (pad > 0)  // black beyond the edges, as torchvision's RandomCrop pads
      x = F::pad(x, F::PadFuncOptions({pad, pad, pad, pad}).value(low_)).slice(1, c.top, c.top + h).slice(2, c.left, c.left + w);
    if (c.flip_horizontal) x = x.flip({2});
    if (c.flip_vertical) x = x.flip({1});
    if (c.quarter_turns > 0) x = x.rot90(c.quarter_turns, {1, 2});
    samples.push_back(x);
    labels.push_back(label_values[ids[i]]);
    // Where each output pixel samples the input, in affine_grid's [-1, 1]
    // coordinates (scaled by the aspect so the angle is the pixels' angle).
    const double radians = c.degrees * M_PI / 180.0, cosine = std::cos(radians), sine = std::sin(radians);
    const double aspect = static_cast<double>(h) / static_cast<double>(w);
    theta.insert(theta.end(), {static_cast<float>(cosine), static_cast<float>(sine * aspect), 0.0f,
                               static_cast<float>(-sine / aspect), static_cast<float>(cosine), 0.0f});
    brightness.push_back(static_cast<float>(c.brightness * (high_ - low_)));
    contrast.push_back(static_cast<float>(c.contrast));
    saturation.push_back(static_cast<float>(c.saturation));
  }
  torch::Tensor batch = torch::stack(samples);
  const auto per_sample = [count](const std::vector<float>& values) {
    return torch::tensor(values).reshape({count, 1, 1, 1});
  };
  if (augment_.rotation > 0) {
    // Bilinear, the corners black: sampled from the image less its black.
    const auto grid = F::affine_grid(torch::tensor(theta).reshape({count, 2, 3}), batch.sizes(), false);
    batch = F::grid_sample(batch - low_, grid,
                           F::GridSampleFuncOptions().mode(torch::kBilinear).padding_mode(torch::kZeros).align_corners(false)) +
            low_;
  }
  const bool recolour = augment_.brightness > 0 || augment_.contrast > 0 || augment_.saturation > 0;
  if (recolour) {
    if (augment_.brightness > 0) batch = batch + per_sample(brightness);
    if (augment_.contrast > 0) {
      const auto mean = grey_of(batch).mean({1, 2, 3}, true);
      batch = (batch - mean) * per_sample(contrast) + mean;
    }
    if (augment_.saturation > 0) {
      const auto grey = grey_of(batch);
      batch = (batch - grey) * per_sample(saturation) + grey;
    }
    batch = batch.clamp(low_, high_);
  }
  return {batch.contiguous(), torch::tensor(labels, torch::kInt64), nullptr};
}

TensorDataset augmented_images(TensorDataset plain, const DataConfig& config, int64_t seed) {
  auto source = std::make_shared<AugmentedImageSource>(plain.inputs, plain.labels, config, seed);
  return {torch::arange(plain.size(), torch::kInt64), plain.labels, std::move(source)};
}

}  // namespace trainer
