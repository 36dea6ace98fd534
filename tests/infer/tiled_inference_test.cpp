// Fully convolutional inference on images of any size: whole, padded to the
// model's multiple, and in tiles that give the whole image's result.
#include <catch2/catch.hpp>
#include <torch/torch.h>

#include <random>

#include "images/image_codec.h"
#include "images/image_rows.h"
#include "infer/tiled_inference.h"

using namespace trainer;

namespace {

// Two 5 x 5 convolutions with reflection padding: each output pixel reads 4
// pixels around it.
torch::nn::Sequential reflecting_model() {
  torch::manual_seed(4);
  return torch::nn::Sequential(torch::nn::ReflectionPad2d(2), torch::nn::Conv2d(3, 4, 5), torch::nn::ReLU(),
                               torch::nn::ReflectionPad2d(2), torch::nn::Conv2d(4, 3, 5));
}

}  // namespace

TEST_CASE("tiles with enough overlap give the whole image's output, too little shows seams", "[train][predict]") {
  torch::NoGradGuard no_grad;
  auto model = reflecting_model();
  const ImageModel apply = [&](const torch::Tensor& x) { return model->forward(x); };
  const torch::Tensor image = torch::rand({1, 3, 50, 70});
  const torch::Tensor whole = infer_tiled(apply, image, {0, 0, 1});
  REQUIRE(whole.sizes() == torch::IntArrayRef({1, 3, 50, 70}));
  CHECK(torch::allclose(whole, model->forward(image)));
  // The same context beyond the image's edges (4 reflected pixels), whole
  // or in tiles: the same output.
  const torch::Tensor with_context = infer_tiled(apply, image, {0, 4, 1});
  const torch::Tensor tiled = infer_tiled(apply, image, {24, 4, 1});
  CHECK(tiled.sizes() == whole.sizes());
  CHECK(torch::allclose(tiled, with_context, 1e-4, 1e-5));
  CHECK_FALSE(torch::allclose(infer_tiled(apply, image, {24, 0, 1}), with_context, 1e-4, 1e-5));
  // A tile larger than the image: the image at once.
  CHECK(torch::allclose(infer_tiled(apply, image, {128, 4, 1}), with_context));
}

TEST_CASE("images whose sides are no multiple of the model's are padded and cropped back", "[train][predict]") {
  torch::NoGradGuard no_grad;
  // Down by 4 and up again: only sides that are multiples of 4 come back whole.
  const ImageModel apply = [](const torch::Tensor& x) {
    const torch::Tensor down = torch::avg_pool2d(x, 4);
    return torch::upsample_nearest2d(down, {down.size(2) * 4, down.size(3) * 4});
  };
  const torch::Tensor image = torch::rand({1, 1, 37, 53});
  const torch::Tensor out = infer_tiled(apply, image, {0, 0, 4});
  CHECK(out.sizes() == torch::IntArrayRef({1, 1, 37, 53}));
  const torch::Tensor tiled = infer_tiled(apply, image, {20, 6, 4});
  CHECK(tiled.sizes() == torch::IntArrayRef({1, 1, 37, 53}));
  // A 1-pixel-high image still pads (repeating its row).
  CHECK(infer_tiled(apply, torch::rand({1, 1, 1, 9}), {0, 0, 4}).sizes() == torch::IntArrayRef({1, 1, 1, 9}));
}

TEST_CASE("tiles fed a band of rows at a time from the file give what tiles of the whole image give", "[train][predict]") {
  torch::NoGradGuard no_grad;
  auto model = reflecting_model();
  const ImageModel apply = [&](const torch::Tensor& x) { return model->forward(x); };
  std::mt19937 random(7);
  Image image{61, 77, 3, std::vector<uint8_t>(61 * 77 * 3)};
  for (uint8_t& value : image.pixels) value = static_cast<uint8_t>(random() & 0xff);
  const std::string png = encode_png(image, "noise.png");
  const auto to_model = [](const Image& rows) {
    return torch::from_blob(const_cast<uint8_t*>(rows.pixels.data()), {1, rows.height, rows.width, rows.channels},
                            torch::kUInt8)
        .permute({0, 3, 1, 2})
        .to(torch::kFloat32)
        .div(255);
  };
  const torch::Tensor whole = to_model(image);
  // tile, overlap, multiple: bands of several heights, context taller than
  // a tile's core, the last band cut short, a tile larger than the image.
  for (const TileOptions& tiles : std::vector<TileOptions>{{24, 4, 1}, {20, 6, 4}, {16, 0, 1}, {40, 12, 8}, {30, 2, 16},
                                                           {128, 4, 1}, {0, 4, 1}}) {
    INFO("tile " << tiles.tile << ", overlap " << tiles.overlap << ", multiple " << tiles.multiple);
    ImageRowReader reader(png, "noise.png");
    std::vector<torch::Tensor> bands;
    int64_t tallest_read = 0;
    const auto counting = [&](const Image& rows) {
      tallest_read = std::max(tallest_read, rows.height);
      return to_model(rows);
    };
    infer_tiled_rows(apply, reader, tiles, counting, [&](const torch::Tensor& band) { bands.push_back(band); });
    const torch::Tensor streamed = torch::cat(bands, 2);
    const torch::Tensor expected = infer_tiled(apply, whole, tiles);
    REQUIRE(streamed.sizes() == expected.sizes());
    CHECK(torch::allclose(streamed, expected, 1e-6, 1e-7));
    if (tiles.tile > 0 && tiles.tile < 61) {
      // Never more than one row of tiles and its context held at once.
      const int64_t core = tile_core(tiles);
      CHECK(bands.size() == static_cast<size_t>((61 + core - 1) / core));
      CHECK(tallest_read <= core + 2 * tiles.overlap);
    }
  }
  SECTION("an image no taller than the context is read whole") {
    Image low{3, 40, 3, std::vector<uint8_t>(3 * 40 * 3, 100)};
    ImageRowReader reader(encode_png(low, "low.png"), "low.png");
    torch::Tensor out;
    infer_tiled_rows(apply, reader, {16, 6, 1}, to_model, [&](const torch::Tensor& band) { out = band; });
    CHECK(out.sizes() == torch::IntArrayRef({1, 3, 3, 40}));
    CHECK(torch::allclose(out, infer_tiled(apply, to_model(low), {16, 6, 1})));
  }
}
