// model.init_from: weights by name and shape into a fresh model, renamed
// where PyTorch named them otherwise; what did not fit left and said; strict
// refuses; frozen layers take no gradient and keep their batchnorm's
// statistics.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "formats/weights_file.h"
#include "models/model_fixtures.h"
#include "test_paths.h"
#include "train/initial_weights.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

DataInfo four_features(int64_t classes) {
  DataInfo info;
  info.name = "test";
  info.input_shape = {4};
  info.classes = classes;
  return info;
}

// The model's tensors as trainer export names them, in a safetensors file.
std::string saved(Model& model, const std::string& path) {
  std::vector<NamedArray> arrays;
  for (const auto& item : model.net->named_parameters(true)) {
    const torch::Tensor t = item.value().detach().contiguous();
    arrays.push_back({item.key(), "F32", t.sizes().vec(),
                      std::string(static_cast<const char*>(t.data_ptr()), static_cast<size_t>(t.numel()) * 4)});
  }
  std::ofstream(path, std::ios::binary) << safetensors_bytes(arrays, {});
  return path;
}

}  // namespace

TEST_CASE("init_from loads what matches by name and shape, and says what it left", "[train][finetune]") {
  const std::string dir = fresh_dir("init-from");
  ModelConfig source_config = model_of("[{type: dense, units: 8, activation: relu}, {type: dense, units: 5}]");
  torch::manual_seed(1);
  Model source = build_model(source_config, four_features(5));
  const std::string file = saved(source, dir + "/source.safetensors");

  // The same first layer, another head (3 classes instead of 5).
  ModelConfig config = model_of("[{type: dense, units: 8, activation: relu}, {type: dense, units: 3}]");
  config.init_from = file;
  torch::manual_seed(2);
  Model target = build_model(config, four_features(3));
  const torch::Tensor head_before = target.net->named_parameters()["l1_0.weight"].clone();
  const InitialWeights report = load_initial_weights(config, target);
  CHECK(report.count("loaded") == 2);
  CHECK(report.count("skipped") == 2);  // the head: [5, 8] in the file, [3, 8] here
  CHECK(torch::equal(target.net->named_parameters()["l0_0.weight"], source.net->named_parameters()["l0_0.weight"]));
  CHECK(torch::equal(target.net->named_parameters()["l1_0.weight"], head_before));
  CHECK_THAT(report.table(), Catch::Contains("2 of the model's 4 tensors loaded, 2 skipped"));
  CHECK_THAT(report.table(), Catch::Contains("dense_1.weight") && Catch::Contains("shape [5, 8] in the file, [3, 8] here"));

  SECTION("strict: every difference is a config error") {
    config.init_strict = true;
    CHECK_THROWS_AS(load_initial_weights(config, target), ConfigError);
    try {
      load_initial_weights(config, target);
    } catch (const ConfigError& e) {
      CHECK_THAT(e.what(), Catch::Contains("dense_1.bias skipped"));
    }
  }
  SECTION("a file that is not there, or not weights") {
    config.init_from = dir + "/missing.safetensors";
    CHECK_THROWS_WITH(load_initial_weights(config, target), Catch::Contains("missing.safetensors does not exist"));
    std::ofstream(dir + "/junk.safetensors") << "not weights";
    config.init_from = dir + "/junk.safetensors";
    CHECK_THROWS_AS(load_initial_weights(config, target), IoError);
  }
}

TEST_CASE("init_from reads PyTorch's state_dict through init_rename, and the model then computes as PyTorch's",
          "[train][finetune]") {
  if (!system_python_has("torch") || !system_python_has("numpy")) {
    WARN("SKIPPED: needs Debian's python3-torch and python3-numpy");
    return;
  }
  const std::string dir = fresh_dir("init-from-pytorch");
  const auto printed = system_python_output(source_dir() + "/tests/train/pytorch_weights.py " + dir + "/sequential");
  REQUIRE(printed);
  std::vector<double> expected;
  std::istringstream lines(*printed);
  for (double v; lines >> v;) expected.push_back(v);
  REQUIRE(expected.size() == 9);  // 3 samples, 3 outputs
  for (const char* extension : {".safetensors", ".npz"}) {
    INFO(extension);
    ModelConfig config = model_of("[{type: dense, units: 8, activation: relu}, {type: dense, units: 3}]");
    config.init_from = dir + "/sequential" + extension;
    config.init_strict = true;
    // nn.Sequential names its layers by position: 0 and 2 (1 is the ReLU).
    config.init_rename.rules = {{"^0\\.", "dense."}, {"^2\\.", "dense_1."}};
    Model model = build_model(config, four_features(3));
    const InitialWeights report = load_initial_weights(config, model);
    CHECK(report.count("loaded") == 4);
    CHECK_THAT(report.table(), Catch::Contains("dense.weight") && Catch::Contains("from 0.weight"));
    torch::NoGradGuard no_grad;
    model.net->eval();
    const torch::Tensor out = model.forward(torch::arange(12, torch::kFloat).view({3, 4})).flatten();
    for (int64_t i = 0; i < 9; ++i) CHECK(out[i].item<double>() == Approx(expected[static_cast<size_t>(i)]).margin(1e-5));
  }
}

TEST_CASE("frozen layers: no gradient, counted non-trainable, their batchnorm's statistics kept", "[train][finetune]") {
  ModelConfig config = model_of(
      "[{type: dense, units: 8, trainable: false}, {type: batchnorm, name: norm}, {type: dense, units: 3}]");
  config.freeze = {"norm"};
  Model model = build_model(config, four_features(3));
  CHECK(parameter_count(model, true) == 8 * 3 + 3);  // the head's alone
  CHECK(model.trainable_parameters().size() == 2);
  const torch::Tensor mean_before = model.net->named_buffers()["l1_0.running_mean"].clone();
  model.train_mode();
  const torch::Tensor out = model.forward(torch::randn({16, 4}) * 5 + 3);
  out.sum().backward();
  CHECK(torch::equal(model.net->named_buffers()["l1_0.running_mean"], mean_before));
  CHECK_FALSE(model.net->named_parameters()["l0_0.weight"].grad().defined());
  CHECK(model.net->named_parameters()["l2_0.weight"].grad().defined());

  config.freeze = {"conv*"};
  CHECK_THROWS_WITH(build_model(config, four_features(3)), Catch::Contains("model.freeze[0]: 'conv*' names no layer"));
}
