// `trainer summary` without the data: where the experiment file fixes the
// input's shape, the model is shown before any data is gathered; where the
// data decides it, the message names the key that would fix it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <regex>

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
  SECTION("reuters keeping every word: the data's largest word id sizes the embedding, data.num_words would fix it") {
    const auto result =
        run_trainer({"summary", source_dir() + "/configs/reuters_conv1d.yaml", "--set", "data.path=" + nowhere}, dir);
    CHECK(result.exit_code == 3);
    CHECK_THAT(result.err, Catch::Contains("give data.num_words"));
    CHECK(result.out.find("Total params") == std::string::npos);
  }
  SECTION("reuters with data.num_words: the embedding has that many rows") {
    const auto result = run_trainer({"summary", source_dir() + "/configs/reuters_conv1d.yaml", "--set",
                                     "data.path=" + nowhere, "--set", "data.num_words=10000"},
                                    dir);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK_THAT(result.out, Catch::Contains("(None, 7, 300)                   70,000"));
  }
}

// The parameter count in summary's "Total params: 325,877 (...)" line, or
// in a run's "model: 7 layers, 325877 parameters" line.
int64_t total_parameters(const std::string& text, const std::regex& line) {
  std::smatch m;
  REQUIRE(std::regex_search(text, m, line));
  std::string digits = m[1].str();
  digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
  return std::stoll(digits);
}

TEST_CASE("summary of reuters keeping every word shows the model a run trains, its vocabulary read from the data",
          "[e2e][summary][reuters][corpus]") {
  if (!have_reuters_corpus()) {
    WARN(kNeedsReutersCorpus);
    return;
  }
  const std::string dir = fresh_dir("e2e-summary-reuters");
  const std::string config = source_dir() + "/configs/reuters_conv1d.yaml";
  // The same data for both, so that whatever the cut does to the vocabulary, it does alike.
  const std::vector<std::string> sets{"--set", "data.path=" + reuters_corpus_dir(), "--set",
                                      "data.max_train_samples=64", "--set", "data.max_valid_samples=32"};
  std::vector<std::string> summary{"summary", config};
  summary.insert(summary.end(), sets.begin(), sets.end());
  const auto shown = run_trainer(summary, dir);
  INFO(shown.err);
  REQUIRE(shown.exit_code == 0);
  std::vector<std::string> run{"run", config, "--run-dir", dir + "/run", "-q", "--set", "train.epochs=1"};
  run.insert(run.end(), sets.begin(), sets.end());
  const auto trained = run_trainer(run, dir);
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  const int64_t trained_total = total_parameters(trained.err, std::regex("model: \\d+ layers, (\\d+) parameters"));
  CHECK(total_parameters(shown.out, std::regex("Total params: ([0-9,]+)")) == trained_total);
  // The vocabulary is the corpus's, not the 10,000 a preview would stand in with.
  CHECK(trained_total != 185982);
}
