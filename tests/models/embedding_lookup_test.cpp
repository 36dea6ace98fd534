#include <catch2/catch.hpp>

#include "models/embedding_lookup.h"

using namespace trainer;

TEST_CASE("embedding_lookup's rows and weight gradient equal LibTorch's embedding", "[models][embedding]") {
  torch::manual_seed(3);
  // Many repeats of few tokens (the padding token 0 most of all), in a vocabulary
  // large enough for the rows to be split among threads.
  const auto tokens = torch::cat({torch::zeros({8, 100}, torch::kInt64), torch::randint(0, 50, {8, 100}),
                                  torch::randint(0, 5000, {8, 100})}, 1);
  const auto ours_weight = torch::randn({6000, 7}).requires_grad_(true);
  const auto theirs_weight = ours_weight.detach().clone().requires_grad_(true);
  const auto ours = embedding_lookup(ours_weight, tokens);
  const auto theirs = torch::embedding(theirs_weight, tokens);
  CHECK(torch::equal(ours, theirs));
  // The layer hands the next one its rows transposed, as the model does.
  const auto grad = torch::randn({8, 7, 300}).transpose(1, 2);
  ours.backward(grad);
  theirs.backward(grad);
  CHECK(torch::equal(ours_weight.grad(), theirs_weight.grad()));
  CHECK(ours_weight.grad()[0].abs().sum().item<float>() > 0);
  CHECK(ours_weight.grad()[5999].abs().sum().item<float>() == 0);  // a row no token names (tokens < 5000)

  // Outside autograd, and for a bad token, LibTorch's embedding answers.
  torch::NoGradGuard no_grad;
  CHECK(torch::equal(embedding_lookup(ours_weight, tokens), theirs));
  CHECK_THROWS(embedding_lookup(ours_weight, torch::full({1, 3}, 6000, torch::kInt64)));
}
