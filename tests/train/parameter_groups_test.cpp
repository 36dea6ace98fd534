// optimizer.lr_scale: parameters grouped by their layer's factor, each group
// stepped at lr x factor, and patterns that name no layer refused.
#include <catch2/catch.hpp>

#include "config/config_loader.h"
#include "models/model_fixtures.h"
#include "optim/optimizer_factory.h"
#include "train/experiment_setup.h"
#include "train/parameter_groups.h"
#include "util/error.h"

using namespace trainer;

namespace {

Model two_dense_layers(const std::string& optimizer) {
  const ExperimentConfig config = parse_experiment(
      "data: {dataset: synthetic}\nloss: {from_logits: true}\noptimizer: " + optimizer +
          "\nmodel: {layers: [{type: dense, units: 5}, {type: dense, units: classes}]}\n",
      "groups.yaml");
  return build_seeded_model(config, testing::feature_rows(4, 3));
}

// The change one SGD step at lr 0.1 makes to each parameter, by name.
std::map<std::string, torch::Tensor> one_step(Model& model, const LayerScales& scales) {
  const auto groups = lr_scale_groups(model, scales);
  OptimizerConfig sgd;
  sgd.set_name(OptimizerKind::kSgd);
  sgd.lr = 0.1;
  auto optimizer = make_optimizer(sgd, groups);
  set_learning_rate(*optimizer, 0.1, scales_of(groups));
  std::map<std::string, torch::Tensor> before;
  for (const auto& p : model.net->named_parameters()) before[p.key()] = p.value().detach().clone();
  torch::manual_seed(1);
  model.forward(torch::randn({8, 4})).square().sum().backward();
  optimizer->step();
  std::map<std::string, torch::Tensor> moved;
  for (const auto& p : model.net->named_parameters()) moved[p.key()] = p.value().detach() - before[p.key()];
  return moved;
}

}  // namespace

TEST_CASE("lr_scale steps each layer at its factor of the learning rate", "[optim][lr_scale]") {
  Model plain = two_dense_layers("{name: sgd}");
  Model scaled = two_dense_layers("{name: sgd}");
  LayerScales scales;
  scales.rules = {{"dense", 0.5}, {"dense_*", 0.0}};
  const auto groups = lr_scale_groups(scaled, scales);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].lr_scale == 0.5);
  CHECK(groups[0].params.size() == 2);  // dense's weight and bias
  CHECK(groups[1].lr_scale == 0.0);
  const auto full = one_step(plain, {});
  const auto half = one_step(scaled, scales);
  CHECK(torch::allclose(half.at("l0_0.weight"), full.at("l0_0.weight") * 0.5, 1e-6, 1e-7));
  CHECK(full.at("l1_0.weight").abs().sum().item<float>() > 0);
  CHECK(half.at("l1_0.weight").abs().sum().item<float>() == 0.0f);
  CHECK(describe_groups(groups) == "x0.5 for 25 parameters, x0 for 18 parameters");
}

TEST_CASE("an lr_scale pattern that names no layer is a config error listing the layers", "[optim][lr_scale]") {
  const Model model = two_dense_layers("{name: sgd}");
  LayerScales scales;
  scales.rules = {{"conv*", 0.1}};
  CHECK_THROWS_WITH(lr_scale_groups(model, scales),
                    Catch::Contains("optimizer.lr_scale: 'conv*' names no layer") &&
                        Catch::Contains("those layers: dense, dense_1"));
  // Without rules: one group of every trainable parameter.
  CHECK(lr_scale_groups(model, {}).size() == 1);
}
