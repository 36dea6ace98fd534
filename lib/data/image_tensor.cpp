#include "data/image_tensor.h"

namespace trainer {
namespace {

namespace F = torch::nn::functional;

// Keras's crop_to_aspect_ratio: the largest centred window of the target's
// aspect ratio ([1, C, H, W] in and out).
torch::Tensor crop_to_aspect(const torch::Tensor& x, int64_t target_height, int64_t target_width) {
  const int64_t height = x.size(2), width = x.size(3);
  const int64_t crop_height = std::min(height, width * target_height / target_width);
  const int64_t crop_width = std::min(width, height * target_width / target_height);
  return x.narrow(2, (height - crop_height) / 2, crop_height).narrow(3, (width - crop_width) / 2, crop_width);
}

torch::Tensor resized(const torch::Tensor& x, int64_t height, int64_t width, Interpolation interpolation) {
  if (x.size(2) == height && x.size(3) == width) return x;
  auto options = F::InterpolateFuncOptions().size(std::vector<int64_t>{height, width});
  switch (interpolation) {
    // Half-pixel centres, no antialiasing: tf.image.resize's bilinear.
    case Interpolation::kBilinear: options.mode(torch::kBilinear).align_corners(false); break;
    // Rounded half-pixel centres: TensorFlow 2's nearest.
    case Interpolation::kNearest: options.mode(torch::kNearestExact); break;
    case Interpolation::kArea: options.mode(torch::kArea); break;
  }
  return F::interpolate(x, options);
}

// [C, H, W] float 0..255, at images.size.
torch::Tensor sized_values(const Image& image, const ImagesConfig& images) {
  torch::Tensor x = torch::from_blob(const_cast<uint8_t*>(image.pixels.data()), {image.height, image.width, image.channels},
                                     torch::kUInt8)
                        .permute({2, 0, 1})
                        .to(torch::kFloat32)
                        .unsqueeze(0);
  if (!images.size.empty()) {
    if (images.resize == ResizeMode::kCrop) x = crop_to_aspect(x, images.size[0], images.size[1]);
    x = resized(x, images.size[0], images.size[1], images.interpolation);
  }
  return x.squeeze(0).contiguous();
}

}  // namespace

Image resized_image(Image image, const ImagesConfig& images) {
  if (images.size.empty() || (image.height == images.size[0] && image.width == images.size[1])) return image;
  const torch::Tensor x = sized_values(image, images).round_().clamp_(0, 255).to(torch::kUInt8).permute({1, 2, 0}).contiguous();
  Image out{x.size(0), x.size(1), x.size(2), {}};
  out.pixels.assign(x.data_ptr<uint8_t>(), x.data_ptr<uint8_t>() + x.numel());
  return out;
}

torch::Tensor image_tensor(const Image& image, const ImagesConfig& images) {
  torch::Tensor x = sized_values(image, images);
  switch (images.scale) {
    case PixelScale::kUnit: return x.div_(255.0f);
    case PixelScale::kSymmetric: return x.div_(127.5f).sub_(1.0f);
    case PixelScale::kNone: return x;
  }
  return x;
}

Image image_from_tensor(const torch::Tensor& image, const ImagesConfig& images) {
  torch::Tensor x = (image.dim() == 4 ? image.squeeze(0) : image).to(torch::kCPU, torch::kFloat32);
  if (images.scale == PixelScale::kUnit) x = x * 255.0;
  if (images.scale == PixelScale::kSymmetric) x = (x + 1.0) * 127.5;
  x = x.round().clamp(0, 255).to(torch::kUInt8).permute({1, 2, 0}).contiguous();
  Image out{x.size(0), x.size(1), x.size(2), {}};
  out.pixels.assign(x.data_ptr<uint8_t>(), x.data_ptr<uint8_t>() + x.numel());
  return out;
}

}  // namespace trainer
