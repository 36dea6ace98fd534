// Bringing your own layer and loss: TorchScript modules written by PyTorch
// (scripts/examples/torchscript_modules.py) train as a layer of the graph
// (saved, resumed, exported, frozen like the rest) and as the loss; files
// that are not what trainer needs are clear errors.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "cli_runner.h"
#include "epoch_records.h"
#include "formats/file_bytes.h"
#include "formats/weights_file.h"
#include "test_paths.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

// The modules are scripted by Debian's python3-torch: without it the test says SKIPPED.
bool skipped_without_python_torch() {
  if (system_python_has("torch")) return false;
  WARN("SKIPPED: needs Debian's python3-torch to script the modules");
  return true;
}

// DIR/NAME.pt, written by the example script; false when it failed.
bool write_module(const std::string& dir, const std::string& args, const std::string& name) {
  return system_python_output(source_dir() + "/scripts/examples/torchscript_modules.py " + args + " " + dir + "/" +
                              name + ".pt")
      .has_value();
}

// A small image classifier with a squeeze-and-excitation block of 8 channels
// (DIR/se_block.pt: trainer reads paths from where it runs, as the tests do not
// run it in DIR).
std::string write_experiment(const std::string& dir) {
  const std::string path = dir + "/se.yaml";
  std::ofstream(path) << R"(experiment: {name: se, seed: 5}
data:
  dataset: synthetic
  synthetic: {train_samples: 256, valid_samples: 64, shape: [1, 12, 12], classes: 3}
model:
  layers:
    - {type: conv2d, filters: 8, kernel_size: 3, activation: relu}
    - {type: torchscript, path: )" << dir << R"(/se_block.pt}
    - {type: flatten}
    - {type: dense, units: classes, activation: softmax}
optimizer: {name: adam, lr: 0.01}
train: {epochs: 2, batch_size: 32}
log: {dir: )" << dir << R"(/runs}
)";
  return path;
}

// The exported tensor `name` of a checkpoint, as bytes.
std::string exported(const std::string& dir, const std::string& checkpoint, const std::string& name) {
  static int exports = 0;
  const std::string file = dir + "/export-" + std::to_string(++exports) + ".safetensors";
  REQUIRE(run_trainer({"export", "--checkpoint", checkpoint, "-o", file}, dir).exit_code == 0);
  for (const NamedArray& array : read_safetensors(read_file_bytes(file), file))
    if (array.name == name) return array.bytes;
  FAIL("no tensor " << name << " in the export of " << checkpoint);
  return {};
}

}  // namespace

TEST_CASE("a TorchScript layer trains, resumes, exports and freezes with the model", "[e2e][torchscript]") {
  if (skipped_without_python_torch()) return;
  const std::string dir = fresh_dir("e2e-torchscript-layer");
  REQUIRE(write_module(dir, "se_block 8", "se_block"));
  const std::string experiment = write_experiment(dir);
  const auto full = run_trainer({"run", experiment, "--set", "log.run_name=full"}, dir);
  INFO(full.err);
  REQUIRE(full.exit_code == 0);
  const auto records = parse_records(full.out);
  REQUIRE(records.size() == 2);
  const std::string run = dir + "/runs/se/full";
  // The block's own weights moved, and were saved each epoch.
  const std::string first = exported(dir, run + "/checkpoints/epoch-0001.pt", "l1_0.fc1_weight");
  const std::string second = exported(dir, run + "/checkpoints/epoch-0002.pt", "l1_0.fc1_weight");
  CHECK(first != second);
  // eval reads them back from the checkpoint: the run's last validation.
  const auto eval = run_trainer({"eval", "--checkpoint", run + "/checkpoints/epoch-0002.pt"}, dir);
  REQUIRE(eval.exit_code == 0);
  CHECK_THAT(records[1].values, Catch::Contains(eval.out.substr(0, eval.out.find(','))));
  // One epoch, then resumed: the same records as the run that went straight through.
  const auto cut = run_trainer({"run", experiment, "--set", "log.run_name=cut", "--set", "train.epochs=1"}, dir);
  REQUIRE(cut.exit_code == 0);
  const auto rest = run_trainer({"run", "--resume", dir + "/runs/se/cut", "--set", "train.epochs=2"}, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  check_resumed_records(cut.out, rest.out, records);

  SECTION("trainable: false keeps the block's weights") {
    const auto frozen = run_trainer(
        {"run", experiment, "--set", "log.run_name=frozen", "--set", "model.layers.1.trainable=false"}, dir);
    REQUIRE(frozen.exit_code == 0);
    const std::string checkpoints = dir + "/runs/se/frozen/checkpoints/";
    CHECK(exported(dir, checkpoints + "epoch-0001.pt", "l1_0.fc2_weight") ==
          exported(dir, checkpoints + "epoch-0002.pt", "l1_0.fc2_weight"));
    CHECK(exported(dir, checkpoints + "epoch-0001.pt", "l0_0.weight") !=
          exported(dir, checkpoints + "epoch-0002.pt", "l0_0.weight"));
  }
}

TEST_CASE("a TorchScript loss is the run's loss", "[e2e][torchscript]") {
  if (skipped_without_python_torch()) return;
  const std::string dir = fresh_dir("e2e-torchscript-loss");
  REQUIRE(write_module(dir, "se_block 8", "se_block"));
  REQUIRE(write_module(dir, "cross_entropy", "cross_entropy"));
  REQUIRE(write_module(dir, "focal_loss", "focal"));
  const std::string experiment = write_experiment(dir);
  const auto built_in = run_trainer({"run", experiment, "--set", "log.run_name=built-in"}, dir);
  REQUIRE(built_in.exit_code == 0);
  // The cross-entropy written in PyTorch trains as the built-in one does, to float rounding.
  const auto scripted = run_trainer(
      {"run", experiment, "--set", "log.run_name=scripted", "--set", "loss={name: torchscript, path: " + dir + "/cross_entropy.pt}"},
      dir);
  INFO(scripted.err);
  REQUIRE(scripted.exit_code == 0);
  const auto expected = parse_records(built_in.out), got = parse_records(scripted.out);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i].loss == Approx(expected[i].loss).epsilon(1e-4));
  // Another loss gives other values.
  const auto focal = run_trainer(
      {"run", experiment, "--set", "log.run_name=focal", "--set", "loss={name: torchscript, path: " + dir + "/focal.pt}"}, dir);
  REQUIRE(focal.exit_code == 0);
  CHECK(parse_records(focal.out)[0].loss < expected[0].loss * 0.8);
}

TEST_CASE("TorchScript files that are not what trainer needs are clear errors", "[e2e][torchscript][bad-input]") {
  if (skipped_without_python_torch()) return;
  const std::string dir = fresh_dir("e2e-torchscript-bad");
  REQUIRE(write_module(dir, "pair", "se_block"));
  REQUIRE(write_module(dir, "per_sample_loss", "per_sample"));
  const std::string experiment = write_experiment(dir);
  const auto pair = run_trainer({"run", experiment}, dir);
  CHECK(pair.exit_code == 2);
  CHECK_THAT(pair.err, Catch::Contains("model.layers[1] (torchscript") && Catch::Contains("returned a Tuple"));
  const auto missing = run_trainer({"run", experiment, "--set", "model.layers.1.path=" + dir + "/absent.pt"}, dir);
  CHECK(missing.exit_code == 4);
  CHECK_THAT(missing.err, Catch::Contains("model.layers[1].path: " + dir + "/absent.pt does not exist"));
  const auto not_script = run_trainer({"run", experiment, "--set", "model.layers.1.path=" + experiment}, dir);
  CHECK(not_script.exit_code == 4);
  CHECK_THAT(not_script.err, Catch::Contains("se.yaml is not a TorchScript module"));
  REQUIRE(write_module(dir, "se_block 8", "se_block"));
  const auto per_sample =
      run_trainer({"run", experiment, "--set", "loss={name: torchscript, path: " + dir + "/per_sample.pt}"}, dir);
  CHECK(per_sample.exit_code == 2);
  CHECK_THAT(per_sample.err, Catch::Contains("per_sample.pt returned a Float tensor of shape [32, 1]"));
  const auto no_path = run_trainer({"run", experiment, "--set", "loss.name=torchscript"}, dir);
  CHECK(no_path.exit_code == 2);
  CHECK_THAT(no_path.err, Catch::Contains("the torchscript loss needs path"));
}
