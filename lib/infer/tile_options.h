#pragma once
// How `trainer predict` cuts large images for an image-to-image model
// (infer/tiled_inference.h), torch-free for the command line.
#include <algorithm>
#include <cstdint>

namespace trainer {

struct TileOptions {
  // Side of the square tiles the image is cut into (what each reads,
  // overlap included; what it writes is rounded down to a multiple of
  // `multiple`); 0: the whole image at once.
  int64_t tile = 0;
  // Pixels each tile (or the whole image) reads beyond the part of the
  // output it writes, on every side, reflected beyond the image's edges:
  // what the model's receptive field needs so that seams do not show.
  int64_t overlap = 32;
  // The model's input sides must be multiples of this (2^k for k stride-2
  // layers): each piece is padded by reflection to it, and the padding cut
  // off again.
  int64_t multiple = 16;
};

// The side of the square each tile writes (with tiles: `tile` > 0): what it
// reads less the overlap either side, rounded down to a multiple of
// `multiple`, so that every tile sits on the grid of the model's strides
// as the whole image would, and tiles agree with it.
inline int64_t tile_core(const TileOptions& options) {
  const int64_t multiple = std::max<int64_t>(1, options.multiple);
  const int64_t overlap = std::max<int64_t>(0, options.overlap);
  return std::max(multiple, (options.tile - 2 * overlap) / multiple * multiple);
}

}  // namespace trainer
