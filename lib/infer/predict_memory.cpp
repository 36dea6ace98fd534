#include "infer/predict_memory.h"

#include <algorithm>

#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

constexpr int64_t kFloat = 4;

// Rows and columns one band holds with tiles of `tiles.tile` (infer_tiled_rows):
// one row of tiles and the context above, below and beside it.
ImageShape band_of(const ImageShape& image, const TileOptions& tiles) {
  const int64_t overlap = std::max<int64_t>(0, tiles.overlap);
  return {image.width + 2 * overlap, std::min(image.height, tile_core(tiles) + 2 * overlap), image.channels};
}

}  // namespace

int64_t predict_image_bytes(const ImageShape& image, bool images_out, const TileOptions& tiles) {
  const int64_t pixels = image.width * image.height, c = image.channels;
  if (!images_out) return pixels * c * (1 + kFloat);  // the 8-bit image and its float copy, before resizing
  if (tiles.tile <= 0) return pixels * c * (1 + kFloat) * 2;  // input and output, each 8-bit and float
  // The 8-bit window, the band as the model reads it (made, then padded by
  // reflection: two copies), and the band's output in float and 8-bit.
  const ImageShape band = band_of(image, tiles);
  const int64_t band_pixels = band.width * band.height;
  return band_pixels * c * (1 + 2 * kFloat) + image.width * band.height * c * (kFloat + 1);
}

std::optional<int64_t> predict_memory_budget(int64_t budget_bytes, std::optional<int64_t> available) {
  if (budget_bytes <= 0) return available;
  return available ? std::min(budget_bytes, *available) : budget_bytes;
}

void check_image_fits(const std::string& path, const ImageShape& image, bool images_out, const TileOptions& tiles,
                      std::optional<int64_t> budget, const std::string& budget_source) {
  const int64_t need = predict_image_bytes(image, images_out, tiles);
  if (!budget || need <= *budget) return;
  std::string hint;
  if (!images_out) {
    hint = "the model reads it resized, so resize it first (or set memory_limit higher)";
  } else {
    // The largest tile side among the usual ones whose band fits.
    int64_t fitting = 0;
    for (int64_t side : {2048, 1024, 512, 256, 128}) {
      TileOptions smaller = tiles;
      smaller.tile = side;
      if ((tiles.tile <= 0 || side < tiles.tile) && side > 2 * std::max<int64_t>(0, tiles.overlap) &&
          predict_image_bytes(image, true, smaller) <= *budget) {
        fitting = side;
        break;
      }
    }
    hint = fitting > 0 ? "predict it in tiles of " + std::to_string(fitting) + " pixels or fewer (--tile " +
                             std::to_string(fitting) + "), which read it a band of rows at a time"
                       : "no tile side fits either: free memory, or set memory_limit higher";
  }
  throw OutOfMemoryError(path + " (" + std::to_string(image.width) + " x " + std::to_string(image.height) +
                             " pixels) needs " + format_mib(need) + (tiles.tile > 0 && images_out ? " for each band of tiles" : "") +
                             " before the model's own memory, more than the " + format_mib(*budget) + " " +
                             budget_source,
                         hint);
}

}  // namespace trainer
