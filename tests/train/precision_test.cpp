// Mixed precision: the loss scaler (for fp16) and CPU autocast (bf16).
#include <catch2/catch.hpp>

#include <limits>

#include "device/autocast.h"
#include "models/layers.h"
#include "train/loss_scaler.h"
#include "util/error.h"

using namespace trainer;

namespace {

torch::Tensor parameter_with_gradient(std::vector<float> gradient) {
  auto parameter = torch::zeros({static_cast<int64_t>(gradient.size())}, torch::requires_grad());
  parameter.mutable_grad() = torch::tensor(gradient);
  return parameter;
}

}  // namespace

TEST_CASE("an inf gradient skips the step and halves the scale", "[precision][scaler]") {
  LossScaler scaler;
  CHECK(scaler.scale_value() == 65536.0);
  CHECK(scaler.scale(torch::tensor(2.0f)).item<float>() == 131072.0f);
  const auto good = parameter_with_gradient({65536.0f, -131072.0f});
  const torch::Tensor finite = scaler.unscale({good});
  CHECK(finite.item<double>() == 0);
  CHECK(torch::equal(good.grad(), torch::tensor({1.0f, -2.0f})));
  scaler.update(finite);
  CHECK(scaler.skipped_steps() == 0);
  CHECK(scaler.scale_value() == 65536.0);

  const auto bad = parameter_with_gradient({1.0f, std::numeric_limits<float>::infinity()});
  const torch::Tensor overflow = scaler.unscale({good, bad});
  CHECK(overflow.item<double>() == 1);
  scaler.update(overflow);
  CHECK(scaler.scale_value() == 32768.0);
  CHECK(scaler.skipped_steps() == 1);
  const auto nan = parameter_with_gradient({std::numeric_limits<float>::quiet_NaN()});
  CHECK(scaler.unscale({nan}).item<double>() == 1);
  scaler.reset_skipped_steps();
  CHECK(scaler.skipped_steps() == 0);
}

namespace {

const torch::Tensor kFinite = torch::tensor(0.0, torch::kFloat64);
const torch::Tensor kOverflow = torch::tensor(1.0, torch::kFloat64);

}  // namespace

TEST_CASE("the scale grows after the interval of good steps, and no sooner", "[precision][scaler]") {
  LossScaler::Options options;
  options.initial_scale = 8.0;
  options.growth_interval = 3;
  LossScaler scaler(options);
  scaler.update(kFinite);
  scaler.update(kFinite);
  CHECK(scaler.scale_value() == 8.0);
  scaler.update(kFinite);
  CHECK(scaler.scale_value() == 16.0);
  // An overflow restarts the count.
  scaler.update(kFinite);
  scaler.update(kOverflow);
  scaler.update(kFinite);
  scaler.update(kFinite);
  CHECK(scaler.scale_value() == 8.0);
  scaler.update(kFinite);
  CHECK(scaler.scale_value() == 16.0);
  CHECK(scaler.skipped_steps() == 1);
}

TEST_CASE("the scaler's state survives a save and load", "[precision][scaler]") {
  LossScaler::Options options;
  options.growth_interval = 5;
  LossScaler scaler(options);
  scaler.update(kOverflow);
  scaler.update(kFinite);
  scaler.update(kFinite);
  const torch::Tensor state = scaler.state();
  CHECK(state.dtype() == torch::kFloat64);
  CHECK(torch::equal(state, torch::tensor({32768.0, 2.0, 1.0}, torch::kFloat64)));
  LossScaler restored(options);
  restored.load_state(state);
  CHECK(restored.scale_value() == scaler.scale_value());
  CHECK(restored.skipped_steps() == 1);
  // The two good steps in a row carry over: three more grow the scale.
  for (int i = 0; i < 3; ++i) restored.update(kFinite);
  CHECK(restored.scale_value() == scaler.scale_value() * 2);
  CHECK_THROWS_AS(restored.load_state(torch::zeros({2})), IoError);
}

TEST_CASE("precision and mixed_precision choose the autocast type", "[precision]") {
  CHECK(autocast_dtype(Precision::kFp32, false, false) == torch::kFloat32);
  CHECK(autocast_dtype(Precision::kFp32, true, false) == torch::kBFloat16);
  CHECK(autocast_dtype(Precision::kFp32, true, true) == torch::kFloat16);
  CHECK(autocast_dtype(Precision::kBf16, false, true) == torch::kBFloat16);
}

TEST_CASE("CPU autocast runs a linear layer in bf16 and leaves no stale weight casts", "[precision]") {
  torch::manual_seed(3);
  torch::nn::Linear linear(8, 4);
  const auto input = torch::randn({2, 8});
  torch::Tensor first;
  {
    AutocastScope scope(torch::kCPU, torch::kBFloat16);
    first = linear->forward(input);
  }
  CHECK(first.scalar_type() == torch::kBFloat16);
  CHECK(linear->weight.scalar_type() == torch::kFloat32);
  CHECK(linear->forward(input).scalar_type() == torch::kFloat32);  // off after the scope
  // The weights change (an optimizer step); the next scope must use the new ones.
  {
    torch::NoGradGuard no_grad;
    linear->weight.add_(1.0);
  }
  torch::Tensor second;
  {
    AutocastScope scope(torch::kCPU, torch::kBFloat16);
    second = linear->forward(input);
  }
  const auto expected = linear->forward(input);
  CHECK(torch::allclose(second.to(torch::kFloat32), expected, 0.05, 0.05));
  CHECK_FALSE(torch::allclose(second.to(torch::kFloat32), first.to(torch::kFloat32), 0.05, 0.05));
}

TEST_CASE("group and instance norms take bf16 inputs under CPU autocast, in float32", "[precision]") {
  torch::manual_seed(5);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 4, 3));
  DeviceGroupNorm instance(torch::nn::GroupNormOptions(4, 4)), groups(torch::nn::GroupNormOptions(2, 4));
  const auto input = torch::randn({2, 3, 9, 9});
  AutocastScope scope(torch::kCPU, torch::kBFloat16);
  const torch::Tensor features = conv->forward(input);
  REQUIRE(features.scalar_type() == torch::kBFloat16);
  // torch::nn::GroupNorm itself fails here: its float32 weights meet the bf16 input.
  const torch::Tensor normalised = instance->forward(features);
  CHECK(normalised.scalar_type() == torch::kFloat32);
  CHECK(torch::allclose(normalised, torch::group_norm(features.to(torch::kFloat), 4, instance->weight, instance->bias),
                        1e-5, 1e-5));
  CHECK(groups->forward(features).scalar_type() == torch::kFloat32);
}

TEST_CASE("the per-channel norm GPUs take equals a group norm of one channel a group", "[precision]") {
  // The same arithmetic on the CPU, in float32: values and gradients.
  torch::manual_seed(11);
  DeviceGroupNorm norm(torch::nn::GroupNormOptions(5, 5).eps(1e-5));
  {
    torch::NoGradGuard no_grad;
    norm->weight.uniform_(0.5, 1.5);
    norm->bias.uniform_(-0.5, 0.5);
  }
  const auto input = (torch::randn({3, 5, 7, 6}) * 3 + 1).requires_grad_(true);
  const auto twin = input.detach().clone().requires_grad_(true);
  const auto through_batch_norm = per_channel_norm(input, norm->weight, norm->bias, 1e-5);
  const auto through_group_norm = norm->forward(twin);
  CHECK(torch::allclose(through_batch_norm, through_group_norm, 1e-5, 1e-5));
  const auto upstream = torch::randn(through_group_norm.sizes());
  (through_batch_norm * upstream).sum().backward();
  const auto norm_gradients = std::make_pair(norm->weight.grad().clone(), norm->bias.grad().clone());
  norm->weight.mutable_grad().reset();
  norm->bias.mutable_grad().reset();
  (through_group_norm * upstream).sum().backward();
  CHECK(torch::allclose(input.grad(), twin.grad(), 1e-4, 1e-5));
  CHECK(torch::allclose(norm_gradients.first, norm->weight.grad(), 1e-4, 1e-5));
  CHECK(torch::allclose(norm_gradients.second, norm->bias.grad(), 1e-4, 1e-5));
}

TEST_CASE("GPU: instance norms run in bf16 under autocast, close to float32", "[precision][gpu]") {
  if (!torch::cuda::is_available()) {
    WARN("SKIPPED: needs a CUDA GPU");
    return;
  }
  torch::manual_seed(12);
  DeviceGroupNorm norm(torch::nn::GroupNormOptions(8, 8));
  norm->to(torch::kCUDA);
  const auto input = torch::randn({2, 8, 16, 16}, torch::kCUDA);
  const auto expected = torch::group_norm(input, 8, norm->weight, norm->bias);
  torch::Tensor half;
  {
    AutocastScope scope(torch::kCUDA, torch::kBFloat16);
    half = norm->forward(input.to(torch::kBFloat16));
  }
  CHECK(half.scalar_type() == torch::kBFloat16);
  CHECK(torch::allclose(half.to(torch::kFloat), expected, 0.03, 0.03));
}
