// `trainer predict` end to end: a classifier's top classes as JSON lines, an
// image model's outputs at the inputs' full size and relative paths, whole
// files only, and the inputs it refuses.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "images/image_codec.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

void write_image(const std::string& path, int64_t height, int64_t width, uint8_t base) {
  fs::create_directories(fs::path(path).parent_path());
  trainer::Image image{height, width, 3, {}};
  for (int64_t y = 0; y < height; ++y)
    for (int64_t x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) image.pixels.push_back(static_cast<uint8_t>(base + (x * 3 + y * 5 + c * 7) % 40));
  std::ofstream(path, std::ios::binary) << trainer::encode_png(image, path);
}

trainer::Image read_image(const std::string& path) { return trainer::decode_image(read_text(path), path); }

// A trained checkpoint of `experiment` (one epoch).
std::string train(const std::string& dir, const std::string& experiment) {
  const auto result = run_trainer({"run", experiment}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return dir + "/runs/predict/run/checkpoints/epoch-0001.pt";
}

}  // namespace

TEST_CASE("predict: an image model writes full-size images at the inputs' paths, whole or tiled", "[e2e][predict]") {
  const std::string dir = fresh_dir("e2e-predict-images");
  for (int i = 0; i < 8; ++i) write_image(dir + "/photos/" + std::to_string(i) + ".png", 40, 40, static_cast<uint8_t>(20 * i));
  std::ofstream(dir + "/deblur.yaml")
      << "experiment: {name: predict, seed: 1}\n"
      << "data: {dataset: image_degrade, path: " << dir << "/photos, patch_size: 16, validation_split: 0.25,\n"
      << "       degrade: {motion_blur: {length: 5}}}\n"
      << "model:\n  layers:\n"
      << "    - {type: conv2d, filters: 8, kernel_size: 3, strides: 2, padding: same, activation: relu}\n"
      << "    - {type: conv2d_transpose, filters: 3, kernel_size: 3, strides: 2, padding: same, name: correction}\n"
      << "    - {type: add, inputs: [input, correction]}\n"
      << "train: {epochs: 1, batch_size: 4}\n"
      << "log: {dir: " << dir << "/runs, run_name: run}\n";
  const std::string checkpoint = train(dir, dir + "/deblur.yaml");
  // Frames larger than the patches, of odd sizes, one in a subfolder, one a JPEG.
  write_image(dir + "/frames/a.png", 45, 83, 10);
  write_image(dir + "/frames/scene/b.png", 72, 128, 90);
  trainer::Image jpeg{30, 31, 3, std::vector<uint8_t>(30 * 31 * 3, 128)};
  std::ofstream(dir + "/frames/c.jpg", std::ios::binary) << trainer::encode_jpeg(jpeg, 90, "c.jpg");
  const auto result = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                   dir + "/frames", "--output", dir + "/restored"},
                                  dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.err, Catch::Contains("predicted 3 files"));
  const trainer::Image a = read_image(dir + "/restored/a.png"), b = read_image(dir + "/restored/scene/b.png");
  CHECK(a.height == 45);
  CHECK(a.width == 83);
  CHECK(b.height == 72);
  CHECK(b.width == 128);
  CHECK(read_image(dir + "/restored/c.png").width == 31);
  // Nothing but the images: no temporary file left behind.
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir + "/restored")) files += entry.is_regular_file() ? 1 : 0;
  CHECK(files == 3);

  SECTION("in tiles: the same images (no normalisation across the image in this model)") {
    const auto tiled = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                    dir + "/frames/scene/b.png", "--output", dir + "/tiled", "--tile", "48",
                                    "--overlap", "8"},
                                   dir);
    REQUIRE(tiled.exit_code == 0);
    const trainer::Image t = read_image(dir + "/tiled/b.png");
    CHECK(t.height == 72);
    CHECK(t.width == 128);
    int64_t differing = 0;
    for (size_t i = 0; i < t.pixels.size(); ++i) differing += std::abs(t.pixels[i] - b.pixels[i]) > 1 ? 1 : 0;
    CHECK(differing == 0);
  }
  SECTION("a large image: refused whole past memory_limit from its header; in tiles, read a band of rows at a time") {
    write_image(dir + "/large/big.png", 1600, 2000, 30);
    const auto whole = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                    dir + "/large", "--output", dir + "/large-whole", "--set", "memory_limit=64MiB"},
                                   dir);
    CHECK(whole.exit_code == 6);
    CHECK_THAT(whole.err, Catch::Contains(dir + "/large/big.png (2000 x 1600 pixels) needs 91.6 MiB") &&
                              Catch::Contains("left of memory_limit") && Catch::Contains("--tile 512"));
    CHECK_FALSE(fs::exists(dir + "/large-whole/big.png"));
    // Whole images and the model at full size took more than 64 MiB of
    // tensors; bands of 256-pixel tiles take a few.
    const auto tiled = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                    dir + "/large", "--output", dir + "/large-tiled", "--tile", "256", "--overlap", "8",
                                    "--set", "memory_limit=64MiB"},
                                   dir);
    INFO(tiled.err);
    REQUIRE(tiled.exit_code == 0);
    const auto unlimited = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                        dir + "/large", "--output", dir + "/large-whole", "--overlap", "8"},
                                       dir);
    REQUIRE(unlimited.exit_code == 0);
    const trainer::Image t = read_image(dir + "/large-tiled/big.png"), w = read_image(dir + "/large-whole/big.png");
    REQUIRE(t.pixels.size() == w.pixels.size());
    int64_t differing = 0;
    for (size_t i = 0; i < t.pixels.size(); ++i) differing += std::abs(t.pixels[i] - w.pixels[i]) > 1 ? 1 : 0;
    CHECK(differing == 0);
  }
  SECTION("damage found part way through a tiled image leaves no output behind") {
    // Noise does not compress: its rows span several IDAT chunks, and the
    // last one's data is damaged, so the first bands are predicted first.
    trainer::Image noise{200, 150, 3, {}};
    for (int64_t i = 0; i < 200 * 150 * 3; ++i) noise.pixels.push_back(static_cast<uint8_t>((i * 2654435761u) >> 13));
    std::string png = trainer::encode_png(noise, "noise.png");
    png[png.size() - 17] = static_cast<char>(~png[png.size() - 17]);
    fs::create_directories(dir + "/late");
    std::ofstream(dir + "/late/noise.png", std::ios::binary) << png;
    const auto late = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                   dir + "/late", "--output", dir + "/late-out", "--tile", "48", "--overlap", "8"},
                                  dir);
    CHECK(late.exit_code == 3);
    CHECK_THAT(late.err, Catch::Contains(dir + "/late/noise.png: the PNG is damaged or cut short"));
    int written = 0;
    if (fs::exists(dir + "/late-out"))
      for (const auto& entry : fs::recursive_directory_iterator(dir + "/late-out")) written += entry.is_regular_file() ? 1 : 0;
    CHECK(written == 0);
  }
  SECTION("outputs never replace inputs, earlier outputs (without --overwrite), or each other") {
    const std::string before = read_text(dir + "/frames/a.png");
    for (const std::string& output : {dir + "/frames", dir + "/frames/scene", dir}) {
      const auto inside = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                       dir + "/frames", "--output", output, "--overwrite"},
                                      dir);
      CHECK(inside.exit_code == 2);
      CHECK_THAT(inside.err, Catch::Contains("the input folder " + dir + "/frames"));
    }
    CHECK(read_text(dir + "/frames/a.png") == before);
    // One input file, its output folder where it lies: its output would be
    // the input itself, refused even with --overwrite.
    const auto itself = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                     dir + "/frames/a.png", "--output", dir + "/frames", "--overwrite"},
                                    dir);
    CHECK(itself.exit_code == 2);
    CHECK_THAT(itself.err, Catch::Contains(dir + "/frames/a.png is the input") && Catch::Contains("replace it"));
    CHECK(read_text(dir + "/frames/a.png") == before);
    const auto again = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                    dir + "/frames", "--output", dir + "/restored"},
                                   dir);
    CHECK(again.exit_code == 2);
    CHECK_THAT(again.err, Catch::Contains(dir + "/restored/a.png exists (and 2 more outputs)") &&
                              Catch::Contains("--overwrite"));
    const auto overwritten = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                          dir + "/frames", "--output", dir + "/restored", "--overwrite"},
                                         dir);
    CHECK(overwritten.exit_code == 0);
    // One name, two formats: each output keeps its input's extension.
    write_image(dir + "/same/a.png", 20, 20, 10);
    std::ofstream(dir + "/same/a.jpg", std::ios::binary) << trainer::encode_jpeg(jpeg, 90, "a.jpg");
    // Entries named like images that are not files are counted and named, not passed over in silence.
    REQUIRE(::mkfifo((dir + "/same/b.png").c_str(), 0644) == 0);
    fs::create_symlink(dir + "/nowhere.png", dir + "/same/c.png");
    const auto same = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                   dir + "/same", "--output", dir + "/same-out"},
                                  dir);
    INFO(same.err);
    CHECK(same.exit_code == 0);
    CHECK_THAT(same.err, Catch::Contains("predicted 2 files"));
    CHECK_THAT(same.err, Catch::Contains("left out 2 entries named like images that are not image files") &&
                             Catch::Contains(dir + "/same/b.png (a FIFO)") &&
                             Catch::Contains(dir + "/same/c.png (a dangling link)"));
    CHECK(read_image(dir + "/same-out/a.png.png").width == 20);
    CHECK(read_image(dir + "/same-out/a.jpg.png").width == 31);
    // A FIFO is not an image file, and is never opened to wait on.
    REQUIRE(::mkfifo((dir + "/pipe.png").c_str(), 0644) == 0);
    const auto fifo = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                   dir + "/pipe.png", "--output", dir + "/fifo-out"},
                                  dir);
    CHECK(fifo.exit_code == 3);
    CHECK_THAT(fifo.err, Catch::Contains(dir + "/pipe.png is a FIFO, not a regular file"));
  }
  SECTION("no --output for images, a damaged input, a missing one") {
    const auto no_output = run_trainer(
        {"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input", dir + "/frames"}, dir);
    CHECK(no_output.exit_code == 2);
    CHECK_THAT(no_output.err, Catch::Contains("--output"));
    std::ofstream(dir + "/frames/d.png", std::ios::binary) << "\x89PNG\r\n\x1a\n cut";
    const auto damaged = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                      dir + "/frames", "--output", dir + "/again"},
                                     dir);
    CHECK(damaged.exit_code == 3);
    CHECK_THAT(damaged.err, Catch::Contains(dir + "/frames/d.png"));
    const auto skipped = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                      dir + "/frames", "--output", dir + "/again", "--set", "data.on_bad_file=skip",
                                      "--overwrite"},
                                     dir);
    CHECK(skipped.exit_code == 0);
    CHECK_THAT(skipped.err, Catch::Contains("predicted 3 files") && Catch::Contains("1 skipped"));
    // Every input left out: nothing predicted is a data error, not a success.
    fs::create_directories(dir + "/broken");
    fs::copy_file(dir + "/frames/d.png", dir + "/broken/d.png");
    const auto none = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                   dir + "/broken", "--output", dir + "/none", "--set", "data.on_bad_file=skip"},
                                  dir);
    CHECK(none.exit_code == 3);
    CHECK_THAT(none.err, Catch::Contains(dir + "/broken: nothing to predict: its one file was left out"));
    CHECK_FALSE(fs::exists(dir + "/none/d.png.png"));
    const auto missing = run_trainer({"predict", dir + "/deblur.yaml", "--checkpoint", checkpoint, "--input",
                                      dir + "/nowhere", "--output", dir + "/again"},
                                     dir);
    CHECK(missing.exit_code == 3);
    CHECK_THAT(missing.err, Catch::Contains(dir + "/nowhere does not exist"));
  }
}

TEST_CASE("predict: a classifier's top classes, one JSON line per file", "[e2e][predict]") {
  const std::string dir = fresh_dir("e2e-predict-classes");
  for (int i = 0; i < 6; ++i) {
    write_image(dir + "/pics/cat/" + std::to_string(i) + ".png", 8, 8, 10);
    write_image(dir + "/pics/dog/" + std::to_string(i) + ".png", 8, 8, 200);
    write_image(dir + "/pics/owl/" + std::to_string(i) + ".png", 8, 8, 100);
  }
  std::ofstream(dir + "/classes.yaml") << "experiment: {name: predict, seed: 1}\n"
                                       << "data: {dataset: image_folder, path: " << dir << "/pics}\n"
                                       << "model:\n  layers:\n    - {type: flatten}\n"
                                       << "    - {type: dense, units: classes, activation: softmax}\n"
                                       << "train: {epochs: 1, batch_size: 4}\n"
                                       << "log: {dir: " << dir << "/runs, run_name: run}\n";
  const std::string checkpoint = train(dir, dir + "/classes.yaml");
  const auto result = run_trainer({"predict", dir + "/classes.yaml", "--checkpoint", checkpoint, "--input",
                                   dir + "/pics/dog", "--top-k", "2"},
                                  dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  std::istringstream lines(result.out);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    const auto json = nlohmann::json::parse(line);
    CHECK_THAT(json["file"].get<std::string>(), Catch::StartsWith(dir + "/pics/dog/"));
    REQUIRE(json["top"].size() == 2);
    const double first = json["top"][0]["probability"].get<double>(), second = json["top"][1]["probability"].get<double>();
    CHECK(first >= second);
    CHECK(first + second <= 1.0 + 1e-6);
    CHECK(second > 0);
    const std::string name = json["top"][0]["class"].get<std::string>();
    CHECK((name == "cat" || name == "dog" || name == "owl"));
    CHECK(json["top"][0]["label"].get<int>() == (name == "cat" ? 0 : name == "dog" ? 1 : 2));
    ++count;
  }
  CHECK(count == 6);

  SECTION("into a folder: predictions.jsonl, written whole") {
    const auto saved = run_trainer({"predict", dir + "/classes.yaml", "--checkpoint", checkpoint, "--input",
                                    dir + "/pics", "--output", dir + "/out"},
                                   dir);
    REQUIRE(saved.exit_code == 0);
    CHECK(saved.out.empty());
    const std::string text = read_text(dir + "/out/predictions.jsonl");
    CHECK(std::count(text.begin(), text.end(), '\n') == 18);
    CHECK(nlohmann::json::parse(text.substr(0, text.find('\n')))["top"].size() == 3);
  }
}
