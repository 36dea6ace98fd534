// Sequence models: recurrent layers, attention, the transformer encoder and
// padding masks, checked against PyTorch and Keras's counts.
#include <catch2/catch.hpp>

#include <cmath>

#include "config/config_loader.h"
#include "model_fixtures.h"
#include "models/model.h"
#include "reference_check.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::layers_of;
using trainer::testing::model_of;
using trainer::testing::parameter_count;
using trainer::testing::tokens;

namespace {

const char* kEverySequenceLayer = R"(
    - {type: embedding, output_dim: 6, mask_zero: true}
    - {type: lstm, units: 5, bidirectional: true, return_sequences: true, name: seq}
    - {type: gru, units: 4, bidirectional: true, name: g}
    - {type: positional_embedding, inputs: [seq]}
    - {type: multi_head_attention, num_heads: 2, key_dim: 3, causal: true}
    - {type: transformer_encoder, num_heads: 2, intermediate_dim: 8}
    - {type: global_avgpool, name: avg}
    - {type: global_maxpool, inputs: [seq], name: mx}
    - {type: concatenate, inputs: [avg, mx, g]}
    - {type: dense, units: classes}
)";

}  // namespace

TEST_CASE("sequence layers and masks equal PyTorch's step-by-step reading", "[models][sequence][python]") {
  if (!testing::system_python_has("torch")) {
    WARN("SKIPPED: needs Debian's python3-torch (/usr/bin/python3 with torch)");
    return;
  }
  torch::manual_seed(8);
  Model model = build_model(layers_of(kEverySequenceLayer), tokens(7, 20, 3));
  // Padding before (as pad_sequences does), after, in the middle, none, and
  // a row of padding only.
  const torch::Tensor input = torch::tensor({0, 0, 3, 7, 1, 9, 4,  //
                                             5, 2, 8, 0, 0, 0, 0,  //
                                             6, 0, 11, 0, 2, 19, 0,  //
                                             1, 2, 3, 4, 5, 6, 7,  //
                                             0, 0, 0, 0, 0, 0, 0},
                                            torch::kInt64)
                                .view({5, 7});
  const torch::Tensor output = testing::check_against_reference(model, input, "sequence_reference.py", 0.5);
  CHECK(output.sizes() == torch::IntArrayRef({5, 3}));
}

TEST_CASE("sequence layers have Keras's parameter counts and shapes", "[models][sequence][summary]") {
  const Model model = build_model(layers_of(R"(
    - {type: embedding, output_dim: 32, mask_zero: true}
    - {type: lstm, units: 16, return_sequences: true}
    - {type: gru, units: 8, bidirectional: true, return_sequences: true}
    - {type: multi_head_attention, num_heads: 4, key_dim: 8}
    - {type: positional_embedding}
    - {type: transformer_encoder, num_heads: 2, intermediate_dim: 24}
    - {type: global_avgpool}
    - {type: dense, units: classes}
)"),
                                  tokens(12, 100, 5));
  std::vector<int64_t> counts;
  for (const auto& row : model.summary) counts.push_back(row.parameters);
  // Keras: LSTM 4(u(d+u)+u); GRU (reset_after) 3(u(d+u)+2u) per direction;
  // MultiHeadAttention 3(d·h·k + h·k) + h·k·d + d; PositionEmbedding length·d;
  // TransformerEncoder attention 4(d² + d), two layer norms 2d each, d·f + f + f·d + d.
  CHECK(counts == std::vector<int64_t>{3200, 4 * (16 * 48 + 16), 2 * 3 * (8 * 24 + 16),
                                       3 * (16 * 32 + 32) + 32 * 16 + 16, 12 * 16,
                                       4 * (16 * 16 + 16) + 4 * 16 + 16 * 24 + 24 + 24 * 16 + 16, 0, 16 * 5 + 5});
  CHECK(model.summary[1].output_shape == std::vector<int64_t>{16, 12});
  CHECK(model.summary[2].output_shape == std::vector<int64_t>{16, 12});
  CHECK(parameter_count(model) > 0);
}

TEST_CASE("sequence layers refuse what is not a sequence", "[models][sequence][errors]") {
  CHECK_THROWS_WITH(build_model(layers_of("    - {type: lstm, units: 4}\n"), tokens(5, 10, 2)),
                    Catch::Contains("put an embedding layer first"));
  CHECK_THROWS_WITH(
      build_model(layers_of("    - {type: embedding, output_dim: 6}\n    - {type: transformer_encoder, num_heads: 4, "
                            "intermediate_dim: 8}\n"),
                  tokens(5, 10, 2)),
      Catch::Contains("m.yaml:6:7: model.layers[1] (transformer_encoder, input (None, 6, 5)): num_heads: 4 does not "
                      "divide the 6 features"));
}

TEST_CASE("sequence layers' initialisers: Keras's by default, each key honoured, kernels penalised",
          "[models][sequence][init]") {
  torch::manual_seed(4);
  const auto params_of = [](const std::string& layer, std::vector<WeightPenalty>* penalties = nullptr) {
    Model model = build_model(model_of("[{type: embedding, input_dim: vocabulary, output_dim: 16}, " + layer + "]"),
                              tokens(12, 50, 3));
    if (penalties) *penalties = model.penalties;
    return model.net->named_parameters();
  };
  SECTION("lstm: Glorot input kernel, orthogonal recurrent kernel, forget gate bias 1") {
    const auto p = params_of("{type: lstm, units: 8}");
    const torch::Tensor input = p["l1_0.weight_ih"], recurrent = p["l1_0.weight_hh"], bias = p["l1_0.bias_ih"];
    // Keras's kernel is (16, 32): the limit sqrt(6 / (16 + 32)).
    CHECK(input.abs().max().item<double>() <= std::sqrt(6.0 / 48));
    CHECK(input.abs().max().item<double>() > 0.9 * std::sqrt(6.0 / 48));
    CHECK(torch::allclose(recurrent.t().matmul(recurrent), torch::eye(8), 1e-4, 1e-5));
    CHECK(bias.narrow(0, 8, 8).eq(1).all().item<bool>());
    CHECK(bias.narrow(0, 0, 8).eq(0).all().item<bool>());
    CHECK(bias.narrow(0, 16, 16).eq(0).all().item<bool>());
  }
  SECTION("lstm and gru: the keys given win; the forget gate stays 1, as Keras's unit_forget_bias") {
    auto p = params_of("{type: lstm, units: 8, kernel_initializer: zeros, recurrent_initializer: ones, "
                       "bias_initializer: ones}");
    CHECK(p["l1_0.weight_ih"].eq(0).all().item<bool>());
    CHECK(p["l1_0.weight_hh"].eq(1).all().item<bool>());
    CHECK(p["l1_0.bias_ih"].eq(1).all().item<bool>());
    p = params_of("{type: gru, units: 4, bidirectional: true, recurrent_initializer: zeros, bias_initializer: ones}");
    for (const std::string suffix : {"", "_reverse"}) {
      CHECK(p["l1_0.weight_hh" + suffix].eq(0).all().item<bool>());
      CHECK(p["l1_0.bias_hh" + suffix].eq(1).all().item<bool>());
      CHECK(p["l1_0.bias_ih" + suffix].eq(1).all().item<bool>());
    }
    // LibTorch's own: every weight within 1 / sqrt(units), the forget gate not set.
    p = params_of("{type: lstm, units: 8, kernel_initializer: pytorch, recurrent_initializer: pytorch, "
                  "bias_initializer: pytorch}");
    CHECK(p["l1_0.bias_ih"].abs().max().item<double>() <= 1 / std::sqrt(8.0));
    CHECK_FALSE(p["l1_0.bias_ih"].narrow(0, 8, 8).eq(1).all().item<bool>());
  }
  SECTION("multi_head_attention: Keras's EinsumDense fans; kernel keys and penalty on all four kernels") {
    auto p = params_of("{type: multi_head_attention, num_heads: 2, key_dim: 4}");
    // The query kernel (16, 2, 4): fans 2 * 16 and 4 * 16; the output kernel (2, 4, 16): 4 * 2 and 16 * 2.
    const double query_limit = std::sqrt(6.0 / (32 + 64)), output_limit = std::sqrt(6.0 / (8 + 32));
    CHECK(p["l1_0.query.weight"].abs().max().item<double>() <= query_limit);
    CHECK(p["l1_0.query.weight"].abs().max().item<double>() > 0.9 * query_limit);
    CHECK(p["l1_0.output.weight"].abs().max().item<double>() <= output_limit);
    CHECK(p["l1_0.output.weight"].abs().max().item<double>() > 0.9 * output_limit);
    CHECK(p["l1_0.query.bias"].eq(0).all().item<bool>());
    std::vector<WeightPenalty> penalties;
    p = params_of("{type: multi_head_attention, num_heads: 2, kernel_initializer: ones, kernel_regularizer: {l2: 0.1}}",
                  &penalties);
    CHECK(p["l1_0.value.weight"].eq(1).all().item<bool>());
    REQUIRE(penalties.size() == 4);
    CHECK(penalties[3].weight.is_same(p["l1_0.output.weight"]));
  }
  SECTION("transformer_encoder: the attention's and the feed-forward layer's kernels") {
    std::vector<WeightPenalty> penalties;
    const auto p = params_of("{type: transformer_encoder, num_heads: 2, intermediate_dim: 24, bias_initializer: ones, "
                             "kernel_regularizer: {l1: 0.01}}",
                             &penalties);
    CHECK(penalties.size() == 6);
    CHECK(p["l1_0.intermediate.bias"].eq(1).all().item<bool>());
    CHECK(p["l1_0.attention.key.bias"].eq(1).all().item<bool>());
    // Layer norms keep Keras's ones and zeros.
    CHECK(p["l1_0.attention_norm.weight"].eq(1).all().item<bool>());
    const double limit = std::sqrt(6.0 / (16 + 24));
    CHECK(p["l1_0.intermediate.weight"].abs().max().item<double>() <= limit);
  }
}
