#include <catch2/catch.hpp>

#include <functional>
#include <sstream>

#include "optim/parameter_makers.h"
#include "optim/fused_optimizers.h"

using namespace trainer;

namespace {

using MakeOptimizer = std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<torch::Tensor>, bool fused)>;

template <typename Fused, typename Options>
MakeOptimizer maker(Options options) {
  return [options](std::vector<torch::Tensor> params, bool fused) {
    auto optimizer = std::make_unique<Fused>(std::move(params), options);
    optimizer->set_fused(fused);
    return std::unique_ptr<torch::optim::Optimizer>(std::move(optimizer));
  };
}

// Small and large (split among threads), flat and channels-last.
std::vector<torch::Tensor> starting_parameters() {
  torch::manual_seed(11);
  return {torch::randn({7}), torch::randn({300, 257}),
          torch::randn({6, 5, 4, 3}).contiguous(torch::MemoryFormat::ChannelsLast)};
}

std::vector<torch::Tensor> trainable_copies(const std::vector<torch::Tensor>& start) {
  std::vector<torch::Tensor> copies;
  for (const auto& p : start) copies.push_back(p.clone().requires_grad_(true));
  return copies;
}

// The same made-up gradients for both sets of parameters, steps [first, last].
void train(torch::optim::Optimizer& optimizer, std::vector<torch::Tensor>& params, int first, int last) {
  for (int step = first; step <= last; ++step) {
    torch::manual_seed(100 + step);
    for (auto& p : params) p.mutable_grad() = torch::randn_like(p) + 0.1 * step;
    optimizer.step();
  }
}

void check_close(const std::vector<torch::Tensor>& fused, const std::vector<torch::Tensor>& plain,
                 const std::vector<torch::Tensor>& start) {
  for (size_t i = 0; i < fused.size(); ++i) {
    INFO("parameter " << i);
    const auto difference = (fused[i] - plain[i]).abs().max().item<float>();
    const auto moved = (plain[i] - start[i]).abs().max().item<float>();
    // The same float arithmetic in the same order; LibTorch's vector
    // kernels may fuse a multiply-add where the loop rounds twice.
    CHECK(difference <= 2e-6f * std::max(1.0f, plain[i].abs().max().item<float>()));
    CHECK(moved > 0.01f);
  }
}

const std::vector<std::pair<std::string, MakeOptimizer>>& optimizers() {
  namespace optim = torch::optim;
  static const std::vector<std::pair<std::string, MakeOptimizer>> all = {
      {"adam", maker<FusedAdam>(optim::AdamOptions(0.01))},
      {"adam, L2 decay", maker<FusedAdam>(optim::AdamOptions(0.01).weight_decay(0.01).eps(1e-7))},
      {"adamw", maker<FusedAdamW>(optim::AdamWOptions(0.01).weight_decay(0.05))},
      {"sgd", maker<FusedSGD>(optim::SGDOptions(0.05))},
      {"sgd, decay", maker<FusedSGD>(optim::SGDOptions(0.05).weight_decay(0.01))},
      {"momentum", maker<FusedSGD>(optim::SGDOptions(0.05).momentum(0.9))},
      {"nesterov, decay", maker<FusedSGD>(optim::SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(0.01))},
      {"rmsprop", maker<FusedRMSprop>(optim::RMSpropOptions(0.01).alpha(0.9).eps(1e-7))},
      {"rmsprop, decay", maker<FusedRMSprop>(optim::RMSpropOptions(0.01).weight_decay(0.01))},
      {"adagrad", maker<FusedAdagrad>(optim::AdagradOptions(0.05).initial_accumulator_value(0.1).eps(1e-7))},
      {"adagrad, decays", maker<FusedAdagrad>(optim::AdagradOptions(0.05).weight_decay(0.01).lr_decay(0.01))},
  };
  return all;
}

int64_t fused_updates(const torch::optim::Optimizer& optimizer) {
  return dynamic_cast<const FusedSwitch&>(optimizer).fused_updates();
}

}  // namespace

TEST_CASE("Fused Adam, AdamW, SGD, RMSprop and Adagrad passes match LibTorch's tensor operations", "[train][optimizer]") {
  for (const auto& [name, make] : optimizers()) {
    INFO(name);
    const auto start = starting_parameters();
    auto fused_params = trainable_copies(start), plain_params = trainable_copies(start);
    auto fused = make(fused_params, true), plain = make(plain_params, false);
    train(*fused, fused_params, 1, 20);
    train(*plain, plain_params, 1, 20);
    CHECK(fused_updates(*fused) == 60);
    CHECK(fused_updates(*plain) == 0);
    check_close(fused_params, plain_params, start);
  }
}

TEST_CASE("A fused optimizer's state continues in the plain one and back", "[train][optimizer]") {
  for (const auto& [name, make] : optimizers()) {
    INFO(name);
    const auto start = starting_parameters();
    auto straight_params = trainable_copies(start), switched_params = trainable_copies(start);
    auto straight = make(straight_params, false);
    train(*straight, straight_params, 1, 10);

    auto first = make(switched_params, true);
    train(*first, switched_params, 1, 5);
    std::stringstream stream;
    {
      torch::serialize::OutputArchive archive;
      first->save(archive);
      archive.save_to(stream);
    }
    auto second = make(switched_params, false);
    torch::serialize::InputArchive archive;
    archive.load_from(stream);
    second->load(archive);
    train(*second, switched_params, 6, 10);
    check_close(switched_params, straight_params, start);
  }
}

TEST_CASE("A fused optimizer steps parameters its loop cannot take through LibTorch", "[train][optimizer]") {
  // Double parameters: the base class steps them (SGD), or for Adam the
  // multi-tensor step, which on a CPU runs LibTorch's operations one by one.
  auto doubles = torch::randn({5}, torch::kFloat64).requires_grad_(true);
  auto reference = doubles.detach().clone().requires_grad_(true);
  FusedSGD fused({doubles}, torch::optim::SGDOptions(0.01).momentum(0.9));
  torch::optim::SGD plain({reference}, torch::optim::SGDOptions(0.01).momentum(0.9));
  for (int step = 0; step < 3; ++step) {
    doubles.mutable_grad() = torch::ones_like(doubles) * step;
    reference.mutable_grad() = torch::ones_like(reference) * step;
    fused.step();
    plain.step();
  }
  CHECK(fused.fused_updates() == 0);
  CHECK(torch::equal(doubles, reference));
}

namespace {

// Adam and AdamW with their fused-kernel or multi-tensor step, over parameters made by
// `make`, against LibTorch's own Adam and AdamW: 20 steps, then the same
// values within `tolerance` of the largest.
void check_multi_tensor_adam(const std::function<torch::Tensor(const std::vector<int64_t>&)>& make, float tolerance) {
  namespace optim = torch::optim;
  const std::vector<std::pair<std::string, MakeOptimizer>> adams = {
      {"adam", maker<FusedAdam>(optim::AdamOptions(0.01))},
      {"adam, L2 decay", maker<FusedAdam>(optim::AdamOptions(0.01).weight_decay(0.01).eps(1e-7))},
      {"adamw", maker<FusedAdamW>(optim::AdamWOptions(0.01).weight_decay(0.05))},
  };
  for (const auto& [name, make_optimizer] : adams) {
    INFO(name);
    torch::manual_seed(11);
    const std::vector<torch::Tensor> start = {make({7}), make({300, 257}), make({6, 5, 4, 3})};
    auto multi_params = trainable_copies(start), plain_params = trainable_copies(start);
    auto multi = make_optimizer(multi_params, true), plain = make_optimizer(plain_params, false);
    train(*multi, multi_params, 1, 20);
    train(*plain, plain_params, 1, 20);
    CHECK(fused_updates(*multi) == 60);
    for (size_t i = 0; i < start.size(); ++i) {
      INFO("parameter " << i);
      const auto difference = (multi_params[i] - plain_params[i]).abs().max().item<double>();
      CHECK(difference <= tolerance * std::max(1.0, plain_params[i].abs().max().item<double>()));
      CHECK((plain_params[i] - start[i]).abs().max().item<double>() > 0.01);
    }
  }
}

}  // namespace

TEST_CASE("Adam and AdamW step what their loop cannot take with multi-tensor operations", "[train][optimizer]") {
  // float64 and a strided view: LibTorch's operations one by one on a
  // CPU; an ulp or two where an intermediate's layout sends a float32
  // operation through LibTorch's other (scalar or vector) loop.
  check_multi_tensor_adam(testing::off_the_cpu_loops, 2e-6f);
}

TEST_CASE("Adam and AdamW step a group of float64 parameters as LibTorch does", "[train][optimizer]") {
  // With LibTorch 2.2 or later through its fused kernel (the GPU's path,
  // which LibTorch has on the CPU too), else the multi-tensor step.
  check_multi_tensor_adam([](const std::vector<int64_t>& sizes) { return torch::randn(sizes, torch::kFloat64); },
                          2e-6f);
}

TEST_CASE("GPU: Adam and AdamW's fused-kernel or multi-tensor step matches LibTorch's", "[train][optimizer][gpu]") {
  if (!torch::cuda::is_available()) {
    WARN("SKIPPED: needs a CUDA GPU");
    return;
  }
  check_multi_tensor_adam(testing::on_the_gpu, 2e-6f);
}

TEST_CASE("RMSprop with momentum or centered steps through LibTorch", "[train][optimizer]") {
  for (const auto& options : {torch::optim::RMSpropOptions(0.01).momentum(0.9),
                              torch::optim::RMSpropOptions(0.01).centered(true)}) {
    const auto start = starting_parameters();
    auto fused_params = trainable_copies(start), plain_params = trainable_copies(start);
    FusedRMSprop fused(fused_params, options);
    torch::optim::RMSprop plain(plain_params, options);
    train(fused, fused_params, 1, 3);
    train(plain, plain_params, 1, 3);
    CHECK(fused.fused_updates() == 0);
    for (size_t i = 0; i < fused_params.size(); ++i) CHECK(torch::equal(fused_params[i], plain_params[i]));
  }
}
