// `trainer sweep` end to end: a grid of real runs named after their values,
// a failed point that leaves the others alone, a second run of the same
// sweep that skips what is done, and an interrupted sweep that resumes.
#include <catch2/catch.hpp>

#include <signal.h>

#include <filesystem>

#include "cli_runner.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

std::string run_status(const std::string& run_dir) {
  const std::string record = read_text(run_dir + "/run.json");
  std::smatch status;
  if (!std::regex_search(record, status, std::regex("\"status\":\"([a-z]+)\""))) return "no run.json";
  return status[1].str();
}

}  // namespace

TEST_CASE("trainer sweep trains every point of the grid in its own run and compares them", "[e2e][sweep]") {
  const std::string dir = fresh_dir("e2e-sweep");
  const std::string experiment = write_mlp_experiment(dir, small_mlp("sw", ""));
  const std::string sweep_dir = dir + "/runs/sw/sweep-grid";
  const std::vector<std::string> args{"sweep", experiment, "--name", "grid", "--set", "optimizer.lr=[0.01,0.001]",
                                      "--set", "train.batch_size=[16,32]", "--set", "train.epochs=2",
                                      "--parallel", "2"};
  const auto swept = run_trainer(args, dir);
  INFO(swept.err);
  REQUIRE(swept.exit_code == 0);
  const std::vector<std::string> points{"lr=0.01,batch_size=16", "lr=0.01,batch_size=32", "lr=0.001,batch_size=16",
                                        "lr=0.001,batch_size=32"};
  for (const auto& point : points) {
    INFO(point);
    CHECK(run_status(sweep_dir + "/" + point) == "done");
    // Each point really ran with its values, as its resolved config shows.
    const std::string config = read_text(sweep_dir + "/" + point + "/config.yaml");
    CHECK_THAT(config, Catch::Contains(point.find("lr=0.01,") == 0 ? "lr: 0.01" : "lr: 0.001"));
    CHECK_THAT(config, Catch::Contains(point.find("batch_size=16") != std::string::npos ? "batch_size: 16"
                                                                                          : "batch_size: 32"));
    CHECK_THAT(swept.out, Catch::Contains(point));
  }
  CHECK_THAT(swept.out, Catch::Contains("best val_loss") && Catch::Contains("at epoch"));
  CHECK_THAT(swept.err, Catch::Contains("4 points, 2 at a time"));
  // sweep.json for scripts, read by Python's parser; the report compares them.
  if (system_python_has("json")) {
    const std::string sweep_json = read_text(sweep_dir + "/sweep.json");
    CHECK(python_reads_json(dir, sweep_json, "len(d['points'])") == "4");
    CHECK(python_reads_json(dir, sweep_json, "sorted(p['status'] for p in d['points'])") ==
          "['done', 'done', 'done', 'done']");
    CHECK(python_reads_json(dir, sweep_json, "all(p['best'] > 0 and 1 <= p['best_epoch'] <= 2 for p in d['points'])") ==
          "True");
  }
  const std::string report = read_text(sweep_dir + "/report.html");
  for (const auto& point : points) CHECK_THAT(report, Catch::Contains(point));

  SECTION("the same sweep again skips every point that is done") {
    const auto metrics_before = read_text(sweep_dir + "/" + points[0] + "/metrics.jsonl");
    const auto again = run_trainer(args, dir);
    INFO(again.err);
    REQUIRE(again.exit_code == 0);
    CHECK_THAT(again.err, Catch::Contains(points[0] + " was done before; skipped"));
    CHECK_THAT(again.out, Catch::Contains("done (before)"));
    // Scripts that test for "done" keep working; "skipped" says it was not run this time.
    if (system_python_has("json"))
      CHECK(python_reads_json(dir, read_text(sweep_dir + "/sweep.json"),
                              "sorted((p['status'], p['skipped']) for p in d['points'])") ==
            "[('done', True), ('done', True), ('done', True), ('done', True)]");
    CHECK(read_text(sweep_dir + "/" + points[0] + "/metrics.jsonl") == metrics_before);
  }
  SECTION("the same sweep with other shared settings is refused, naming the change") {
    auto changed = args;
    changed[9] = "train.epochs=3";
    const auto refused = run_trainer(changed, dir);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("sweep point " + points[0] + " was run before with other settings "
                                            "(train.epochs: 2 -> 3)") &&
                                Catch::Contains("another --name"));
  }
  SECTION("--random 2 trains two points of the grid") {
    auto sampled = args;
    sampled[3] = "sampled";
    sampled.insert(sampled.end(), {"--random", "2"});
    const auto result = run_trainer(sampled, dir);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    int trained = 0;
    for (const auto& point : points) trained += fs::exists(dir + "/runs/sw/sweep-sampled/" + point) ? 1 : 0;
    CHECK(trained == 2);
  }
}

TEST_CASE("sweep --prune asha stops a point that falls behind at a rung, and it stays pruned until pruning is off",
          "[e2e][sweep][prune]") {
  const std::string dir = fresh_dir("e2e-sweep-prune");
  MlpExperiment spec = small_mlp("swp", "");
  spec.samples = 4000;  // epochs long enough that the stop comes well before the last
  const std::string experiment = write_mlp_experiment(dir, spec);
  // One at a time: the good rate reaches rung 1 first, so the other is
  // judged against it and stopped there.
  const std::vector<std::string> args{"sweep", experiment, "--set", "optimizer.lr=[0.05,0.00001]", "--set",
                                      "train.epochs=20", "--prune", "asha"};
  const std::string sweep_dir = dir + "/runs/swp/sweep-swp";
  const std::string slow = sweep_dir + "/lr=0.00001";
  const auto pruned = run_trainer(args, dir);
  INFO(pruned.err);
  REQUIRE(pruned.exit_code == 0);
  CHECK(run_status(sweep_dir + "/lr=0.05") == "done");
  CHECK(run_status(slow) == "pruned");
  CHECK_THAT(pruned.err, Catch::Contains("pruning lr=0.00001 after epoch 1"));
  CHECK_THAT(pruned.out, Catch::Matches("(.|\n)*lr=0\\.00001 +pruned +[0-9]+ (.|\n)*"));
  if (system_python_has("json")) {
    const std::string json = read_text(sweep_dir + "/sweep.json");
    CHECK(python_reads_json(dir, json, "(d['prune'], d['prune_min_epochs'], d['prune_factor'])") == "('asha', 1, 3.0)");
    CHECK(python_reads_json(dir, json, "[(p['status'], p['epochs_done'] < 20) for p in d['points']]") ==
          "[('done', False), ('pruned', True)]");
  }
  CHECK_THAT(read_text(sweep_dir + "/report.html"), Catch::Contains("status pruned"));

  SECTION("running it again leaves the pruned point pruned") {
    const auto again = run_trainer(args, dir);
    INFO(again.err);
    REQUIRE(again.exit_code == 0);
    CHECK_THAT(again.err, Catch::Contains("lr=0.00001 was pruned before; skipped"));
    CHECK(run_status(slow) == "pruned");
  }
  SECTION("with --prune none the pruned point resumes from its checkpoint and trains to the end") {
    auto unpruned = args;
    unpruned.back() = "none";
    const auto rest = run_trainer(unpruned, dir);
    INFO(rest.err);
    REQUIRE(rest.exit_code == 0);
    CHECK(run_status(slow) == "done");
    CHECK_THAT(read_text(slow + ".log"), Catch::Contains("resum"));
  }
}

TEST_CASE("sweep --prune that could stop no point before its last epoch is refused before any point trains",
          "[e2e][sweep][prune]") {
  const std::string dir = fresh_dir("e2e-sweep-idle-prune");
  const std::string experiment = write_mlp_experiment(dir, small_mlp("swi", ""));
  const std::vector<std::string> grid{"sweep", experiment, "--set", "optimizer.lr=[0.05,0.01,0.001]"};
  auto late = grid;
  late.insert(late.end(), {"--set", "train.epochs=3", "--prune", "median", "--prune-min-epochs", "3"});
  const auto refused = run_trainer(late, dir);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Contains("--prune-min-epochs 3: no point trains more than 3 epochs (train.epochs), "
                                          "so --prune median could stop none before its end") &&
                              Catch::Contains("--prune-min-epochs 2 or less"));
  auto one_epoch = grid;
  one_epoch.insert(one_epoch.end(), {"--set", "train.epochs=1", "--prune", "asha"});
  const auto single = run_trainer(one_epoch, dir);
  CHECK(single.exit_code == 2);
  CHECK_THAT(single.err, Catch::Contains("--prune asha: the points train one epoch"));
  CHECK_FALSE(fs::exists(dir + "/runs/swi"));
}

TEST_CASE("sweep --random K draws K points from a range, named after the values they train with",
          "[e2e][sweep]") {
  const std::string dir = fresh_dir("e2e-sweep-range");
  const std::string experiment = write_mlp_experiment(dir, small_mlp("swr", ""));
  const auto drawn = run_trainer({"sweep", experiment, "--set", "optimizer.lr=loguniform(1e-3,1e-1)", "--set",
                                  "train.epochs=1", "--random", "3", "--parallel", "2"},
                                 dir);
  INFO(drawn.err);
  REQUIRE(drawn.exit_code == 0);
  int points = 0;
  for (const auto& entry : fs::directory_iterator(dir + "/runs/swr/sweep-swr")) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || name.rfind("lr=", 0) != 0) continue;
    ++points;
    const double lr = std::stod(name.substr(3));
    CHECK(lr >= 1e-3);
    CHECK(lr <= 1e-1);
    CHECK_THAT(read_text(entry.path().string() + "/config.yaml"), Catch::Contains("lr: " + name.substr(3)));
  }
  CHECK(points == 3);
  const auto no_count = run_trainer({"sweep", experiment, "--set", "optimizer.lr=loguniform(1e-3,1e-1)"}, dir);
  CHECK(no_count.exit_code == 2);
  CHECK_THAT(no_count.err, Catch::Contains("--random K"));
}

TEST_CASE("sweep --devices gives each point one device of the list, a place held while it trains", "[e2e][sweep]") {
  const std::string dir = fresh_dir("e2e-sweep-devices");
  const std::string experiment = write_mlp_experiment(dir, small_mlp("swd", ""));
  const std::vector<std::string> base{"sweep", experiment, "--set", "optimizer.lr=[0.1,0.01,0.001]", "--set",
                                      "train.epochs=1"};
  auto on_cpus = base;
  on_cpus.insert(on_cpus.end(), {"--devices", "cpu,cpu"});
  const auto placed = run_trainer(on_cpus, dir);
  INFO(placed.err);
  REQUIRE(placed.exit_code == 0);
  CHECK_THAT(placed.err, Catch::Contains("a place each: cpu, cpu") && Catch::Contains("3 points, 2 at a time") &&
                             Catch::Contains("started lr=0.001 (3 of 3) on cpu"));
  if (system_python_has("json"))
    CHECK(python_reads_json(dir, read_text(dir + "/runs/swd/sweep-swd/sweep.json"),
                            "[p['device'] for p in d['points']]") == "['cpu', 'cpu', 'cpu']");

  // What can be checked without a GPU: the GPU path's refusals. No machine
  // has a 100th GPU: a device error (5) before any point starts.
  auto gpus = base;
  gpus.insert(gpus.end(), {"--devices", "gpu:0,99", "--name", "gpus"});
  const auto no_gpu = run_trainer(gpus, dir);
  CHECK(no_gpu.exit_code == 5);
  CHECK_FALSE(fs::exists(dir + "/runs/swd/sweep-gpus"));
  // --parallel with points on GPUs shares out their list the same way.
  auto parallel_gpus = base;
  parallel_gpus.insert(parallel_gpus.end(), {"--set", "devices=gpu:0,99", "--parallel", "2", "--name", "pgpus"});
  CHECK(run_trainer(parallel_gpus, dir).exit_code == 5);
  CHECK_FALSE(fs::exists(dir + "/runs/swd/sweep-pgpus"));
  auto shared = gpus;
  shared.insert(shared.end(), {"--per-device", "2"});
  const auto unbounded = run_trainer(shared, dir);
  CHECK(unbounded.exit_code == 2);
  CHECK_THAT(unbounded.err, Catch::Contains("points sharing a GPU need memory_limit"));
  auto both = on_cpus;
  both.insert(both.end(), {"--parallel", "2"});
  CHECK(run_trainer(both, dir).exit_code == 2);
  auto alone = base;
  alone.insert(alone.end(), {"--per-device", "2"});
  CHECK_THAT(run_trainer(alone, dir).err, Catch::Contains("shares the devices of --devices"));
  auto bad = base;
  bad.insert(bad.end(), {"--devices", "tpu:0"});
  CHECK_THAT(run_trainer(bad, dir).err, Catch::Contains("'tpu:0' is not a device"));
}

TEST_CASE("a failed point does not stop the others and the sweep exits with its code", "[e2e][sweep]") {
  const std::string dir = fresh_dir("e2e-sweep-failed");
  const std::string experiment = write_mlp_experiment(dir, small_mlp("swf", ""));
  // The mnist point finds no files (a data error, 3); the synthetic ones train.
  const auto result = run_trainer({"sweep", experiment, "--set", "data.dataset=[mnist,synthetic]", "--set",
                                   "data.path=" + dir + "/no-mnist", "--set", "train.epochs=1"},
                                  dir);
  INFO(result.err);
  CHECK(result.exit_code == 3);
  const std::string sweep_dir = dir + "/runs/swf/sweep-swf";
  // The data error comes before the run directory is made: sweep.json keeps the verdict.
  CHECK(run_status(sweep_dir + "/dataset=synthetic") == "done");
  if (system_python_has("json"))
    CHECK(python_reads_json(dir, read_text(sweep_dir + "/sweep.json"),
                            "[(p['name'], p['status'], p['exit_code']) for p in d['points']]") ==
          "[('dataset=mnist', 'failed', 3), ('dataset=synthetic', 'done', 0)]");
  CHECK_THAT(result.err, Catch::Contains("dataset=mnist failed (exit code 3); its output: " + sweep_dir +
                                         "/dataset=mnist.log"));
  CHECK_THAT(read_text(sweep_dir + "/dataset=mnist.log"), Catch::Contains(dir + "/no-mnist"));
  CHECK_THAT(result.out, Catch::Contains("failed (exit 3)"));

  SECTION("a point that cannot be configured stops the sweep before any starts") {
    const auto bad = run_trainer({"sweep", experiment, "--name", "bad", "--set", "train.batch_size=[16,-1]"}, dir);
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("train.batch_size: expected an integer >= 1"));
    CHECK_FALSE(fs::exists(dir + "/runs/swf/sweep-bad"));
  }
  SECTION("--name follows the rule of experiment names: nothing outside LOG_DIR/EXPERIMENT") {
    for (const std::string name : {"../../../escape", "/tmp/x", "a\nb", ".."}) {
      const auto escaping =
          run_trainer({"sweep", experiment, "--name", name, "--set", "optimizer.lr=[0.1,0.01]"}, dir);
      CHECK(escaping.exit_code == 2);
      CHECK_THAT(escaping.err, Catch::Contains("--name") && Catch::Contains("expected a directory name"));
    }
    CHECK_FALSE(fs::exists(dir + "/escape"));
    CHECK_FALSE(fs::exists(dir + "/runs/escape"));
  }
  SECTION("no axis is a usage error") {
    const auto none = run_trainer({"sweep", experiment, "--set", "optimizer.lr=0.1"}, dir);
    CHECK(none.exit_code == 2);
    CHECK_THAT(none.err, Catch::Contains("needs at least one axis"));
  }
}

TEST_CASE("SIGTERM to a sweep stops its running point with a checkpoint, and the same sweep resumes it", "[e2e][sweep][signal]") {
  const std::string dir = fresh_dir("e2e-sweep-signal");
  MlpExperiment spec;
  spec.name = "sws";
  spec.samples = 60000;
  const std::string experiment = write_mlp_experiment(dir, spec);
  const std::vector<std::string> args{"sweep", experiment, "--set", "optimizer.lr=[0.01,0.02]", "--set",
                                      "train.epochs=2"};
  const std::string first = dir + "/runs/sws/sweep-sws/lr=0.01";
  const auto cut = signal_mid_run(args, dir, first, SIGTERM);
  INFO(cut.err);
  if (run_status(first) == "done") {
    WARN("SKIPPED: the first point finished before the signal arrived; nothing to resume");
    return;
  }
  REQUIRE(cut.exit_code == 9);
  CHECK(run_status(first) == "interrupted");
  CHECK_FALSE(fs::exists(dir + "/runs/sws/sweep-sws/lr=0.02"));  // never started
  CHECK_THAT(read_text(first + ".log"), Catch::Contains("checkpoint saved to"));

  const auto rest = run_trainer(args, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  CHECK(run_status(first) == "done");
  CHECK(run_status(dir + "/runs/sws/sweep-sws/lr=0.02") == "done");
  CHECK_THAT(read_text(first + ".log"), Catch::Contains("resum"));
}

TEST_CASE("the requeue signal stops a sweep's points with checkpoints and the sweep exits 10, and run again it finishes",
          "[e2e][sweep][signal][requeue]") {
  const std::string dir = fresh_dir("e2e-sweep-requeue");
  MlpExperiment spec;
  spec.name = "swq";
  spec.samples = 60000;
  const std::string experiment = write_mlp_experiment(dir, spec);
  const std::vector<std::string> args{"sweep", experiment, "--set", "optimizer.lr=[0.01,0.02,0.03]", "--set",
                                      "train.epochs=2", "--parallel", "2"};
  const std::string sweep_dir = dir + "/runs/swq/sweep-swq";
  // As SLURM's --signal=B:USR1@120 sends it to the batch script's sweep.
  const auto cut = signal_mid_run(args, dir, sweep_dir + "/lr=0.01", SIGUSR1);
  INFO(cut.err);
  if (run_status(sweep_dir + "/lr=0.01") == "done") {
    WARN("SKIPPED: the first point finished before the signal arrived; nothing to requeue");
    return;
  }
  REQUIRE(cut.exit_code == 10);
  CHECK(run_status(sweep_dir + "/lr=0.01") == "requeue");
  CHECK_FALSE(fs::exists(sweep_dir + "/lr=0.03"));  // never started
  CHECK_THAT(cut.out, Catch::Contains("requeue") && Catch::Contains("not started"));
  if (system_python_has("json"))
    CHECK(python_reads_json(dir, read_text(sweep_dir + "/sweep.json"), "d['requeued']") == "True");

  const auto rest = run_trainer(args, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  for (const std::string point : {"lr=0.01", "lr=0.02", "lr=0.03"}) CHECK(run_status(sweep_dir + "/" + point) == "done");
  CHECK_THAT(read_text(sweep_dir + "/lr=0.01.log"), Catch::Contains("resum"));
}
