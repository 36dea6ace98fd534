// train.monitor end to end: checkpoints/best.pt, early stopping, resuming in
// the middle of its patience, and `trainer eval` taking a run directory.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "json_lines.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {


// A learnable synthetic task whose val_loss falls every epoch at this
// learning rate (checked, not assumed): with mode max, epoch 1 stays the
// best and every later epoch is one without improvement, a curve whose
// verdicts are known in advance.
std::string falling_loss_experiment(const std::string& dir, const std::string& train) {
  return write_mlp_experiment(dir, small_mlp("stop", "run", "train: {" + train + "}\noptimizer: {lr: 0.001}\n"));
}

void require_falling_val_loss(const std::vector<json>& lines) {
  for (size_t i = 1; i < lines.size(); ++i) {
    INFO("epoch " << lines[i]["epoch"]);
    REQUIRE(lines[i]["val_loss"].get<double>() < lines[i - 1]["val_loss"].get<double>());
  }
}

}  // namespace

TEST_CASE("early stopping ends a run that stopped improving and best.pt keeps the best epoch", "[e2e][monitor]") {
  const std::string dir = fresh_dir("early-stop");
  const std::string experiment = falling_loss_experiment(
      dir, "epochs: 10, mode: max, keep_checkpoints: 1, early_stopping: {patience: 2, restore_best: true}");
  const auto result = run_trainer({"run", experiment}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const std::string run = dir + "/runs/stop/run";
  const auto lines = metrics_of(run);
  require_falling_val_loss(lines);
  REQUIRE(lines.size() == 3);  // epoch 1 the best, 2 and 3 without improvement
  CHECK(lines[0]["improved"] == true);
  CHECK(lines[1]["improved"] == false);
  CHECK(lines[2]["improved"] == false);
  for (const auto& line : lines) CHECK(line["best_epoch"] == 1);
  CHECK_FALSE(lines[1].contains("stopped_early"));
  CHECK(lines[2]["stopped_early"] == true);
  CHECK_THAT(result.err, Catch::Contains("; val_loss ") && Catch::Contains("saved as best.pt") &&
                             Catch::Contains("2 of 2 without improvement") &&
                             Catch::Contains("early stopping: val_loss did not improve for 2 measurements") &&
                             Catch::Contains("restored the best weights: epoch 1") &&
                             Catch::Contains("done: stopped early after epoch 3 of 10"));
  // Pruning keeps one epoch checkpoint, and never best.pt.
  CHECK(fs::exists(run + "/checkpoints/best.pt"));
  CHECK(fs::exists(run + "/checkpoints/epoch-0003.pt"));
  CHECK_FALSE(fs::exists(run + "/checkpoints/epoch-0001.pt"));
  const json record = json::parse(read_text(run + "/run.json"));
  CHECK(record["paths"]["best_checkpoint"] == fs::absolute(run + "/checkpoints/best.pt").lexically_normal().string());

  SECTION("trainer eval RUN_DIR evaluates best.pt with the run's own config") {
    const auto eval = run_trainer({"eval", "--checkpoint", run, "--json"}, dir);
    INFO(eval.err);
    REQUIRE(eval.exit_code == 0);
    const json figures = json::parse(eval.out);
    CHECK(figures["checkpoint"] == run + "/checkpoints/best.pt");
    CHECK(figures["epoch"] == 1);
    CHECK(figures["val_loss"].get<double>() == Approx(lines[0]["val_loss"].get<double>()).epsilon(1e-6));
    const auto newest = run_trainer({"eval", "--checkpoint", run + "/checkpoints/epoch-0003.pt"}, dir);
    REQUIRE(newest.exit_code == 0);
    CHECK_THAT(newest.out, Catch::StartsWith("Valid Loss:"));
    CHECK(number_after(run_trainer({"eval", "--checkpoint", run + "/checkpoints/epoch-0003.pt", "--json"}, dir).out,
                       "epoch") == 3);
    // The run or a checkpoint where the experiment file goes, as with
    // `report RUN_DIR`: the same checkpoint, with the run's config.
    const auto positional = run_trainer({"eval", run, "--json"}, dir);
    INFO(positional.err);
    REQUIRE(positional.exit_code == 0);
    CHECK(json::parse(positional.out) == figures);
    CHECK(number_after(run_trainer({"eval", run + "/checkpoints/epoch-0003.pt", "--json"}, dir).out, "epoch") == 3);
    const auto exported = run_trainer({"export", run, "-o", dir + "/weights.npz"}, dir);
    INFO(exported.err);
    CHECK(exported.exit_code == 0);
    CHECK(fs::is_regular_file(dir + "/weights.npz"));
  }
  SECTION("a resume of the stopped run has nothing to train, unless the patience is raised") {
    const auto again = run_trainer({"run", "--resume", run}, dir);
    INFO(again.err);
    REQUIRE(again.exit_code == 0);
    CHECK_THAT(again.err, Catch::Contains("nothing to train"));
    CHECK(metrics_of(run).size() == 3);
    const auto more = run_trainer({"run", "--resume", run, "--set", "train.early_stopping.patience=3"}, dir);
    INFO(more.err);
    REQUIRE(more.exit_code == 0);
    const auto longer = metrics_of(run);
    REQUIRE(longer.size() == 4);
    CHECK(longer[3]["stopped_early"] == true);
  }
}

TEST_CASE("a run resumed in the middle of its patience stops where the uninterrupted run stops", "[e2e][monitor]") {
  const std::string dir = fresh_dir("early-stop-resume");
  const std::string whole_dir = dir + "/whole";
  const std::string parts_dir = dir + "/parts";
  fs::create_directories(whole_dir);
  fs::create_directories(parts_dir);
  const std::string train = "mode: max, early_stopping: {patience: 3}";
  const auto whole = run_trainer({"run", falling_loss_experiment(whole_dir, "epochs: 10, " + train)}, whole_dir);
  REQUIRE(whole.exit_code == 0);
  // Two epochs (one without improvement so far), then resumed for ten.
  const auto first = run_trainer({"run", falling_loss_experiment(parts_dir, "epochs: 2, " + train)}, parts_dir);
  REQUIRE(first.exit_code == 0);
  const auto rest = run_trainer({"run", "--resume", parts_dir + "/runs/stop/run", "--set", "train.epochs=10"}, parts_dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  const auto expected = metrics_of(whole_dir + "/runs/stop/run");
  const auto resumed = metrics_of(parts_dir + "/runs/stop/run");
  require_falling_val_loss(expected);
  REQUIRE(expected.size() == 4);
  REQUIRE(resumed.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("epoch " << i + 1);
    CHECK(resumed[i]["val_loss"] == expected[i]["val_loss"]);
    CHECK(resumed[i]["improved"] == expected[i]["improved"]);
    CHECK(resumed[i]["best_epoch"] == expected[i]["best_epoch"]);
    CHECK(resumed[i].value("stopped_early", false) == expected[i].value("stopped_early", false));
  }
}

TEST_CASE("eval and predict refuse a checkpoint outside a run without an experiment file", "[e2e][monitor]") {
  const std::string dir = fresh_dir("eval-args");
  const auto missing = run_trainer({"eval", "--checkpoint", dir + "/nothing"}, dir);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("no such file or run directory"));
  std::ofstream(dir + "/loose.pt") << "not a checkpoint";
  const auto loose = run_trainer({"eval", "--checkpoint", dir + "/loose.pt"}, dir);
  CHECK(loose.exit_code == 2);
  CHECK_THAT(loose.err, Catch::Contains("give the experiment FILE"));
  fs::create_directories(dir + "/empty-run");
  const auto empty = run_trainer({"eval", "--checkpoint", dir + "/empty-run"}, dir);
  CHECK(empty.exit_code == 2);
  CHECK_THAT(empty.err, Catch::Contains("no checkpoints in"));
  // No checkpoint named at all: an experiment file is not one.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"eval"}, {"eval", falling_loss_experiment(dir, "epochs: 1")}}) {
    const auto none = run_trainer(args, dir);
    CHECK(none.exit_code == 2);
    CHECK_THAT(none.err, Catch::Contains("trainer eval needs the checkpoint to use") &&
                             Catch::Contains("trainer eval RUN_DIR"));
  }
}

TEST_CASE("a best.pt that cannot be written is never reported as saved", "[e2e][monitor][guard]") {
  const std::string dir = fresh_dir("best-unwritable");
  // mode min on a falling val_loss: every epoch is a new best.
  const std::string experiment = falling_loss_experiment(dir, "epochs: 1, mode: min");
  const auto first = run_trainer({"run", experiment}, dir);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const std::string run = dir + "/runs/stop/run";
  CHECK(json::parse(read_text(run + "/run.json"))["paths"]["best_checkpoint_epoch"] == 1);
  // The epoch's checkpoint under a second name, not a second copy.
  CHECK(fs::equivalent(run + "/checkpoints/best.pt", run + "/checkpoints/epoch-0001.pt"));
  // best.pt becomes a link trainer refuses to replace: the next best cannot be kept.
  fs::rename(run + "/checkpoints/best.pt", dir + "/best-epoch-1.pt");
  fs::create_symlink(dir + "/best-epoch-1.pt", run + "/checkpoints/best.pt");
  const std::string kept = read_text(dir + "/best-epoch-1.pt");
  const auto second = run_trainer({"run", "--resume", run, "--set", "train.epochs=2"}, dir);
  INFO(second.err);
  CHECK(second.exit_code == 4);
  CHECK_THAT(second.err, Catch::Contains("; val_loss improved") &&
                             Catch::Contains("checkpoints/best.pt is a symbolic link"));
  std::smatch epoch_two;
  REQUIRE(std::regex_search(second.err, epoch_two, std::regex("epoch 2: [^\n]*")));
  CHECK_THAT(epoch_two.str(), !Catch::Contains("best.pt"));
  CHECK(read_text(dir + "/best-epoch-1.pt") == kept);
  const json record = json::parse(read_text(run + "/run.json"));
  CHECK(record["paths"]["best_checkpoint_epoch"] == 1);
  CHECK(record["exit_code"] == 4);
}
