// Fine-tuning end to end: a new run starts from a finished run's weights
// (its directory, its checkpoint or its export) and its first validation is
// the first run's last; a frozen layer's weights are the same after
// training as before; a wrong file is a clear error before any training.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "cli_runner.h"
#include "epoch_records.h"
#include "experiment_files.h"
#include "formats/file_bytes.h"
#include "formats/weights_file.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

// A tensor of an exported .safetensors, by name.
std::string exported_bytes(const std::string& file, const std::string& tensor) {
  for (const NamedArray& array : read_safetensors(read_file_bytes(file), file))
    if (array.name == tensor) return array.bytes;
  FAIL("no tensor " << tensor << " in " << file);
  return {};
}

// The last epoch's val_loss of a run directory's metrics.jsonl.
double last_val_loss(const std::string& run) {
  std::ifstream in(run + "/metrics.jsonl");
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  REQUIRE_FALSE(last.empty());
  return nlohmann::json::parse(last).at("val_loss").get<double>();
}

}  // namespace

TEST_CASE("a run started from another's weights validates as that run ended", "[e2e][finetune]") {
  const std::string dir = fresh_dir("e2e-finetune");
  const std::string first = write_mlp_experiment(dir, small_mlp("first", "done", "train: {epochs: 3}\n"));
  REQUIRE(run_trainer({"run", first}, dir).exit_code == 0);
  const std::string run = dir + "/runs/first/done";
  REQUIRE(run_trainer({"export", "--checkpoint", run, "-o", dir + "/first.safetensors"}, dir).exit_code == 0);
  REQUIRE(run_trainer({"export", "--checkpoint", run, "--format", "npz", "-o", dir + "/first.npz"}, dir).exit_code == 0);
  const double ended = last_val_loss(run);
  // The second run steps by a learning rate too small to move a weight, so
  // its first validation is that of the weights it started from.
  int n = 0;
  for (const std::string& from : {run, run + "/checkpoints/epoch-0003.pt", dir + "/first.safetensors", dir + "/first.npz"}) {
    INFO(from);
    const std::string name = "from-" + std::to_string(++n);
    const std::string second = write_mlp_experiment(
        dir, small_mlp("second", name, "train: {epochs: 1}\noptimizer: {name: sgd, lr: 1.0e-30}\n"));
    const auto result =
        run_trainer({"run", second, "--set", "model.init_from=" + from, "--set", "model.init_strict=true"}, dir);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK_THAT(read_text(dir + "/runs/second/" + name + "/train.log"),
               Catch::Contains("4 of the model's 4 tensors loaded, 0 skipped, 0 left"));
    CHECK(last_val_loss(dir + "/runs/second/" + name) == Approx(ended).epsilon(1e-6));
  }
}

TEST_CASE("a frozen layer's weights do not move, and bad init_from paths are refused before training",
          "[e2e][finetune]") {
  const std::string dir = fresh_dir("e2e-freeze");
  const std::string plain = write_mlp_experiment(dir, small_mlp("frozen", "run", "train: {epochs: 2}\n"));
  const auto result = run_trainer({"run", plain, "--set", "model.freeze=[dense]"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const std::string run = dir + "/runs/frozen/run";
  REQUIRE(run_trainer({"export", "--checkpoint", run + "/checkpoints/epoch-0001.pt", "-o", dir + "/e1.safetensors"},
                      dir).exit_code == 0);
  REQUIRE(run_trainer({"export", "--checkpoint", run + "/checkpoints/epoch-0002.pt", "-o", dir + "/e2.safetensors"},
                      dir).exit_code == 0);
  CHECK(exported_bytes(dir + "/e1.safetensors", "l0_0.weight") == exported_bytes(dir + "/e2.safetensors", "l0_0.weight"));
  CHECK(exported_bytes(dir + "/e1.safetensors", "l1_0.weight") != exported_bytes(dir + "/e2.safetensors", "l1_0.weight"));
  const auto summary = run_trainer({"summary", plain, "--set", "model.freeze=[dense]"}, dir);
  CHECK_THAT(summary.out, Catch::Contains("Non-trainable params: 544"));  // 16 x 32 + 32

  const auto missing = run_trainer({"run", plain, "--set", "model.init_from=" + dir + "/nothing.pt"}, dir);
  CHECK(missing.exit_code == 4);
  CHECK_THAT(missing.err, Catch::Contains("model.init_from: " + dir + "/nothing.pt does not exist"));
}

TEST_CASE("a run with learning-rate scales by layer resumes exactly", "[e2e][finetune][lr_scale][resume]") {
  const std::string dir = fresh_dir("e2e-lr-scale");
  const std::string scaled = "optimizer: {name: adam, lr: 0.01, lr_scale: {dense: 0.1}}\n";
  const auto straight =
      run_trainer({"run", write_mlp_experiment(dir, small_mlp("scaled", "full", scaled + "train: {epochs: 3}\n"))}, dir);
  INFO(straight.err);
  REQUIRE(straight.exit_code == 0);
  CHECK_THAT(straight.err, Catch::Contains("optimizer.lr_scale: x0.1 for") && Catch::Contains("x1 for"));
  const auto plain = run_trainer(
      {"run", write_mlp_experiment(dir, small_mlp("plain", "full", "optimizer: {name: adam, lr: 0.01}\ntrain: {epochs: 3}\n"))},
      dir);
  REQUIRE(plain.exit_code == 0);
  CHECK(parse_records(plain.out)[2].values != parse_records(straight.out)[2].values);
  // Adam's state of both groups comes back from the checkpoint.
  const auto cut =
      run_trainer({"run", write_mlp_experiment(dir, small_mlp("scaled", "cut", scaled + "train: {epochs: 1}\n"))}, dir);
  REQUIRE(cut.exit_code == 0);
  const auto rest = run_trainer({"run", "--resume", dir + "/runs/scaled/cut", "--set", "train.epochs=3"}, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  check_resumed_records(cut.out, rest.out, parse_records(straight.out));
}
