// image_folder's augmentations (data/augmented_images.h): each is what it
// says on images whose pixels show it, seeded by (seed, epoch, sample), and
// the validation images are left alone.
#include <catch2/catch.hpp>

#include "data/augmented_images.h"
#include "data/dataset_loaders.h"
#include "images/image_fixtures.h"
#include "test_paths.h"

using namespace trainer;

namespace {

// Four 3 x 6 x 8 images whose every pixel differs: value = sample + position / 1000.
torch::Tensor gradient_images() {
  return (torch::arange(4 * 3 * 6 * 8, torch::kFloat).reshape({4, 3, 6, 8}) / 1000.0f).clamp(0, 1);
}

DataConfig augmenting(const AugmentConfig& augment) {
  DataConfig config;
  config.dataset = DatasetKind::kImageFolder;
  config.augment = augment;
  return config;
}

// The batch of samples 0..3, 10 times over, in epoch `epoch`.
torch::Tensor assemble(const AugmentedImageSource& source, int64_t epoch) {
  std::vector<int64_t> ids;
  for (int r = 0; r < 10; ++r)
    for (int64_t i = 0; i < 4; ++i) ids.push_back(i);
  return source.assemble(ids.data(), static_cast<int64_t>(ids.size()), epoch).inputs;
}

}  // namespace

TEST_CASE("flips and crops move the pixels and nothing else, seeded by epoch and sample", "[data][augment]") {
  const torch::Tensor images = gradient_images(), labels = torch::tensor({0, 1, 0, 1}, torch::kInt64);
  AugmentConfig augment;
  augment.flip_horizontal = true;
  const AugmentedImageSource flips(images, labels, augmenting(augment), 7);
  const int64_t ids[] = {0, 1, 2, 3};
  const SampleBatch batch = flips.assemble(ids, 4, 1);
  CHECK(torch::equal(batch.targets, labels));
  const torch::Tensor many = assemble(flips, 1);
  int flipped = 0, kept = 0;
  for (int64_t i = 0; i < many.size(0); ++i) {
    const torch::Tensor original = images[i % 4];
    if (torch::equal(many[i], original)) ++kept;
    else if (torch::equal(many[i], original.flip({2}))) ++flipped;
  }
  CHECK(kept + flipped == 40);
  CHECK(kept > 5);
  CHECK(flipped > 5);
  // The same epoch, the same samples; the next, others.
  CHECK(torch::equal(assemble(flips, 1), many));
  CHECK_FALSE(torch::equal(assemble(flips, 2), many));

  SECTION("a random crop of the image padded with black") {
    AugmentConfig crop;
    crop.crop_padding = 2;
    const AugmentedImageSource crops(images, labels, augmenting(crop), 7);
    const torch::Tensor cropped = assemble(crops, 1);
    CHECK(cropped.sizes() == torch::IntArrayRef({40, 3, 6, 8}));
    int64_t found = 0, moved = 0;
    for (int64_t i = 0; i < 40; ++i) {
      const torch::Tensor padded = torch::nn::functional::pad(
          images[i % 4], torch::nn::functional::PadFuncOptions({2, 2, 2, 2}));
      for (int64_t top = 0; top <= 4; ++top)
        for (int64_t left = 0; left <= 4; ++left)
          if (torch::equal(cropped[i], padded.slice(1, top, top + 6).slice(2, left, left + 8))) {
            ++found;
            moved += top != 2 || left != 2;
            top = 5;
            break;
          }
    }
    CHECK(found == 40);
    CHECK(moved > 20);  // 24 of 25 places move the image
  }
}

TEST_CASE("rotations turn about the centre, and colours change within the range", "[data][augment]") {
  const torch::Tensor grey = torch::full({1, 3, 9, 9}, 0.5f), labels = torch::zeros({1}, torch::kInt64);
  AugmentConfig augment;
  augment.rotation = 40;
  const AugmentedImageSource rotations(grey, labels, augmenting(augment), 3);
  std::vector<int64_t> ids(30, 0);
  const torch::Tensor turned = rotations.assemble(ids.data(), 30, 1).inputs;
  // The centre stays; a corner goes towards black with the angle.
  CHECK(torch::allclose(turned.select(2, 4).select(2, 4), torch::full({30, 3}, 0.5f), 1e-5, 1e-5));
  CHECK(turned.select(2, 0).select(2, 0).min().item<float>() < 0.3f);
  CHECK(turned.min().item<float>() >= 0.0f);

  SECTION("brightness, contrast and saturation stay within [0, 1]; a grey image has nothing to saturate") {
    AugmentConfig colour;
    colour.saturation = 0.9;
    colour.contrast = 0.5;
    const AugmentedImageSource colours(grey, labels, augmenting(colour), 3);
    // Contrast about the image's own mean and saturation about each pixel's grey leave a uniform grey image.
    CHECK(torch::allclose(colours.assemble(ids.data(), 30, 1).inputs, torch::full({30, 3, 9, 9}, 0.5f), 1e-6, 1e-6));
    colour.brightness = 0.8;
    const AugmentedImageSource brighter(grey, labels, augmenting(colour), 3);
    const torch::Tensor lit = brighter.assemble(ids.data(), 30, 1).inputs;
    CHECK(lit.min().item<float>() >= 0.0f);
    CHECK(lit.max().item<float>() <= 1.0f);
    CHECK(lit.max().item<float>() == 1.0f);  // clipped: 0.5 + up to 0.8
    // Each sample is one offset everywhere.
    CHECK(torch::allclose(lit.amin({1, 2, 3}), lit.amax({1, 2, 3})));
  }
}

TEST_CASE("image_folder augments its training images only", "[data][augment][image_folder]") {
  const std::string root = testing::fresh_dir("folder-augment");
  for (int i = 0; i < 10; ++i) {
    testing::write_uniform_png(root + "/dark/" + std::to_string(i) + ".png", 6, 8, 40);
    testing::write_uniform_png(root + "/light/" + std::to_string(i) + ".png", 6, 8, 200);
  }
  DataConfig config;
  config.dataset = DatasetKind::kImageFolder;
  config.path = root;
  config.augment.flip_horizontal = true;
  const DataSplits data = load_dataset(config, 1);
  REQUIRE(data.train.source);
  CHECK_FALSE(data.valid.source);
  CHECK(data.train.size() == 16);
  // The class labels stay (class weights read them), and each batch carries its own.
  CHECK(data.train.labels.max().item<int64_t>() == 1);
  const int64_t ids[] = {0, 5, 9};
  const SampleBatch batch = data.train.source->assemble(ids, 3, 1);
  CHECK(torch::equal(batch.targets, data.train.labels.index({torch::tensor({0, 5, 9})})));
  CHECK(batch.inputs.sizes() == torch::IntArrayRef({3, 3, 6, 8}));
}
