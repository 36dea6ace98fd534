// The declarations themselves, without YAML: which keys each layer kind and
// each optimizer takes, the note a key of another kind gets, Keras's defaults
// per optimizer, and the metric names. The reader's use of them is tested in
// tests/config/.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "spec/kind_keys.h"
#include "spec/layer_spec.h"
#include "spec/metric_spec.h"
#include "spec/optimizer_config.h"

using namespace trainer;

namespace {

bool takes(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

OptimizerConfig optimizer(OptimizerKind kind) {
  OptimizerConfig config;
  config.set_name(kind);
  return config;
}

LayerSpec layer(LayerKind kind) {
  LayerSpec spec;
  spec.set_type(kind);
  return spec;
}

}  // namespace

TEST_CASE("metric names decode once into kind and k, with their record and JSON names", "[spec][metrics]") {
  const auto top5 = parse_metric("top5");
  REQUIRE(top5);
  CHECK(top5->kind == MetricKind::kTopK);
  CHECK(top5->k == 5);
  CHECK(top5->display_name() == "Top5 Accuracy");
  CHECK(top5->json_key() == "top5_accuracy");
  REQUIRE(parse_metric("accuracy"));
  CHECK(parse_metric("accuracy")->display_name() == "Accuracy");
  CHECK(parse_metric("mse")->json_key() == "mse");
  CHECK(parse_metric("mae")->display_name() == "MAE");
  for (const char* bad : {"acuracy", "top0", "top", "top5x", "Top5", ""}) {
    INFO(bad);
    CHECK_FALSE(parse_metric(bad));
  }
}

TEST_CASE("each optimizer takes the common keys and its own, and no other's", "[spec][optimizer]") {
  const auto sgd = section_keys(optimizer(OptimizerKind::kSgd));
  const auto rmsprop = section_keys(optimizer(OptimizerKind::kRmsprop));
  const auto nadam = section_keys(optimizer(OptimizerKind::kNadam));
  for (const auto* keys : {&sgd, &rmsprop, &nadam})
    for (const char* common : {"name", "lr", "weight_decay", "clip_norm", "fused", "schedule"}) {
      INFO(common);
      CHECK(takes(*keys, common));
    }
  CHECK_FALSE(takes(sgd, "rho"));
  CHECK_FALSE(takes(sgd, "momentum"));
  CHECK(takes(rmsprop, "rho"));
  CHECK_FALSE(takes(rmsprop, "beta1"));
  CHECK(takes(nadam, "beta1"));
  CHECK(takes(nadam, "momentum_decay"));
  // Every key of the section belongs to at least one optimizer.
  std::set<std::string> all;
  for (const auto& entry : EnumTable<OptimizerKind>::entries)
    for (const auto& key : section_keys(optimizer(entry.value))) all.insert(key);
  for (const char* own : {"momentum", "nesterov", "beta1", "beta2", "epsilon", "rho", "initial_accumulator"}) {
    INFO(own);
    CHECK(all.count(own) == 1);
  }
}

TEST_CASE("a key of another optimizer or layer kind is named with the kinds that take it", "[spec][optimizer]") {
  const std::string note = optimizer(OptimizerKind::kSgd).foreign_key_note("rho");
  CHECK_THAT(note, Catch::Contains("sgd takes no 'rho' (rmsprop does)"));
  CHECK_THAT(note, Catch::Contains("sgd takes: name, lr"));
  CHECK_THAT(optimizer(OptimizerKind::kAdam).foreign_key_note("momentum"),
             Catch::StartsWith("adam takes no 'momentum' (momentum does); adam takes: name, lr, beta1"));
  CHECK(optimizer(OptimizerKind::kSgd).foreign_key_note("no_such_key").empty());
  CHECK_THAT(layer(LayerKind::kDense).foreign_key_note("num_heads"),
             Catch::StartsWith("dense takes no 'num_heads' (multi_head_attention, transformer_encoder do)"));
  CHECK(layer(LayerKind::kDense).foreign_key_note("no_such_key").empty());
}

TEST_CASE("a new type or name gives the kind's own keys at their defaults, and the common keys stay", "[spec]") {
  LayerSpec spec;
  spec.name = "features";
  spec.inputs = {"input"};
  spec.set_type(LayerKind::kConv1d);
  auto* conv = spec.as<ConvLayer<LayerKind::kConv1d, 1>>();
  REQUIRE(conv);
  conv->filters = SizeRef::of(8);
  spec.set_type(LayerKind::kConv1d);  // the same type: nothing changes
  CHECK(spec.as<ConvLayer<LayerKind::kConv1d, 1>>()->filters.value == 8);
  spec.set_type(LayerKind::kDense);
  CHECK_FALSE(spec.as<ConvLayer<LayerKind::kConv1d, 1>>());
  REQUIRE(spec.as<DenseLayer>());
  CHECK(spec.as<DenseLayer>()->units.value == 0);
  CHECK(spec.name == "features");
  CHECK(spec.inputs == std::vector<std::string>{"input"});
  CHECK(spec.type() == LayerKind::kDense);

  OptimizerConfig config = optimizer(OptimizerKind::kNadam);
  config.lr = 0.25;
  REQUIRE(config.as<NadamOptimizer>());
  CHECK(config.as<NadamOptimizer>()->momentum_decay == Approx(0.004));
  config.set_name(OptimizerKind::kMomentum);
  CHECK(config.name() == OptimizerKind::kMomentum);
  REQUIRE(config.as<MomentumOptimizer>());
  CHECK(config.as<MomentumOptimizer>()->momentum == Approx(0.9));
  CHECK(*config.lr == 0.25);
}

TEST_CASE("each optimizer's default learning rate and weight decay are Keras's, held once", "[spec][optimizer]") {
  CHECK(resolved_lr(optimizer(OptimizerKind::kSgd)) == 0.01);
  CHECK(resolved_lr(optimizer(OptimizerKind::kMomentum)) == 0.01);
  CHECK(resolved_lr(optimizer(OptimizerKind::kAdam)) == 0.001);
  CHECK(resolved_weight_decay(optimizer(OptimizerKind::kAdamw)) == 0.004);
  CHECK(resolved_weight_decay(optimizer(OptimizerKind::kAdam)) == 0);
  OptimizerConfig given = optimizer(OptimizerKind::kAdam);
  given.lr = 0.5;
  given.weight_decay = 0.25;
  CHECK(resolved_lr(given) == 0.5);
  CHECK(resolved_weight_decay(given) == 0.25);
}

TEST_CASE("every layer kind has one entry: a unique name, in the table's enum", "[spec][layers]") {
  std::set<std::string> names;
  for (const auto& entry : EnumTable<LayerKind>::entries) {
    INFO(entry.name);
    CHECK(names.insert(entry.name).second);
    // Each kind's keys start with the ones every kind takes.
    const auto keys = section_keys(layer(entry.value));
    CHECK(takes(keys, "type"));
    CHECK(takes(keys, "name"));
  }
  CHECK(names.count("dense") == 1);
  CHECK(names.count("groupnorm") == 1);
  // A key's YAML name is its member's: group_norm's `groups`, permute's `dims`.
  CHECK(takes(section_keys(layer(LayerKind::kGroupNorm)), "groups"));
  CHECK(takes(section_keys(layer(LayerKind::kPermute)), "dims"));
  CHECK(takes(section_keys(layer(LayerKind::kZeroPadding2d)), "padding"));
}
