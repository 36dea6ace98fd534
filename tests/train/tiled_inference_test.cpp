// Fully convolutional inference on images of any size: whole, padded to the
// model's multiple, and in tiles that give the whole image's result.
#include <catch2/catch.hpp>
#include <torch/torch.h>

#include "train/tiled_inference.h"

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
