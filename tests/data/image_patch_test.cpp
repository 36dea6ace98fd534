// The image-to-image pipeline: windows cut alike from input and target,
// augmentations applied to both, samples reproducible per epoch, the cache
// and its budget, and image_degrade's pairs.
#include <catch2/catch.hpp>

#include <filesystem>

#include "data/dataset.h"
#include "data/image_cache.h"
#include "images/image_fixtures.h"
#include "patch_samples.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

namespace {

// Pairs whose target is the input's complement (255 - v): a window read at
// different places or orientations on the two sides breaks the sum.
std::string complement_pairs(int count, int64_t height, int64_t width) {
  const std::string root = testing::fresh_dir("patch-pairs");
  for (int i = 0; i < count; ++i) {
    Image input = testing::random_image(height, width, 3, static_cast<uint64_t>(i));
    Image target = input;
    for (auto& v : target.pixels) v = static_cast<uint8_t>(255 - v);
    testing::write_png(root + "/blur/" + std::to_string(i) + ".png", input);
    testing::write_png(root + "/sharp/" + std::to_string(i) + ".png", target);
  }
  return root;
}

DataConfig patch_config(DatasetKind kind, const std::string& path, int64_t patch) {
  DataConfig config;
  config.dataset = kind;
  config.path = path;
  config.patch_size = patch;
  config.workers = 2;
  config.validation_split = 0.25;
  return config;
}

bool equal(const std::pair<torch::Tensor, torch::Tensor>& a, const std::pair<torch::Tensor, torch::Tensor>& b) {
  return torch::equal(a.first, b.first) && torch::equal(a.second, b.second);
}

}  // namespace

TEST_CASE("patches: one window on input and target, augmented alike, the same for an epoch", "[data][patches]") {
  const std::string root = complement_pairs(4, 40, 50);
  DataConfig config = patch_config(DatasetKind::kImagePairs, root, 16);
  config.patches_per_image = 5;
  config.augment.flip_horizontal = config.augment.flip_vertical = config.augment.rotate90 = true;
  const DataSplits data = load_dataset(config, 3);
  CHECK(data.train.size() == 3 * 5);
  CHECK(data.valid.size() == 1 * 5);
  CHECK(data.info.input_shape == std::vector<int64_t>{3, 16, 16});
  const auto epoch1 = testing::all_samples(data.train, 1);
  CHECK(epoch1.first.sizes() == torch::IntArrayRef({15, 3, 16, 16}));
  CHECK(torch::allclose(epoch1.first + epoch1.second, torch::ones_like(epoch1.first), 0, 1e-6));
  // A resumed epoch cuts the same windows; the next epoch others.
  CHECK(equal(epoch1, testing::all_samples(data.train, 1)));
  CHECK_FALSE(torch::equal(epoch1.first, testing::all_samples(data.train, 2).first));
  // Validation's windows do not change from epoch to epoch.
  CHECK(equal(testing::all_samples(data.valid, 0), testing::all_samples(data.valid, 7)));

  SECTION("validation_patches_per_image keeps the held-out windows while the training count changes") {
    config.validation_patches_per_image = 5;
    config.patches_per_image = 12;
    const DataSplits more = load_dataset(config, 3);
    CHECK(more.train.size() == 3 * 12);
    CHECK(more.valid.size() == 1 * 5);
    CHECK(equal(testing::all_samples(more.valid, 0), testing::all_samples(data.valid, 0)));
    config.validation_patches_per_image = 2;
    const DataSplits fewer = load_dataset(config, 3);
    CHECK(fewer.train.size() == 3 * 12);
    CHECK(fewer.valid.size() == 1 * 2);
  }
  SECTION("an unaugmented window is a piece of its image") {
    config.augment = {};
    config.images.scale = PixelScale::kNone;
    const DataSplits plain = load_dataset(config, 3);
    const auto [inputs, targets] = testing::all_samples(plain.train, 1);
    // Some window of some training image holds the first sample's input.
    bool found = false;
    for (int i = 0; i < 4 && !found; ++i) {
      const Image image = testing::random_image(40, 50, 3, static_cast<uint64_t>(i));
      const torch::Tensor whole =
          torch::from_blob(const_cast<uint8_t*>(image.pixels.data()), {40, 50, 3}, torch::kUInt8).permute({2, 0, 1}).to(torch::kFloat32);
      for (int64_t top = 0; top + 16 <= 40 && !found; ++top)
        for (int64_t left = 0; left + 16 <= 50 && !found; ++left)
          found = torch::equal(whole.narrow(1, top, 16).narrow(2, left, 16), inputs[0]);
    }
    CHECK(found);
  }
  SECTION("brightness moves both images alike") {
    const std::string same = testing::fresh_dir("patch-same");
    for (int i = 0; i < 4; ++i) {
      const Image image = testing::random_image(30, 30, 3, static_cast<uint64_t>(10 + i));
      testing::write_png(same + "/blur/" + std::to_string(i) + ".png", image);
      testing::write_png(same + "/sharp/" + std::to_string(i) + ".png", image);
    }
    config.path = same;
    config.augment.brightness = 0.3;
    const auto bright = testing::all_samples(load_dataset(config, 3).train, 1);
    CHECK(torch::equal(bright.first, bright.second));
    config.augment.brightness = 0;
    const auto plain = testing::all_samples(load_dataset(config, 3).train, 1);
    CHECK_FALSE(torch::equal(bright.first, plain.first));
  }
  SECTION("a patch larger than an image names it; whole images must be of one size") {
    config.patch_size = 45;
    CHECK_THROWS_WITH(load_dataset(config, 3), Catch::Contains("is 50 x 40 pixels, smaller than data.patch_size 45"));
    config.patch_size = 0;
    config.patches_per_image = 1;
    testing::write_png(root + "/blur/9.png", testing::random_image(20, 20, 3, 9));
    testing::write_png(root + "/sharp/9.png", testing::random_image(20, 20, 3, 9));
    CHECK_THROWS_WITH(load_dataset(config, 3), Catch::Contains("20 x 20") && Catch::Contains("50 x 40"));
  }
}

TEST_CASE("the image cache keeps what fits its budget and decodes the rest on use", "[data][patches]") {
  const std::string root = testing::fresh_dir("image-cache");
  std::vector<std::string> files;
  for (int i = 0; i < 4; ++i) {
    files.push_back(root + "/" + std::to_string(i) + ".png");
    testing::write_png(files.back(), testing::random_image(512, 512, 3, static_cast<uint64_t>(i)));  // 0.75 MiB each
  }
  DataConfig config;
  config.workers = 2;
  config.cache_limit.mib = 2;
  const ImageCache limited(files, config);
  CHECK(limited.cached_count() == 2);
  CHECK(limited.cached_bytes() <= 2 * 1024 * 1024);
  config.cache_limit.mib = 0;  // no limit
  const ImageCache unlimited(files, config);
  CHECK(unlimited.cached_count() == 4);
  config.cache = CacheMode::kNone;
  const ImageCache none(files, config);
  CHECK(none.cached_count() == 0);
  CHECK(none.cached_bytes() == 0);
  for (int64_t i = 0; i < 4; ++i) {
    Image a, b, c;
    CHECK(limited.pixels(i, a).pixels == unlimited.pixels(i, b).pixels);
    CHECK(none.pixels(i, c).pixels == unlimited.pixels(i, b).pixels);
  }
  CHECK(none.decodes_since_load() == 4);
  CHECK(unlimited.decodes_since_load() == 0);

  SECTION("the samples do not depend on the cache") {
    const std::string pairs = complement_pairs(4, 40, 40);
    DataConfig data = patch_config(DatasetKind::kImagePairs, pairs, 24);
    const auto cached = testing::all_samples(load_dataset(data, 1).train, 2);
    data.cache = CacheMode::kNone;
    CHECK(equal(cached, testing::all_samples(load_dataset(data, 1).train, 2)));
  }
}

TEST_CASE("image_degrade: sharp targets, degraded inputs, the same pairs from the same seed", "[data][patches][degrade]") {
  const std::string root = testing::fresh_dir("degrade-set");
  for (int i = 0; i < 4; ++i)
    testing::write_png(root + "/photos/" + std::to_string(i) + ".png", testing::random_image(48, 64, 3, 20 + static_cast<uint64_t>(i)));
  DataConfig config = patch_config(DatasetKind::kImageDegrade, root, 32);
  config.degrade.seed = 4;
  config.degrade.noise.probability = 1;
  const DataSplits data = load_dataset(config, 1);
  CHECK(data.info.name == "image_degrade");
  CHECK(data.info.target_shape == std::vector<int64_t>{3, 32, 32});
  const auto first = testing::all_samples(data.train, 1);
  CHECK(equal(first, testing::all_samples(load_dataset(config, 1).train, 1)));
  const double change = (first.first - first.second).abs().mean().item<double>();
  CHECK(change > 0.02);  // blurred and noisy: far from the sharp random pixels
  config.degrade.seed = 5;
  const auto other = testing::all_samples(load_dataset(config, 1).train, 1);
  CHECK(torch::equal(first.second, other.second));  // the same windows of the same images
  CHECK_FALSE(torch::equal(first.first, other.first));  // degraded otherwise

  SECTION("no degradation: the input is the target") {
    config.degrade.motion_blur.probability = 0;
    config.degrade.noise.probability = 0;
    const auto same = testing::all_samples(load_dataset(config, 1).valid, 0);
    CHECK(torch::equal(same.first, same.second));
  }
  SECTION("a folder without images, a damaged image") {
    config.path = testing::fresh_dir("degrade-empty");
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains("no images (.png, .jpg, .jpeg or .bmp)"));
    config.path = root;
    std::ofstream(root + "/photos/bad.png", std::ios::binary) << "\x89PNG cut";
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(root + "/photos/bad.png"));
    config.on_bad_file = BadFilePolicy::kSkip;
    config.validation_split = 0.5;  // two for validation: one is good whichever the bad one is
    const DataSplits kept = load_dataset(config, 1);
    CHECK(kept.train.size() + kept.valid.size() == 4);
  }
}
