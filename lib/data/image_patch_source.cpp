#include "data/image_patch_source.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <random>

#include "data/sample_random.h"
#include "degrade/deferred_degradation.h"
#include "degrade/image_degrade.h"

namespace trainer {
namespace {

SampleOrientation draw_orientation(const AugmentConfig& augment, bool square, std::mt19937_64& random) {
  // All drawn whatever is enabled: switching one on leaves the others' draws.
  std::uniform_int_distribution<int> coin(0, 1), turns(0, 3);
  std::uniform_real_distribution<double> unit(-1, 1);
  SampleOrientation o;
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
std::pair<int64_t, int64_t> source_of(int64_t row, int64_t column, int64_t h, int64_t w, const SampleOrientation& o) {
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

int64_t patches_per_image(const DataConfig& config, bool training) {
  if (config.patch_size <= 0) return 1;
  if (!training && config.validation_patches_per_image > 0) return config.validation_patches_per_image;
  return config.patches_per_image;
}

}  // namespace

ImagePatchSource::ImagePatchSource(std::shared_ptr<const ImageCache> cache, std::vector<PatchPair> pairs,
                                   const DataConfig& config, int64_t seed, bool training)
    : cache_(std::move(cache)),
      pairs_(std::move(pairs)),
      config_(config),
      seed_(seed),
      training_(training),
      // image_degrade's samples only: image_pairs' inputs are files.
      defer_(config.degrade.on_device == DataPlacement::kDevice && !pairs_.empty() && pairs_.front().input < 0),
      per_image_(patches_per_image(config, training)) {
  const int64_t first = pairs_.empty() ? -1 : pairs_.front().target;
  height_ = config.patch_size > 0 ? config.patch_size : first >= 0 ? cache_->height(first) : 0;
  width_ = config.patch_size > 0 ? config.patch_size : first >= 0 ? cache_->width(first) : 0;
  channels_ = config.images.color_mode == ColorMode::kGrayscale ? 1 : 3;
}

std::vector<int64_t> ImagePatchSource::sample_shape() const { return {channels_, height_, width_}; }

struct ImagePatchSource::Draw {
  const PatchPair* pair = nullptr;
  int64_t top = 0, left = 0;
  SampleOrientation orientation;
  std::optional<Degradation> degradation;  // image_degrade's
};

ImagePatchSource::Draw ImagePatchSource::draw_sample(int64_t id, int64_t epoch) const {
  Draw d;
  d.pair = &pairs_[static_cast<size_t>(id / per_image_)];
  const int64_t stream = training_ ? epoch : 0;
  std::mt19937_64 random = sample_generator({seed_, stream, id, training_ ? 1 : 2});
  if (config_.patch_size > 0) {
    // The window's place needs the image's size, not its pixels.
    d.top = std::uniform_int_distribution<int64_t>(0, cache_->height(d.pair->target) - height_)(random);
    d.left = std::uniform_int_distribution<int64_t>(0, cache_->width(d.pair->target) - width_)(random);
  }
  if (training_) d.orientation = draw_orientation(config_.augment, height_ == width_, random);
  if (d.pair->input < 0) {
    std::mt19937_64 degrade_random = sample_generator({config_.degrade.seed, stream, id, 3});
    d.degradation = draw_degradation(config_.degrade, degrade_random);
  }
  return d;
}

namespace {

// value * multiply + add maps 0..255 to data.images.scale's range.
std::pair<float, float> scaling_of(PixelScale scale) {
  if (scale == PixelScale::kUnit) return {1.0f / 255.0f, 0.0f};
  if (scale == PixelScale::kSymmetric) return {1.0f / 127.5f, -1.0f};
  return {1.0f, 0.0f};
}

// `values` (an h x w window, PixelWindow's order) turned as `o` says,
// brightened and scaled into `out` ([channels, h, w]).
template <class Values>
void orient_into(const Values& values, int64_t h, int64_t w, int64_t channels, const SampleOrientation& o,
                 PixelScale scale, float* out) {
  const auto [multiply, add] = scaling_of(scale);
  for (int64_t r = 0; r < h; ++r)
    for (int64_t c = 0; c < w; ++c) {
      const auto [sr, sc] = source_of(r, c, h, w, o);
      for (int64_t ch = 0; ch < channels; ++ch) {
        float v = values(sr, sc, ch);
        if (o.brightness != 0) v = std::clamp(v + o.brightness, 0.0f, 255.0f);
        out[static_cast<size_t>((ch * h + r) * w + c)] = v * multiply + add;
      }
    }
}

}  // namespace

void ImagePatchSource::make_target(const Draw& d, const Image& sharp, float* target) const {
  orient_into([&](int64_t r, int64_t c, int64_t ch) { return sharp.at(d.top + r, d.left + c, ch); }, height_, width_,
              channels_, d.orientation, config_.images.scale, target);
}

void ImagePatchSource::make_input(const Draw& d, const Image& sharp, float* input) const {
  if (!d.degradation) {
    Image scratch;
    const Image& paired = cache_->pixels(d.pair->input, scratch);
    orient_into([&](int64_t r, int64_t c, int64_t ch) { return paired.at(d.top + r, d.left + c, ch); }, height_,
                width_, channels_, d.orientation, config_.images.scale, input);
    return;
  }
  const PixelWindow degraded =
      apply_degradation(*d.degradation, window_of(sharp, d.top, d.left, height_, width_, d.degradation->margin()));
  orient_into([&](int64_t r, int64_t c, int64_t ch) { return degraded.at(r, c, ch); }, height_, width_, channels_,
              d.orientation, config_.images.scale, input);
}

SampleBatch ImagePatchSource::make_batch(const int64_t* ids, int64_t count, int64_t epoch, bool pinned) const {
  if (defer_) return assemble_deferred(ids, count, epoch, pinned);
  const auto memory = torch::TensorOptions().pinned_memory(pinned);
  SampleBatch batch{torch::empty({count, channels_, height_, width_}, memory),
                    torch::empty({count, channels_, height_, width_}, memory), nullptr};
  const int64_t per_sample = channels_ * height_ * width_;
  for (int64_t i = 0; i < count; ++i) {
    const Draw d = draw_sample(ids[i], epoch);
    Image scratch;
    const Image& sharp = cache_->pixels(d.pair->target, scratch);
    make_target(d, sharp, batch.targets.data_ptr<float>() + i * per_sample);
    make_input(d, sharp, batch.inputs.data_ptr<float>() + i * per_sample);
  }
  return batch;
}

SampleBatch ImagePatchSource::assemble_deferred(const int64_t* ids, int64_t count, int64_t epoch, bool pinned) const {
  std::vector<Draw> draws;
  int64_t margin = 0;
  for (int64_t i = 0; i < count; ++i) {
    draws.push_back(draw_sample(ids[i], epoch));
    if (draws.back().degradation->jpeg_quality == 0) margin = std::max(margin, draws.back().degradation->margin());
  }
  const int64_t size = 2 * margin + 1;
  // Every value below is written here, by hand: LibTorch's fills and copies
  // of tensors this large split the work among intra-op threads, and called
  // from a loader thread they start a team of that many threads of its own,
  // spinning on the cores the step's host side needs.
  const auto memory = torch::TensorOptions().pinned_memory(pinned);
  auto deferred = std::make_shared<DeferredDegradation>();
  deferred->windows = torch::empty({count, channels_, height_ + 2 * margin, width_ + 2 * margin}, memory);
  deferred->kernels = torch::empty({count, size, size}, memory);
  std::fill_n(deferred->kernels.data_ptr<float>(), deferred->kernels.numel(), 0.0f);
  deferred->noise_sigmas = torch::empty({count}, memory.dtype(torch::kDouble));
  std::fill_n(deferred->noise_sigmas.data_ptr<double>(), count, 0.0);
  deferred->noise_keys = torch::empty({count}, memory.dtype(torch::kInt64));
  deferred->brightness = torch::empty({count}, memory);
  std::tie(deferred->multiply, deferred->add) = scaling_of(config_.images.scale);
  SampleBatch batch{torch::Tensor(), torch::empty({count, channels_, height_, width_}, memory), nullptr};
  const int64_t per_sample = channels_ * height_ * width_;
  const int64_t window_values = channels_ * (height_ + 2 * margin) * (width_ + 2 * margin);
  for (int64_t i = 0; i < count; ++i) {
    const Draw& d = draws[static_cast<size_t>(i)];
    Image scratch;
    const Image& sharp = cache_->pixels(d.pair->target, scratch);
    make_target(d, sharp, batch.targets.data_ptr<float>() + i * per_sample);
    deferred->orientations.push_back(d.orientation);
    deferred->brightness.data_ptr<float>()[i] = d.orientation.brightness;
    // A JPEG step needs libjpeg: that sample is degraded here, whole, and
    // sits in its window's centre, blurred by a single tap.
    const bool whole = d.degradation->jpeg_quality > 0;
    const PixelWindow window = whole ? apply_degradation(*d.degradation, window_of(sharp, d.top, d.left, height_,
                                                                                    width_, d.degradation->margin()))
                                     : window_of(sharp, d.top, d.left, height_, width_, margin);
    const int64_t inset = whole ? margin : 0;
    const int64_t padded_h = height_ + 2 * margin, padded_w = width_ + 2 * margin;
    float* to = deferred->windows.data_ptr<float>() + i * window_values;
    // A window cut with the batch's margin covers it; a whole sample's
    // centre leaves the margin, which its single tap never reads, at zero.
    if (whole) std::fill(to, to + window_values, 0.0f);
    for (int64_t r = 0; r < window.height; ++r)
      for (int64_t c = 0; c < window.width; ++c)
        for (int64_t ch = 0; ch < channels_; ++ch)
          to[static_cast<size_t>((ch * padded_h + r + inset) * padded_w + c + inset)] = window.at(r, c, ch);
    const BlurKernel kernel = whole ? BlurKernel{} : combined_blur(*d.degradation);
    const int64_t offset = margin - kernel.radius();
    float* weights = deferred->kernels.data_ptr<float>() + i * size * size;
    for (int64_t y = 0; y < kernel.size; ++y)
      for (int64_t x = 0; x < kernel.size; ++x)
        weights[(y + offset) * size + x + offset] = kernel.weights[static_cast<size_t>(y * kernel.size + x)];
    if (!whole && d.degradation->noise_sigma > 0) {
      deferred->noise_sigmas.data_ptr<double>()[i] = d.degradation->noise_sigma;
      deferred->noisy = true;
    }
    deferred->noise_keys.data_ptr<int64_t>()[i] = static_cast<int64_t>(d.degradation->noise_key);
  }
  batch.deferred = std::move(deferred);
  return batch;
}

TensorDataset source_dataset(std::shared_ptr<const ImagePatchSource> source) {
  const torch::Tensor ids = torch::arange(source->size(), torch::kInt64);
  return {ids, ids.clone(), std::move(source)};
}

}  // namespace trainer
