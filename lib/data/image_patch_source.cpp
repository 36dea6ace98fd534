#include "data/image_patch_source.h"

#include <algorithm>
#include <random>

#include "data/image_degrade.h"

namespace trainer {
namespace {

// A generator seeded by every part of `parts` in full (std::seed_seq takes
// 32-bit words).
std::mt19937_64 seeded(std::initializer_list<int64_t> parts) {
  std::vector<uint32_t> words;
  for (int64_t part : parts) {
    words.push_back(static_cast<uint32_t>(static_cast<uint64_t>(part)));
    words.push_back(static_cast<uint32_t>(static_cast<uint64_t>(part) >> 32));
  }
  std::seed_seq sequence(words.begin(), words.end());
  return std::mt19937_64(sequence);
}

// The choices augmentation made for one sample.
struct Orientation {
  bool flip_horizontal = false, flip_vertical = false;
  int quarter_turns = 0;  // counter-clockwise, as numpy's rot90
  float brightness = 0;   // added to 0..255 values
};

Orientation draw_orientation(const AugmentConfig& augment, bool square, std::mt19937_64& random) {
  // All drawn whatever is enabled: switching one on leaves the others' draws.
  std::uniform_int_distribution<int> coin(0, 1), turns(0, 3);
  std::uniform_real_distribution<double> unit(-1, 1);
  Orientation o;
  const bool h = coin(random) == 1, v = coin(random) == 1;
  const int k = turns(random);
  const double b = unit(random);
  o.flip_horizontal = augment.flip_horizontal && h;
  o.flip_vertical = augment.flip_vertical && v;
  if (augment.rotate90) o.quarter_turns = square ? k : (k & 1) * 2;
  o.brightness = static_cast<float>(b * augment.brightness * 255.0);
  return o;
}

// Where output pixel (row, column) of an h x w sample comes from in the
// window: the rotation undone, then the flips.
std::pair<int64_t, int64_t> source_of(int64_t row, int64_t column, int64_t h, int64_t w, const Orientation& o) {
  int64_t r = row, c = column;
  switch (o.quarter_turns) {
    case 1: r = column, c = w - 1 - row; break;
    case 2: r = h - 1 - row, c = w - 1 - column; break;
    case 3: r = h - 1 - column, c = row; break;
    default: break;
  }
  if (o.flip_vertical) r = h - 1 - r;
  if (o.flip_horizontal) c = w - 1 - c;
  return {r, c};
}

// The h x w window of `image` at (top, left) with `margin` more on every
// side, pixels beyond the image's edge repeating its edge.
PixelWindow window_of(const Image& image, int64_t top, int64_t left, int64_t h, int64_t w, int64_t margin) {
  PixelWindow out{h + 2 * margin, w + 2 * margin, image.channels, {}};
  out.values.resize(static_cast<size_t>(out.height * out.width * out.channels));
  for (int64_t r = 0; r < out.height; ++r) {
    const int64_t y = std::clamp<int64_t>(top - margin + r, 0, image.height - 1);
    for (int64_t c = 0; c < out.width; ++c) {
      const int64_t x = std::clamp<int64_t>(left - margin + c, 0, image.width - 1);
      for (int64_t ch = 0; ch < out.channels; ++ch) out.at(r, c, ch) = image.at(y, x, ch);
    }
  }
  return out;
}

}  // namespace

ImagePatchSource::ImagePatchSource(std::shared_ptr<const ImageCache> cache, std::vector<PatchPair> pairs,
                                   const DataConfig& config, int64_t seed, bool training)
    : cache_(std::move(cache)),
      pairs_(std::move(pairs)),
      config_(config),
      seed_(seed),
      training_(training),
      per_image_(config.patch_size > 0 ? config.patches_per_image : 1) {
  const int64_t first = pairs_.empty() ? -1 : pairs_.front().target;
  height_ = config.patch_size > 0 ? config.patch_size : first >= 0 ? cache_->height(first) : 0;
  width_ = config.patch_size > 0 ? config.patch_size : first >= 0 ? cache_->width(first) : 0;
  channels_ = config.images.color_mode == ColorMode::kGrayscale ? 1 : 3;
}

std::vector<int64_t> ImagePatchSource::sample_shape() const { return {channels_, height_, width_}; }

void ImagePatchSource::make_sample(int64_t id, int64_t epoch, float* input, float* target) const {
  const PatchPair& pair = pairs_[static_cast<size_t>(id / per_image_)];
  const int64_t stream = training_ ? epoch : 0;
  std::mt19937_64 random = seeded({seed_, stream, id, training_ ? 1 : 2});
  Image target_scratch, input_scratch;
  const Image& sharp = cache_->pixels(pair.target, target_scratch);
  const int64_t h = height_, w = width_;
  int64_t top = 0, left = 0;
  if (config_.patch_size > 0) {
    top = std::uniform_int_distribution<int64_t>(0, sharp.height - h)(random);
    left = std::uniform_int_distribution<int64_t>(0, sharp.width - w)(random);
  }
  const Orientation o = training_ ? draw_orientation(config_.augment, h == w, random) : Orientation{};
  PixelWindow degraded;
  const Image* paired = nullptr;
  if (pair.input >= 0) {
    paired = &cache_->pixels(pair.input, input_scratch);
  } else {
    std::mt19937_64 degrade_random = seeded({config_.degrade.seed, stream, id, 3});
    const Degradation degradation = draw_degradation(config_.degrade, degrade_random);
    degraded = apply_degradation(degradation, window_of(sharp, top, left, h, w, degradation.margin()), degrade_random);
  }
  float multiply = 1, add = 0;
  if (config_.images.scale == PixelScale::kUnit) multiply = 1.0f / 255.0f;
  if (config_.images.scale == PixelScale::kSymmetric) multiply = 1.0f / 127.5f, add = -1.0f;
  const auto scaled = [&](float v) {
    if (o.brightness != 0) v = std::clamp(v + o.brightness, 0.0f, 255.0f);
    return v * multiply + add;
  };
  for (int64_t r = 0; r < h; ++r)
    for (int64_t c = 0; c < w; ++c) {
      const auto [sr, sc] = source_of(r, c, h, w, o);
      for (int64_t ch = 0; ch < channels_; ++ch) {
        const size_t at = static_cast<size_t>((ch * h + r) * w + c);
        target[at] = scaled(sharp.at(top + sr, left + sc, ch));
        input[at] = scaled(paired ? paired->at(top + sr, left + sc, ch) : degraded.at(sr, sc, ch));
      }
    }
}

std::pair<torch::Tensor, torch::Tensor> ImagePatchSource::assemble(const int64_t* ids, int64_t count,
                                                                    int64_t epoch) const {
  torch::Tensor inputs = torch::empty({count, channels_, height_, width_});
  torch::Tensor targets = torch::empty({count, channels_, height_, width_});
  const int64_t per_sample = channels_ * height_ * width_;
  for (int64_t i = 0; i < count; ++i)
    make_sample(ids[i], epoch, inputs.data_ptr<float>() + i * per_sample, targets.data_ptr<float>() + i * per_sample);
  return {inputs, targets};
}

TensorDataset source_dataset(std::shared_ptr<const ImagePatchSource> source) {
  const torch::Tensor ids = torch::arange(source->size(), torch::kInt64);
  return {ids, ids.clone(), std::move(source)};
}

}  // namespace trainer
