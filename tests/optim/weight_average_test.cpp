// train.ema's average: the formula step by step, swapped into the model and
// back, carried through a flat checkpoint tensor.
#include <catch2/catch.hpp>

#include <cmath>

#include "optim/weight_average.h"
#include "util/error.h"

using namespace trainer;

TEST_CASE("the weight average follows decay * average + (1 - decay) * weights", "[optim][ema]") {
  torch::Tensor a = torch::full({2, 3}, 1.0f), b = torch::full({4}, -2.0f);
  WeightAverage average({a, b}, 0.9);
  {
    torch::NoGradGuard no_grad;
    a.fill_(11.0f);
    b.fill_(8.0f);
  }
  for (int i = 0; i < 3; ++i) average.update();
  // Started at the weights (1, -2); three steps towards (11, 8).
  const double kept = std::pow(0.9, 3);
  average.swap_in();
  CHECK(a[0][0].item<float>() == Approx(kept * 1 + (1 - kept) * 11));
  CHECK(b[3].item<float>() == Approx(kept * -2 + (1 - kept) * 8));
  average.restore();
  CHECK(a[1][2].item<float>() == 11.0f);
  // Through a checkpoint's flat tensor, into other weights.
  const torch::Tensor flat = average.state();
  CHECK(flat.numel() == 10);
  torch::Tensor c = torch::zeros({2, 3}), d = torch::zeros({4});
  WeightAverage::apply({c, d}, flat);
  CHECK(c[0][1].item<float>() == Approx(kept * 1 + (1 - kept) * 11));
  CHECK_THROWS_AS(WeightAverage::apply({c}, flat), IoError);
  // reset: the average is the weights again.
  average.reset();
  average.swap_in();
  CHECK(a[0][0].item<float>() == 11.0f);
}

TEST_CASE("a step skipped on the device (fp16 overflow) leaves the weight average as it was", "[optim][ema]") {
  torch::Tensor a = torch::full({3}, 1.0f);
  torch::Tensor b = torch::full({3}, 1.0f);
  WeightAverage flagged({a}, 0.5), plain({b}, 0.5);
  {
    torch::NoGradGuard no_grad;
    a.fill_(3.0f);
    b.fill_(3.0f);
  }
  flagged.update(torch::tensor(1.0, torch::kFloat64));  // skipped: no change
  flagged.update(torch::tensor(0.0, torch::kFloat64));
  plain.update();
  flagged.swap_in();
  plain.swap_in();
  CHECK(a[0].item<float>() == 2.0f);
  CHECK(torch::equal(a, b));
}
