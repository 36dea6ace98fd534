// The multiply-adds a model's forward pass does, counted layer by layer
// from its weights and the positions each layer reads or writes.
#include <catch2/catch.hpp>

#include "models/model.h"
#include "models/model_fixtures.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

int64_t row_multiply_adds(const Model& model, const std::string& row) {
  for (const auto& layer : model.summary)
    if (layer.name == row) return layer.multiply_adds;
  FAIL("no summary row " << row);
  return -1;
}

}  // namespace

TEST_CASE("convolutions count their kernels at each position they write, dense layers once", "[models][flops]") {
  const Model model = build_model(model_of("[{type: conv2d, filters: 8, kernel_size: 3, padding: same},"
                                           " {type: conv2d, filters: 4, kernel_size: 3, strides: 2, padding: same},"
                                           " {type: flatten}, {type: dense, units: 5}]"),
                                  images(3, 10, 10, 5));
  CHECK(row_multiply_adds(model, "conv2d") == 8 * 3 * 9 * 100);   // 10 x 10 outputs
  CHECK(row_multiply_adds(model, "conv2d_1") == 4 * 8 * 9 * 25);  // stride 2: 5 x 5 outputs
  CHECK(row_multiply_adds(model, "flatten") == 0);
  CHECK(row_multiply_adds(model, "dense") == 100 * 5);
  CHECK(model.forward_multiply_adds() == 21600 + 7200 + 500);
  // Biases are additions, not products by a weight matrix: with or without them the count is the same.
  const Model no_bias = build_model(model_of("[{type: conv2d, filters: 8, kernel_size: 3, padding: same, use_bias: false},"
                                             " {type: flatten}, {type: dense, units: 5, use_bias: false}]"),
                                    images(3, 10, 10, 5));
  CHECK(no_bias.forward_multiply_adds() == 21600 + 800 * 5);
}

TEST_CASE("a transposed convolution counts its kernel at each position it reads", "[models][flops]") {
  const Model model = build_model(model_of("[{type: conv2d_transpose, filters: 2, kernel_size: 3, strides: 2, padding: same}]"),
                                  images(4, 5, 5, 2));
  CHECK(model.summary.back().output_shape == std::vector<int64_t>{2, 10, 10});
  CHECK(model.forward_multiply_adds() == 4 * 2 * 9 * 25);
}

TEST_CASE("a recurrent layer counts its kernels at every step, an embedding (a lookup) none", "[models][flops]") {
  const Model model = build_model(layers_of("    - {type: embedding, output_dim: 3}\n"
                                            "    - {type: lstm, units: 4}\n"
                                            "    - {type: dense, units: 2}\n"),
                                  tokens(6, 20, 2));
  CHECK(row_multiply_adds(model, "embedding") == 0);
  // Four gates: the input kernel 3 -> 16 and the recurrent one 4 -> 16, at each of 6 steps.
  CHECK(row_multiply_adds(model, "lstm") == (3 * 16 + 4 * 16) * 6);
  CHECK(row_multiply_adds(model, "dense") == 4 * 2);
}

TEST_CASE("attention counts its projections at every step and its scores' products", "[models][flops]") {
  const Model model = build_model(layers_of("    - {type: embedding, output_dim: 4}\n"
                                            "    - {type: multi_head_attention, num_heads: 2, key_dim: 3}\n"
                                            "    - {type: transformer_encoder, num_heads: 2, intermediate_dim: 8}\n"),
                                  tokens(5, 20, 2));
  // Query, key and value 4 -> 6, output 6 -> 4, at 5 steps; queries x keys
  // and scores x values: 5 x 5 x 6 each.
  CHECK(row_multiply_adds(model, "multi_head_attention") == (3 * 4 * 6 + 6 * 4) * 5 + 2 * 25 * 6);
  // Its attention's projections 4 -> 4 (two heads of 2) and the
  // feed-forward 4 -> 8 -> 4 at 5 steps, and the scores' 5 x 5 x 4, twice.
  CHECK(row_multiply_adds(model, "transformer_encoder") == (4 * 16 + 2 * 32) * 5 + 2 * 25 * 4);
}

TEST_CASE("norms, activations, pools and merges count no multiply-adds", "[models][flops]") {
  const Model model = build_model(layers_of("    - {type: instancenorm}\n"
                                            "    - {type: activation, activation: relu, name: a}\n"
                                            "    - {type: maxpool2d, pool_size: 2}\n"
                                            "    - {type: batchnorm}\n"),
                                  images(3, 8, 8, 2));
  CHECK(model.forward_multiply_adds() == 0);
}

TEST_CASE("the summary ends its totals with one sample's multiply-adds", "[models][flops][summary]") {
  const Model model = build_model(model_of("[{type: conv2d, filters: 8, kernel_size: 3, padding: same},"
                                           " {type: conv2d, filters: 4, kernel_size: 3, strides: 2, padding: same},"
                                           " {type: flatten}, {type: dense, units: 5}]"),
                                  images(3, 10, 10, 5));
  CHECK_THAT(format_summary("m", model.summary, model.is_graph),
             Catch::Contains("Non-trainable params: 0 (0 B)\nMultiply-adds of one sample's forward pass: 29.3 K\n"));
}
