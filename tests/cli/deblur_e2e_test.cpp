// A short deblurring run on real photographs, end to end: image_degrade
// blurs patches of python3-skimage's sample photos, the run logs the
// identity baseline and keeps it in run.json, the model's validation PSNR
// rises above it, and the run's report shows the newest sample pictures.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "epoch_records.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

const char* kSkimagePhotos = "/usr/lib/python3/dist-packages/skimage/data";

double value_of(const std::string& values, const std::string& name) {
  const auto at = values.find("," + name + ":");
  if (at == std::string::npos) return -1;
  return std::stod(values.substr(at + name.size() + 2));
}

}  // namespace

TEST_CASE("a short deblurring run on real photos beats the identity baseline", "[e2e][deblur]") {
  if (!fs::exists(std::string(kSkimagePhotos) + "/astronaut.png")) {
    WARN("SKIPPED: needs Debian's python3-skimage (its sample photographs)");
    return;
  }
  const std::string dir = fresh_dir("e2e-deblur");
  fs::create_directories(dir + "/train");
  fs::create_directories(dir + "/valid");
  for (const std::string name : {"astronaut.png", "rocket.jpg", "motorcycle_left.png"})
    fs::copy_file(std::string(kSkimagePhotos) + "/" + name, dir + "/train/" + name);
  fs::copy_file(std::string(kSkimagePhotos) + "/coffee.png", dir + "/valid/coffee.png");
  // Out-of-focus blur, which two small convolutions learn to sharpen back in
  // a couple of hundred steps (with MSE; L1's sign gradients take far
  // longer); the last one starts at zero, so the model starts as the
  // identity. Keras's initialisation (zero biases) lets this small ReLU
  // layer die and the model settle on the identity; PyTorch's does not.
  std::ofstream(dir + "/deblur.yaml")
      << "experiment: {name: deblur, seed: 3}\n"
      << "data:\n  dataset: image_degrade\n  path: " << dir << "/train\n  validation_path: " << dir << "/valid\n"
      << "  patch_size: 48\n  patches_per_image: 64\n  workers: 2\n"
      << "  augment: {flip_horizontal: true}\n"
      << "  degrade: {seed: 2, motion_blur: {probability: 0}, gaussian_blur: {probability: 1, sigma: 1.2}}\n"
      << "model:\n  init: pytorch\n  layers:\n"
      << "    - {type: conv2d, filters: 16, kernel_size: 5, padding: same, activation: relu}\n"
      << "    - {type: conv2d, filters: 3, kernel_size: 5, padding: same, kernel_initializer: zeros, name: correction}\n"
      << "    - {type: add, inputs: [input, correction]}\n"
      << "loss: {name: mse}\n"
      << "optimizer: {name: adam, lr: 0.003}\n"
      << "train: {epochs: 8, batch_size: 8}\n"
      << "log: {dir: " << dir << "/runs, run_name: run}\n";
  const auto result = run_trainer({"run", dir + "/deblur.yaml"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.err, Catch::Contains("validation baseline, the inputs as they are: Valid Loss:") &&
                             Catch::Contains("image cache: 4 of 4 images kept decoded"));
  const auto epochs = parse_records(result.out);
  REQUIRE(epochs.size() == 8);
  const auto record = nlohmann::json::parse(read_text(dir + "/runs/deblur/run/run.json"));
  const double baseline = record["identity_baseline"]["val_psnr"].get<double>();
  INFO("identity baseline " << baseline << " dB");
  CHECK(baseline > 20);
  CHECK(baseline < 40);
  CHECK(value_of(epochs[7].values, "Valid PSNR") > value_of(epochs[0].values, "Valid PSNR"));
  CHECK(value_of(epochs[7].values, "Valid PSNR") > baseline + 0.5);
  CHECK(record["identity_baseline"]["val_ssim"].get<double>() > 0);
  // The last epoch's pictures of the first validation samples, as PNG files
  // (TensorBoard's images come from the same) and in the report.
  const std::string run = dir + "/runs/deblur/run";
  int64_t steps = 0;
  std::ifstream metrics(run + "/metrics.jsonl");
  for (std::string line; std::getline(metrics, line);) steps += nlohmann::json::parse(line)["steps"].get<int64_t>();
  CHECK(steps > 0);
  CHECK(read_text(run + "/samples/step") == std::to_string(steps) + "\n");
  const std::string png_signature = "\x89PNG\r\n\x1a\n";
  for (const std::string picture : {"valid-0-input", "valid-0-output", "valid-0-target"})
    CHECK(read_text(run + "/samples/" + picture + ".png").rfind(png_signature, 0) == 0);
  const std::string report = read_text(run + "/report.html");
  CHECK_THAT(report, Catch::Contains("<h2>Samples</h2>") && Catch::Contains("after step " + std::to_string(steps)) &&
                         Catch::Contains("alt=\"valid-0 output\" src=\"data:image/png;base64,iVBORw0KGgo"));
}
