// image_pairs: inputs matched with their targets by path (flat and GoPro
// layouts), the tensors they become, and the folders and pairs refused.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "data/dataset.h"
#include "images/image_codec.h"
#include "data/image_pairs_index.h"
#include "images/image_fixtures.h"
#include "patch_samples.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;
namespace fs = std::filesystem;

namespace {

// A pair whose input is `value` and target 2 * value, as a model could learn.
void write_pair(const std::string& root, const std::string& blur, const std::string& sharp, uint8_t value,
                int64_t height = 4, int64_t width = 6) {
  testing::write_uniform_png(root + "/" + blur, height, width, value);
  testing::write_uniform_png(root + "/" + sharp, height, width, static_cast<uint8_t>(2 * value));
}

DataConfig pairs_config(const std::string& path) {
  DataConfig config;
  config.dataset = DatasetKind::kImagePairs;
  config.path = path;
  return config;
}

}  // namespace

TEST_CASE("image pairs are matched by path, in the flat and the GoPro layout", "[data][image_pairs]") {
  const std::string root = testing::fresh_dir("pairs-index");
  write_pair(root, "blur/b.png", "sharp/b.png", 1);
  write_pair(root, "blur/a.png", "sharp/a.png", 2);
  write_pair(root, "GOPR0372_07_00/blur/000047.png", "GOPR0372_07_00/sharp/000047.png", 3);
  std::ofstream(root + "/blur/notes.txt") << "not an image";
  const auto pairs = index_image_pairs(root, "blur", "sharp");
  REQUIRE(pairs.size() == 3);
  CHECK(pairs[0].input == root + "/GOPR0372_07_00/blur/000047.png");
  CHECK(pairs[0].target == root + "/GOPR0372_07_00/sharp/000047.png");
  CHECK(pairs[1].input == root + "/blur/a.png");
  CHECK(pairs[2].target == root + "/sharp/b.png");
  SECTION("other folder names") {
    write_pair(root, "in/x.png", "out/x.png", 4);
    CHECK(index_image_pairs(root, "in", "out").size() == 1);
  }
  SECTION("an input without its target, a target without its input") {
    testing::write_uniform_png(root + "/blur/lonely.png", 4, 6, 5);
    CHECK_THROWS_WITH(index_image_pairs(root, "blur", "sharp"),
                      Catch::Contains(root + "/blur/lonely.png: no target image " + root + "/sharp/lonely.png"));
    fs::remove(root + "/blur/lonely.png");
    testing::write_uniform_png(root + "/GOPR0372_07_00/sharp/000048.png", 4, 6, 5);
    CHECK_THROWS_WITH(index_image_pairs(root, "blur", "sharp"),
                      Catch::Contains(root + "/GOPR0372_07_00/sharp/000048.png: no input image " + root +
                                      "/GOPR0372_07_00/blur/000048.png"));
  }
  SECTION("no pairs, no folder") {
    CHECK_THROWS_WITH(index_image_pairs(root, "noisy", "clean"), Catch::Contains("no image pairs"));
    CHECK_THROWS_WITH(index_image_pairs(root + "/absent", "blur", "sharp"), Catch::Contains("does not exist"));
  }
}

TEST_CASE("image_pairs gives inputs and targets as tensors", "[data][image_pairs]") {
  const std::string root = testing::fresh_dir("pairs-load");
  for (int i = 0; i < 10; ++i) write_pair(root, "blur/" + std::to_string(i) + ".png", "sharp/" + std::to_string(i) + ".png", 10 * i + 5);
  DataConfig config = pairs_config(root);
  config.workers = 2;
  SECTION("a seeded split; each target is its input's") {
    const DataSplits data = load_dataset(config, 1);
    CHECK(data.train.size() == 8);
    CHECK(data.valid.size() == 2);
    CHECK(data.info.input_shape == std::vector<int64_t>{3, 4, 6});
    CHECK(data.info.target_shape == std::vector<int64_t>{3, 4, 6});
    CHECK(data.info.value_range == 1.0);
    CHECK(data.info.classes == 0);
    const auto [inputs, targets] = testing::all_samples(data.train);
    CHECK(targets.sizes() == torch::IntArrayRef({8, 3, 4, 6}));
    CHECK(torch::allclose(targets, inputs * 2));
    const auto preview = preview_dataset(config);
    REQUIRE(preview.has_value());
    CHECK(preview->target_shape == data.info.target_shape);
  }
  SECTION("a validation folder; grey, resized, symmetric") {
    const std::string valid = testing::fresh_dir("pairs-load-valid");
    write_pair(valid, "scene/blur/v.png", "scene/sharp/v.png", 50, 8, 12);
    config.validation_path = valid;
    config.images.size = {2, 3};
    config.images.color_mode = ColorMode::kGrayscale;
    config.images.scale = PixelScale::kSymmetric;
    const DataSplits data = load_dataset(config, 1);
    CHECK(data.train.size() == 10);
    CHECK(data.valid.size() == 1);
    CHECK(data.info.target_shape == std::vector<int64_t>{1, 2, 3});
    CHECK(data.info.value_range == 2.0);
    CHECK(torch::allclose(testing::all_samples(data.valid).second, torch::full({1, 1, 2, 3}, 100 / 127.5 - 1)));
  }
  SECTION("a pair of two sizes, a damaged image") {
    testing::write_uniform_png(root + "/sharp/3.png", 5, 6, 1);
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(root + "/blur/3.png is 6 x 4 pixels and its target " +
                                                               root + "/sharp/3.png 6 x 5"));
    std::ofstream(root + "/sharp/3.png", std::ios::binary) << "BM cut";
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(root + "/sharp/3.png: not a valid BMP"));
    config.on_bad_file = BadFilePolicy::kSkip;
    const DataSplits data = load_dataset(config, 1);
    CHECK(data.train.size() + data.valid.size() == 9);
  }
}
