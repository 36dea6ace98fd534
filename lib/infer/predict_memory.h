#pragma once
// What one image costs `trainer predict` on the host, checked before its
// pixels are decoded: a 250 KB PNG can declare 16000 x 16000 pixels, 768 MB
// as 8-bit RGB and 3 GB as the float tensor a model reads. An image past
// the budget is refused naming it (exit code 6) rather than taking the
// machine's memory until the kernel ends the process.
#include <cstdint>
#include <optional>
#include <string>

#include "infer/tile_options.h"

namespace trainer {

struct ImageShape {
  int64_t width = 0, height = 0, channels = 0;
};

// Bytes the image's own data takes at its peak, the model's activations
// not counted: its 8-bit pixels and the float copy the model reads, and for
// an image-to-image model the output (taken to have the input's channels)
// in float and 8-bit. Whole, or, with tiles, one band of rows at a time
// (the rows one row of tiles reads, context included: infer_tiled_rows).
int64_t predict_image_bytes(const ImageShape& image, bool images_out, const TileOptions& tiles);

// The host memory an image may take: `budget_bytes` (memory_limit on a CPU,
// less what LibTorch holds already; 0: none) and `available` (what the
// system has left: host_memory.h), the smaller of those known.
std::optional<int64_t> predict_memory_budget(int64_t budget_bytes, std::optional<int64_t> available);

// Throws OutOfMemoryError naming `path`, its size, what it needs and the
// budget when predict_image_bytes is past `budget`, with what to do: tiles
// for an image model (the tile side that fits, when one does), a smaller
// image for a classifier.
void check_image_fits(const std::string& path, const ImageShape& image, bool images_out, const TileOptions& tiles,
                      std::optional<int64_t> budget, const std::string& budget_source);

}  // namespace trainer
