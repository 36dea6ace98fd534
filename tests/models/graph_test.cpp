// Graph models: named tensors, merges, residual blocks, the layers of
// image-to-image models; checked against PyTorch and Keras's counts.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "config/config_loader.h"
#include "config/config_writer.h"
#include "model_fixtures.h"
#include "models/model.h"
#include "reference_check.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::check_close;
using trainer::testing::experiment_of;
using trainer::testing::images;
using trainer::testing::layers_of;
using trainer::testing::parameter_count;
using trainer::testing::source_dir;
using trainer::testing::tensor_json;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const char* kEveryImageLayer = R"(
    - {type: reflection_padding2d, padding: 1}
    - {type: conv2d, filters: 8, kernel_size: 3, strides: 2, activation: leaky_relu, name: a}
    - {type: conv2d, filters: 8, kernel_size: 3, padding: same, groups: 2, dilation_rate: 2, activation: elu}
    - {type: depthwise_conv2d, kernel_size: 3, padding: same, depth_multiplier: 2}
    - {type: groupnorm, groups: 4, name: b}
    - {type: conv2d_transpose, filters: 4, kernel_size: 3, strides: 2, padding: same, activation: silu, inputs: [a]}
    - {type: instancenorm, name: t}
    - {type: upsampling2d, size: 2, interpolation: bilinear, inputs: [b], name: u}
    - {type: concatenate, inputs: [u, t]}
    - {type: layernorm}
    - {type: replication_padding2d, padding: [1, 2]}
    - {type: cropping2d, cropping: [1, 1, 2, 2]}
    - {type: conv2d, filters: 4, kernel_size: 1, activation: softplus, name: p}
    - {type: upsampling2d, inputs: [a]}
    - {type: conv2d, filters: 4, kernel_size: 1, name: q}
    - {type: multiply, inputs: [p, q], name: m}
    - {type: average, inputs: [m, p]}
    - type: residual
      activation: tanh
      layers: [{type: zero_padding2d, padding: 1}, {type: conv2d, filters: 4, kernel_size: 3}]
    - {type: rescaling, scale: 0.5, offset: 0.1}
    - {type: global_maxpool}
    - {type: dense, units: classes}
)";

}  // namespace

TEST_CASE("graph layers equal PyTorch's: output, input and parameter gradients", "[models][graph][python]") {
  if (!testing::system_python_has("torch")) {
    WARN("SKIPPED: needs Debian's python3-torch (/usr/bin/python3 with torch)");
    return;
  }
  torch::manual_seed(5);
  Model model = build_model(layers_of(kEveryImageLayer), images(3, 8, 8, 3));
  CHECK(model.is_graph);
  const torch::Tensor output = testing::check_against_reference(model, torch::randn({2, 3, 8, 8}), "graph_reference.py");
  CHECK(output.sizes() == torch::IntArrayRef({2, 3}));
}

TEST_CASE("a convolution with several filters per input channel gives the plain convolution's result on channels-last images",
          "[models][graph]") {
  torch::manual_seed(3);
  Model model = build_model(layers_of("    - {type: depthwise_conv2d, kernel_size: 3, depth_multiplier: 3}\n"
                                      "    - {type: conv2d, filters: 18, kernel_size: 3, groups: 9}\n"
                                      "    - {type: global_avgpool}\n"),
                            images(3, 9, 9, 2));
  REQUIRE(model.channels_last);
  const auto params = model.net->named_parameters();
  const torch::Tensor input = torch::randn({2, 3, 9, 9});
  namespace F = torch::nn::functional;
  const auto plain = [&](const torch::Tensor& x, const std::string& layer, int64_t groups) {
    return F::conv2d(x, params[layer + ".weight"].contiguous(),
                     F::Conv2dFuncOptions().bias(params[layer + ".bias"]).groups(groups));
  };
  const torch::Tensor expected = plain(plain(input, "l0_0", 3), "l1_0", 9).mean({2, 3});
  torch::NoGradGuard no_grad;
  check_close(model.forward(input), tensor_json(expected)["data"], "output");
}

TEST_CASE("ResNet-50 has Keras's published parameter counts", "[models][graph][summary]") {
  const ExperimentConfig config = parse_experiment(read_file(source_dir() + "/configs/resnet50.yaml"), "resnet50.yaml");
  const Model model = build_model(config.model, images(3, 224, 224, 1000));
  // keras.applications.ResNet50(weights=None).summary()
  CHECK(parameter_count(model) == 25636712);
  CHECK(parameter_count(model, true) == 25583592);
  CHECK(parameter_count(model) - parameter_count(model, true) == 53120);
  CHECK(model.summary.back().output_shape == std::vector<int64_t>{1000});
  CHECK(model.summary[1].name == "zero_padding2d");
  CHECK(model.summary.front().name == "input");
  CHECK(model.final_softmax);
}

TEST_CASE("the DeblurGAN generator: image in, image out, with the global skip", "[models][graph]") {
  const ExperimentConfig config =
      experiment_of(read_file(source_dir() + "/tests/models/deblur_generator.yaml"));
  Model model = build_model(config.model, images(3, 32, 32, 2));
  CHECK(model.summary.back().output_shape == std::vector<int64_t>{3, 32, 32});
  // Keras's counts: conv k*k*in*out + out; instance norm 2 per channel.
  const auto conv = [](int64_t k, int64_t in, int64_t out) { return k * k * in * out + out; };
  const int64_t block = 2 * conv(3, 256, 256) + 2 * 2 * 256;
  const int64_t expected = conv(7, 3, 64) + 128 + conv(3, 64, 128) + 256 + conv(3, 128, 256) + 512 + 9 * block +
                           conv(3, 256, 128) + 256 + conv(3, 128, 64) + 128 + conv(7, 64, 3);
  CHECK(parameter_count(model) == expected);
  model.net->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor image = torch::rand({1, 3, 32, 32}) * 2 - 1;
  const torch::Tensor restored = model.forward(image);
  CHECK(restored.sizes() == image.sizes());
  // (input + tanh(..)) / 2 stays within [-1, 1].
  CHECK(restored.abs().max().item<double>() <= 1.0);
}

TEST_CASE("repeat gives every copy its own weights, and chains keep their parameter names", "[models][graph]") {
  DataInfo features;
  features.input_shape = {6};
  features.classes = 3;
  Model model = build_model(layers_of("    - {type: dense, units: 4, repeat: 3}\n    - {type: dense, units: classes}\n"),
                            features);
  CHECK_FALSE(model.is_graph);
  REQUIRE(model.summary.size() == 4);
  CHECK(model.summary[2].name == "dense_2");
  std::vector<std::string> names;
  for (const auto& p : model.net->named_parameters()) names.push_back(p.key());
  CHECK(names == std::vector<std::string>{"l0_0.weight", "l0_0.bias", "l1_0.weight", "l1_0.bias", "l2_0.weight",
                                          "l2_0.bias", "l3_0.weight", "l3_0.bias"});
  CHECK_FALSE(torch::equal(model.net->named_parameters()["l0_0.weight"].narrow(1, 0, 4),
                           model.net->named_parameters()["l1_0.weight"]));
}

TEST_CASE("graph errors name the layer's line, path and shapes", "[models][graph][errors]") {
  const auto problem_of = [](const std::string& layers) { return testing::build_problem(layers, images(3, 8, 8, 2)); };
  SECTION("a name used before it exists: no cycles") {
    CHECK_THAT(problem_of("    - {type: dense, units: 2, inputs: [later]}\n    - {type: flatten, name: later}\n"),
               Catch::Contains("m.yaml:5:") && Catch::Contains("model.layers[0].inputs: 'later' is defined later, "
                                                               "by model.layers[1]"));
  }
  SECTION("a name nobody defines, with the nearest one") {
    CHECK_THAT(problem_of("    - {type: flatten, name: flat}\n    - {type: dense, units: 2, inputs: [falt]}\n"),
               Catch::Contains("m.yaml:6:") && Catch::Contains("no tensor is named 'falt' (did you mean 'flat'?)"));
  }
  SECTION("a name given twice") {
    CHECK_THAT(problem_of("    - {type: flatten, name: x}\n    - {type: dense, units: 2, name: x}\n"),
               Catch::Contains("model.layers[1].name: 'x' already names model.layers[0]"));
  }
  SECTION("a merge of one tensor, a layer of two") {
    CHECK_THAT(problem_of("    - {type: add, inputs: [input]}\n"),
               Catch::Contains("expected two or more tensor names to merge"));
    CHECK_THAT(problem_of("    - {type: flatten, inputs: [input, input]}\n"),
               Catch::Contains("a flatten layer reads one tensor"));
  }
  SECTION("shapes that do not merge") {
    CHECK_THAT(problem_of("    - {type: conv2d, filters: 4, kernel_size: 3, name: c}\n"
                          "    - {type: add, inputs: [input, c]}\n"),
               Catch::Contains("m.yaml:6:7: model.layers[1] (add, input ") &&
                   Catch::Contains("add needs inputs of one shape: (None, 3, 8, 8) from input, (None, 4, 6, 6) from c"));
    CHECK_THAT(problem_of("    - {type: residual, layers: [{type: conv2d, filters: 4, kernel_size: 1}]}\n"),
               Catch::Contains("m.yaml:5:7: model.layers[0] (residual, input (None, 3, 8, 8))") &&
                   Catch::Contains("the block's layers output (None, 4, 8, 8) and its shortcut (None, 3, 8, 8)") &&
                   Catch::Contains("give `shortcut:` layers"));
  }
  SECTION("a kernel larger than its input, an output with a zero dimension") {
    CHECK_THAT(problem_of("    - {type: maxpool2d, pool_size: 9}\n"),
               Catch::Contains("m.yaml:5:7: model.layers[0] (maxpool2d, input (None, 3, 8, 8)): pool_size 9 is larger"));
    CHECK_THAT(problem_of("    - type: residual\n      layers: [{type: conv2d, filters: 3, kernel_size: 9, padding: 0}]\n"),
               Catch::Contains("model.layers[0].layers[0] (conv2d, input (None, 3, 8, 8)): kernel_size 9 is larger "
                               "than the input's 8"));
    CHECK_THAT(problem_of("    - {type: conv2d, filters: 3, kernel_size: 3, dilation_rate: 4}\n"),
               Catch::Contains("kernel_size 3 (dilated to 9) is larger than the input's 8"));
    CHECK_THAT(problem_of("    - {type: cropping2d, cropping: 4}\n"), Catch::Contains("leaves nothing"));
    CHECK_THAT(problem_of("    - {type: reflection_padding2d, padding: 8}\n"),
               Catch::Contains("needs an input larger than that"));
  }
}

TEST_CASE("trainer config writes graph keys only where given, and reads them back", "[models][graph][config]") {
  const ExperimentConfig chain = experiment_of("model:\n  layers:\n    - {type: dense, units: 2}\n");
  const std::string chain_yaml = to_yaml(chain);
  CHECK_THAT(chain_yaml, Catch::Contains("    - {type: dense, units: 2, activation: linear, use_bias: true}\n"));
  const ExperimentConfig graph = experiment_of("model:\n  layers:\n" + std::string(kEveryImageLayer));
  const std::string written = to_yaml(graph);
  CHECK(to_yaml(parse_experiment(written, "written.yaml")) == written);
  CHECK_THAT(written, Catch::Contains("inputs: [p, q]") && !Catch::Contains("shortcut"));
}
