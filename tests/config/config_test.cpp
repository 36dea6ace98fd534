#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "config/config_diff.h"
#include "config/config_loader.h"
#include "config/config_reference.h"
#include "config/config_writer.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

namespace {

const char* kMinimal = R"(experiment:
  name: tiny
data:
  dataset: synthetic
model:
  layers:
    - {type: dense, units: classes, activation: softmax}
)";

// A first layer anchored as `hidden`, for the layers after it to repeat.
const char* kAnchoredLayer = R"(experiment: {name: tiny}
data: {dataset: synthetic}
model:
  layers:
    - &hidden {type: dense, units: 16, activation: relu}
)";

std::vector<std::string> problems_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    parse_experiment(yaml, "exp.yaml", overrides);
  } catch (const ConfigError& e) {
    return e.problems();
  }
  return {};
}

}  // namespace

TEST_CASE("a minimal experiment gets every default", "[config]") {
  const auto config = parse_experiment(kMinimal, "exp.yaml");
  CHECK(config.experiment.name == "tiny");
  CHECK(config.data.dataset == DatasetKind::kSynthetic);
  CHECK(config.train.batch_size.value == 32);
  CHECK(config.optimizer.name() == OptimizerKind::kAdam);
  CHECK(*config.optimizer.lr == Approx(0.001));
  CHECK(config.model.layers.size() == 1);
  REQUIRE(config.model.layers[0].as<DenseLayer>());
  CHECK(config.model.layers[0].as<DenseLayer>()->units.keyword == "classes");
  CHECK(config.devices.entries == std::vector<std::string>{"cpu"});
}

TEST_CASE("optimizer defaults follow Keras per optimizer", "[config]") {
  const auto sgd = parse_experiment(std::string(kMinimal) + "optimizer: {name: sgd}\n", "exp.yaml");
  CHECK(*sgd.optimizer.lr == Approx(0.01));
  const auto adamw = parse_experiment(std::string(kMinimal) + "optimizer: {name: adamw}\n", "exp.yaml");
  CHECK(*adamw.optimizer.weight_decay == Approx(0.004));
  REQUIRE(adamw.optimizer.as<AdamOptimizer<OptimizerKind::kAdamw>>());
  CHECK(adamw.optimizer.as<AdamOptimizer<OptimizerKind::kAdamw>>()->epsilon == Approx(1e-7));
}

TEST_CASE("unknown keys name file, line, column and the nearest key", "[config]") {
  const auto problems = problems_of(std::string(kMinimal) + "optimizer:\n  name: adam\n  lrr: 0.1\n");
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "exp.yaml:10:3: unknown key 'optimizer.lrr' (did you mean 'optimizer.lr'?)");

  SECTION("a top-level typo") {
    const auto top = problems_of(std::string(kMinimal) + "trian: {epochs: 3}\n");
    REQUIRE(top.size() == 1);
    CHECK_THAT(top[0], Catch::StartsWith("exp.yaml:8:1: unknown key 'trian' (did you mean 'train'?)"));
  }
  SECTION("a key that belongs to another layer type") {
    const auto layer = problems_of(R"(model:
  layers:
    - {type: dense, units: 3, filters: 4}
)");
    REQUIRE(layer.size() == 1);
    CHECK_THAT(layer[0], Catch::Contains("exp.yaml:3:31: unknown key 'model.layers[0].filters'"));
  }
}

TEST_CASE("a key of another optimizer is refused, naming the chosen one's keys", "[config]") {
  const auto sgd = problems_of(std::string(kMinimal) + "optimizer: {name: sgd, rho: 0.5}\n");
  REQUIRE(sgd.size() == 1);
  CHECK(sgd[0] == "exp.yaml:8:24: unknown key 'optimizer.rho': sgd takes no 'rho' (rmsprop does); sgd takes: name, "
                  "lr, weight_decay, clip_norm, fused, schedule, lr_scale");
  const auto adam = problems_of(std::string(kMinimal) + "optimizer: {name: adam, momentum: 0.9}\n");
  REQUIRE(adam.size() == 1);
  CHECK_THAT(adam[0], Catch::Contains("adam takes no 'momentum' (momentum does); adam takes: name, lr, beta1, beta2, "
                                      "epsilon, weight_decay"));
  // A key shared by several optimizers names them all.
  const auto beta = problems_of(std::string(kMinimal) + "optimizer: {name: rmsprop, beta1: 0.8}\n");
  REQUIRE(beta.size() == 1);
  CHECK_THAT(beta[0], Catch::Contains("(adam, adamw, nadam do)"));
  // Each optimizer takes its own keys, and --set reaches them.
  CHECK(problems_of(std::string(kMinimal) + "optimizer: {name: rmsprop, rho: 0.5, epsilon: 1e-6}\n").empty());
  CHECK(problems_of(kMinimal, {"optimizer.name=momentum", "optimizer.nesterov=true"}).empty());
  CHECK(problems_of(kMinimal, {"optimizer.rho=0.5"}).size() == 1);
}

TEST_CASE("a run's recorded config.yaml may hold every optimizer's keys, as earlier versions wrote", "[config]") {
  const std::string dir = testing::fresh_dir("recorded_config");
  const std::string path = dir + "/config.yaml";
  std::ofstream(path) << kMinimal << "optimizer: {name: adam, lr: 0.002, momentum: 0.9, nesterov: false, rho: 0.9, "
                                     "initial_accumulator: 0.1, momentum_decay: 0.004}\n";
  CHECK_THROWS_AS(load_experiment(path), ConfigError);
  const ExperimentConfig recorded = load_recorded_experiment(path);
  CHECK(recorded.optimizer.name() == OptimizerKind::kAdam);
  CHECK(*recorded.optimizer.lr == Approx(0.002));
  // What trainer writes now reads back strictly.
  std::ofstream(path) << to_yaml(recorded);
  CHECK(load_experiment(path).optimizer.lr == recorded.optimizer.lr);
  CHECK(to_yaml(recorded).find("rho") == std::string::npos);
}

TEST_CASE("a layer type that is not one is the layer's only problem, with the Keras spelling's match", "[config]") {
  const auto layer = problems_of(R"(model:
  layers:
    - {type: Conv2D, filters: 8, kernel_size: 3}
    - {type: MaxPooling2D, pool_size: 2}
    - {type: GlobalAveragePooling2D}
    - {type: BatchNormalization}
    - {type: dense, units: 3, filter: 2}
)");
  // No word on filters or kernel_size: they are judged by no kind.
  REQUIRE(layer.size() == 5);
  CHECK_THAT(layer[0], Catch::StartsWith("exp.yaml:3:14: model.layers[0].type: expected one of ") &&
                           Catch::EndsWith("got 'Conv2D' (did you mean 'conv2d'?)"));
  CHECK_THAT(layer[1], Catch::EndsWith("got 'MaxPooling2D' (did you mean 'maxpool2d'?)"));
  CHECK_THAT(layer[2], Catch::EndsWith("got 'GlobalAveragePooling2D' (did you mean 'global_avgpool'?)"));
  CHECK_THAT(layer[3], Catch::EndsWith("got 'BatchNormalization' (did you mean 'batchnorm'?)"));
  // A known type still has its keys checked.
  CHECK_THAT(layer[4], Catch::Contains("unknown key 'model.layers[4].filter'"));

  const auto optimizer = problems_of(std::string(kMinimal) + "optimizer: {name: Adam, learning_rate: 0.1}\n");
  REQUIRE(optimizer.size() == 1);
  CHECK_THAT(optimizer[0], Catch::EndsWith("got 'Adam' (did you mean 'adam'?)"));
  const auto rate = problems_of(std::string(kMinimal) + "optimizer: {name: adam, learning_rate: 0.1}\n");
  REQUIRE(rate.size() == 1);
  CHECK(rate[0] == "exp.yaml:8:25: unknown key 'optimizer.learning_rate' (did you mean 'optimizer.lr'?)");
  const auto loss = problems_of(std::string(kMinimal) + "loss: {name: SparseCategoricalCrossentropy}\n");
  REQUIRE(loss.size() == 1);
  CHECK_THAT(loss[0], Catch::EndsWith("(did you mean 'sparse_categorical_crossentropy'?)"));
}

TEST_CASE("optimizer and loss by their name alone, as Keras writes them", "[config]") {
  const ExperimentConfig config =
      parse_experiment(std::string(kMinimal) + "optimizer: sgd\nloss: sparse_categorical_crossentropy\n", "exp.yaml");
  CHECK(config.optimizer.name() == OptimizerKind::kSgd);
  CHECK(config.loss.name == LossKind::kSparseCategoricalCrossentropy);
  // A bad name is refused where it is written.
  const auto bad = problems_of(std::string(kMinimal) + "optimizer: adamm\n");
  REQUIRE(bad.size() == 1);
  CHECK_THAT(bad[0], Catch::StartsWith("exp.yaml:8:12: optimizer.name: expected one of ") &&
                         Catch::EndsWith("got 'adamm' (did you mean 'adam'?)"));
  // --set reaches into the shorthand, and sets it whole.
  CHECK(*parse_experiment(std::string(kMinimal) + "optimizer: sgd\n", "exp.yaml", {"optimizer.lr=0.5"}).optimizer.lr ==
        Approx(0.5));
  CHECK(parse_experiment(kMinimal, "exp.yaml", {"optimizer=rmsprop"}).optimizer.name() == OptimizerKind::kRmsprop);
  // A base's `optimizer: sgd` merges with a file's optimizer keys.
  const std::string dir = testing::fresh_dir("shorthand_extends");
  std::ofstream(dir + "/base.yaml") << kMinimal << "optimizer: sgd\n";
  std::ofstream(dir + "/exp.yaml") << "extends: base.yaml\noptimizer: {lr: 0.25}\n";
  const ExperimentConfig extended = load_experiment(dir + "/exp.yaml");
  CHECK(extended.optimizer.name() == OptimizerKind::kSgd);
  CHECK(*extended.optimizer.lr == Approx(0.25));
}

TEST_CASE("a key of another layer type names the types that take it", "[config]") {
  const auto layer = problems_of(R"(model:
  layers:
    - {type: dense, units: 3, kernel_size: 4}
)");
  REQUIRE(layer.size() == 1);
  CHECK_THAT(layer[0], Catch::Contains("unknown key 'model.layers[0].kernel_size': dense takes no 'kernel_size' "
                                       "(conv1d, conv2d, conv1d_transpose, conv2d_transpose and "));
  CHECK_THAT(layer[0], Catch::Contains("dense takes: type, name, inputs, repeat, trainable, units,"));
}

TEST_CASE("a layer's keys are read into its kind's entry, and an optimizer's into its own", "[config]") {
  const auto config = parse_experiment(R"(experiment: {name: kinds}
data: {dataset: synthetic}
model:
  layers:
    - {type: reshape, target_shape: [1, 4, 4]}
    - {type: conv2d, filters: 4, kernel_size: 3, padding: same, activation: relu}
    - {type: instancenorm, epsilon: 0.01}
    - {type: flatten}
    - {type: dense, units: classes, activation: softmax}
optimizer: {name: rmsprop, rho: 0.5}
)",
                                       "exp.yaml");
  const auto* conv = config.model.layers[1].as<ConvLayer<LayerKind::kConv2d, 2>>();
  REQUIRE(conv);
  CHECK(conv->filters.value == 4);
  CHECK(conv->kernel_size == Dims{3});
  CHECK(conv->padding.mode == ConvPadding::kSame);
  CHECK(conv->activation == Activation::kRelu);
  CHECK(config.model.layers[1].type() == LayerKind::kConv2d);
  REQUIRE(config.model.layers[2].as<InstanceNormLayer>());
  CHECK(config.model.layers[2].as<InstanceNormLayer>()->epsilon == Approx(0.01));
  CHECK(config.model.layers[4].activation() == Activation::kSoftmax);
  CHECK_FALSE(config.model.layers[3].activation());  // flatten takes none
  REQUIRE(config.optimizer.as<RmspropOptimizer>());
  CHECK(config.optimizer.as<RmspropOptimizer>()->rho == Approx(0.5));
  // instancenorm has one group per channel: `groups` is groupnorm's key.
  const auto groups = problems_of(R"(model:
  layers:
    - {type: instancenorm, groups: 4}
)");
  REQUIRE(groups.size() == 1);
  CHECK_THAT(groups[0], Catch::Contains("instancenorm takes no 'groups' (conv1d, conv2d, groupnorm do)"));
}

TEST_CASE("label smoothing and class weights: the cross-entropy's, in range", "[config]") {
  const auto config = parse_experiment(std::string(kMinimal) + "loss: {label_smoothing: 0.1, class_weights: [1, 2.5]}\n",
                                       "exp.yaml");
  CHECK(config.loss.label_smoothing == Approx(0.1));
  CHECK(config.loss.class_weights.values == std::vector<double>{1, 2.5});
  CHECK(parse_experiment(std::string(kMinimal) + "loss: {class_weights: balanced}\n", "exp.yaml").loss.class_weights.balanced);
  CHECK_THAT(problems_of(std::string(kMinimal) + "loss: {label_smoothing: 1}\n").at(0), Catch::Contains("[0, 1)"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "loss: {class_weights: [1, -2]}\n").at(0),
             Catch::Contains("balanced, a list of one weight (>= 0) a class, or null"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "loss: {class_weights: heavy}\n").at(0),
             Catch::Contains("loss.class_weights: expected balanced"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "loss: {name: mse, label_smoothing: 0.1}\n").at(0),
             Catch::Contains("loss.label_smoothing: smooths class labels; mse compares values"));
}

TEST_CASE("wrong types and out-of-range values say what was expected", "[config]") {
  const auto problems = problems_of(std::string(kMinimal) + R"(train:
  epochs: three
  batch_size: 0
optimizer:
  name: adamm
  lr: -1
)");
  REQUIRE(problems.size() == 4);  // all at once
  CHECK(problems[0] == "exp.yaml:9:11: train.epochs: expected an integer, got 'three'");
  CHECK(problems[1] == "exp.yaml:10:15: train.batch_size: expected an integer >= 1, got '0'");
  CHECK_THAT(problems[2], Catch::StartsWith("exp.yaml:12:9: optimizer.name: expected one of sgd, momentum"));
  CHECK(problems[3] == "exp.yaml:13:7: optimizer.lr: expected a number > 0, got '-1'");
}

TEST_CASE("train.monitor must name a figure the run reports, at its line", "[config][monitor]") {
  const auto problems = problems_of(std::string(kMinimal) + "metrics: [accuracy]\ntrain:\n  monitor: val_acc\n");
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "exp.yaml:10:12: train.monitor: 'val_acc' names no figure this run reports; expected one of "
                       "loss, val_loss, accuracy, val_accuracy");
  CHECK(problems_of(std::string(kMinimal) + "metrics: [accuracy]\ntrain: {monitor: val_accuracy, mode: max}\n").empty());
  CHECK_THAT(problems_of(std::string(kMinimal) + "train: {mode: up}\n").at(0), Catch::Contains("train.mode: expected one of auto, min or max"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "train: {early_stopping: {patience: -1}}\n").at(0),
             Catch::Contains("train.early_stopping.patience: expected an integer >= 0"));
}

TEST_CASE("batch sizes whose products would overflow are refused", "[config]") {
  // 2^63 - 1 once made 4 x batch_size negative and the loader grow forever.
  const auto problems = problems_of(std::string(kMinimal) + "train: {batch_size: 9223372036854775807, "
                                                            "valid_batch_size: 2147483648}\n");
  REQUIRE(problems.size() == 2);
  CHECK_THAT(problems[0], Catch::Contains("train.batch_size: expected an integer from 1 to 1073741824"));
  CHECK_THAT(problems[1], Catch::Contains("train.valid_batch_size: expected an integer from 0 to 1073741824"));
  CHECK(problems_of(std::string(kMinimal) + "train: {batch_size: 1073741824}\n").empty());
}

TEST_CASE("values that were once accepted without a word", "[config]") {
  CHECK_THAT(problems_of(std::string(kMinimal) + "optimizer: {lr: .inf}\n")[0],
             Catch::Contains("optimizer.lr: expected a finite number") && Catch::Contains("got '.inf'"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "optimizer: {clip_norm: .nan}\n")[0],
             Catch::Contains("optimizer.clip_norm: expected a finite number"));
  // 2^44 + 1 MiB: in bytes it wrapped to 1 MiB.
  CHECK_THAT(problems_of(std::string(kMinimal) + "memory_limit: 17592186044417\n")[0],
             Catch::Contains("memory_limit: expected MiB") && Catch::Contains("at most 2^40 MiB"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "memory_limit: 99999999999999999999GiB\n")[0],
             Catch::Contains("at most 2^40 MiB"));
  CHECK(problems_of(std::string(kMinimal) + "memory_limit: 1024GiB\n").empty());
  const auto named = [](const std::string& name) {
    std::string text = kMinimal;
    return text.replace(text.find("name: tiny"), 10, "name: '" + name + "'");
  };
  CHECK_THAT(problems_of(named("../../x"))[0], Catch::Contains("experiment.name: expected a directory name on one line of printable text, without '/'"));
  // A newline (YAML's double-quoted escape) or a terminal escape code would break the runs table.
  std::string two_lines = kMinimal;
  two_lines.replace(two_lines.find("name: tiny"), 10, "name: \"a\\nb\"");
  CHECK_THAT(problems_of(two_lines)[0], Catch::Contains("experiment.name: expected a directory name"));
  CHECK_THAT(problems_of(named(".."))[0], Catch::Contains("experiment.name: expected a directory name"));
  CHECK(problems_of(named("tiny-2")).empty());
  CHECK_THAT(problems_of(std::string(kMinimal) + "log: {run_name: a/b}\n")[0],
             Catch::Contains("log.run_name: expected a directory name"));
  CHECK(problems_of(std::string(kMinimal) + "log: {run_name: ''}\n").empty());
}

TEST_CASE("an index of twenty digits or a directory as the file are usage errors", "[config]") {
  const auto problems = problems_of(kMinimal, {"model.layers.99999999999999999999.units=3"});
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0], Catch::StartsWith("--set model.layers.99999999999999999999.units=3") &&
                              Catch::Contains("index 99999999999999999999 does not exist"));
  const std::string dir = testing::fresh_dir("config-as-directory");
  CHECK_THROWS_WITH(load_experiment(dir), Catch::Contains(dir + " is a directory"));
  // A run directory: the hint names the experiment it keeps.
  std::ofstream(dir + "/config.yaml") << kMinimal;
  try {
    load_experiment(dir);
    FAIL("a directory was read as an experiment");
  } catch (const UsageError& e) {
    CHECK(e.hint() == "a run directory holds the experiment it trained as config.yaml: give " + dir + "/config.yaml");
  }
}

TEST_CASE("duplicate keys are errors naming both places", "[config]") {
  const auto problems = problems_of(std::string(kMinimal) + "train:\n  epochs: 1\n  epochs: 2\n");
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0], Catch::Contains("duplicate key 'train.epochs' (first at exp.yaml:"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "train: {epochs: 1}\ntrain: {batch_size: 2}\n")[0],
             Catch::Contains("duplicate key 'train'"));
}

TEST_CASE("duplicate keys are refused in a list's items, a --set value and through aliases", "[config]") {
  // In a layer: the path names the item, and the line is the second key's.
  std::string in_layer = kMinimal;
  in_layer.replace(in_layer.find("units: classes"), 14, "units: classes, units: 3");
  const auto layer = problems_of(in_layer);
  REQUIRE(layer.size() == 1);
  CHECK_THAT(layer[0], Catch::StartsWith("exp.yaml:7:") &&
                           Catch::Contains("duplicate key 'model.layers[0].units' (first at exp.yaml:7:"));
  // In a --set value: blamed on the --set, which is both places.
  const auto set = problems_of(kMinimal, {"train={epochs: 1, epochs: 2}"});
  REQUIRE(set.size() == 1);
  CHECK(set[0] == "--set train={epochs: 1, epochs: 2}: duplicate key 'train.epochs'");
  // One mapping used twice through an alias is one duplicate, reported once.
  const auto aliased = problems_of(std::string(kMinimal) +
                                   "train: &t {epochs: 1, epochs: 2}\nevaluate: {train: *t, again: *t}\n");
  CHECK(std::count_if(aliased.begin(), aliased.end(), [](const std::string& p) {
          return p.find("duplicate key") != std::string::npos;
        }) == 1);
}

TEST_CASE("an empty value is reported at its key, not where the next line would start", "[config]") {
  const auto section = problems_of(std::string(kMinimal) + "train:\n");
  REQUIRE(section.size() == 1);
  CHECK(section[0] == "exp.yaml:8:1: train: expected a mapping of keys, got nothing");
  const auto value = problems_of(std::string(kMinimal) + "train:\n  epochs:\n");
  REQUIRE(value.size() == 1);
  CHECK(value[0] == "exp.yaml:9:3: train.epochs: expected an integer, got nothing");
  const auto set = problems_of(kMinimal, {"train.epochs="});
  REQUIRE(set.size() == 1);
  CHECK_THAT(set[0], Catch::StartsWith("--set train.epochs=: train.epochs: expected an integer"));
}

TEST_CASE("invalid YAML reports its position", "[config]") {
  const auto problems = problems_of("experiment: {name: x\ndata: [");
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0], Catch::StartsWith("exp.yaml:") && Catch::Contains("invalid YAML"));
}

TEST_CASE("YAML aliases work, but not nested into millions of values, nor holding themselves, nor nesting past the "
          "reader's depth",
          "[config]") {
  const auto config = parse_experiment(std::string(kAnchoredLayer) + R"(    - *hidden
    - {type: dense, units: classes, activation: softmax}
)",
                                       "exp.yaml");
  CHECK(config.model.layers.size() == 3);
  // Nine aliases of nine: 9^9 values, which every walk of the tree would visit.
  std::string laughs = std::string(kMinimal) + "metrics:\n  - &a [x, x, x, x, x, x, x, x, x]\n";
  for (char name = 'b'; name <= 'i'; ++name) {
    const std::string previous = std::string("*") + static_cast<char>(name - 1);
    laughs += std::string("  - &") + name + " [" + previous;
    for (int i = 1; i < 9; ++i) laughs += ", " + previous;
    laughs += "]\n";
  }
  const auto many = problems_of(laughs);
  REQUIRE(many.size() == 1);
  CHECK_THAT(many[0], Catch::StartsWith("exp.yaml:") &&
                          Catch::Contains("expands to more than 1000000 values through YAML aliases"));
  // An alias inside the value it names: yaml-cpp makes a cycle of it.
  for (const char* itself : {"train: &t {x: *t}\n", "metrics: &m [accuracy, *m]\n", "train: &t {<<: *t}\n"}) {
    const auto cycle = problems_of(std::string(kMinimal) + itself);
    REQUIRE(cycle.size() == 1);
    CHECK_THAT(cycle[0], Catch::StartsWith("exp.yaml:8:") &&
                             Catch::Contains("this value holds an alias (*name) to itself"));
  }
  const auto set_cycle = problems_of(kMinimal, {"train=&t {x: *t}"});
  REQUIRE(set_cycle.size() == 1);
  CHECK_THAT(set_cycle[0], Catch::StartsWith("--set train=&t {x: *t}: this value holds an alias (*name) to itself"));
  const auto deep = problems_of(std::string(kMinimal) + "metrics: " + std::string(5000, '[') + std::string(5000, ']'));
  REQUIRE(deep.size() == 1);
  CHECK_THAT(deep[0], Catch::StartsWith("exp.yaml:8:") && Catch::Contains("nested too deeply"));
}

TEST_CASE("YAML merge keys take an anchored mapping's keys, the mapping's own and the first source's winning",
          "[config]") {
  const auto config = parse_experiment(std::string(kAnchoredLayer) + R"(    - {<<: *hidden, units: 8}
    - <<: [{units: 4, use_bias: false}, *hidden]
    - {type: dense, units: classes, activation: softmax}
)",
                                       "exp.yaml");
  REQUIRE(config.model.layers.size() == 4);
  const auto* first = config.model.layers[0].as<DenseLayer>();
  const auto* own = config.model.layers[1].as<DenseLayer>();
  const auto* listed = config.model.layers[2].as<DenseLayer>();
  REQUIRE((first && own && listed));
  CHECK(first->units.value == 16);  // the anchored mapping itself is left as it was
  CHECK(own->units.value == 8);
  CHECK(own->activation == Activation::kRelu);
  CHECK(listed->units.value == 4);
  CHECK_FALSE(listed->use_bias);
  CHECK(listed->activation == Activation::kRelu);

  const std::string hidden = std::string(kMinimal) + "    - &h {type: dense, units: 2}\n";
  const auto scalar = problems_of(hidden + "    - {<<: 3, type: dense, units: 2}\n");
  REQUIRE(scalar.size() == 1);
  CHECK(scalar[0] == "exp.yaml:9:8: model.layers[2].<<: expected a mapping to merge (<<: *name) or a list of them "
                     "(<<: [*a, *b]), got a value");
  CHECK_THAT(problems_of(hidden + "    - {<<: [*h, 3]}\n").at(0), Catch::Contains("got a list holding other values"));
  // Quoted, << is a key like any other.
  CHECK_THAT(problems_of(hidden + "    - {\"<<\": *h, type: dense, units: 2}\n").at(0),
             Catch::Contains("unknown key 'model.layers[2].<<'"));
}

TEST_CASE("YAML tags: the core schema's read when they fit their value, any other refused at its line",
          "[config]") {
  // The core tags say what the value already is; !!null makes a value null.
  const auto config = parse_experiment(std::string(kMinimal) +
                                           "train: !!map {epochs: !!int 3, batch_size: !!str 8}\n"
                                           "optimizer: {name: momentum, lr: !!float 0.5, nesterov: !!bool true, "
                                           "weight_decay: !!null ~}\n",
                                       "exp.yaml");
  CHECK(config.train.epochs == 3);
  CHECK(config.train.batch_size.value == 8);  // as "8" reads, quoted
  CHECK(config.optimizer.lr == 0.5);

  // A tag that is not read would drop what it means in silence: an include
  // was the string 'data.yaml' ("expected a mapping"), !foo 3 was 3.
  const auto include = problems_of(std::string(kMinimal) + "train: !include train.yaml\n");
  REQUIRE(include.size() == 1);
  CHECK_THAT(include[0], Catch::StartsWith("exp.yaml:8:8: train: YAML tag '!include' is not read by trainer") &&
                             Catch::Contains("name the base file in extends:"));
  const auto local = problems_of(std::string(kMinimal) + "train: {epochs: !foo 3}\n");
  REQUIRE(local.size() == 1);
  CHECK_THAT(local[0], Catch::StartsWith("exp.yaml:8:17: train.epochs: YAML tag '!foo' is not read by trainer"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "train: {epochs: !ENV '${EPOCHS}'}\n").at(0),
             Catch::Contains("as ${VAR} or ${VAR:-default}, with no tag"));
  // What PyYAML's yaml.dump (not safe_dump) writes for a tuple.
  const auto tuple = problems_of(std::string(kMinimal) + "metrics: !!python/tuple [accuracy]\n");
  REQUIRE(tuple.size() == 1);
  CHECK_THAT(tuple[0], Catch::StartsWith("exp.yaml:8:10: metrics: YAML tag '!!python/tuple' is not read") &&
                           Catch::Contains("write the tuple as a list"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "train: {epochs: !<tag:example.com,2026:n> 3}\n").at(0),
             Catch::Contains("YAML tag '!<tag:example.com,2026:n>' is not read"));

  // A core tag on a value that is not of its kind, as safe_load refuses it.
  const auto misfit = problems_of(std::string(kMinimal) + "train: {epochs: !!int three, batch_size: !!map 4}\n");
  REQUIRE(misfit.size() == 2);
  CHECK(misfit[0] == "exp.yaml:8:17: train.epochs: YAML tag '!!int' on 'three', which is not an integer");
  CHECK(misfit[1] == "exp.yaml:8:42: train.batch_size: YAML tag '!!map' on '4', which is not a mapping");

  // All at once with the rest, in a --set, once through an alias, and on keys.
  const auto several = problems_of(std::string(kMinimal) + "train: {epochs: !x 1, batch_size: !y 2}\n");
  CHECK(several.size() == 2);
  const auto set = problems_of(kMinimal, {"train.epochs=!foo 3"});
  REQUIRE(set.size() == 1);
  CHECK(set[0].rfind("--set train.epochs=!foo 3: train.epochs: YAML tag '!foo' is not read by trainer", 0) == 0);
  const auto aliased = problems_of(std::string(kMinimal) + "train: {epochs: &e !foo 1}\nevaluate: {a: *e, b: *e}\n");
  CHECK(std::count_if(aliased.begin(), aliased.end(), [](const std::string& p) {
          return p.find("YAML tag") != std::string::npos;
        }) == 1);
  CHECK_THAT(problems_of(std::string(kMinimal) + "train: {!k epochs: 1}\n").at(0),
             Catch::Contains("train.epochs: YAML tag '!k' is not read"));
}

TEST_CASE("command-line overrides go through the same checks", "[config]") {
  const auto config = parse_experiment(kMinimal, "exp.yaml",
                                       {"optimizer.lr=0.05", "train.epochs=2", "model.layers.0.units=7",
                                        "metrics=[accuracy, top3]"});
  CHECK(*config.optimizer.lr == Approx(0.05));
  CHECK(config.train.epochs == 2);
  CHECK(config.model.layers[0].as<DenseLayer>()->units.value == 7);
  CHECK(config.metrics == std::vector<std::string>{"accuracy", "top3"});

  SECTION("errors name the --set") {
    const auto problems = problems_of(kMinimal, {"train.epochs=-3", "optimizer.lrr=1"});
    REQUIRE(problems.size() == 2);
    CHECK_THAT(problems, Catch::VectorContains(std::string(
                             "--set train.epochs=-3: train.epochs: expected an integer >= 1, got '-3'")));
    CHECK_THAT(problems, Catch::VectorContains(std::string(
                             "--set optimizer.lrr=1: unknown key 'optimizer.lrr' (did you mean 'optimizer.lr'?)")));
  }
  SECTION("malformed overrides") {
    CHECK_THAT(problems_of(kMinimal, {"train.epochs"})[0], Catch::Contains("expected KEY=VALUE"));
    CHECK_THAT(problems_of(kMinimal, {"model.layers.5.units=3"})[0], Catch::Contains("index 5 does not exist"));
    // Not an index: the --set is blamed, never the file's line.
    CHECK_THAT(problems_of(kMinimal, {"model.layers.-1.units=3"})[0],
               Catch::StartsWith("--set model.layers.-1.units=3") && Catch::Contains("'-1' is no index of it"));
  }
}

TEST_CASE("cross-field checks", "[config]") {
  CHECK_THAT(problems_of(std::string(kMinimal) + "metrics: [acuracy]\n")[0], Catch::Contains("unknown metric 'acuracy'"));
  CHECK(problems_of(std::string(kMinimal) + "devices: gpu:0,1\n").empty());
  CHECK(problems_of(std::string(kMinimal) + "devices: gpu:all\n").empty());
  CHECK(problems_of(std::string(kMinimal) + "devices: gpu:0,0\nprecision: fp16\n").empty());
  CHECK_THAT(problems_of(std::string(kMinimal) + "devices: cpu,gpu:0\n")[0],
             Catch::Contains("cpu and gpu entries cannot be mixed"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "devices: [gpu:all, gpu:1]\n")[0],
             Catch::Contains("gpu:all stands alone"));
  CHECK(problems_of(std::string(kMinimal) + "loss_scale: {mode: dynamic, initial: 1024, growth_interval: 10}\n").empty());
  CHECK_THAT(problems_of(std::string(kMinimal) + "loss_scale: {mode: sometimes}\n")[0],
             Catch::Contains("loss_scale.mode"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "loss_scale: {growth_interval: 0}\n")[0],
             Catch::Contains("loss_scale.growth_interval"));
  CHECK(problems_of(std::string(kMinimal) + "devices: cpu,cpu,cpu\n").empty());
  CHECK_THAT(problems_of(std::string(kMinimal) + "devices: tpu\n")[0], Catch::Contains("'tpu' is not a device"));
  CHECK(problems_of(std::string(kMinimal) + "precision: bf16\n").empty());
  CHECK(problems_of(std::string(kMinimal) + "mixed_precision: true\n").empty());
  // Whether fp16 runs on a CPU depends on the LibTorch: the device layer
  // checks it (device/runtime.h), not the config.
  CHECK(problems_of(std::string(kMinimal) + "precision: fp16\n").empty());
  CHECK_THAT(problems_of("model: {layers: [{type: conv1d, filters: 3}]}\n")[0],
             Catch::Contains("missing required key 'kernel_size'"));
  CHECK_THAT(problems_of("model: {layers: [{filters: 3}]}\n")[0], Catch::Contains("missing required key 'model.layers[0].type'"));
  CHECK_THAT(problems_of("data: {dataset: synthetic}\n")[0], Catch::Contains("at least one layer"));
  // An empty list is blamed where it was written: the file's layers key, or
  // the --set that emptied them (not the model's first line, which holds none).
  CHECK_THAT(problems_of("model:\n  init: keras\n  layers: []\n")[0],
             Catch::StartsWith("exp.yaml:3:11: model.layers: expected at least one layer"));
  CHECK_THAT(problems_of(kMinimal, {"model.layers=[]"})[0],
             Catch::StartsWith("--set model.layers=[]: model.layers: expected at least one layer"));
  // Logits where the loss expects probabilities: at the last layer's line.
  const std::string logits = "model:\n  layers:\n    - {type: dense, units: 8, activation: relu}\n"
                             "    - {type: dense, units: classes}\n";
  CHECK_THAT(problems_of(logits)[0], Catch::Contains("exp.yaml:4:") &&
                                         Catch::Contains("model.layers[1]: the last layer outputs unbounded values"));
  CHECK(problems_of(logits + "loss: {from_logits: true}\n").empty());
  CHECK(problems_of(logits + "loss: {name: mse}\n").empty());
  // Made by a --set: the --set is blamed, not the file's line.
  CHECK_THAT(problems_of(logits + "loss: {from_logits: true}\n", {"loss.from_logits=false"}).at(0),
             Catch::StartsWith("--set loss.from_logits=false: model.layers[1]: the last layer outputs"));
  CHECK_THAT(problems_of(std::string(kMinimal), {"model.layers.0.activation=relu"}).at(0),
             Catch::StartsWith("--set model.layers.0.activation=relu: model.layers[0]: the last layer outputs"));
}

TEST_CASE("image data set keys: what they accept and refuse", "[config][image_folder]") {
  const std::string model = "model:\n  layers:\n    - {type: dense, units: classes, activation: softmax}\n";
  const std::string folder = model + "data:\n  dataset: image_folder\n  path: pics\n";
  CHECK(problems_of(folder + "  images: {size: [32, 48], resize: crop, interpolation: area, color_mode: grayscale, "
                             "scale: symmetric}\n  on_bad_file: skip\n  validation_split: 0.1\n")
            .empty());
  CHECK_THAT(problems_of(model + "data: {dataset: image_folder}\n").at(0),
             Catch::Contains("data.path: image_folder needs the folder of the training images"));
  CHECK_THAT(problems_of(folder + "  images: {size: [1, 2, 3]}\n").at(0),
             Catch::Contains("exp.yaml:7:") && Catch::Contains("data.images.size: expected [height, width]"));
  CHECK_THAT(problems_of(folder + "  images: {resize: crop}\n").at(0),
             Catch::Contains("data.images.resize: crop needs data.images.size"));
  CHECK_THAT(problems_of(folder + "  images: {color_mode: rgba}\n").at(0),
             Catch::Contains("data.images.color_mode") && Catch::Contains("rgb") && Catch::Contains("grayscale"));
  CHECK_THAT(problems_of(folder + "  validation_split: 1\n").at(0), Catch::Contains("data.validation_split"));
  CHECK_THAT(problems_of(folder + "  on_bad_file: ignore\n").at(0), Catch::Contains("data.on_bad_file"));
  CHECK_THAT(problems_of("model: {layers: [{type: upsampling2d, interpolation: area}]}\nloss: {from_logits: true}\n").at(0),
             Catch::Contains("upsampling2d takes nearest or bilinear"));
}

TEST_CASE("patches, cache, augmentations and degradations: what they accept and refuse", "[config][image_degrade]") {
  const std::string model = "model:\n  layers:\n    - {type: conv2d, filters: 3, kernel_size: 3, padding: same}\n";
  const std::string degrade = model + "data:\n  dataset: image_degrade\n  path: photos\n";
  CHECK(problems_of(degrade + "  patch_size: 64\n  patches_per_image: 4\n  validation_patches_per_image: 2\n"
                              "  cache: none\n  cache_limit: 2GiB\n"
                              "  augment: {flip_horizontal: true, flip_vertical: true, rotate90: true, brightness: 0.2}\n"
                              "  degrade:\n    seed: 3\n    motion_blur: {probability: 0.5, length: [2, 40]}\n"
                              "    gaussian_blur: {probability: 1, sigma: 1.5}\n    noise: {probability: 1, sigma: [0, 0.1]}\n"
                              "    jpeg: {probability: 0.2, quality: [20, 80]}\n")
            .empty());
  // Image targets: an image loss and image metrics by default, as image_pairs.
  const ExperimentConfig defaults = parse_experiment(degrade, "exp.yaml");
  CHECK(defaults.loss.name == LossKind::kL1);
  CHECK(defaults.metrics == std::vector<std::string>{"psnr", "ssim"});
  CHECK(defaults.data.degrade.motion_blur.length.low == 5);
  CHECK(defaults.data.degrade.gaussian_blur.probability == 0);
  const ExperimentConfig fixed = parse_experiment(degrade + "  degrade: {gaussian_blur: {sigma: 1.5}}\n", "exp.yaml");
  CHECK(fixed.data.degrade.gaussian_blur.sigma.low == 1.5);
  CHECK(fixed.data.degrade.gaussian_blur.sigma.high == 1.5);
  CHECK_THAT(problems_of(model + "data: {dataset: image_degrade}\n").at(0),
             Catch::Contains("data.path: image_degrade needs the folder of the sharp images"));
  CHECK_THAT(problems_of(degrade + "  degrade: {motion_blur: {length: [30, 10]}}\n").at(0),
             Catch::Contains("exp.yaml:7:") && Catch::Contains("data.degrade.motion_blur.length") &&
                 Catch::Contains("[low, high] with low <= high"));
  CHECK_THAT(problems_of(degrade + "  degrade: {jpeg: {quality: [0, 50]}}\n").at(0),
             Catch::Contains("data.degrade.jpeg.quality") && Catch::Contains("numbers from 1 to 100"));
  CHECK_THAT(problems_of(degrade + "  degrade: {noise: {probability: 2}}\n").at(0),
             Catch::Contains("data.degrade.noise.probability") && Catch::Contains("a number in [0, 1]"));
  CHECK_THAT(problems_of(degrade + "  patches_per_image: 4\n").at(0),
             Catch::Contains("data.patches_per_image: needs data.patch_size"));
  CHECK_THAT(problems_of(degrade + "  validation_patches_per_image: 4\n").at(0),
             Catch::Contains("data.validation_patches_per_image: needs data.patch_size"));
  CHECK_THAT(problems_of(degrade + "  cache: disk\n").at(0), Catch::Contains("data.cache") && Catch::Contains("memory"));
  CHECK_THAT(problems_of(degrade + "  augment: {brightness: 1.5}\n").at(0), Catch::Contains("data.augment.brightness"));
  // Patches and augmentations belong to the image-to-image data sets.
  const std::string classifier = "model:\n  layers:\n    - {type: dense, units: classes, activation: softmax}\n";
  CHECK_THAT(problems_of(classifier + "data: {dataset: fashion_mnist, patch_size: 8}\n").at(0),
             Catch::Contains("data.patch_size: patches are cut for image_pairs and image_degrade, not fashion_mnist"));
  CHECK_THAT(problems_of(classifier + "data: {dataset: fashion_mnist, augment: {flip_vertical: true}}\n").at(0),
             Catch::Contains("data.augment: augments image_folder, image_pairs and image_degrade, not fashion_mnist"));
  // A classifier's augmentations move its input alone: not for image pairs.
  CHECK(problems_of(classifier + "data: {dataset: image_folder, path: x, augment: {flip_vertical: true, "
                                 "crop_padding: 4, rotation: 10, contrast: 0.2, saturation: 0.2}}\n")
            .empty());
  CHECK_THAT(problems_of(degrade + "  augment: {rotation: 10}\n").at(0),
             Catch::Contains("data.augment: crop_padding, rotation, contrast and saturation change a classifier's "
                             "images (image_folder); image_degrade augments input and target alike"));
  CHECK_THAT(problems_of(classifier + "data: {dataset: image_folder, path: x, images: {color_mode: grayscale}, "
                                      "augment: {saturation: 0.2}}\n")
                 .at(0),
             Catch::Contains("data.augment.saturation: grayscale images have no saturation"));
  CHECK_THAT(problems_of(classifier + "data: {dataset: image_folder, path: x, augment: {rotation: 200}}\n").at(0),
             Catch::Contains("data.augment.rotation") && Catch::Contains("degrees from 0 to 180"));
}

TEST_CASE("tabular: classification by default, regression's losses and metrics", "[config][tabular]") {
  const std::string classifier = "model:\n  layers:\n    - {type: dense, units: classes, activation: softmax}\n";
  const std::string regressor = "model:\n  layers:\n    - {type: dense, units: 1}\n";
  CHECK(problems_of(classifier + "data: {dataset: tabular, path: t.csv, tabular: {target: kind, standardize: true}}\n")
            .empty());
  const std::string regression = regressor + "data: {dataset: tabular, path: t.csv, tabular: {task: regression}}\n";
  CHECK(problems_of(regression).empty());
  const ExperimentConfig defaults = parse_experiment(regression, "exp.yaml");
  CHECK(defaults.loss.name == LossKind::kMse);
  CHECK(defaults.metrics == std::vector<std::string>{"mae"});
  CHECK(problems_of(regression + "loss: {name: mae}\nmetrics: [mse]\n").empty());
  CHECK_THAT(problems_of(regression + "metrics: [accuracy]\n").at(0),
             Catch::Contains("metrics: accuracy counts right classes, and tabular has real-valued targets"));
  CHECK_THAT(problems_of(regression + "metrics: [psnr]\n").at(0), Catch::Contains("psnr compares images"));
  CHECK_THAT(problems_of(regression + "loss: {name: sparse_categorical_crossentropy}\n").at(0),
             Catch::Contains("loss.name: tabular has real-valued targets (task: regression), not classes"));
  CHECK_THAT(problems_of(classifier + "data: {dataset: tabular}\n").at(0),
             Catch::Contains("data.path: tabular needs the .csv, .npy or .npz file"));
  CHECK_THAT(problems_of(classifier + "data: {dataset: tabular, path: x.npy}\n").at(0),
             Catch::Contains("data.tabular.targets_path: .npy features need the .npy file of their targets"));
  CHECK_THAT(problems_of(regressor + "data: {dataset: tabular, path: t.csv, tabular: {task: ranking}}\n").at(0),
             Catch::Contains("data.tabular.task") && Catch::Contains("regression"));
}

TEST_CASE("tabular: a CSV's columns chosen or left out, not both, and only for CSV", "[config][tabular]") {
  const std::string head = std::string(kMinimal).substr(0, std::string(kMinimal).find("data:")) +
                           "model: {layers: [{type: dense, units: classes, activation: softmax}]}\n";
  CHECK(problems_of(head + "data: {dataset: tabular, path: t.csv, tabular: {exclude: [id, note]}}\n").empty());
  CHECK(problems_of(head + "data: {dataset: tabular, path: t.csv, tabular: {columns: [a, b], target: y}}\n").empty());
  CHECK_THAT(problems_of(head + "data: {dataset: tabular, path: t.csv, tabular: {columns: [a], exclude: [b]}}\n").at(0),
             Catch::Contains("data.tabular.exclude: give the feature columns (data.tabular.columns) or those to leave out"));
  CHECK_THAT(problems_of(head + "data: {dataset: tabular, path: t.npz, tabular: {exclude: [id]}}\n").at(0),
             Catch::Contains("data.tabular.exclude: chooses a CSV file's columns by name; numpy arrays have none"));
  CHECK_THAT(problems_of(head + "data: {dataset: tabular, path: t.csv, tabular: {columns: [a, y], target: y}}\n").at(0),
             Catch::Contains("data.tabular.columns: 'y' is the target"));
}

TEST_CASE("image_pairs: image losses and metrics only, and the classifiers' only elsewhere", "[config][image_pairs]") {
  const std::string model = "model:\n  layers:\n    - {type: conv2d, filters: 3, kernel_size: 3, padding: same}\n";
  const std::string pairs = model + "data: {dataset: image_pairs, path: gopro/train}\n";
  CHECK(problems_of(pairs + "loss: {name: l1}\nmetrics: [psnr, ssim, mse, mae]\n").empty());
  CHECK(problems_of(pairs + "loss: {name: charbonnier, epsilon: 0.001}\nmetrics: [psnr]\n").empty());
  // Unless the file says, an image loss and image metrics.
  const ExperimentConfig defaults = parse_experiment(pairs, "exp.yaml");
  CHECK(defaults.loss.name == LossKind::kL1);
  CHECK(defaults.metrics == std::vector<std::string>{"psnr", "ssim"});
  CHECK_THAT(problems_of(pairs + "loss: {name: sparse_categorical_crossentropy}\nmetrics: [psnr]\n").at(0),
             Catch::Contains("loss.name: image_pairs has image targets, not classes"));
  CHECK_THAT(problems_of(pairs + "loss: {name: mse}\nmetrics: [accuracy]\n").at(0),
             Catch::Contains("metrics: accuracy counts right classes, and image_pairs has image targets"));
  CHECK_THAT(problems_of(std::string(kMinimal) + "metrics: [psnr]\n").at(0),
             Catch::Contains("metrics: psnr compares images, and synthetic has class labels"));
  CHECK_THAT(problems_of(model + "data: {dataset: image_pairs}\nloss: {name: l1}\n").at(0),
             Catch::Contains("data.path: image_pairs needs the folder of the pairs"));
  CHECK_THAT(problems_of(pairs + "loss: {name: l1}\n", {"data.pairs.target=blur"}).at(0),
             Catch::Contains("data.pairs: input and target must be different folders"));
  CHECK_THAT(problems_of(pairs + "loss: {name: charbonnier, epsilon: 0}\n").at(0), Catch::Contains("loss.epsilon"));
}

TEST_CASE("memory limits and device lists parse in every documented form", "[config]") {
  for (const auto& [text, mib] : std::vector<std::pair<std::string, int64_t>>{
           {"4096", 4096}, {"512MiB", 512}, {"4GiB", 4096}, {"0", 0}}) {
    CHECK(parse_experiment(std::string(kMinimal) + "memory_limit: " + text + "\n", "exp.yaml").memory_limit.mib == mib);
  }
  CHECK_THAT(problems_of(std::string(kMinimal) + "memory_limit: lots\n").at(0), Catch::Contains("expected MiB"));
}

TEST_CASE("a key that a --set brings in with its path is blamed on the --set, not the file", "[config]") {
  const auto section = problems_of(kMinimal, {"trian.epochs=1"});
  REQUIRE(section.size() == 1);
  CHECK_THAT(section[0], Catch::StartsWith("--set trian.epochs=1: unknown key 'trian' (did you mean 'train'?)"));
  const auto inner = problems_of(kMinimal, {"optimizer.foo.bar=1"});
  REQUIRE(inner.size() == 1);
  CHECK_THAT(inner[0], Catch::StartsWith("--set optimizer.foo.bar=1: unknown key 'optimizer.foo'"));
  // A section the file has keeps the file's lines for its own keys.
  const auto file_key = problems_of(std::string(kMinimal) + "train: {epohcs: 2}\n", {"train.batch_size=4"});
  REQUIRE(file_key.size() == 1);
  CHECK_THAT(file_key[0], Catch::StartsWith("exp.yaml:8:") && Catch::Contains("unknown key 'train.epohcs'"));
}

TEST_CASE("several --set for one key apply in order, the last winning, even over a mapping", "[config]") {
  CHECK(parse_experiment(kMinimal, "exp.yaml", {"train.epochs=2", "train.epochs=5"}).train.epochs == 5);
  const auto config = parse_experiment(kMinimal, "exp.yaml", {"train={epochs: 2, batch_size: 4}", "train.epochs=7"});
  CHECK(config.train.epochs == 7);
  CHECK(config.train.batch_size.value == 4);
}

TEST_CASE("the resolved config round-trips through YAML", "[config]") {
  const auto config = parse_experiment(kMinimal, "exp.yaml", {"optimizer.lr=0.1", "data.synthetic.shape=[3, 4]"});
  const std::string dumped = to_yaml(config);
  CHECK_THAT(dumped, Catch::Contains("lr: 0.1\n"));
  const auto again = parse_experiment(dumped, "dumped.yaml");
  CHECK(to_yaml(again) == dumped);
}

TEST_CASE("the shipped configs are valid", "[config]") {
  for (const char* name : {"fashion_mnist_cnn.yaml", "fashion_mnist_quickstart.yaml", "reuters_conv1d.yaml"}) {
    INFO(name);
    CHECK_NOTHROW(load_experiment(testing::source_dir() + "/configs/" + name));
  }
}

TEST_CASE("docs/config-reference.md is the one generated from the declarations", "[config][docs]") {
  std::ifstream in(testing::source_dir() + "/docs/config-reference.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const std::string begin = "<!-- config-reference:begin -->\n", end = "<!-- config-reference:end -->";
  const auto from = readme.find(begin), to = readme.find(end);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  INFO("regenerate with: scripts/update-config-reference.sh");
  CHECK(readme.substr(from + begin.size(), to - from - begin.size()) == config_reference_markdown());
}

TEST_CASE("config differences, key by key, and which may change on resume", "[config][resume]") {
  const auto before = parse_experiment(kMinimal, "exp.yaml");
  CHECK(diff_configs(before, before).empty());
  const auto after = parse_experiment(kMinimal, "exp.yaml",
                                      {"train.epochs=9", "model.layers.0.units=7", "log.run_name=x", "optimizer.lr=0.5"});
  const auto changes = diff_configs(before, after);
  std::vector<std::string> keys;
  for (const auto& change : changes) keys.push_back(change.key);
  CHECK(keys == std::vector<std::string>{"model.layers[0].units", "optimizer.lr", "train.epochs", "log.run_name"});
  CHECK(changes[0].before == "classes");
  CHECK(changes[0].after == "7");
  CHECK(changes[2].after == "9");
  CHECK(may_change_on_resume("train.epochs"));
  CHECK(may_change_on_resume("log.run_name"));
  CHECK(may_change_on_resume("data.workers"));
  CHECK_FALSE(may_change_on_resume("train.epochs_x"));
  CHECK_FALSE(may_change_on_resume("optimizer.lr"));
  CHECK_FALSE(may_change_on_resume("model.layers[0].units"));
  CHECK_FALSE(may_change_on_resume("data.max_train_samples"));
  // A run may move to as many devices of the same kind (a sweep's point
  // resumed on another free GPU), not to more or to another kind.
  const auto moved = [&](const std::string& from, const std::string& to) {
    const auto device_changes = diff_configs(parse_experiment(kMinimal, "exp.yaml", {"devices=" + from}),
                                             parse_experiment(kMinimal, "exp.yaml", {"devices=" + to}));
    REQUIRE_FALSE(device_changes.empty());
    bool allowed = true;
    for (const auto& change : device_changes) {
      CHECK(change.key.rfind("devices", 0) == 0);
      allowed = allowed && may_change_on_resume(change);
    }
    return allowed;
  };
  CHECK(moved("gpu:0", "gpu:3"));
  CHECK(moved("gpu:0,1", "gpu:2,3"));
  CHECK_FALSE(moved("gpu:0", "gpu:0,1"));
  CHECK_FALSE(moved("cpu", "gpu:0"));
  CHECK_FALSE(moved("gpu:0,1", "gpu:all"));
  // A layer added: the list is reported whole.
  const auto longer = parse_experiment(kMinimal, "exp.yaml",
                                       {"model.layers=[{type: dense, units: 4}, {type: dense, units: classes, "
                                        "activation: softmax}]"});
  const auto added = diff_configs(before, longer);
  REQUIRE(added.size() == 1);
  CHECK(added[0].key == "model.layers");
}
