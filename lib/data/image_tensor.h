#pragma once
// Decoded images as the model sees them: [channels, height, width] float32,
// resized and scaled as data.images says.
#include <torch/torch.h>

#include "images/image_codec.h"
#include "spec/experiment_config.h"

namespace trainer {

// `image` (of the channels `images.color_mode` asks for) resized to
// images.size (unless empty or already that size) and scaled. Resizing is
// done on the 0..255 values in float, as Keras's tf.image.resize does.
torch::Tensor image_tensor(const Image& image, const ImagesConfig& images);

// `image` brought to images.size as image_tensor does, kept as 8-bit values
// (rounded): what the image caches hold. Unchanged when no size is set.
Image resized_image(Image image, const ImagesConfig& images);

// A [C, H, W] (or [1, C, H, W]) model-side image back as 8-bit pixels, the
// scaling undone and values clamped to 0..255.
Image image_from_tensor(const torch::Tensor& image, const ImagesConfig& images);

// "W x H" of a [C, H, W] image, for messages: width first, as image sizes
// are written (1280 x 720).
inline std::string pixel_size_text(const torch::Tensor& image) {
  return std::to_string(image.size(-1)) + " x " + std::to_string(image.size(-2));
}

// The channels color_mode asks of decode_image.
inline int64_t image_channels(const ImagesConfig& images) { return images.color_mode == ColorMode::kGrayscale ? 1 : 3; }

}  // namespace trainer
