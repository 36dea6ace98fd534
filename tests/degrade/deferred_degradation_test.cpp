// image_degrade's degradation done on the step's device
// (data.degrade.on_device): the same pairs as the CPU's, to within a grey
// level, from the same seed; the noise the same on either side; on a GPU
// the same as on the CPU.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "data/dataset.h"
#include "degrade/deferred_degradation.h"
#include "degrade/image_degrade.h"
#include "images/image_fixtures.h"
#include "intra_op_threads.h"
#include "data/patch_samples.h"
#include "test_paths.h"

using namespace trainer;

namespace {

std::string degrade_photos(int count) {
  const std::string root = testing::fresh_dir("deferred-degrade");
  for (int i = 0; i < count; ++i)
    testing::write_png(root + "/photos/" + std::to_string(i) + ".png",
                       testing::random_image(60, 70, 3, 40 + static_cast<uint64_t>(i)));
  return root;
}

// Every degradation and augmentation the source knows, JPEG on half the samples.
DataConfig everything(const std::string& root, PixelScale scale) {
  DataConfig config;
  config.dataset = DatasetKind::kImageDegrade;
  config.path = root;
  config.patch_size = 24;
  config.patches_per_image = 6;
  config.validation_split = 0.25;
  config.images.scale = scale;
  config.augment.flip_horizontal = config.augment.flip_vertical = config.augment.rotate90 = true;
  config.augment.brightness = 0.1;
  config.degrade.seed = 9;
  config.degrade.motion_blur.probability = 0.8;
  config.degrade.motion_blur.length = {5, 15};
  config.degrade.gaussian_blur.probability = 0.5;
  config.degrade.noise.probability = 0.7;
  config.degrade.jpeg.probability = 0.3;
  return config;
}

// Inputs of two paths that should agree to within a grey level: no value
// further apart than one level, and nearly all equal.
void check_within_a_grey_level(const torch::Tensor& a, const torch::Tensor& b, double level) {
  REQUIRE(a.sizes() == b.sizes());
  const torch::Tensor difference = (a - b).abs();
  CHECK(difference.max().item<double>() <= level * 1.001);
  const double equal_share = difference.lt(level * 0.5).to(torch::kDouble).mean().item<double>();
  CHECK(equal_share > 0.995);
}

// This process's threads, as the kernel counts them.
int process_threads() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

}  // namespace

TEST_CASE("counter noise: a function of key and index, the same from tensors, standard normal", "[data][degrade]") {
  const torch::Tensor keys = torch::tensor({int64_t{0}, int64_t{1}, int64_t{-7046029254386353131}, int64_t{123456789}});
  const torch::Tensor normals = counter_normals(keys, 3, 5, 7);
  REQUIRE(normals.sizes() == torch::IntArrayRef({4, 3, 5, 7}));
  for (int64_t n = 0; n < 4; ++n)
    for (int64_t ch = 0; ch < 3; ++ch)
      for (int64_t r = 0; r < 5; ++r)
        for (int64_t c = 0; c < 7; ++c) {
          const auto key = static_cast<uint64_t>(keys[n].item<int64_t>());
          const double expected = counter_normal(key, static_cast<uint64_t>((r * 7 + c) * 3 + ch));
          CHECK(normals[n][ch][r][c].item<double>() == Approx(expected).margin(1e-12));
        }
  CHECK(counter_normal(5, 17) == counter_normal(5, 17));
  CHECK(counter_normal(5, 17) != counter_normal(6, 17));
  const torch::Tensor many = counter_normals(torch::tensor({int64_t{42}}), 1, 300, 300);
  CHECK(many.mean().item<double>() == Approx(0).margin(0.02));
  CHECK(many.std().item<double>() == Approx(1).margin(0.02));
  CHECK(many.abs().gt(3).to(torch::kDouble).mean().item<double>() == Approx(0.0027).margin(0.001));
}

TEST_CASE("degradation on the device gives the CPU's pairs, to within a grey level", "[data][degrade][patches]") {
  const std::string root = degrade_photos(4);
  for (PixelScale scale : {PixelScale::kNone, PixelScale::kUnit, PixelScale::kSymmetric}) {
    DataConfig config = everything(root, scale);
    const double level = scale == PixelScale::kNone ? 1.0 : scale == PixelScale::kUnit ? 1.0 / 255 : 2.0 / 255;
    const DataSplits on_cpu = load_dataset(config, 3);
    config.degrade.on_device = DataPlacement::kDevice;
    const DataSplits deferred = load_dataset(config, 3);
    for (int64_t epoch : {1, 2}) {
      INFO("scale " << static_cast<int>(scale) << ", epoch " << epoch);
      const auto expected = testing::all_samples(on_cpu.train, epoch);
      const auto got = testing::all_samples(deferred.train, epoch);
      CHECK(torch::equal(expected.second, got.second));  // the targets: the same windows, turned alike
      check_within_a_grey_level(got.first, expected.first, level);
      // Degraded at all: not the target.
      CHECK((got.first - got.second).abs().mean().item<double>() > level);
    }
    const auto expected = testing::all_samples(on_cpu.valid, 0);
    const auto got = testing::all_samples(deferred.valid, 0);
    CHECK(torch::equal(expected.second, got.second));
    check_within_a_grey_level(got.first, expected.first, level);
  }
}

TEST_CASE("a loader thread makes a batch for the device without threads of its own", "[data][degrade]") {
  // LibTorch splits a fill or copy of a large tensor among its intra-op
  // threads; called from a loader thread, it starts a team of that many
  // threads for that thread, which then spin on the cores the step needs.
  const testing::IntraOpThreads two(2);
  const std::string root = testing::fresh_dir("deferred-threads");
  for (int i = 0; i < 4; ++i)
    testing::write_png(root + "/photos/" + std::to_string(i) + ".png",
                       testing::random_image(200, 200, 3, 60 + static_cast<uint64_t>(i)));
  DataConfig config = everything(root, PixelScale::kSymmetric);
  config.patch_size = 96;  // windows of more than 8 x 3 x 96 x 96 values: far above LibTorch's grain
  config.degrade.motion_blur.probability = 1;
  config.degrade.motion_blur.length = {20, 30};
  config.degrade.jpeg.probability = 0;
  config.degrade.on_device = DataPlacement::kDevice;
  const DataSplits data = load_dataset(config, 3);
  const torch::Tensor ids = data.train.inputs.narrow(0, 0, 8).contiguous();
  int before = 0, after = 0;
  SampleBatch batch;
  std::thread loader([&] {
    before = process_threads();
    batch = data.train.source->assemble(ids.data_ptr<int64_t>(), ids.size(0), 1);
    after = process_threads();
  });
  loader.join();
  REQUIRE(batch.deferred);
  CHECK(batch.deferred->windows.numel() > 8 * 3 * 96 * 96);
  CHECK(after == before);
}

TEST_CASE("a deferred batch: windows and kernels as the source left them, blurred by FFT", "[data][degrade]") {
  // One sample, a delta kernel shifted by one column: the output is the
  // window moved by a pixel, as a direct convolution would give.
  DeferredDegradation d;
  d.windows = torch::arange(1 * 1 * 5 * 6, torch::kFloat).view({1, 1, 5, 6});
  d.kernels = torch::zeros({1, 3, 3});
  d.kernels[0][1][0] = 1.0f;  // weight at (dy, dx) = (0, -1): out(y, x) = in(y + 1, x + 2) of the padded window
  d.noise_sigmas = torch::zeros({1}, torch::kDouble);
  d.noise_keys = torch::zeros({1}, torch::kInt64);
  d.brightness = torch::zeros({1});
  d.orientations.resize(1);
  const torch::Tensor out = d.finish();
  REQUIRE(out.sizes() == torch::IntArrayRef({1, 1, 3, 4}));
  CHECK(torch::allclose(out, d.windows.narrow(2, 1, 3).narrow(3, 2, 4), 0, 1e-3));
  // A quarter turn and a vertical flip, then brightness past white.
  d.orientations[0] = {true, false, 1, 300.0f};
  d.brightness[0] = 300.0f;
  CHECK(torch::equal(d.finish(), torch::full({1, 1, 4, 3}, 255.0f)));
}

TEST_CASE("GPU: degradation on the GPU gives the CPU's inputs", "[data][degrade][gpu]") {
  if (!torch::cuda::is_available()) {
    WARN("SKIPPED: needs a CUDA GPU");
    return;
  }
  const std::string root = degrade_photos(4);  // 0.25 held out needs 4 photos or more
  DataConfig config = everything(root, PixelScale::kSymmetric);
  config.degrade.on_device = DataPlacement::kDevice;
  const DataSplits data = load_dataset(config, 5);
  const torch::Tensor ids = data.train.inputs.contiguous();
  const SampleBatch batch = data.train.source->assemble(ids.data_ptr<int64_t>(), ids.size(0), 1);
  REQUIRE(batch.deferred);
  const torch::Tensor on_cpu = batch.deferred->finish();
  const torch::Tensor on_gpu = batch.deferred->to(torch::Device(torch::kCUDA, 0), false).finish();
  CHECK(on_gpu.device().is_cuda());
  check_within_a_grey_level(on_gpu.cpu(), on_cpu, 2.0 / 255);
  // The noise itself: the same bits from the same keys.
  const torch::Tensor keys = torch::randint(1 << 30, {16}, torch::kInt64);
  CHECK(torch::allclose(counter_normals(keys.cuda(), 3, 8, 8).cpu(), counter_normals(keys, 3, 8, 8), 0, 1e-9));
}
