#include <catch2/catch.hpp>

#include "models/layer_summary.h"

using namespace trainer;

TEST_CASE("model summary table", "[models][summary]") {
  const std::string table = format_summary("m", {{"dense", {10}, 332856, 332856, 0, {}}, {"dropout", {10}, 0, 0, 0, {}}}, false);
  CHECK_THAT(table, Catch::Contains("dense                        (None, 10)                      332,856"));
  CHECK_THAT(table, Catch::Contains("Total params: 332,856 (1.27 MiB)\nTrainable params: 332,856 (1.27 MiB)\n"
                                    "Non-trainable params: 0 (0 B)"));
}

TEST_CASE("the summary's multiply-adds say when torchscript layers are left out of them", "[models][summary]") {
  const std::vector<LayerSummary> rows{{"dense", {10}, 110, 110, 100, {}}, {"torchscript", {10}, 0, 0, 0, {}}};
  CHECK_THAT(format_summary("m", rows, false), Catch::Contains("Multiply-adds of one sample's forward pass: 100\n"));
  CHECK_THAT(format_summary("m", rows, false, /*scripted=*/true),
             Catch::Contains("Multiply-adds of one sample's forward pass: 100 (torchscript layers not counted)\n"));
}
