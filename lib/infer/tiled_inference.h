#pragma once
// A fully convolutional image-to-image model applied to an image of any
// size: a model trained on 256 x 256 patches restores a 1280 x 720 frame.
#include <torch/torch.h>

#include <functional>

#include "images/image_rows.h"
#include "infer/tile_options.h"

namespace trainer {

using ImageModel = std::function<torch::Tensor(const torch::Tensor&)>;

// `model` applied to `image` ([1, C, H, W]); the result has the image's
// height and width. With tiles, each output pixel comes from the tile in
// whose written part it lies, computed with `overlap` pixels of context
// (reflected at the image's edges).
torch::Tensor infer_tiled(const ImageModel& model, const torch::Tensor& image, const TileOptions& options);

}  // namespace trainer

namespace trainer {

// As infer_tiled, for an image read from `reader` a band of rows at a time
// (the rows one row of tiles reads, context included), so that memory grows
// with the image's width, not its area: `to_model` makes a band's rows the
// model's input ([1, C, rows, W]), and `write` takes each band's output
// ([1, C_out, rows, W]) top to bottom. Gives the pixels infer_tiled gives
// on the whole image. Without tiles, or for an image no taller than one
// row of tiles, the whole image is read and handed over at once.
void infer_tiled_rows(const ImageModel& model, ImageRowReader& reader, const TileOptions& options,
                      const std::function<torch::Tensor(const Image&)>& to_model,
                      const std::function<void(const torch::Tensor&)>& write);

}  // namespace trainer
