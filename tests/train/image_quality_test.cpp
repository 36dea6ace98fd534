// PSNR and SSIM per image against scikit-image's, and the image losses.
#include <catch2/catch.hpp>
#include <torch/torch.h>

#include <fstream>
#include <sstream>

#include "test_paths.h"
#include "train/image_quality.h"
#include "train/loss.h"
#include "train/metrics.h"

using namespace trainer;

namespace {

void write_doubles(const std::string& path, const torch::Tensor& t) {
  const torch::Tensor flat = t.contiguous().to(torch::kFloat64);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(flat.data_ptr<double>()), static_cast<std::streamsize>(flat.numel() * 8));
}

// Images with structure (a smooth gradient and noise), and a blurred, shifted
// and noisier version of them: SSIM well away from 0 and 1.
std::pair<torch::Tensor, torch::Tensor> image_pairs(int64_t n, int64_t channels, int64_t height, int64_t width) {
  const torch::Tensor ramp = torch::linspace(0, 1, width, torch::kFloat64).expand({n, channels, height, width});
  const torch::Tensor target = (0.6 * ramp + 0.4 * torch::rand({n, channels, height, width}, torch::kFloat64));
  const torch::Tensor blurred = torch::avg_pool2d(target, 3, 1, 1, false, false);
  const torch::Tensor output = (blurred + 0.05 * torch::randn_like(blurred)).clamp(0, 1);
  return {output, target};
}

}  // namespace

TEST_CASE("psnr and ssim equal scikit-image's, image by image", "[train][metrics][python]") {
  if (!testing::system_python_has("skimage")) {
    WARN("SKIPPED: needs Debian's python3-skimage");
    return;
  }
  torch::manual_seed(12);
  for (const auto& [channels, height, width, range] :
       {std::tuple{3, 24, 31, 1.0}, std::tuple{1, 11, 16, 1.0}, std::tuple{3, 17, 17, 255.0}}) {
    INFO(channels << " x " << height << " x " << width << ", range " << range);
    auto [output, target] = image_pairs(4, channels, height, width);
    output = output * range;
    target = target * range;
    const std::string dir = testing::fresh_dir("image-quality");
    write_doubles(dir + "/output.f64", output);
    write_doubles(dir + "/target.f64", target);
    std::ostringstream arguments;
    arguments << testing::source_dir() << "/tests/train/image_quality_reference.py " << dir << "/output.f64 " << dir
              << "/target.f64 4 " << channels << " " << height << " " << width << " " << range;
    const auto printed = testing::system_python_output(arguments.str());
    REQUIRE(printed.has_value());
    std::istringstream lines(*printed);
    const torch::Tensor psnr = image_psnr(output, target, range), ssim = image_ssim(output, target, range);
    for (int64_t i = 0; i < 4; ++i) {
      double expected_psnr = 0, expected_ssim = 0;
      lines >> expected_psnr >> expected_ssim;
      INFO("scikit-image printed: " << *printed);
      REQUIRE(lines);
      CHECK(psnr[i].item<double>() == Approx(expected_psnr).epsilon(1e-9));
      CHECK(ssim[i].item<double>() == Approx(expected_ssim).epsilon(1e-9));
      CHECK(expected_ssim > 0.2);
      CHECK(expected_ssim < 0.95);
    }
  }
}

TEST_CASE("psnr and ssim of identical images: the 100 dB cap and 1", "[train][metrics]") {
  const torch::Tensor image = torch::rand({2, 3, 12, 12});
  CHECK(image_psnr(image, image, 1.0)[0].item<double>() == Approx(100.0));
  CHECK(image_ssim(image, image, 1.0)[1].item<double>() == Approx(1.0));
  // A uniform error of 0.1 on [0, 1] images: 20 dB.
  CHECK(image_psnr(image + 0.1, image, 1.0)[0].item<double>() == Approx(20.0).epsilon(1e-5));
}

TEST_CASE("image losses and metrics on image targets: l1, charbonnier, mse, psnr, ssim", "[train][metrics]") {
  torch::manual_seed(3);
  const torch::Tensor target = torch::rand({2, 1, 12, 12});
  const torch::Tensor output = target + 0.2;
  LossConfig loss;
  loss.name = LossKind::kL1;
  CHECK(compute_loss(loss, output, target, false).item<float>() == Approx(0.2f));
  loss.name = LossKind::kCharbonnier;
  loss.epsilon = 0.15;
  CHECK(compute_loss(loss, output, target, false).item<float>() == Approx(0.25f));  // sqrt(0.04 + 0.0225)
  loss.name = LossKind::kMse;
  MetricAccumulator meters(loss, {"mse", "mae", "psnr", "ssim"}, false, 1.0);
  meters.add(compute_loss(loss, output, target, false), output, target);
  const auto results = meters.results();
  REQUIRE(results.size() == 5);
  CHECK(results[1].key == "mse");
  CHECK(results[1].value == Approx(0.04f));
  CHECK(results[2].value == Approx(0.2f));
  CHECK(results[3].key == "psnr");
  CHECK(results[3].value == Approx(13.9794f));  // 10 log10(1 / 0.04)
  CHECK(results[4].key == "ssim");
  CHECK(results[4].value == Approx(image_ssim(output, target, 1.0).mean().item<double>()));
}
