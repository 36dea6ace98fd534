#include <catch2/catch.hpp>

#include <cstdio>
#include <functional>
#include <sstream>

#include "test_paths.h"
#include "optim/parameter_makers.h"
#include "optim/nadam.h"

using namespace trainer;

namespace {

const torch::TensorOptions kDouble = torch::TensorOptions().dtype(torch::kFloat64);

NAdam make_nadam(torch::Tensor& p) {
  return NAdam({p}, NAdamOptions(0.01).beta1(0.9).beta2(0.999).eps(1e-7).weight_decay(0.01).momentum_decay(0.004));
}

void apply_step(NAdam& optimizer, torch::Tensor& p, int t) {
  const auto c = torch::tensor({1.0, 1.0, -1.0, 0.5, 0.0}, kDouble);
  optimizer.zero_grad();
  p.mutable_grad() = 2 * (p.detach() - c) + 0.1 * t;
  optimizer.step();
}

torch::Tensor start_point() { return torch::tensor({0.5, -1.0, 2.0, 0.0, 3.0}, kDouble).requires_grad_(true); }


}  // namespace

TEST_CASE("NAdam matches torch.optim.NAdam step by step", "[train][nadam][python]") {
  if (!testing::system_python_has("torch")) {
    WARN("SKIPPED: needs Debian's python3-torch (/usr/bin/python3 with torch)");
    return;
  }
  const std::optional<std::string> output =
      testing::system_python_output(testing::source_dir() + "/tests/optim/nadam_reference.py");
  REQUIRE(output.has_value());

  auto p = start_point();
  auto optimizer = make_nadam(p);
  std::istringstream lines(*output);
  int t = 0;
  for (std::string line; std::getline(lines, line);) {
    apply_step(optimizer, p, ++t);
    std::istringstream values(line);
    for (int i = 0; i < 5; ++i) {
      double expected = 0;
      values >> expected;
      INFO("step " << t << ", element " << i);
      // PyTorch 2.x orders its scalar arithmetic differently (5e-12 apart
      // after 30 steps); a wrong formula shows at 1e-4 and more.
      CHECK(p[i].item<double>() == Approx(expected).epsilon(1e-10).margin(1e-10));
    }
  }
  CHECK(t == 30);
}

TEST_CASE("NAdam state survives save and load", "[train][nadam]") {
  auto straight = start_point();
  auto straight_optimizer = make_nadam(straight);
  for (int t = 1; t <= 10; ++t) apply_step(straight_optimizer, straight, t);

  auto resumed = start_point();
  auto first = make_nadam(resumed);
  for (int t = 1; t <= 5; ++t) apply_step(first, resumed, t);
  std::stringstream stream;
  {
    torch::serialize::OutputArchive archive;
    first.save(archive);
    archive.save_to(stream);
  }
  auto second = make_nadam(resumed);
  torch::serialize::InputArchive archive;
  archive.load_from(stream);
  second.load(archive);
  for (int t = 6; t <= 10; ++t) apply_step(second, resumed, t);
  CHECK(torch::equal(straight, resumed));
}

namespace {

// NAdam with its passes against NAdam with tensor operations alone, over 20
// steps of three parameters made by `make` (with and without weight decay):
// the same values within `tolerance` of the largest, and every update taken
// by a pass.
void check_passes_match_tensor_operations(const std::function<torch::Tensor(const std::vector<int64_t>&)>& make,
                                          double tolerance) {
  for (const double weight_decay : {0.0, 0.01}) {
    torch::manual_seed(11);
    std::vector<torch::Tensor> passed = {make({7}), make({300, 257}), make({6, 5, 4, 3})};
    std::vector<torch::Tensor> apart, start;
    for (auto& p : passed) {
      start.push_back(p.clone());
      apart.push_back(p.clone().requires_grad_(true));
      p.requires_grad_(true);
    }
    const auto options = NAdamOptions(0.01).weight_decay(weight_decay);
    NAdam with_passes(passed, options), plain(apart, options);
    plain.set_fused(false);
    for (int step = 1; step <= 20; ++step) {
      for (size_t i = 0; i < passed.size(); ++i) {
        const auto grad = torch::randn_like(passed[i]) + 0.1 * step;
        passed[i].mutable_grad() = grad.clone();
        apart[i].mutable_grad() = grad.clone();
      }
      with_passes.step();
      plain.step();
    }
    CHECK(with_passes.fused_updates() == 60);
    CHECK(plain.fused_updates() == 0);
    for (size_t i = 0; i < passed.size(); ++i) {
      INFO("weight decay " << weight_decay << ", parameter " << i);
      const auto difference = (passed[i] - apart[i]).abs().max().item<double>();
      const auto moved = (apart[i] - start[i]).abs().max().item<double>();
      CHECK(difference <= tolerance * std::max(1.0, apart[i].abs().max().item<double>()));
      CHECK(moved > 0.01);
    }
  }
}

}  // namespace

TEST_CASE("NAdam's fused pass over float32 parameters matches its tensor operations", "[train][nadam]") {
  // Small and large (split among threads), flat and channels-last. The same
  // float arithmetic in the same order; LibTorch's vector kernels may fuse
  // a multiply-add where the loop rounds twice.
  check_passes_match_tensor_operations(
      [](const std::vector<int64_t>& sizes) {
        auto p = torch::randn(sizes);
        return sizes.size() == 4 ? p.contiguous(torch::MemoryFormat::ChannelsLast) : p;
      },
      1e-6);
}

TEST_CASE("NAdam's multi-tensor pass matches its tensor operations", "[train][nadam]") {
  // What the CPU loop does not take (float64, a strided view) goes with
  // GPU parameters through the multi-tensor pass; on a CPU LibTorch runs
  // its operations one by one. The intermediate tensors it makes may be laid
  // out otherwise than the per-tensor path's, which can send a float32
  // operation through LibTorch's other (scalar or vector) loop: an ulp or
  // two apart.
  check_passes_match_tensor_operations(testing::off_the_cpu_loops, 1e-6);
}

TEST_CASE("GPU: NAdam's multi-tensor pass matches its tensor operations", "[train][nadam][gpu]") {
  if (!torch::cuda::is_available()) {
    WARN("SKIPPED: needs a CUDA GPU");
    return;
  }
  // The same operations in the same order; the multi-tensor kernels may
  // contract a multiply-add the per-tensor ones round twice.
  check_passes_match_tensor_operations(testing::on_the_gpu, 1e-6);
}
