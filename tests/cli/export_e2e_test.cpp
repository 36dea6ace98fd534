// trainer export: a trained run's weights in safetensors and .npz, read in
// Python, with the resolved config beside them.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli_runner.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

std::string python_reads(const std::string& kind, const std::string& path) {
  const auto out = system_python_output(source_dir() + "/tests/formats/read_weights.py " + kind + " " + path);
  REQUIRE(out.has_value());
  return *out;
}

// The tensor lines alone (the metadata lines start with "metadata").
std::string tensor_lines(const std::string& text) { return text.substr(text.find("\nl0_0") + 1); }

}  // namespace

TEST_CASE("trainer export writes a run's weights for Python, under the model's names", "[e2e][export]") {
  if (!system_python_has("numpy")) {
    WARN("SKIPPED: /usr/bin/python3 cannot import numpy (python3-numpy)");
    return;
  }
  const std::string dir = fresh_dir("export-e2e");
  const auto trained = run_trainer({"run", write_mlp_experiment(dir, small_mlp("exp", "run", "train: {epochs: 2}\n"))}, dir);
  REQUIRE(trained.exit_code == 0);
  const std::string run = dir + "/runs/exp/run";
  const auto safetensors = run_trainer({"export", "--checkpoint", run, "-o", dir + "/out/model.safetensors"}, dir);
  INFO(safetensors.err);
  REQUIRE(safetensors.exit_code == 0);
  CHECK_THAT(safetensors.err, Catch::Contains("exported 4 tensors") && Catch::Contains("best.pt"));
  const auto npz = run_trainer({"export", "--checkpoint", run, "--format", "npz", "-o", dir + "/out/model.npz"}, dir);
  REQUIRE(npz.exit_code == 0);

  const std::string from_safetensors = python_reads("safetensors", dir + "/out/model.safetensors");
  const std::string from_npz = python_reads("npz", dir + "/out/model.npz");
  CHECK_THAT(from_safetensors, Catch::StartsWith("metadata format 2\nmetadata trainer_config ") &&
                                   Catch::Contains("metadata trainer_experiment 3\n"));
  // 16 features -> 32 units -> 4 classes, as PyTorch's nn.Linear lays them out ([out, in]).
  CHECK_THAT(from_npz, Catch::StartsWith("l0_0.weight <f4 [32, 16] ") && Catch::Contains("\nl0_0.bias <f4 [32] ") &&
                           Catch::Contains("\nl1_0.weight <f4 [4, 32] ") && Catch::Contains("\nl1_0.bias <f4 [4] "));
  CHECK(tensor_lines(from_safetensors) == from_npz);  // the same values, exactly, from two readers
  // The resolved config beside the weights is a working experiment file.
  REQUIRE(fs::exists(dir + "/out/model.config.yaml"));
  CHECK(run_trainer({"config", dir + "/out/model.config.yaml"}, dir).exit_code == 0);

  SECTION("another checkpoint gives other weights") {
    REQUIRE(run_trainer({"export", "--checkpoint", run + "/checkpoints/epoch-0001.pt", "--format", "npz", "-o",
                         dir + "/first.npz"},
                        dir)
                .exit_code == 0);
    const std::string first = python_reads("npz", dir + "/first.npz");
    CHECK(first.size() > 100);
    const bool best_is_first = run_trainer({"eval", "--checkpoint", run, "--json"}, dir).out.find("\"epoch\":1,") !=
                               std::string::npos;
    CHECK((first == from_npz) == best_is_first);
  }
  SECTION("wrong arguments are usage errors") {
    CHECK(run_trainer({"export", "--checkpoint", run, "--format", "onnx", "-o", dir + "/x"}, dir).exit_code == 2);
    CHECK(run_trainer({"export", "--checkpoint", dir + "/nothing", "-o", dir + "/x"}, dir).exit_code == 2);
  }
}
