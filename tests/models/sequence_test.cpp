// Sequence models: recurrent layers, attention, the transformer encoder and
// padding masks, checked against PyTorch and Keras's counts.
#include <catch2/catch.hpp>

#include "config/config_loader.h"
#include "model_fixtures.h"
#include "models/model.h"
#include "reference_check.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::check_close;
using trainer::testing::layers_of;
using trainer::testing::parameter_count;
using trainer::testing::tokens;
using trainer::testing::tensor_json;

namespace {

const char* kEverySequenceLayer = R"(
    - {type: embedding, output_dim: 6, mask_zero: true}
    - {type: lstm, units: 5, bidirectional: true, return_sequences: true, name: seq}
    - {type: gru, units: 4, bidirectional: true, name: g}
    - {type: positional_embedding, inputs: [seq]}
    - {type: multi_head_attention, num_heads: 2, key_dim: 3}
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
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model.net->parameters()) p.uniform_(-0.5, 0.5);
  }
  // Padding before (as pad_sequences does), after, in the middle, none, and
  // a row of padding only.
  const torch::Tensor input = torch::tensor({0, 0, 3, 7, 1, 9, 4,  //
                                             5, 2, 8, 0, 0, 0, 0,  //
                                             6, 0, 11, 0, 2, 19, 0,  //
                                             1, 2, 3, 4, 5, 6, 7,  //
                                             0, 0, 0, 0, 0, 0, 0},
                                            torch::kInt64)
                                .view({5, 7});
  const torch::Tensor output = model.forward(input);
  REQUIRE(output.sizes() == torch::IntArrayRef({5, 3}));
  const torch::Tensor grad_output = torch::randn_like(output);
  (output * grad_output).sum().backward();

  nlohmann::json given;
  for (const auto& p : model.net->named_parameters()) given["params"][p.key()] = tensor_json(p.value());
  given["tokens"] = tensor_json(input);
  given["grad_output"] = tensor_json(grad_output);
  const auto expected = testing::run_reference("sequence_reference.py", given, "sequence-reference");
  check_close(output, expected["output"], "output");
  for (const auto& p : model.net->named_parameters())
    check_close(p.value().grad(), expected["param_grads"][p.key()], p.key() + " gradient");
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
