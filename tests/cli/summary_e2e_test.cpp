// `trainer summary` without the data: where the experiment file fixes the
// input's shape, the model is shown before any data is gathered; where the
// data decides it, the message names the key that would fix it.
#include <catch2/catch.hpp>

#include <fstream>

#include "cli_runner.h"

using namespace trainer::testing;

TEST_CASE("summary shows a model whose data is not there when the file fixes its shapes", "[e2e][summary]") {
  const std::string dir = fresh_dir("e2e-summary-no-data");
  const std::string nowhere = dir + "/not-gathered-yet";
  SECTION("the deblurring configs: patch_size fixes the images") {
    for (const char* config : {"deblur_resnet_small.yaml", "deblur_resnet.yaml"}) {
      INFO(config);
      const auto result =
          run_trainer({"summary", source_dir() + "/configs/" + config, "--set", "data.path=" + nowhere}, dir);
      INFO(result.err);
      REQUIRE(result.exit_code == 0);
      CHECK_THAT(result.out, Catch::Contains("Total params"));
      CHECK_THAT(result.err, Catch::Contains("its shapes come from the experiment file"));
    }
  }
  SECTION("fashion_mnist: 28 x 28, ten classes, as Keras ships it") {
    const auto result =
        run_trainer({"summary", source_dir() + "/configs/fashion_mnist_cnn.yaml", "--set", "data.path=" + nowhere}, dir);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK_THAT(result.out, Catch::Contains("(None, 10)"));
  }
  SECTION("images without patch_size or images.size: the size is the images', and the message says which key fixes it") {
    const std::string experiment = dir + "/degrade.yaml";
    std::ofstream(experiment) << "experiment: {name: degrade}\ndata: {dataset: image_degrade, path: " << nowhere
                              << "}\nmodel:\n  layers:\n    - {type: conv2d, filters: 3, kernel_size: 3, padding: same}\n"
                                 "loss: {name: l1}\nmetrics: [psnr]\n";
    const auto result = run_trainer({"summary", experiment}, dir);
    CHECK(result.exit_code == 3);
    CHECK_THAT(result.err, Catch::Contains("data.patch_size or data.images.size"));
  }
  SECTION("reuters padded to its longest newswire: data.sequence_length would fix it") {
    const auto result = run_trainer({"summary", source_dir() + "/configs/reuters_conv1d.yaml", "--set",
                                     "data.path=" + nowhere, "--set", "data.sequence_length=0"},
                                    dir);
    CHECK(result.exit_code == 3);
    CHECK_THAT(result.err, Catch::Contains("give data.sequence_length"));
  }
}
