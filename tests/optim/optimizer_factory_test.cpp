#include <catch2/catch.hpp>

#include "optim/optimizer_factory.h"
#include "util/torch_compat.h"

using namespace trainer;

TEST_CASE("every optimizer steps and its learning rate can be set", "[train][optim]") {
  for (auto kind : {OptimizerKind::kSgd, OptimizerKind::kMomentum, OptimizerKind::kAdagrad, OptimizerKind::kAdam,
                    OptimizerKind::kAdamw, OptimizerKind::kRmsprop, OptimizerKind::kNadam}) {
    INFO(to_string(kind));
    OptimizerConfig config;
    config.set_name(kind);
    config.lr = 0.1;
    config.weight_decay = 0.0;
    auto p = torch::ones({3}, torch::requires_grad());
    auto optimizer = make_optimizer(config, {p});
    set_learning_rate(*optimizer, 0.05);
    CHECK(optimizer->param_groups()[0].options().get_lr() == Approx(0.05));
    p.sum().backward();
    optimizer->step();
    CHECK(p.lt(1.0f).all().item<bool>());
  }
}
