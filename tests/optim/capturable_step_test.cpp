#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include "optim/capturable_step.h"
#include "optim/optimizer_factory.h"

using namespace trainer;

namespace {

struct Case {
  OptimizerKind kind;
  bool nesterov = false;
  double decay = 0.0;
};

OptimizerConfig config_of(const Case& c) {
  OptimizerConfig config;
  config.set_name(c.kind);
  config.lr = 0.01;
  config.weight_decay = c.decay;
  if (auto* momentum = std::get_if<MomentumOptimizer>(&config.keys)) momentum->nesterov = c.nesterov;
  return config;
}

// Two groups (the second at half the rate, as optimizer.lr_scale makes
// them) of a float32 matrix, a bias and a parameter that gets no gradient.
struct Problem {
  std::vector<torch::Tensor> params;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  torch::Device device;
  explicit Problem(const Case& c, const torch::Device& on = torch::kCPU) : device(on) {
    torch::manual_seed(3);
    params = {torch::randn({6, 5}).to(on).requires_grad_(), torch::randn({5}).to(on).requires_grad_(),
              torch::randn({4}).to(on).requires_grad_()};
    optimizer = make_optimizer(config_of(c), {{{params[0]}, 1.0}, {{params[1], params[2]}, 0.5}});
  }
  // A gradient that changes with the step, none for the third parameter.
  void gradients(int t) {
    for (auto& p : params) p.mutable_grad() = torch::Tensor();
    torch::manual_seed(100 + t);
    const auto x = torch::randn({8, 6}).to(device);
    const auto loss = (torch::tanh(x.matmul(params[0]) + params[1]) - 0.3).pow(2).sum();
    loss.backward();
  }
};

// A schedule's rate at step t, the same for both sides.
double rate(int t) { return 0.01 * (1.0 + std::cos(t * 0.1)) / 2 + 1e-4; }

void require_close(const Problem& a, const Problem& b, const std::string& where) {
  for (size_t i = 0; i < a.params.size(); ++i) {
    INFO(where << ", parameter " << i);
    const double difference = (a.params[i] - b.params[i].to(a.params[i].device())).abs().max().item<double>();
    const double scale = a.params[i].abs().max().item<double>();
    CHECK(difference <= 1e-5 * std::max(1.0, scale));
  }
}

const std::vector<Case> kCases = {
    {OptimizerKind::kSgd},
    {OptimizerKind::kSgd, false, 0.01},
    {OptimizerKind::kMomentum},
    {OptimizerKind::kMomentum, true, 0.01},
    {OptimizerKind::kAdagrad, false, 0.01},
    {OptimizerKind::kAdam},
    {OptimizerKind::kAdam, false, 0.01},
    {OptimizerKind::kAdamw},
    {OptimizerKind::kRmsprop, false, 0.01},
    {OptimizerKind::kNadam},
    {OptimizerKind::kNadam, false, 0.01},
};

std::string name_of(const Case& c) {
  std::ostringstream name;
  name << to_string(c.kind) << (c.nesterov ? " nesterov" : "") << " weight_decay " << c.decay;
  return name.str();
}

// `own` on the CPU, the capturable step on `device`: on a GPU the fused
// kernels (LibTorch's for Adam, AdamW and SGD, trainer's for NAdam) step it.
void check_against_own(const torch::Device& device) {
  for (const Case& c : kCases) {
    INFO(name_of(c) << " on " << device);
    Problem own(c), capturable(c, device);
    REQUIRE(CapturableStep::unsupported(*capturable.optimizer).empty());
    CapturableStep step(*capturable.optimizer);
    for (int t = 1; t <= 50; ++t) {
      own.gradients(t);
      set_learning_rate(*own.optimizer, rate(t), {1.0, 0.5});
      own.optimizer->step();
      capturable.gradients(t);
      step.set_learning_rates({rate(t), rate(t) * 0.5});
      step.step();
    }
    require_close(own, capturable, "after 50 steps");
    // The parameter without a gradient is untouched on both sides.
    CHECK(torch::equal(own.params[2], capturable.params[2].cpu()));
  }
}

// fp16 loss scaling's device flag: every fourth step's gradients
// overflowed. The optimizer's own side simply does not step then.
void check_skips(const torch::Device& device) {
  const torch::Tensor skip = torch::tensor(1.0, torch::TensorOptions(torch::kFloat64).device(device));
  const torch::Tensor take = torch::tensor(0.0, torch::TensorOptions(torch::kFloat64).device(device));
  for (const Case& c : kCases) {
    INFO(name_of(c) << " on " << device);
    Problem own(c), capturable(c, device);
    CapturableStep step(*capturable.optimizer);
    for (int t = 1; t <= 30; ++t) {
      const bool overflow = t % 4 == 1;  // the very first step too: no state made yet
      own.gradients(t);
      capturable.gradients(t);
      step.set_learning_rates({rate(t), rate(t) * 0.5});
      if (overflow) {
        torch::NoGradGuard no_grad;
        capturable.params[0].mutable_grad()[0][0] = std::numeric_limits<float>::infinity();
        capturable.params[1].mutable_grad()[1] = std::numeric_limits<float>::quiet_NaN();
        std::vector<torch::Tensor> before;
        for (const auto& p : capturable.params) before.push_back(p.detach().clone());
        step.step(skip);
        for (size_t i = 0; i < before.size(); ++i) CHECK(torch::equal(before[i], capturable.params[i]));
        continue;
      }
      set_learning_rate(*own.optimizer, rate(t), {1.0, 0.5});
      own.optimizer->step();
      step.step(take);
    }
    require_close(own, capturable, "after 30 steps, 8 of them skipped");
    // The step counts are the taken steps', as the optimizer's own.
    step.store_state();
    own.gradients(31);
    capturable.gradients(31);
    set_learning_rate(*own.optimizer, rate(31), {1.0, 0.5});
    set_learning_rate(*capturable.optimizer, rate(31), {1.0, 0.5});
    own.optimizer->step();
    capturable.optimizer->step();
    require_close(own, capturable, "after a 31st step by the optimizer itself");
  }
}

}  // namespace

TEST_CASE("the capturable step moves the parameters as the optimizer's own step does, over 50 steps",
          "[train][optim][cuda_graph]") {
  check_against_own(torch::kCPU);
}

TEST_CASE("GPU: the capturable step's fused kernels move the parameters as the optimizer's own step does",
          "[train][optim][cuda_graph][gpu]") {
  if (!torch::cuda::is_available()) {
    WARN("SKIPPED: needs a CUDA GPU");
    return;
  }
  check_against_own(torch::kCUDA);
  check_skips(torch::kCUDA);
}

TEST_CASE("after store_state the optimizer's own step takes over where the capturable one left off",
          "[train][optim][cuda_graph]") {
  for (const Case& c : kCases) {
    INFO(name_of(c));
    Problem own(c), mixed(c);
    // Some steps by the optimizer first (a graph's eager warm-up), then the
    // capturable step, then the optimizer again after store_state (a
    // checkpoint saved and resumed eagerly).
    CapturableStep step(*mixed.optimizer);
    for (int t = 1; t <= 30; ++t) {
      own.gradients(t);
      set_learning_rate(*own.optimizer, rate(t), {1.0, 0.5});
      own.optimizer->step();
      mixed.gradients(t);
      if (t > 10 && t <= 20) {
        step.set_learning_rates({rate(t), rate(t) * 0.5});
        step.step();
      } else {
        if (t == 21) step.store_state();
        set_learning_rate(*mixed.optimizer, rate(t), {1.0, 0.5});
        mixed.optimizer->step();
      }
    }
    require_close(own, mixed, "after 30 steps");
  }
}

TEST_CASE("a step flagged as skipped changes nothing, and the steps around it are the optimizer's own",
          "[train][optim][cuda_graph]") {
  check_skips(torch::kCPU);
}

TEST_CASE("the capturable step names what it cannot take", "[train][optim][cuda_graph]") {
  auto p = torch::ones({3}, torch::requires_grad());
  torch::optim::RMSprop centered({p}, torch::optim::RMSpropOptions(0.01).centered(true));
  CHECK(CapturableStep::unsupported(centered) == "RMSprop with momentum or centered");
  torch::optim::Adam amsgrad({p}, torch::optim::AdamOptions(0.01).amsgrad(true));
  CHECK(CapturableStep::unsupported(amsgrad) == "Adam with AMSGrad");
  torch::optim::LBFGS lbfgs({p}, torch::optim::LBFGSOptions(1));
  CHECK(CapturableStep::unsupported(lbfgs) == "an optimizer without a device-side step");
}
