// image_folder: Keras's file order and seeded split, the tensors it makes
// (sizes, channels, scales), and the folders and files it refuses.
#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/dataset.h"
#include "images/image_codec.h"
#include "data/image_folder_index.h"
#include "images/image_fixtures.h"
#include "test_paths.h"
#include "util/error.h"
#include "util/logging.h"

using namespace trainer;
namespace fs = std::filesystem;

namespace {

DataConfig folder_config(const std::string& path) {
  DataConfig config;
  config.dataset = DatasetKind::kImageFolder;
  config.path = path;
  return config;
}

// Copies the log into `to` while it lives (removed again if a load throws).
struct LogCopy {
  explicit LogCopy(std::ostringstream& to) {
    log().sinks().push_back(std::make_shared<spdlog::sinks::ostream_sink_st>(to));
  }
  ~LogCopy() { log().sinks().pop_back(); }
  LogCopy(const LogCopy&) = delete;
  LogCopy& operator=(const LogCopy&) = delete;
};

}  // namespace

TEST_CASE("an image folder is indexed in Keras's order", "[data][image_folder]") {
  const std::string root = testing::fresh_dir("folder-index");
  testing::write_uniform_png(root + "/cat/b.png", 2, 2, 1);
  testing::write_uniform_png(root + "/cat/a.png", 2, 2, 1);
  testing::write_uniform_png(root + "/cat/deeper/c.png", 2, 2, 1);
  testing::write_uniform_png(root + "/cat/deeper.png", 2, 2, 1);  // "cat/deeper.png" comes before the folder "cat/deeper/"
  testing::write_uniform_png(root + "/ant/z.PNG", 2, 2, 1);
  std::ofstream(root + "/ant/notes.txt") << "not an image";
  testing::write_uniform_png(root + "/.hidden/x.png", 2, 2, 1);
  std::ofstream(root + "/README") << "a file beside the classes";
  const ImageFolderIndex index = index_image_folder(root);
  CHECK(index.class_names == std::vector<std::string>{"ant", "cat"});
  CHECK(index.files == std::vector<std::string>{root + "/ant/z.PNG", root + "/cat/a.png", root + "/cat/b.png",
                                                root + "/cat/deeper.png", root + "/cat/deeper/c.png"});
  CHECK(index.labels == std::vector<int64_t>{0, 1, 1, 1, 1});
  CHECK(index.other_files == 1);

  SECTION("a validation folder with the training classes, or fewer; not another") {
    const std::string valid = testing::fresh_dir("folder-index-valid");
    testing::write_uniform_png(valid + "/cat/v.png", 2, 2, 1);
    const ImageFolderIndex v = index_image_folder(valid, &index.class_names);
    CHECK(v.labels == std::vector<int64_t>{1});
    testing::write_uniform_png(valid + "/dog/w.png", 2, 2, 1);
    CHECK_THROWS_WITH(index_image_folder(valid, &index.class_names),
                      Catch::Contains(valid + "/dog: a class the training folder does not have (its classes: ant, cat)"));
  }
  SECTION("folders that are not image folders") {
    CHECK_THROWS_WITH(index_image_folder(root + "/absent"), Catch::Contains(root + "/absent does not exist"));
    CHECK_THROWS_WITH(index_image_folder(root + "/README"), Catch::Contains("is not a folder"));
    CHECK_THROWS_WITH(index_image_folder(root + "/cat/deeper"), Catch::Contains("no class subfolders"));
  }
}

TEST_CASE("the split is the one numpy's RandomState(seed).shuffle gives, as Keras's", "[data][image_folder][python]") {
  if (!testing::system_python_has("numpy")) {
    WARN("SKIPPED: needs Debian's python3-numpy");
    return;
  }
  const std::string dir = testing::fresh_dir("keras-split");
  std::ofstream(dir + "/split.py") << "import numpy as np\n"
                                      "paths = list(range(37))\n"
                                      "np.random.RandomState(1337).shuffle(paths)\n"
                                      "n = int(0.3 * len(paths))\n"
                                      "print(' '.join(map(str, paths[:-n])))\n"
                                      "print(' '.join(map(str, paths[-n:])))\n";
  const auto output = testing::system_python_output(dir + "/split.py");
  REQUIRE(output.has_value());
  const FolderSplit split = split_like_keras(37, 0.3, 1337);
  std::string train, valid;
  for (int64_t i : split.train) train += (train.empty() ? "" : " ") + std::to_string(i);
  for (int64_t i : split.valid) valid += (valid.empty() ? "" : " ") + std::to_string(i);
  CHECK(*output == train + "\n" + valid + "\n");
  CHECK(split.valid.size() == 11);
}

TEST_CASE("a folder too small to split names the count, the fraction and the empty side", "[data][image_folder]") {
  DataConfig config;
  config.path = "photos";
  config.validation_split = 0.25;
  const auto message = [&](int64_t count, const std::string& items) {
    try {
      plan_folder_split(count, std::nullopt, config, items);
    } catch (const DataError& e) {
      return std::string(e.what()) + " (hint: " + e.hint() + ")";
    }
    return std::string("no error");
  };
  CHECK_THAT(message(1, "images"), Catch::Contains("photos: 1 image is too few to hold out data.validation_split 0.25 "
                                                   "of them: the validation set would be empty") &&
                                       Catch::Contains("data.validation_path"));
  CHECK_THAT(message(3, "pairs"), Catch::Contains("3 pairs are too few to hold out data.validation_split 0.25"));
  CHECK(plan_folder_split(4, std::nullopt, config, "images").valid.size() == 1);
}

TEST_CASE("image_folder decodes every image into one tensor: labels, sizes, channels, scales", "[data][image_folder]") {
  const std::string root = testing::fresh_dir("folder-load");
  // Ten images per class; class 0 is dark (value 40), class 1 light (200).
  for (int i = 0; i < 10; ++i) {
    testing::write_uniform_png(root + "/train/dark/" + std::to_string(i) + ".png", 6, 8, 40);
    testing::write_uniform_png(root + "/train/light/" + std::to_string(i) + ".png", 6, 8, 200);
  }
  DataConfig config = folder_config(root + "/train");
  config.workers = 3;
  SECTION("the files' own size, a seeded split, [0, 1]") {
    const DataSplits data = load_dataset(config, 1);
    CHECK(data.info.input_shape == std::vector<int64_t>{3, 6, 8});
    CHECK(data.info.classes == 2);
    CHECK(data.info.class_names == std::vector<std::string>{"dark", "light"});
    CHECK(data.train.size() == 16);
    CHECK(data.valid.size() == 4);
    // Every sample's pixels say its class.
    const torch::Tensor expected = torch::where(data.train.labels == 0, 40.0 / 255, 200.0 / 255).to(torch::kFloat);
    CHECK(torch::allclose(data.train.inputs.amin({1, 2, 3}), expected));
    CHECK(torch::allclose(data.train.inputs.amax({1, 2, 3}), expected));
    // The same seed, the same split; another seed, another.
    CHECK(torch::equal(load_dataset(config, 1).valid.labels, data.valid.labels));
    const auto preview = preview_dataset(config);
    REQUIRE(preview.has_value());
    CHECK(preview->input_shape == data.info.input_shape);
    CHECK(preview->classes == 2);
  }
  SECTION("resized, grey, symmetric; a validation folder") {
    testing::write_uniform_png(root + "/valid/light/v.png", 12, 16, 200);
    config.validation_path = root + "/valid";
    config.images.size = {3, 5};
    config.images.color_mode = ColorMode::kGrayscale;
    config.images.scale = PixelScale::kSymmetric;
    const DataSplits data = load_dataset(config, 1);
    CHECK(data.info.input_shape == std::vector<int64_t>{1, 3, 5});
    CHECK(data.train.size() == 20);
    CHECK(data.valid.size() == 1);
    CHECK(data.valid.labels.item<int64_t>() == 1);
    CHECK(torch::allclose(data.valid.inputs, torch::full({1, 1, 3, 5}, 200 / 127.5 - 1)));
    config.images.scale = PixelScale::kNone;
    config.images.resize = ResizeMode::kCrop;
    config.images.interpolation = Interpolation::kArea;
    CHECK(load_dataset(config, 1).train.inputs.max().item<float>() == 200.0f);
  }
  SECTION("max_train_samples and max_valid_samples: decoded no further") {
    config.max_train_samples = 5;
    config.max_valid_samples = 2;
    const DataSplits data = load_dataset(config, 1);
    CHECK(data.train.size() == 5);
    CHECK(data.valid.size() == 2);
  }
  SECTION("a damaged file: a data error naming it, or skipped and counted") {
    std::ofstream(root + "/train/dark/3.png", std::ios::binary) << "\x89PNG\r\n\x1a\n cut";
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(root + "/train/dark/3.png: not a valid PNG"));
    config.on_bad_file = BadFilePolicy::kSkip;
    std::ostringstream warnings;
    const DataSplits data = [&] {
      LogCopy copy(warnings);
      return load_dataset(config, 1);
    }();
    CHECK(data.train.size() + data.valid.size() == 19);
    CHECK_THAT(warnings.str(), Catch::Contains("skipping " + root + "/train/dark/3.png") &&
                                   Catch::Contains("images could not be decoded and was left out"));
  }
  SECTION("images of different sizes need images.size") {
    testing::write_uniform_png(root + "/train/light/odd.png", 7, 8, 200);
    try {
      load_dataset(config, 1);
      FAIL("no error");
    } catch (const DataError& e) {
      CHECK_THAT(e.what(), Catch::Contains("odd.png: the image is 8 x 7 pixels, the first one 8 x 6"));
      CHECK_THAT(e.hint(), Catch::Contains("data.images.size"));
    }
    config.images.size = {6, 8};
    CHECK(load_dataset(config, 1).info.input_shape == std::vector<int64_t>{3, 6, 8});
  }
  SECTION("folders without images") {
    config.path = testing::fresh_dir("folder-empty");
    fs::create_directories(config.path + "/a");
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains("no images in its class subfolders"));
    CHECK_FALSE(preview_dataset(config).has_value());
  }
}
