// The layers of a plain list (convolutions, pools, batch norm, activation
// layers, reshape, permute, dense) against PyTorch, with Keras's padding rules.
#include <catch2/catch.hpp>

#include "model_fixtures.h"
#include "models/model.h"
#include "reference_check.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;
using trainer::testing::images;
using trainer::testing::layers_of;

namespace {

// Odd sizes, so that every "same" pads unevenly; node numbers are those of
// the weight names in tests/models/chain_reference.py.
const char* kChain = R"(
    - {type: conv2d, filters: 4, kernel_size: 3, strides: 2, padding: same, activation: relu}
    - {type: maxpool2d, pool_size: 3, strides: 2, padding: same}
    - {type: batchnorm}
    - {type: activation, activation: gelu}
    - {type: avgpool2d, pool_size: 2, strides: 1, padding: same}
    - {type: activation, activation: sigmoid}
    - {type: permute, dims: [2, 3, 1]}
    - {type: reshape, target_shape: [-1, 4]}
    - {type: conv1d, filters: 6, kernel_size: 2, padding: same}
    - {type: activation, activation: softmax}
    - {type: maxpool1d, pool_size: 2}
    - {type: conv1d_transpose, filters: 3, kernel_size: 3, strides: 2}
    - {type: avgpool1d, pool_size: 2, padding: same}
    - {type: flatten}
    - {type: dense, units: classes, activation: softmax}
)";

}  // namespace

TEST_CASE("chain layers equal PyTorch's with Keras's padding: output, input and parameter gradients",
          "[models][python]") {
  if (!testing::system_python_has("torch")) {
    WARN("SKIPPED: needs Debian's python3-torch (/usr/bin/python3 with torch)");
    return;
  }
  torch::manual_seed(9);
  Model model = build_model(layers_of(kChain), images(3, 9, 9, 3));
  REQUIRE(model.final_softmax);
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& row : model.summary) shapes.push_back(row.output_shape);
  CHECK(shapes == std::vector<std::vector<int64_t>>{{4, 5, 5}, {4, 3, 3}, {4, 3, 3}, {4, 3, 3}, {4, 3, 3}, {4, 3, 3},
                                                    {3, 3, 4}, {9, 4}, {6, 4}, {6, 4}, {6, 2}, {3, 5}, {3, 3}, {9}, {3}});
  testing::check_against_reference(model, torch::randn({2, 3, 9, 9}), "chain_reference.py");
}

TEST_CASE("reshape and permute: shapes that do not fit are errors naming the layer", "[models][graph][errors]") {
  const auto problem_of = [](const std::string& layers) { return testing::build_problem(layers, images(2, 4, 6, 3)); };
  CHECK_THAT(problem_of("    - {type: reshape, target_shape: [5, -1]}\n"),
             Catch::Contains("model.layers[0] (reshape, input (None, 2, 4, 6))") &&
                 Catch::Contains("target_shape (None, 5, -1) does not hold the input's 48 values"));
  CHECK_THAT(problem_of("    - {type: reshape, target_shape: [8, 7]}\n"), Catch::Contains("48 values"));
  CHECK_THAT(problem_of("    - {type: permute, dims: [2, 1]}\n"),
             Catch::Contains("dims has 2 entries; the input has 3 dimensions after the batch's"));
  CHECK_THROWS_WITH(layers_of("    - {type: permute, dims: [1, 1, 3]}\n"),
                    Catch::Contains("model.layers[0].dims") && Catch::Contains("each of 1 to 3 once"));
  CHECK_THROWS_WITH(layers_of("    - {type: reshape, target_shape: [-1, -1]}\n"),
                    Catch::Contains("target_shape") && Catch::Contains("one of which may be -1"));
  CHECK_THROWS_WITH(layers_of("    - {type: reshape}\n"), Catch::Contains("target_shape"));
}
