#pragma once
// A fully convolutional image-to-image model applied to an image of any
// size: a model trained on 256 x 256 patches restores a 1280 x 720 frame.
#include <torch/torch.h>

#include <functional>

#include "train/tile_options.h"

namespace trainer {

using ImageModel = std::function<torch::Tensor(const torch::Tensor&)>;

// `model` applied to `image` ([1, C, H, W]); the result has the image's
// height and width. With tiles, each output pixel comes from the tile in
// whose written part it lies, computed with `overlap` pixels of context
// (reflected at the image's edges).
torch::Tensor infer_tiled(const ImageModel& model, const torch::Tensor& image, const TileOptions& options);

}  // namespace trainer
