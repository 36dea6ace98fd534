// Models that their data would stop inside LibTorch (an embedding lookup
// past its table, a batchnorm given one sample): refused before the run
// directory exists, exit 2, naming the layer, the data's figure and a fix,
// instead of an internal error (exit 1) at the first or last step.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cli_runner.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {
const std::string kSmallEmbedding = "model:\n  layers:\n    - {type: embedding, input_dim: 20, output_dim: 4}\n"
                                    "    - {type: flatten}\n    - {type: dense, units: classes, activation: softmax}\n";
}  // namespace

TEST_CASE("an embedding smaller than a synthetic vocabulary is exit 2 naming both, before the data is made",
          "[e2e][errors][embedding]") {
  const std::string dir = fresh_dir("e2e-embedding-rows");
  const std::string path = dir + "/synthetic.yaml";
  std::ofstream(path) << "data:\n  dataset: synthetic\n"
                      << "  synthetic: {train_samples: 64, valid_samples: 16, shape: [6], classes: 3, vocabulary: 50}\n"
                      << kSmallEmbedding << "log: {dir: " << dir << "/runs}\n";
  const auto result = run_trainer({"run", path}, dir);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains(path + ":6:") && Catch::Contains("input_dim: 20 rows") &&
                             Catch::Contains("token ids go up to 49") && Catch::Contains("at least 50"));
  CHECK_FALSE(fs::exists(dir + "/runs"));
  const auto fitting =
      run_trainer({"run", path, "--set", "model.layers.0.input_dim=50", "--run-dir", dir + "/fits"}, dir);
  INFO(fitting.err);
  CHECK(fitting.exit_code == 0);
}

TEST_CASE("an embedding smaller than the vocabulary of reuters keeping every word is exit 2 once the corpus is read",
          "[e2e][errors][embedding][reuters][corpus]") {
  if (!have_reuters_corpus()) {
    WARN(kNeedsReutersCorpus);
    return;
  }
  const std::string dir = fresh_dir("e2e-embedding-rows-reuters");
  const std::string path = dir + "/reuters.yaml";
  std::ofstream(path) << "data: {dataset: reuters, path: " << reuters_corpus_dir() << ", sequence_length: 50}\n"
                      << kSmallEmbedding << "log: {dir: " << dir << "/runs}\n";
  const auto result = run_trainer({"run", path}, dir);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("input_dim: 20 rows") && Catch::Contains("give input_dim: vocabulary") &&
                             Catch::Contains("data.num_words: 20"));
  CHECK_THAT(result.err, !Catch::Contains("internal error"));
  CHECK_FALSE(fs::exists(dir + "/runs"));
}

TEST_CASE("a batchnorm over one value a channel is exit 2 when the epoch's last batch would be one sample",
          "[e2e][errors][batchnorm]") {
  const std::string dir = fresh_dir("e2e-batch-of-one");
  const std::string path = write_batchnorm_experiment(dir, 33);
  const auto result = run_trainer({"run", path}, dir);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("train.batch_size: 32 over 33 training samples leaves the epoch's last "
                                         "batch 1 sample, and model.layers[1] (batchnorm) cannot train on one") &&
                             Catch::Contains("(33 or 31)"));
  CHECK_THAT(result.err, !Catch::Contains("internal error"));
  CHECK_FALSE(fs::exists(dir + "/runs"));
  const auto fitting = run_trainer({"run", path, "--set", "train.batch_size=33"}, dir);
  INFO(fitting.err);
  CHECK(fitting.exit_code == 0);
}
