// End-to-end: the real binary, real files, real exit codes.
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <regex>

#include "cli_runner.h"
#include "epoch_records.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;


TEST_CASE("trainer run: records on stdout, run directory, checkpoints", "[e2e]") {
  const std::string dir = fresh_dir("e2e-run");
  const auto result = run_trainer({"run", write_dropout_experiment(dir)}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto epochs = parse_records(result.out);
  REQUIRE(epochs.size() == 4);
  CHECK(epochs[3].number == 4);
  CHECK(epochs[3].loss < epochs[0].loss);
  CHECK_THAT(epochs[0].values, Catch::Contains(",Top2 Accuracy:") && Catch::Contains(",Valid Top2 Accuracy:"));

  const std::string run = dir + "/runs/e2e/full";
  CHECK(fs::exists(run + "/config.yaml"));
  CHECK_THAT(read_text(run + "/train.log"), Catch::Contains("Epoch=4,"));
  std::ifstream metrics(run + "/metrics.jsonl");
  int lines = 0;
  for (std::string line; std::getline(metrics, line);) ++lines;
  CHECK(lines == 4);
  CHECK(fs::exists(run + "/checkpoints/epoch-0004.pt"));
  CHECK_FALSE(fs::exists(run + "/checkpoints/epoch-0001.pt"));  // keep_checkpoints: 3

  SECTION("trainer eval reproduces the last validation metrics") {
    const auto eval = run_trainer({"eval", dir + "/experiment.yaml", "--checkpoint", run + "/checkpoints/epoch-0004.pt"}, dir);
    INFO(eval.err);
    REQUIRE(eval.exit_code == 0);
    const std::string last = epochs[3].values;
    CHECK(eval.out == last.substr(last.find("Valid ")) + "\n");
  }
}

TEST_CASE("resuming reproduces the uninterrupted run", "[e2e][resume]") {
  const std::string dir = fresh_dir("e2e-resume");
  const std::string experiment = write_dropout_experiment(dir);
  const auto full = run_trainer({"run", experiment}, dir);
  REQUIRE(full.exit_code == 0);
  const auto expected = parse_records(full.out);

  const auto part = run_trainer({"run", experiment, "--set", "train.epochs=2", "--set", "log.run_name=part"}, dir);
  REQUIRE(part.exit_code == 0);
  const std::string part_dir = dir + "/runs/e2e/part";
  const std::string saved_config = read_text(part_dir + "/config.yaml");
  // A change to what the run computes is refused, naming each key, old -> new.
  const auto refused = run_trainer({"run", "--resume", part_dir, "--set", "optimizer.lr=0.02"}, dir);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Contains("optimizer.lr: 0.01 -> 0.02   (changes what the run computes)") &&
                              Catch::Contains("--force"));
  CHECK(read_text(part_dir + "/config.yaml") == saved_config);
  // Even forced, the NAdam state cannot go into another optimizer: said up front.
  const auto other = run_trainer({"run", experiment, "--resume", part_dir, "--set", "optimizer.name=sgd", "--force"},
                                 dir);
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.err, Catch::Contains("trained with optimizer nadam, but the experiment says sgd"));
  CHECK(read_text(part_dir + "/config.yaml") == saved_config);
  // What a kill -9 during a checkpoint leaves: the resume removes it.
  const std::string debris = dir + "/runs/e2e/part/checkpoints/epoch-0003.pt.tmp.999999999";
  std::ofstream(debris) << "half a checkpoint";
  const auto rest = run_trainer({"run", experiment, "--resume", dir + "/runs/e2e/part"}, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  CHECK_FALSE(fs::exists(debris));
  CHECK_THAT(rest.err, Catch::Contains("removed " + debris));
  const auto resumed = parse_records(rest.out);
  REQUIRE(resumed.size() == 2);
  CHECK(resumed[0].number == 3);
  CHECK(resumed[0].values == expected[2].values);
  CHECK(resumed[1].values == expected[3].values);
  // train.epochs 2 -> 4 (and log.run_name) may change: config.yaml is now the config in force.
  CHECK_THAT(rest.err, Catch::Contains("resuming with train.epochs: 2 -> 4"));
  CHECK(read_text(part_dir + "/config.resume-1.yaml") == saved_config);
  CHECK_THAT(read_text(part_dir + "/config.yaml"), Catch::Contains("epochs: 4"));
}

TEST_CASE("run directories scripts can find: --run-dir, latest, taken names warned about", "[e2e][rundir]") {
  const std::string dir = fresh_dir("e2e-rundir");
  const std::string experiment = write_dropout_experiment(dir);
  const std::vector<std::string> short_run{"--set", "train.epochs=1", "--set", "data.synthetic.train_samples=64"};
  const auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), short_run.begin(), short_run.end());
    return args;
  };
  // A taken log.run_name: warned about even at --log-level error.
  REQUIRE(run_trainer(with({"run", experiment}), dir).exit_code == 0);
  const auto second = run_trainer(with({"--log-level", "error", "run", experiment}), dir);
  REQUIRE(second.exit_code == 0);
  CHECK_THAT(second.err, Catch::Contains("trainer: warning: run directory " + dir + "/runs/e2e/full exists: this run is " +
                                         dir + "/runs/e2e/full-2"));
  // latest: a relative link to the newest run.
  CHECK(fs::is_symlink(dir + "/runs/e2e/latest"));
  CHECK(fs::read_symlink(dir + "/runs/e2e/latest") == "full-2");
  CHECK(fs::exists(dir + "/runs/e2e/latest/config.yaml"));
  CHECK(run_trainer(with({"run", experiment, "--set", "log.run_name=latest"}), dir).exit_code == 2);

  // --run-dir: exactly there, made when missing.
  const std::string exact = dir + "/elsewhere/my run";
  const auto placed = run_trainer(with({"run", experiment, "--run-dir", exact}), dir);
  INFO(placed.err);
  REQUIRE(placed.exit_code == 0);
  CHECK(fs::exists(exact + "/config.yaml"));
  CHECK(fs::exists(exact + "/checkpoints/epoch-0001.pt"));
  CHECK(fs::read_symlink(dir + "/runs/e2e/latest") == "full-2");  // not a run under log.dir
  // Not again: it holds a run.
  const auto again = run_trainer(with({"run", experiment, "--run-dir", exact}), dir);
  CHECK(again.exit_code == 2);
  CHECK_THAT(again.err, Catch::Contains("exists and is not empty") && Catch::Contains("--resume"));
  // A script's one line for both: --run-dir X --resume X continues it.
  const auto continued = run_trainer({"run", "--run-dir", exact, "--resume", exact, "--set", "train.epochs=2"}, dir);
  INFO(continued.err);
  CHECK(continued.exit_code == 0);
  CHECK(parse_records(continued.out).size() == 1);
  CHECK(run_trainer({"run", "--run-dir", dir + "/other", "--resume", exact}, dir).exit_code == 2);
}

TEST_CASE("resume needs a config: the run's own, or a file", "[e2e][resume][errors]") {
  const std::string dir = fresh_dir("e2e-resume-config");
  const auto none = run_trainer({"run"}, dir);
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, Catch::Contains("needs an experiment FILE, or --resume RUN_DIR"));
  const std::string experiment = write_dropout_experiment(dir);
  REQUIRE(run_trainer({"run", experiment, "--set", "train.epochs=1"}, dir).exit_code == 0);
  const std::string run = dir + "/runs/e2e/full";
  // A forced change trains on, with a warning; no FILE: the run's config.yaml plus the --set.
  const auto forced = run_trainer({"run", "--resume", run, "--set", "train.epochs=2", "--set", "optimizer.lr=0.02",
                                   "--force"}, dir);
  INFO(forced.err);
  CHECK(forced.exit_code == 0);
  CHECK(parse_records(forced.out).size() == 1);
  CHECK_THAT(forced.err, Catch::Contains("resuming with optimizer.lr: 0.01 -> 0.02 (--force"));
  fs::remove(run + "/config.yaml");
  const auto lost = run_trainer({"run", "--resume", run}, dir);
  CHECK(lost.exit_code == 2);
  CHECK_THAT(lost.err, Catch::Contains("has no " + run + "/config.yaml"));
}

TEST_CASE("SIGTERM mid-epoch saves a checkpoint that resumes exactly", "[e2e][resume][signal]") {
  const std::string dir = fresh_dir("e2e-signal");
  const std::string experiment = write_dropout_experiment(dir, 60000);
  const auto full = run_trainer({"run", experiment, "--set", "train.epochs=2"}, dir);
  REQUIRE(full.exit_code == 0);
  const auto expected = parse_records(full.out);
  REQUIRE(expected.size() == 2);

  const auto cut = signal_mid_run({"run", experiment, "--set", "train.epochs=2", "--set", "log.run_name=cut"},
                                  fresh_dir("e2e-signal/interrupted"), dir + "/runs/e2e/cut", SIGTERM);
  INFO(cut.err);
  if (finished_before_signal(cut)) return;
  REQUIRE(cut.exit_code == 9);
  CHECK_THAT(cut.err, Catch::Contains("checkpoint saved to"));
  // The printed command, exactly: it continues the same run (2 epochs, not the file's 4).
  std::smatch command;
  REQUIRE(std::regex_search(cut.err, command, std::regex("resume with: trainer run --resume (\\S+)")));
  CHECK(command[1].str() == fs::absolute(dir + "/runs/e2e/cut").lexically_normal().string());
  const auto rest = run_trainer({"run", "--resume", command[1].str()}, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  check_resumed_records(cut.out, rest.out, expected);
}

TEST_CASE("the requeue signal saves a checkpoint and exits 10, and the next job resumes exactly", "[e2e][resume][signal]") {
  const std::string dir = fresh_dir("e2e-requeue");
  const std::string experiment = write_dropout_experiment(dir, 60000);
  const auto full = run_trainer({"run", experiment, "--set", "train.epochs=2"}, dir);
  REQUIRE(full.exit_code == 0);
  const auto expected = parse_records(full.out);
  REQUIRE(expected.size() == 2);

  // As a SLURM job does: one --run-dir for every attempt, so that the
  // requeued job's command line is the first one's.
  const std::string run = dir + "/job-41207";
  const std::vector<std::string> job{"run", experiment, "--set", "train.epochs=2", "--run-dir", run};
  const auto cut = signal_mid_run(job, fresh_dir("e2e-requeue/first"), run, SIGUSR1);
  INFO(cut.err);
  if (finished_before_signal(cut)) return;
  REQUIRE(cut.exit_code == 10);
  CHECK_THAT(cut.err, Catch::Contains("requeue signal (train.requeue_signal)") &&
                          Catch::Contains("checkpoint saved to"));
  CHECK_THAT(read_text(run + "/run.json"), Catch::Contains("\"status\":\"requeue\""));
  auto again = job;
  again.insert(again.end(), {"--resume", run});
  const auto rest = run_trainer(again, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  check_resumed_records(cut.out, rest.out, expected);
}

TEST_CASE("checkpoint_every_steps saves within epochs, and a resume from one continues exactly", "[e2e][resume]") {
  const std::string dir = fresh_dir("e2e-step-checkpoints");
  const std::string experiment = write_dropout_experiment(dir, 640);  // 20 steps an epoch
  const auto full = run_trainer({"run", experiment, "--set", "train.epochs=2", "--set", "train.checkpoint_every_steps=7",
                                 "--set", "train.keep_checkpoints=20"},
                                dir);
  INFO(full.err);
  REQUIRE(full.exit_code == 0);
  const std::string checkpoints = dir + "/runs/e2e/full/checkpoints/";
  // Global steps 7, 14 (epoch 1), 21, 28, 35 (epoch 2, its steps 1, 8, 15), and each epoch's end.
  for (const char* name : {"epoch-0001-step-0000007.pt", "epoch-0001-step-0000014.pt", "epoch-0001.pt",
                           "epoch-0002-step-0000001.pt", "epoch-0002-step-0000008.pt", "epoch-0002-step-0000015.pt",
                           "epoch-0002.pt"})
    CHECK(fs::exists(checkpoints + name));
  CHECK_FALSE(fs::exists(checkpoints + "epoch-0001-step-0000020.pt"));
  const auto expected = parse_records(full.out);
  REQUIRE(expected.size() == 2);
  // The run cut at epoch 2's step 8: what the first epoch printed, then the resume's records.
  const auto rest = run_trainer({"run", "--resume", checkpoints + "epoch-0002-step-0000008.pt"}, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  const auto resumed = parse_records(rest.out);
  REQUIRE(resumed.size() == 1);
  CHECK(resumed[0].values == expected[1].values);
}

TEST_CASE("failures exit with their documented codes and write nothing", "[e2e][errors]") {
  const std::string dir = fresh_dir("e2e-errors");
  const std::string experiment = write_dropout_experiment(dir);

  SECTION("config error: 2, every problem with its line") {
    std::ofstream(dir + "/bad.yaml") << "experiment: {name: bad}\ntrain:\n  epochz: 3\n  batch_size: -1\n";
    const auto result = run_trainer({"run", dir + "/bad.yaml"}, dir);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(dir + "/bad.yaml:3:3: unknown key 'train.epochz' (did you mean 'train.epochs'?)"));
    CHECK_THAT(result.err, Catch::Contains(dir + "/bad.yaml:4:15: train.batch_size: expected an integer >= 1"));
    CHECK(result.out.empty());
    CHECK_FALSE(fs::exists(dir + "/runs"));
  }
  SECTION("a key the chosen optimizer does not take: 2, naming the keys it does") {
    const auto result = run_trainer({"run", experiment, "--set", "optimizer.name=sgd", "--set", "optimizer.rho=0.5"}, dir);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("unknown key 'optimizer.rho': sgd takes no 'rho' (rmsprop does); sgd takes: "
                                           "name, lr, weight_decay, clip_norm, fused, schedule"));
    CHECK_FALSE(fs::exists(dir + "/runs"));
  }
  SECTION("usage error: 2") {
    CHECK(run_trainer({"run"}, dir).exit_code == 2);
    CHECK(run_trainer({"frobnicate"}, dir).exit_code == 2);
    CHECK(run_trainer({"run", experiment, "--resume", dir + "/nowhere"}, dir).exit_code == 2);
  }
  SECTION("data error: 3, naming the file") {
    const auto result = run_trainer({"run", experiment, "--set", "data.dataset=mnist", "--set", "data.path=" + dir + "/no-mnist"}, dir);
    CHECK(result.exit_code == 3);
    CHECK_THAT(result.err, Catch::Contains(dir + "/no-mnist/train-images-idx3-ubyte"));
  }
  SECTION("divergence: 7 within check_finite_every steps, no checkpoint saved") {
    const auto result = run_trainer({"run", experiment, "--set", "optimizer.name=sgd", "--set", "optimizer.lr=1e30",
                                     "--set", "train.check_finite_every=3"}, dir);
    CHECK(result.exit_code == 7);
    CHECK_THAT(result.err, Catch::Contains("loss became NaN or infinite in epoch 1 by step 3 (checked every 3 "
                                           "steps); no checkpoint saved"));
    CHECK_THAT(result.err, Catch::Contains("no checkpoint was saved before it diverged"));
    CHECK(parse_records(result.out).empty());
    CHECK(fs::is_empty(dir + "/runs/e2e/full/checkpoints"));
  }
}

TEST_CASE("the largest batch size trains the whole data set in one step", "[e2e][errors]") {
  const std::string dir = fresh_dir("e2e-huge-batch");
  const auto result = run_trainer({"run", write_dropout_experiment(dir), "--set", "train.batch_size=1073741824", "--set",
                                   "train.epochs=1"}, dir);
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.err, Catch::Contains("global 1073741824; 1 step per epoch"));
}

TEST_CASE("a checkpoint that cannot be written is exit code 4, leaving the older ones intact", "[e2e][errors]") {
  const std::string dir = fresh_dir("e2e-disk-full");
  const std::string experiment = write_dropout_experiment(dir);
  // About 21k parameters and two NAdam moments: a checkpoint of ~260 KB.
  const std::vector<std::string> big{"--set", "model.layers.0.units=1024", "--set", "train.epochs=1"};
  std::vector<std::string> first{"run", experiment};
  first.insert(first.end(), big.begin(), big.end());
  REQUIRE(run_trainer(first, dir).exit_code == 0);
  const std::string run = dir + "/runs/e2e/full";
  // Resumed under a 50-100 KB file-size limit (sh counts 512- or 1024-byte
  // blocks): the log and metrics fit, the next checkpoint does not.
  std::string command = "ulimit -f 100; exec " + binary_path() + " run " + experiment + " --resume " + run;
  for (const auto& arg : {"model.layers.0.units=1024", "train.epochs=2"}) command += std::string(" --set ") + arg;
  const auto result = wait_trainer(spawn_process({"/bin/sh", "-c", command}, dir), dir);
  INFO(result.err);
  CHECK(result.exit_code == 4);
  CHECK_THAT(result.err, Catch::Contains("cannot write " + run + "/checkpoints/epoch-0002.pt") &&
                             Catch::Contains("File too large") && Catch::Contains("free on its file system"));
  for (const auto& entry : fs::directory_iterator(run + "/checkpoints"))
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
  CHECK_FALSE(fs::exists(run + "/checkpoints/epoch-0002.pt"));
  std::vector<std::string> eval{"eval", experiment, "--checkpoint", run + "/checkpoints/epoch-0001.pt"};
  eval.insert(eval.end(), big.begin(), big.end());
  CHECK(run_trainer(eval, dir).exit_code == 0);
}

TEST_CASE("resuming skips a damaged checkpoint for the newest good one, saying why", "[e2e][resume][errors]") {
  const std::string dir = fresh_dir("e2e-damaged");
  const std::string experiment = write_dropout_experiment(dir);
  // ~260 KB checkpoints: a 4 KiB hole lands inside a tensor.
  const std::vector<std::string> big{"--set", "model.layers.0.units=1024"};
  const auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), big.begin(), big.end());
    return args;
  };
  const auto full = run_trainer(with({"run", experiment}), dir);
  REQUIRE(full.exit_code == 0);
  const auto expected = parse_records(full.out);
  REQUIRE(run_trainer(with({"run", experiment, "--set", "train.epochs=2", "--set", "log.run_name=part"}), dir)
              .exit_code == 0);
  const std::string checkpoints = dir + "/runs/e2e/part/checkpoints/";
  {
    std::fstream file(checkpoints + "epoch-0002.pt", std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(fs::file_size(checkpoints + "epoch-0002.pt") / 2));
    file << std::string(4096, '\0');
  }
  SECTION("named, it is refused: exit 4") {
    const auto named = run_trainer(with({"run", experiment, "--resume", checkpoints + "epoch-0002.pt"}), dir);
    CHECK(named.exit_code == 4);
    CHECK_THAT(named.err, Catch::Contains(checkpoints + "epoch-0002.pt is damaged"));
  }
  SECTION("the run directory: the older checkpoint resumes, and the run ends as the uninterrupted one") {
    const auto rest = run_trainer(with({"run", experiment, "--resume", dir + "/runs/e2e/part"}), dir);
    INFO(rest.err);
    REQUIRE(rest.exit_code == 0);
    CHECK_THAT(rest.err, Catch::Contains("skipping checkpoint " + checkpoints + "epoch-0002.pt is damaged: its "
                                         "SHA-256 is not the one it was sealed with"));
    CHECK_THAT(rest.err, Catch::Contains("resumed from " + checkpoints + "epoch-0001.pt"));
    const auto resumed = parse_records(rest.out);
    REQUIRE(resumed.size() == 3);
    CHECK(resumed[0].number == 2);
    CHECK(resumed[2].values == expected[3].values);
  }
  SECTION("no good checkpoint left: exit 4 listing each") {
    std::filesystem::remove(checkpoints + "epoch-0001.pt");
    const auto none = run_trainer(with({"run", experiment, "--resume", dir + "/runs/e2e/part"}), dir);
    CHECK(none.exit_code == 4);
    CHECK_THAT(none.err, Catch::Contains("no usable checkpoint in " + checkpoints.substr(0, checkpoints.size() - 1)));
  }
}

namespace {

constexpr const char* kUnshare = "/usr/bin/unshare";  // util-linux

// Runs `script` as root of its own user and mount namespace, with a tmpfs
// of `size` mounted on $DISK: a real full disk, no privileges needed. The
// mount ends with the script, so the script reports what it finds.
CliResult on_small_tmpfs(const std::string& dir, const std::string& size, const std::string& script) {
  const std::string disk = dir + "/disk";
  fs::create_directories(disk);
  const std::string command = "mount -t tmpfs -o size=" + size + " tmpfs " + disk + " || exit 99\nDISK=" + disk +
                              "\nTRAINER=" + binary_path() + "\n" + script;
  return wait_trainer(spawn_process({kUnshare, "-rm", "/bin/sh", "-c", command}, dir), dir);
}

bool can_mount_tmpfs(const std::string& dir) {
  return fs::exists(kUnshare) &&
         wait_trainer(spawn_process({kUnshare, "-rm", "/bin/sh", "-c", "mount -t tmpfs tmpfs " + dir}, dir), dir)
                 .exit_code == 0;
}

}  // namespace

TEST_CASE("a full disk is exit 4 naming the file and the free space, leaving nothing half written", "[e2e][errors]") {
  const std::string dir = fresh_dir("e2e-tmpfs");
  if (!can_mount_tmpfs(dir)) {
    WARN("SKIPPED: needs unshare -rm and mount (user namespaces) to make a small tmpfs");
    return;
  }
  const std::string experiment = write_dropout_experiment(dir);
  SECTION("a checkpoint larger than the disk: the run stops, its temporary file removed") {
    // ~250k parameters and two NAdam moments: a checkpoint of about 3 MB on a 2 MB disk.
    const auto result = on_small_tmpfs(dir, "2m", "\"$TRAINER\" run " + experiment +
                                                      " --set log.dir=$DISK --set model.layers.0.units=12000\n"
                                                      "code=$?\nls -a $DISK/e2e/full/checkpoints\n"
                                                      "grep -c 'Epoch=1,' $DISK/e2e/full/train.log\nexit $code\n");
    INFO(result.err);
    CHECK(result.exit_code == 4);
    CHECK_THAT(result.err, Catch::Contains("/e2e/full/checkpoints/epoch-0001.pt: No space left on device") &&
                               Catch::Contains("MiB free on its file system"));
    CHECK(result.out.find(".tmp.") == std::string::npos);
    CHECK_THAT(result.out, Catch::EndsWith("\n1\n"));  // the epoch record reached the log
  }
  SECTION("a disk with a few KiB free: the log's failed write is exit 4 too, not an empty log") {
    const auto result = on_small_tmpfs(dir, "64k", "head -c 60000 /dev/zero > $DISK/filler || exit 98\n"
                                                   "exec \"$TRAINER\" run " + experiment + " --set log.dir=$DISK\n");
    INFO(result.err);
    CHECK(result.exit_code == 4);
    CHECK_THAT(result.err, Catch::Contains("No space left on device"));
  }
}

TEST_CASE("help, version, config and summary", "[e2e]") {
  const std::string dir = fresh_dir("e2e-misc");
  const auto help = run_trainer({"--help"}, dir);
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("run") && Catch::Contains("summary"));
  for (const char* command : {"run", "eval", "config", "summary", "devices", "bench"}) {
    INFO(command);
    const auto command_help = run_trainer({command, "--help"}, dir);
    CHECK(command_help.exit_code == 0);
    // The global options are listed with every subcommand's own.
    CHECK_THAT(command_help.out, Catch::Contains("Global options") && Catch::Contains("--log-level") &&
                                     Catch::Contains("--quiet"));
  }
  // ... and work after it.
  CHECK(run_trainer({"devices", "--log-level", "warn", "-q"}, dir).exit_code == 0);
  // bench takes --devices, as run does, as well as --device.
  const auto bench = run_trainer({"bench", "--devices", "cpu", "--shape", "8x8x8", "--repeat", "1"}, dir);
  INFO(bench.err);
  CHECK(bench.exit_code == 0);
  const auto version = run_trainer({"--version"}, dir);
  CHECK_THAT(version.out, Catch::Contains("LibTorch"));

  const std::string experiment = write_dropout_experiment(dir);
  const auto config = run_trainer({"config", experiment, "--set", "optimizer.lr=0.5"}, dir);
  CHECK(config.exit_code == 0);
  CHECK_THAT(config.out, Catch::Contains("  lr: 0.5\n") && Catch::Contains("batch_size: 32"));

  const auto summary = run_trainer({"summary", experiment, "--set", "data.synthetic.vocabulary=30982", "--set",
                                    "data.synthetic.shape=[300]", "--set", "data.synthetic.classes=46", "--set",
                                    R"(model.layers=[{type: embedding, output_dim: 7}, {type: conv1d, filters: 64, kernel_size: 5, activation: relu}, {type: maxpool1d}, {type: conv1d, filters: 32, kernel_size: 3, activation: relu}, {type: maxpool1d}, {type: flatten}, {type: dense, units: classes, activation: softmax}])"},
                                   dir);
  INFO(summary.err);
  CHECK(summary.exit_code == 0);
  for (const char* count : {"216,874", "2,304", "6,176", "107,502", "Total params: 332,856"})
    CHECK_THAT(summary.out, Catch::Contains(count));
}
