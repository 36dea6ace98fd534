#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <optional>

#include "models/model_fixtures.h"
#include "models/window_max_pool.h"

using namespace trainer;

namespace {

// Values from a few integers, so that windows hold ties, plus -inf and NaN
// at fixed places: the cases where "which element is the max" is decided by
// the rule and not by the data.
torch::Tensor awkward_input(const std::vector<int64_t>& sizes, torch::ScalarType dtype = torch::kFloat) {
  torch::manual_seed(5);
  auto x = torch::randint(-3, 4, sizes).to(dtype);
  auto flat = x.view(-1);
  const float inf = std::numeric_limits<float>::infinity();
  flat[0] = -inf;
  flat[1] = -inf;
  flat[flat.size(0) / 2] = std::nanf("");
  flat[flat.size(0) / 3] = std::nanf("");
  flat[flat.size(0) / 3 + 1] = std::nanf("");
  return x.requires_grad_(true);
}

// NaN compares unequal to itself: equal where both are NaN, equal elsewhere.
bool same_values(const torch::Tensor& a, const torch::Tensor& b) {
  return torch::equal(a.isnan(), b.isnan()) && torch::equal(a.nan_to_num(0, 1e30, -1e30), b.nan_to_num(0, 1e30, -1e30));
}

// Our pool's output and LibTorch's, from equal inputs: the same values, and
// after a backward of the same gradient, the same input gradients bit for
// bit (the same element chosen in every window).
void check_same_pool(const torch::Tensor& ours_in, const torch::Tensor& ours, const torch::Tensor& theirs_in,
                     const torch::Tensor& theirs) {
  REQUIRE(ours.sizes() == theirs.sizes());
  // Ours, not LibTorch's pool handed the input.
  CHECK_THAT(ours.grad_fn()->name(), Catch::Contains("WindowMaxPool"));
  CHECK(same_values(ours, theirs));
  const auto grad = torch::randn(ours.sizes()).to(ours.scalar_type());
  ours.backward(grad);
  theirs.backward(grad);
  CHECK(torch::equal(ours_in.grad(), theirs_in.grad()));
  CHECK(ours_in.grad().abs().sum().item<float>() > 0);
}

void check_against_libtorch(const std::vector<int64_t>& sizes, int64_t window,
                            torch::ScalarType dtype = torch::kFloat) {
  INFO("input " << c10::IntArrayRef(sizes) << ", window " << window << ", " << dtype);
  const auto ours_in = awkward_input(sizes, dtype);
  const auto theirs_in = ours_in.detach().clone().requires_grad_(true);
  WindowMaxPool1d pool(window);
  const auto theirs = torch::max_pool1d(theirs_in, window);
  check_same_pool(ours_in, pool(ours_in), theirs_in, theirs);
  // Without autograd (validation): the values alone.
  torch::NoGradGuard no_grad;
  CHECK(same_values(pool(ours_in), theirs));
}

}  // namespace

TEST_CASE("WindowMaxPool1d's values and gradients equal LibTorch's max pool", "[models][pool]") {
  check_against_libtorch({4, 6, 296}, 2);   // the Reuters model's first pool
  check_against_libtorch({3, 5, 147}, 2);   // an odd length: the last input no window covers
  check_against_libtorch({3, 5, 31}, 3);
  check_against_libtorch({2, 2, 9}, 9);
  check_against_libtorch({40, 64, 300}, 2);  // large enough to be split among threads
}

TEST_CASE("WindowMaxPool1d's bf16 values and gradients equal LibTorch's bf16 max pool", "[models][pool]") {
  // What CPU autocast hands the pool after a bf16 convolution.
  check_against_libtorch({4, 6, 296}, 2, torch::kBFloat16);
  check_against_libtorch({3, 5, 147}, 2, torch::kBFloat16);
  check_against_libtorch({3, 5, 31}, 3, torch::kBFloat16);
  check_against_libtorch({40, 64, 300}, 2, torch::kBFloat16);
  // Values bf16 cannot tell from their neighbours in float32 terms: the
  // comparison is of the bf16 values themselves.
  const auto fine = (torch::randn({2, 3, 64}) * 1000).to(torch::kBFloat16).requires_grad_(true);
  const auto theirs_in = fine.detach().clone().requires_grad_(true);
  check_same_pool(fine, WindowMaxPool1d(4)(fine), theirs_in, torch::max_pool1d(theirs_in, 4));
  CHECK(WindowMaxPool1d(2)(fine).scalar_type() == torch::kBFloat16);
}

TEST_CASE("WindowMaxPool1d hands what its loops do not take to LibTorch", "[models][pool]") {
  WindowMaxPool1d pool(2);
  const auto doubles = torch::randn({2, 3, 8}, torch::kFloat64);
  CHECK(torch::equal(pool(doubles), torch::max_pool1d(doubles, 2)));
  const auto strided = torch::randn({2, 8, 3}).transpose(1, 2);
  CHECK(torch::equal(pool(strided), torch::max_pool1d(strided, 2)));
  // No whole window: LibTorch's answer, an empty output (1.13) or an error (2.x).
  const auto short_input = torch::randn({2, 3, 1});
  std::optional<torch::Tensor> theirs;
  try {
    theirs = torch::max_pool1d(short_input, 2);
  } catch (const c10::Error&) {
  }
  if (theirs) {
    CHECK(pool(short_input).sizes() == theirs->sizes());
  } else {
    CHECK_THROWS_AS(pool(short_input), c10::Error);
  }
}

TEST_CASE("1-D max pools that tile their input are built as WindowMaxPool1d", "[models][pool]") {
  CHECK(tiles_without_padding(2, 2, 0));
  CHECK_FALSE(tiles_without_padding(3, 2, 0));      // overlapping windows
  CHECK_FALSE(tiles_without_padding(2, 2, 1));      // padding
  CHECK_THROWS_AS(WindowMaxPool1d(kWindowMaxPool1dWidest + 1), c10::Error);  // offsets past one byte

  const auto window_pools = [](const std::string& pools, int64_t length = 12) {
    const Model model = build_model(testing::model_of("[{type: embedding, output_dim: 4}, " + pools + "]"),
                                    testing::tokens(length, 10, 2));
    int count = 0;
    for (const auto& module : model.net->modules(false)) count += module->as<WindowMaxPool1dImpl>() != nullptr;
    return count;
  };
  CHECK(window_pools("{type: maxpool1d, pool_size: 2}, {type: maxpool1d, pool_size: 3}") == 2);
  CHECK(window_pools("{type: maxpool1d, pool_size: 3, strides: 2}") == 0);
  CHECK(window_pools("{type: maxpool1d, pool_size: 5, padding: same}") == 0);  // 12 = 2 x 5 + 2: padded
  CHECK(window_pools("{type: maxpool1d, pool_size: 300}", 600) == 0);  // offsets past one byte: LibTorch's pool
}

namespace {

void check_2d_against_libtorch(const std::vector<int64_t>& sizes, int64_t window_h, int64_t window_w,
                               bool channels_last, torch::ScalarType dtype = torch::kFloat) {
  INFO("input " << c10::IntArrayRef(sizes) << ", window " << window_h << "x" << window_w
                << (channels_last ? ", channels-last" : ", NCHW") << ", " << dtype);
  auto base = awkward_input(sizes, dtype).detach();
  if (channels_last)  // fresh channels-last strides, as Model::in_channels_last makes them
    base = torch::empty(base.sizes(), base.options().memory_format(torch::MemoryFormat::ChannelsLast)).copy_(base);
  const auto ours_in = base.clone().requires_grad_(true);
  const auto theirs_in = base.clone().requires_grad_(true);
  WindowMaxPool2d pool(window_h, window_w);
  const auto theirs = torch::max_pool2d(theirs_in, {window_h, window_w});
  check_same_pool(ours_in, pool(ours_in), theirs_in, theirs);
  // The gradient keeps the input's layout, as LibTorch's does.
  CHECK(ours_in.grad().suggest_memory_format() == theirs_in.grad().suggest_memory_format());
  torch::NoGradGuard no_grad;
  CHECK(same_values(pool(ours_in), theirs));
}

}  // namespace

TEST_CASE("WindowMaxPool2d's values and gradients equal LibTorch's max pool", "[models][pool]") {
  for (const bool channels_last : {false, true}) {
    check_2d_against_libtorch({6, 20, 28, 28}, 2, 2, channels_last);  // the Fashion-MNIST model's first pool
    check_2d_against_libtorch({3, 5, 15, 13}, 2, 2, channels_last);   // odd sides: a row and a column no window covers
    check_2d_against_libtorch({2, 3, 11, 12}, 3, 2, channels_last);   // an oblong window
    check_2d_against_libtorch({1, 2, 3, 600}, 1, 300, channels_last);  // wider than the 1-D pool's widest
    check_2d_against_libtorch({2, 1, 10, 9}, 2, 3, channels_last);    // one channel: both layouts alike
    check_2d_against_libtorch({64, 20, 28, 28}, 2, 2, channels_last);  // large enough to be split among threads
  }
}

TEST_CASE("WindowMaxPool2d's bf16 values and gradients equal LibTorch's bf16 max pool", "[models][pool]") {
  for (const bool channels_last : {false, true}) {
    check_2d_against_libtorch({6, 20, 28, 28}, 2, 2, channels_last, torch::kBFloat16);
    check_2d_against_libtorch({3, 5, 15, 13}, 2, 2, channels_last, torch::kBFloat16);
    check_2d_against_libtorch({2, 3, 11, 12}, 3, 2, channels_last, torch::kBFloat16);
    check_2d_against_libtorch({64, 20, 28, 28}, 2, 2, channels_last, torch::kBFloat16);
  }
}

TEST_CASE("WindowMaxPool2d hands what its backward does not take to LibTorch", "[models][pool]") {
  WindowMaxPool2d pool(2, 2);
  const auto doubles = torch::randn({2, 3, 8, 8}, torch::kFloat64).requires_grad_(true);
  CHECK(torch::equal(pool(doubles), torch::max_pool2d(doubles, {2, 2})));
  const auto no_grad = torch::randn({2, 3, 8, 6});
  CHECK(torch::equal(pool(no_grad), torch::max_pool2d(no_grad, {2, 2})));
  // A non-contiguous gradient arriving from the next layer.
  const auto x = torch::randn({2, 3, 8, 6}).requires_grad_(true);
  const auto y = pool(x);
  const auto grad = torch::randn({2, 3, 3, 4}).transpose(2, 3);
  y.backward(grad);
  const auto reference_in = x.detach().clone().requires_grad_(true);
  torch::max_pool2d(reference_in, {2, 2}).backward(grad);
  CHECK(torch::equal(x.grad(), reference_in.grad()));
}

TEST_CASE("2-D max pools that tile their input are built as WindowMaxPool2d", "[models][pool]") {
  const auto window_pools = [](const std::string& pools) {
    const Model model = build_model(testing::model_of("[{type: conv2d, filters: 3, kernel_size: 3}, " + pools + "]"),
                                    testing::images(1, 12, 12, 4));
    int count = 0;
    for (const auto& module : model.net->modules(false)) count += module->as<WindowMaxPool2dImpl>() != nullptr;
    return count;
  };
  CHECK(window_pools("{type: maxpool2d, pool_size: 2}") == 1);
  CHECK(window_pools("{type: maxpool2d, pool_size: [2, 5]}") == 1);
  CHECK(window_pools("{type: maxpool2d, pool_size: 3, strides: 2}") == 0);     // overlapping windows
  CHECK(window_pools("{type: maxpool2d, pool_size: 3, padding: same}") == 0);  // 10 = 3 x 3 + 1: padded
  CHECK(window_pools("{type: maxpool2d, pool_size: 2, padding: same}") == 1);  // 10 = 2 x 5: nothing to pad
  CHECK(window_pools("{type: avgpool2d, pool_size: 2}") == 0);
}
