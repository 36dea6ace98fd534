#include <catch2/catch.hpp>

#include "config/config_loader.h"
#include "model_fixtures.h"
#include "models/model.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::images;
using trainer::testing::model_of;
using trainer::testing::tokens;

TEST_CASE("the Reuters Conv1D model has exactly Keras's parameter counts", "[models][summary]") {
  const auto config = model_of(R"([
    {type: embedding, input_dim: vocabulary, output_dim: 7},
    {type: conv1d, filters: 64, kernel_size: 5, activation: relu},
    {type: maxpool1d, pool_size: 2},
    {type: conv1d, filters: 32, kernel_size: 3, activation: relu},
    {type: maxpool1d, pool_size: 2},
    {type: flatten},
    {type: dense, units: classes, activation: softmax}])");
  Model model = build_model(config, tokens(300, 30982, 46));
  std::vector<int64_t> counts;
  for (const auto& layer : model.summary) counts.push_back(layer.parameters);
  CHECK(counts == std::vector<int64_t>{216874, 2304, 0, 6176, 0, 0, 107502});
  int64_t total = 0;
  for (auto c : counts) total += c;
  CHECK(total == 332856);
  CHECK(model.summary[1].name == "conv1d");
  CHECK(model.summary[3].name == "conv1d_1");
  CHECK(model.summary[5].output_shape == std::vector<int64_t>{2336});
  CHECK(model.final_softmax);  // folded into the loss
  const auto out = model.net->forward(torch::randint(30982, {2, 300}, torch::kInt64));
  CHECK(out.sizes() == torch::IntArrayRef({2, 46}));
}

TEST_CASE("Keras padding: valid, same (asymmetric too) and explicit", "[models]") {
  const auto config = model_of(R"([
    {type: conv2d, filters: 4, kernel_size: 4, padding: same},
    {type: conv2d, filters: 4, kernel_size: 3, strides: 2, padding: same},
    {type: maxpool2d, pool_size: 2, padding: same},
    {type: conv2d, filters: 2, kernel_size: [3, 1], padding: 1},
    {type: global_avgpool},
    {type: dense, units: classes}])");
  const Model model = build_model(config, images(1, 9, 9, 3));
  CHECK(model.summary[0].output_shape == std::vector<int64_t>{4, 9, 9});
  CHECK(model.summary[1].output_shape == std::vector<int64_t>{4, 5, 5});
  CHECK(model.summary[2].output_shape == std::vector<int64_t>{4, 3, 3});
  CHECK(model.summary[3].output_shape == std::vector<int64_t>{2, 3, 5});
  CHECK(model.summary[4].output_shape == std::vector<int64_t>{2});
  CHECK_FALSE(model.final_softmax);
}

TEST_CASE("Keras initialisation: Glorot-uniform kernels, zero biases, +-0.05 embeddings", "[models][init]") {
  torch::manual_seed(1);
  const auto config = model_of(R"([{type: embedding, output_dim: 8}, {type: flatten}, {type: dense, units: 64}])");
  const Model model = build_model(config, tokens(4, 1000, 2));
  auto params = model.net->named_parameters();
  const auto embedding = params["l0_0.embedding.weight"];
  CHECK(embedding.abs().max().item<float>() <= 0.05f);
  CHECK(embedding.abs().max().item<float>() > 0.045f);
  const auto kernel = params["l2_0.weight"];
  const float limit = std::sqrt(6.0f / (32 + 64));
  CHECK(kernel.abs().max().item<float>() <= limit);
  CHECK(kernel.abs().max().item<float>() > 0.9f * limit);
  CHECK(params["l2_0.bias"].abs().sum().item<float>() == 0.0f);
}

TEST_CASE("per-layer initialisers: Keras's distributions, and LibTorch's on request", "[models][init]") {
  torch::manual_seed(2);
  const auto kernel_of = [](const std::string& initializer, const std::string& bias = "default") {
    const auto config = model_of("[{type: flatten}, {type: dense, units: 400, kernel_initializer: " + initializer +
                                 ", bias_initializer: " + bias + "}]");
    auto params = build_model(config, images(1, 20, 20, 2)).net->named_parameters();
    return std::make_pair(params["l1_0.weight"], params["l1_0.bias"]);
  };
  const double fan_in = 400;
  SECTION("he_normal: a normal of variance 2 / fan_in cut at two widened deviations") {
    const auto weight = kernel_of("he_normal").first;
    const double stddev = std::sqrt(2.0 / fan_in);
    CHECK(weight.std().item<double>() == Approx(stddev).epsilon(0.03));
    CHECK(weight.abs().max().item<double>() <= 2 * stddev / 0.87962566103423978 + 1e-6);
  }
  SECTION("he_uniform and glorot_uniform: their limits") {
    const auto he = kernel_of("he_uniform").first;
    CHECK(he.abs().max().item<double>() <= std::sqrt(6.0 / fan_in));
    CHECK(he.abs().max().item<double>() > 0.99 * std::sqrt(6.0 / fan_in));
    const auto glorot = kernel_of("glorot_uniform").first;
    CHECK(glorot.abs().max().item<double>() <= std::sqrt(6.0 / (fan_in + 400)));
  }
  SECTION("orthogonal, zeros, ones") {
    const auto orthogonal = kernel_of("orthogonal").first;
    CHECK(torch::allclose(orthogonal.matmul(orthogonal.t()), torch::eye(400), 1e-4, 1e-4));
    const auto [zeros, ones_bias] = kernel_of("zeros", "ones");
    CHECK(zeros.abs().sum().item<double>() == 0.0);
    CHECK(ones_bias.eq(1).all().item<bool>());
  }
  SECTION("pytorch: LibTorch's bound 1 / sqrt(fan_in) for kernel and bias") {
    const auto [weight, bias] = kernel_of("pytorch", "pytorch");
    CHECK(weight.abs().max().item<double>() <= 1 / std::sqrt(fan_in));
    CHECK(weight.abs().max().item<double>() > 0.99 / std::sqrt(fan_in));
    CHECK(bias.abs().sum().item<double>() > 0);
  }
  SECTION("a bias takes no kernel distribution") {
    CHECK_THROWS_WITH(kernel_of("zeros", "he_normal"), Catch::Contains("a bias takes zeros, ones, pytorch or default"));
  }
}

TEST_CASE("kernel_regularizer: which kernels it penalises, and its config errors", "[models][init]") {
  const Model model = build_model(model_of("[{type: conv2d, filters: 2, kernel_size: 3, kernel_regularizer: {l2: 0.01}},"
                                           " {type: flatten}, {type: dense, units: 4},"
                                           " {type: dense, units: classes, kernel_regularizer: {l1: 0.1}}]"),
                                  images(1, 6, 6, 3));
  REQUIRE(model.penalties.size() == 2);
  const auto params = model.net->named_parameters();
  CHECK(model.penalties[0].weight.is_same(params["l0_0.weight"]));
  CHECK(model.penalties[0].l2 == 0.01);
  CHECK(model.penalties[1].weight.is_same(params["l3_0.weight"]));
  CHECK(model.penalties[1].l1 == 0.1);
  const double expected = 0.01 * params["l0_0.weight"].square().sum().item<double>() +
                          0.1 * params["l3_0.weight"].abs().sum().item<double>();
  CHECK(weight_penalty(model).item<double>() == Approx(expected));
  CHECK_THROWS_WITH(model_of("[{type: dense, units: 3, kernel_regularizer: {l2: -1}}]"),
                    Catch::Contains("model.layers[0].kernel_regularizer.l2") && Catch::Contains("a number >= 0"));
  CHECK_THROWS_WITH(model_of("[{type: dense, units: 3, kernel_regularizer: {l3: 1}}]"),
                    Catch::Contains("l3"));
  CHECK_THROWS_WITH(model_of("[{type: dense, units: 3, kernel_regularizer: 0.01}]"),
                    Catch::Contains("kernel_regularizer") && Catch::Contains("a mapping of keys"));
  CHECK_THROWS_WITH(model_of("[{type: flatten, kernel_regularizer: {l2: 1}}]"), Catch::Contains("kernel_regularizer"));
}

TEST_CASE("layers that do not fit their input are config errors naming the layer", "[models]") {
  CHECK_THROWS_WITH(build_model(model_of("[{type: dense, units: 3}]"), images(1, 4, 4, 2)),
                    Catch::Contains("model.layers[0] (dense, input (None, 1, 4, 4))") &&
                        Catch::Contains("put a flatten"));
  CHECK_THROWS_WITH(build_model(model_of("[{type: embedding, output_dim: 3}]"), images(1, 4, 4, 2)),
                    Catch::Contains("integer token inputs"));
  CHECK_THROWS_AS(build_model(model_of("[{type: conv1d, filters: 2, kernel_size: 9}]"), tokens(4, 10, 2)), ConfigError);
  CHECK_THROWS_WITH(
      build_model(model_of("[{type: embedding, output_dim: 2}, {type: maxpool1d, pool_size: 8}]"), tokens(4, 10, 2)),
      Catch::Contains("model.layers[1] (maxpool1d"));
}

TEST_CASE("an embedding with fewer rows than the data's vocabulary is a config error naming both", "[models]") {
  const auto literal = [](int64_t rows) {
    return model_of("[{type: embedding, input_dim: " + std::to_string(rows) + ", output_dim: 2}, {type: flatten}]");
  };
  CHECK_THROWS_WITH(build_model(literal(99), tokens(4, 100, 2)),
                    Catch::Contains("model.layers[0] (embedding") && Catch::Contains("input_dim: 99 rows") &&
                        Catch::Contains("token ids go up to 99") && Catch::Contains("at least 100"));
  CHECK(build_model(literal(100), tokens(4, 100, 2)).summary[0].parameters == 200);
  CHECK(build_model(literal(150), tokens(4, 100, 2)).summary[0].parameters == 300);
  // A preview's stand-in vocabulary (reuters with num_words: 0) says nothing
  // of the data's, so the check waits for the data.
  DataInfo preview = tokens(4, 10000, 2);
  preview.vocabulary_stand_in = true;
  CHECK(build_model(literal(99), preview).summary[0].parameters == 198);
}

TEST_CASE("a layer whose weights cannot be allocated is an out-of-memory error naming it", "[models]") {
  // 2^45 units of 16 inputs: 2^51 bytes, past any address space, so the
  // allocation fails on every machine before anything is touched.
  const auto huge = model_of("[{type: flatten}, {type: dense, units: 35184372088832}]");
  CHECK_THROWS_AS(build_model(huge, images(1, 4, 4, 2)), OutOfMemoryError);
  CHECK_THROWS_WITH(build_model(huge, images(1, 4, 4, 2)),
                    Catch::Contains("model.layers[1] (dense, input (None, 16)): its weights do not fit"));
}

TEST_CASE("an activation moved behind the max pool gives the same values and gradients", "[models]") {
  torch::manual_seed(3);
  Model model = build_model(model_of("[{type: conv2d, filters: 3, kernel_size: 3, activation: relu}, "
                                     "{type: maxpool2d, pool_size: 2}, {type: flatten}, {type: dense, units: 2}]"),
                            images(2, 8, 8, 2));
  auto params = model.net->named_parameters();
  auto weight = params["l0_0.weight"], bias = params["l0_0.bias"];
  const auto x = torch::randn({4, 2, 8, 8});

  const auto out = model.forward(x);
  const auto expected_pool =
      torch::max_pool2d(torch::relu(torch::conv2d(x, weight, bias)), 2);  // Keras's order
  const auto expected = torch::linear(expected_pool.flatten(1), params["l3_0.weight"], params["l3_0.bias"]);
  CHECK(torch::allclose(out, expected, 1e-6, 1e-6));

  const auto grad_ours = torch::autograd::grad({out.sum()}, {weight})[0];
  const auto grad_keras_order = torch::autograd::grad({expected.sum()}, {weight})[0];
  CHECK(torch::allclose(grad_ours, grad_keras_order, 1e-6, 1e-6));
  CHECK(model.summary[0].output_shape == std::vector<int64_t>{3, 6, 6});
}

TEST_CASE("every layer type builds and trains a step with the right shapes", "[models]") {
  torch::manual_seed(4);
  Model images_model = build_model(model_of(R"([
    {type: conv2d, filters: 4, kernel_size: 3, padding: same, activation: gelu},
    {type: batchnorm},
    {type: avgpool2d, pool_size: 2},
    {type: activation, activation: tanh},
    {type: dropout, rate: 0.25},
    {type: conv2d, filters: 2, kernel_size: 1, activation: sigmoid},
    {type: global_avgpool},
    {type: dense, units: classes, activation: softmax}])"),
                                   images(3, 8, 8, 5));
  // Gamma and beta of 4 channels, and (non-trainable) the moving mean and variance.
  CHECK(images_model.summary[1].parameters == 16);
  CHECK(images_model.summary[1].trainable == 8);
  CHECK(images_model.summary[2].output_shape == std::vector<int64_t>{4, 4, 4});
  CHECK(images_model.summary[6].output_shape == std::vector<int64_t>{2});
  const auto out = images_model.forward(torch::randn({6, 3, 8, 8}));
  CHECK(out.sizes() == torch::IntArrayRef({6, 5}));
  out.sum().backward();
  for (const auto& p : images_model.net->parameters()) CHECK(p.grad().defined());

  Model sequence_model = build_model(model_of(R"([
    {type: embedding, output_dim: 4},
    {type: batchnorm},
    {type: avgpool1d, pool_size: 3, strides: 1},
    {type: conv1d, filters: 3, kernel_size: 2, strides: 2},
    {type: flatten},
    {type: dense, units: 6, activation: relu},
    {type: batchnorm}])"),
                                     tokens(10, 20, 3));
  CHECK(sequence_model.summary[2].output_shape == std::vector<int64_t>{4, 8});
  CHECK(sequence_model.summary[3].output_shape == std::vector<int64_t>{3, 4});
  CHECK(sequence_model.forward(torch::randint(20, {5, 10}, torch::kInt64)).sizes() == torch::IntArrayRef({5, 6}));
}

TEST_CASE("every layer kind of the table builds from its input rule, and refuses another input", "[models][layers]") {
  for (const auto& entry : EnumTable<LayerKind>::entries) {
    const std::string name = entry.name;
    INFO(name);
    // Its module is a file PyTorch writes: tests/cli/torchscript_e2e_test.cpp builds it.
    if (name == "torchscript") continue;
    std::string keys;
    if (name.rfind("conv", 0) == 0) keys = ", filters: 2, kernel_size: 3";
    if (name == "embedding") keys = ", output_dim: 4";
    if (name == "dense") keys = ", units: 3";
    if (name == "depthwise_conv2d") keys = ", kernel_size: 3";
    if (name == "groupnorm") keys = ", groups: 2";
    if (name == "lstm" || name == "gru") keys = ", units: 3";
    if (name == "transformer_encoder") keys = ", intermediate_dim: 4";
    if (name == "reshape") keys = ", target_shape: [-1]";
    if (name == "permute") keys = ", dims: [3, 1, 2]";
    if (name == "residual") keys = ", layers: [{type: activation, activation: relu}]";
    LayerInput rule = LayerInput::kAny;
    with_layer_kind(entry.value, [&](auto kind) { rule = decltype(kind)::input; });
    if (rule == LayerInput::kMerge) keys = ", inputs: [input, input]";
    if (rule == LayerInput::kMerge || rule == LayerInput::kBlock) {
      const Model graph = build_model(model_of("[{type: " + name + keys + "}]"), images(2, 8, 8, 3));
      CHECK(graph.is_graph);
      CHECK(graph.summary.back().name == (rule == LayerInput::kBlock ? "add" : name));
      CHECK(graph.summary.back().output_shape == std::vector<int64_t>{name == "concatenate" ? 4 : 2, 8, 8});
      continue;
    }
    const ModelConfig config = model_of("[{type: " + name + keys + "}]");
    DataInfo fits = images(2, 8, 8, 3);
    DataInfo wrong = tokens(8, 10, 3);
    switch (rule) {
      case LayerInput::kTokens: std::swap(fits, wrong); break;
      case LayerInput::kFlat:
        fits.input_shape = {8};
        CHECK_THROWS_WITH(build_model(config, wrong), Catch::Contains("put an embedding layer first"));
        wrong = images(2, 8, 8, 3);
        break;
      case LayerInput::kSpatial1d:
      case LayerInput::kSequence: fits.input_shape = {2, 8}; break;
      case LayerInput::kSpatial2d:
      case LayerInput::kSpatial:
      case LayerInput::kAny:
      case LayerInput::kMerge:
      case LayerInput::kBlock: break;
    }
    const Model model = build_model(config, fits);
    REQUIRE(model.summary.size() == 1);
    CHECK(model.summary[0].name == name);
    if (rule != LayerInput::kAny) CHECK_THROWS_WITH(build_model(config, wrong), Catch::Contains("needs"));
  }
}

TEST_CASE("dropout, spatial dropout and gaussian noise: nothing when evaluating, Keras's while training",
          "[models][layers]") {
  torch::manual_seed(6);
  const auto model_with = [](const std::string& layer, const DataInfo& data) {
    return build_model(model_of("[" + layer + "]"), data);
  };
  const auto row_of = [](const torch::Tensor& t, int64_t n, int64_t c) { return t.select(0, n).select(0, c).flatten(); };
  SECTION("dropout: each element dropped or scaled by 1 / (1 - rate); the gradient through the same mask") {
    Model model = model_with("{type: dropout, rate: 0.25}", images(4, 16, 16, 2));
    const torch::Tensor x = torch::rand({8, 4, 16, 16}) + 0.5;  // no zeros of its own
    model.net->eval();
    CHECK(torch::equal(model.forward(x), x));
    model.net->train();
    const torch::Tensor input = x.clone().requires_grad_(true);
    const torch::Tensor y = model.forward(input);
    const torch::Tensor kept = y.ne(0);
    CHECK(torch::allclose(y.masked_select(kept), x.masked_select(kept) / 0.75));
    CHECK(1 - kept.to(torch::kDouble).mean().item<double>() == Approx(0.25).margin(0.02));
    y.sum().backward();
    CHECK(torch::allclose(input.grad(), kept.to(torch::kFloat) / 0.75));
  }
  SECTION("spatial_dropout2d and 1d: whole channels dropped, the rest scaled") {
    for (const bool two_d : {true, false}) {
      INFO((two_d ? "2d" : "1d"));
      Model model = two_d ? model_with("{type: spatial_dropout2d, rate: 0.5}", images(32, 5, 5, 2))
                          : model_with("{type: spatial_dropout1d, rate: 0.5}",
                                       [] { DataInfo d = images(32, 1, 9, 2); d.input_shape = {32, 9}; return d; }());
      const torch::Tensor x = torch::rand(two_d ? std::vector<int64_t>{16, 32, 5, 5} : std::vector<int64_t>{16, 32, 9}) + 0.5;
      model.net->eval();
      CHECK(torch::equal(model.forward(x), x));
      model.net->train();
      const torch::Tensor y = model.forward(x);
      int64_t dropped = 0;
      for (int64_t n = 0; n < 16; ++n)
        for (int64_t c = 0; c < 32; ++c) {
          const torch::Tensor out = row_of(y, n, c);
          if (out.eq(0).all().item<bool>()) ++dropped;
          else CHECK(torch::allclose(out, row_of(x, n, c) * 2));
        }
      CHECK(dropped == Approx(16 * 32 / 2).margin(48));
    }
  }
  SECTION("gaussian_noise: N(0, stddev) added while training, the gradient untouched") {
    Model model = model_with("{type: gaussian_noise, stddev: 0.3}", images(2, 32, 32, 2));
    const torch::Tensor x = torch::randn({16, 2, 32, 32});
    model.net->eval();
    CHECK(torch::equal(model.forward(x), x));
    model.net->train();
    const torch::Tensor input = x.clone().requires_grad_(true);
    const torch::Tensor y = model.forward(input);
    const torch::Tensor noise = (y - x).detach();
    CHECK(noise.mean().item<double>() == Approx(0).margin(0.01));
    CHECK(noise.std().item<double>() == Approx(0.3).epsilon(0.02));
    y.sum().backward();
    CHECK(torch::equal(input.grad(), torch::ones_like(x)));
  }
}
