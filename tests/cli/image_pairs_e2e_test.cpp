// An image-to-image model trained end to end on image_pairs: the loss falls,
// PSNR and SSIM are reported and rise, run.json ranks them higher-is-better,
// and a model whose output does not fit the targets is refused up front.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "images/image_codec.h"
#include "epoch_records.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

// 24 pairs of 16 x 16 RGB images: each target a smooth random pattern, its
// input the same pattern at half the brightness (what a 1x1 convolution can
// learn to undo).
void write_pairs(const std::string& root) {
  uint32_t state = 7;
  const auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int n = 0; n < 24; ++n) {
    trainer::Image sharp{16, 16, 3, {}}, blur{16, 16, 3, {}};
    const int a = static_cast<int>(next() >> 28), b = static_cast<int>(next() >> 28);
    for (int y = 0; y < 16; ++y)
      for (int x = 0; x < 16; ++x)
        for (int c = 0; c < 3; ++c) {
          const auto value = static_cast<uint8_t>((x * (a + 3) + y * (b + 5) + c * 40) % 200 + 20);
          sharp.pixels.push_back(value);
          blur.pixels.push_back(static_cast<uint8_t>(value / 2));
        }
    for (const auto& [folder, image] : {std::pair{"blur", &blur}, std::pair{"sharp", &sharp}}) {
      fs::create_directories(root + "/" + folder);
      const std::string path = root + "/" + folder + "/" + std::to_string(n) + ".png";
      std::ofstream(path, std::ios::binary) << trainer::encode_png(*image, path);
    }
  }
}

std::string pairs_experiment(const std::string& dir, const std::string& last_layer) {
  write_pairs(dir + "/pairs");
  const std::string path = dir + "/pairs.yaml";
  std::ofstream(path) << "experiment: {name: pairs, seed: 3}\n"
                      << "data: {dataset: image_pairs, path: " << dir << "/pairs, validation_split: 0.25}\n"
                      << "model:\n  layers:\n    - " << last_layer << "\n"
                      << "loss: {name: l1}\n"
                      << "metrics: [psnr, ssim, mse]\n"
                      << "optimizer: {name: adam, lr: 0.05}\n"
                      << "train: {epochs: 4, batch_size: 6}\n"
                      << "log: {dir: " << dir << "/runs, run_name: run}\n";
  return path;
}

}  // namespace

TEST_CASE("an image_pairs model trains: loss falls, PSNR and SSIM rise and are ranked higher-is-better",
          "[e2e][image_pairs]") {
  const std::string dir = fresh_dir("e2e-image-pairs");
  const auto result = run_trainer({"run", pairs_experiment(dir, "{type: conv2d, filters: 3, kernel_size: 1}")}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto epochs = parse_records(result.out);
  REQUIRE(epochs.size() == 4);
  CHECK(epochs[3].loss < epochs[0].loss);
  CHECK_THAT(epochs[0].values, Catch::Contains(",PSNR:") && Catch::Contains(",SSIM:") && Catch::Contains(",Valid PSNR:"));
  const auto value_of = [](const std::string& values, const std::string& name) {
    const auto at = values.find("," + name + ":");
    REQUIRE(at != std::string::npos);
    return std::stod(values.substr(at + name.size() + 2));
  };
  CHECK(value_of(epochs[3].values, "Valid PSNR") > value_of(epochs[0].values, "Valid PSNR"));
  CHECK(value_of(epochs[3].values, "Valid SSIM") > value_of(epochs[0].values, "Valid SSIM"));
  const auto record = nlohmann::json::parse(read_text(dir + "/runs/pairs/run/run.json"));
  CHECK(record["metrics"]["val_psnr"]["higher_is_better"] == true);
  CHECK(record["metrics"]["val_mse"]["higher_is_better"] == false);
  CHECK(record["metrics"]["val_psnr"]["best"].get<double>() >= record["metrics"]["val_psnr"]["last"].get<double>());
}

TEST_CASE("an image_pairs model that does not output the targets' shape, or a classifier's metric, is exit 2",
          "[e2e][image_pairs][errors]") {
  const std::string dir = fresh_dir("e2e-image-pairs-errors");
  const auto result = run_trainer({"run", pairs_experiment(dir, "{type: conv2d, filters: 1, kernel_size: 3}")}, dir);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("model.layers[0]: the model outputs (None, 1, 14, 14) but the image_pairs "
                                         "targets are (None, 3, 16, 16)"));
  CHECK_FALSE(fs::exists(dir + "/runs"));
  const auto accuracy = run_trainer(
      {"run", pairs_experiment(dir, "{type: conv2d, filters: 3, kernel_size: 1}"), "--set", "metrics=[accuracy]"}, dir);
  CHECK(accuracy.exit_code == 2);
  CHECK_THAT(accuracy.err, Catch::Contains("metrics: accuracy counts right classes, and image_pairs has image targets"));
}
