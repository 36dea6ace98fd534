#include "infer/tiled_inference.h"

#include <algorithm>

namespace trainer {
namespace {

namespace F = torch::nn::functional;

int64_t round_up(int64_t value, int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// `x` padded by reflection on every side, `pad` = {left, right, top, bottom}.
// Reflection needs the padding smaller than the side: larger amounts are
// made in steps.
torch::Tensor reflect_pad(torch::Tensor x, std::vector<int64_t> pad) {
  while (std::any_of(pad.begin(), pad.end(), [](int64_t p) { return p > 0; })) {
    const int64_t h = x.size(2), w = x.size(3);
    std::vector<int64_t> step{std::min(pad[0], w - 1), std::min(pad[1], w - 1), std::min(pad[2], h - 1),
                              std::min(pad[3], h - 1)};
    if (std::all_of(step.begin(), step.end(), [](int64_t p) { return p == 0; }))  // a 1-pixel side: repeat it
      return F::pad(x, F::PadFuncOptions(pad).mode(torch::kReplicate));
    x = F::pad(x, F::PadFuncOptions(step).mode(torch::kReflect));
    for (size_t i = 0; i < 4; ++i) pad[i] -= step[i];
  }
  return x;
}

// The model on `piece`, padded on the right and bottom to at least
// `min_side` (the last tiles of a row or column, which the image's edge cuts
// short, are given a whole tile's size) and up to the multiple, and cropped
// back.
torch::Tensor run_padded(const ImageModel& model, const torch::Tensor& piece, int64_t multiple, int64_t min_side) {
  const int64_t h = piece.size(2), w = piece.size(3);
  const int64_t extra_h = round_up(std::max(h, min_side), multiple) - h;
  const int64_t extra_w = round_up(std::max(w, min_side), multiple) - w;
  const torch::Tensor input = extra_h + extra_w > 0 ? reflect_pad(piece, {0, extra_w, 0, extra_h}) : piece;
  return model(input).narrow(2, 0, h).narrow(3, 0, w);
}

// The side of the square each tile writes; without tiles the whole image
// is one tile.
int64_t tile_core(const TileOptions& options, int64_t h, int64_t w) {
  return options.tile <= 0 ? std::max(h, w) : tile_core(options);
}

// One row of tiles: `band` holds the `rows` image rows it writes and
// `overlap` rows of context above and below, and `overlap` columns of
// context either side (reflected beyond the image's edges). Returns the
// output of those rows, [N, C_out, rows, width].
torch::Tensor infer_band(const ImageModel& model, const torch::Tensor& band, int64_t rows, const TileOptions& options,
                         int64_t core) {
  const int64_t multiple = std::max<int64_t>(1, options.multiple);
  const int64_t overlap = std::max<int64_t>(0, options.overlap);
  const int64_t w = band.size(3) - 2 * overlap;
  torch::Tensor out;
  for (int64_t left = 0; left < w; left += core) {
    const int64_t core_w = std::min(core, w - left);
    const torch::Tensor piece = band.narrow(3, left, core_w + 2 * overlap);
    const torch::Tensor result = run_padded(model, piece, multiple, options.tile > 0 ? core + 2 * overlap : 0);
    if (!out.defined()) out = torch::empty({band.size(0), result.size(1), rows, w}, result.options());
    out.narrow(3, left, core_w).copy_(result.narrow(2, overlap, rows).narrow(3, overlap, core_w));
  }
  return out;
}

}  // namespace

torch::Tensor infer_tiled(const ImageModel& model, const torch::Tensor& image, const TileOptions& options) {
  const int64_t h = image.size(2), w = image.size(3);
  const int64_t overlap = std::max<int64_t>(0, options.overlap);
  // The context beyond the image's edges is its reflection, whole or in
  // tiles.
  const int64_t core = tile_core(options, h, w);
  const torch::Tensor context = overlap > 0 ? reflect_pad(image, {overlap, overlap, overlap, overlap}) : image;
  torch::Tensor out;
  for (int64_t top = 0; top < h; top += core) {
    const int64_t rows = std::min(core, h - top);
    const torch::Tensor result = infer_band(model, context.narrow(2, top, rows + 2 * overlap), rows, options, core);
    if (!out.defined()) out = torch::empty({image.size(0), result.size(1), h, w}, result.options());
    out.narrow(2, top, rows).copy_(result);
  }
  return out;
}

void infer_tiled_rows(const ImageModel& model, ImageRowReader& reader, const TileOptions& options,
                      const std::function<torch::Tensor(const Image&)>& to_model,
                      const std::function<void(const torch::Tensor&)>& write) {
  const int64_t h = reader.height(), w = reader.width();
  const int64_t overlap = std::max<int64_t>(0, options.overlap);
  const int64_t core = tile_core(options, h, w);
  // One row of tiles, or context as tall as the image: the whole image, as
  // infer_tiled takes it (its reflection then takes several steps, which
  // the bands below do not repeat).
  if (options.tile <= 0 || h <= core || h <= overlap) {
    write(infer_tiled(model, to_model(reader.next_rows(h)), options));
    return;
  }
  // The rows read and not yet done with: those of the band being computed,
  // from `first` on.
  Image window{0, w, reader.channels(), {}};
  int64_t first = 0;
  const size_t row_bytes = static_cast<size_t>(w * reader.channels());
  for (int64_t top = 0; top < h; top += core) {
    const int64_t rows = std::min(core, h - top);
    const int64_t lo = std::max<int64_t>(0, top - overlap), hi = std::min(h, top + rows + overlap);
    window.pixels.erase(window.pixels.begin(),
                        window.pixels.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(lo - first) * row_bytes));
    window.height -= lo - first;
    first = lo;
    const Image more = reader.next_rows(hi - reader.rows_read());
    window.pixels.insert(window.pixels.end(), more.pixels.begin(), more.pixels.end());
    window.height += more.height;
    // Reflected beyond the image's edges as infer_tiled reflects the whole
    // image: the band holds more than `overlap` rows, so one step does.
    const torch::Tensor band = reflect_pad(to_model(window), {overlap, overlap, overlap - (top - lo), top + rows + overlap - hi});
    write(infer_band(model, band, rows, options, core));
  }
}

}  // namespace trainer
