// What trainer must never do with bad input: replace what is not its own
// (device nodes, FIFOs, links), read a file that never ends, or let two
// processes write one run. Each case is an input a probe once broke.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

#include "cli_runner.h"
#include "experiment_files.h"
#include "util/process_lock.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

// A trained run of a small MLP: DIR/runs/guard/run, two epochs.
std::string trained_run(const std::string& dir) {
  const std::string experiment = write_mlp_experiment(dir, small_mlp("guard", "run", "train: {epochs: 2}\n"));
  const auto result = run_trainer({"run", experiment}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return dir + "/runs/guard/run";
}

bool is_fifo(const std::string& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISFIFO(info.st_mode);
}

}  // namespace

TEST_CASE("writers refuse to replace FIFOs, devices and links, and export checks both files first", "[e2e][guard]") {
  const std::string dir = fresh_dir("e2e-guard-writers");
  const std::string run = trained_run(dir);
  REQUIRE(::mkfifo((dir + "/pipe.safetensors").c_str(), 0644) == 0);
  const auto to_fifo =
      run_trainer({"export", "--checkpoint", run, "-o", dir + "/pipe.safetensors"}, dir);
  CHECK(to_fifo.exit_code == 4);
  CHECK_THAT(to_fifo.err, Catch::Contains(dir + "/pipe.safetensors exists and is a FIFO"));
  CHECK(is_fifo(dir + "/pipe.safetensors"));
  CHECK_FALSE(fs::exists(dir + "/pipe.config.yaml"));

  // The config beside the weights is checked before the weights are written.
  REQUIRE(::mkfifo((dir + "/w.config.yaml").c_str(), 0644) == 0);
  const auto config_fifo = run_trainer({"export", "--checkpoint", run, "-o", dir + "/w.safetensors"}, dir);
  CHECK(config_fifo.exit_code == 4);
  CHECK_FALSE(fs::exists(dir + "/w.safetensors"));

  fs::create_symlink(dir + "/elsewhere.html", dir + "/link.html");
  const auto to_link = run_trainer({"report", run, "-o", dir + "/link.html"}, dir);
  CHECK(to_link.exit_code == 4);
  CHECK_THAT(to_link.err, Catch::Contains(dir + "/link.html is a symbolic link to " + dir + "/elsewhere.html"));
  CHECK(fs::is_symlink(fs::symlink_status(dir + "/link.html")));
  CHECK_FALSE(fs::exists(dir + "/elsewhere.html"));

  const auto to_stdout = run_trainer({"report", run, "-o", "-"}, dir);
  CHECK(to_stdout.exit_code == 0);
  CHECK_THAT(to_stdout.out, Catch::StartsWith("<!DOCTYPE html>") && Catch::EndsWith("</html>\n"));

  if (::geteuid() != 0) {
    WARN("SKIPPED: a device node needs root to make (mknod); the FIFO cases above ran");
    return;
  }
  // A device node of its own (the null device's numbers), never the system's /dev/null.
  REQUIRE(::mknod((dir + "/null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
  const auto to_device = run_trainer({"export", "--checkpoint", run, "-o", dir + "/null"}, dir);
  CHECK(to_device.exit_code == 4);
  CHECK_THAT(to_device.err, Catch::Contains(dir + "/null exists and is a character device"));
  struct stat info {};
  REQUIRE(::lstat((dir + "/null").c_str(), &info) == 0);
  CHECK(S_ISCHR(info.st_mode));
  CHECK_FALSE(fs::exists(dir + "/null.config.yaml"));
}

TEST_CASE("files that never end are refused by kind before they are read", "[e2e][guard]") {
  const std::string dir = fresh_dir("e2e-guard-readers");
  REQUIRE(::mkfifo((dir + "/config.yaml").c_str(), 0644) == 0);
  // A FIFO without a writer would block a plain open for ever.
  const auto fifo = run_trainer({"config", dir + "/config.yaml"}, dir);
  CHECK(fifo.exit_code == 2);
  CHECK_THAT(fifo.err, Catch::Contains(dir + "/config.yaml is a FIFO, not a regular file"));

  const auto device = run_trainer({"config", "/dev/zero"}, dir);
  CHECK(device.exit_code == 2);
  CHECK_THAT(device.err, Catch::Contains("/dev/zero is a character device, not a regular file"));

  std::ofstream(dir + "/child.yaml") << "extends: " << dir << "/config.yaml\nexperiment: {name: child}\n";
  const auto extends = run_trainer({"config", dir + "/child.yaml"}, dir);
  CHECK(extends.exit_code == 2);
  CHECK_THAT(extends.err, Catch::Contains("extends: " + dir + "/config.yaml is a FIFO, not a regular file"));

  // A regular file past the cap of its kind stops at the cap.
  std::ofstream(dir + "/huge.yaml") << "# " << std::string(5 << 20, 'x') << "\n";
  const auto huge = run_trainer({"config", dir + "/huge.yaml"}, dir);
  CHECK(huge.exit_code == 2);
  CHECK_THAT(huge.err, Catch::Contains(dir + "/huge.yaml is larger than 4 MiB, the most a config file may hold"));

  // A checkpoint that is a FIFO: exit 4 naming it.
  const std::string run = trained_run(dir);
  REQUIRE(::mkfifo((dir + "/ckpt.pt").c_str(), 0644) == 0);
  const auto checkpoint = run_trainer({"eval", run + "/config.yaml", "--checkpoint", dir + "/ckpt.pt"}, dir);
  CHECK(checkpoint.exit_code == 4);
  CHECK_THAT(checkpoint.err, Catch::Contains(dir + "/ckpt.pt is a FIFO, not a regular file"));
}

TEST_CASE("a run directory is written by one process at a time", "[e2e][guard]") {
  const std::string dir = fresh_dir("e2e-guard-lock");
  const std::string run = trained_run(dir);
  const std::string metrics = read_text(run + "/metrics.jsonl"), log = read_text(run + "/train.log");
  {
    // This test process plays the first trainer still training the run.
    const trainer::ProcessLock held = trainer::ProcessLock::take(run + "/run.lock", "the test's run");
    const auto second = run_trainer({"run", "--resume", run, "--set", "train.epochs=4"}, dir);
    CHECK(second.exit_code == 2);
    CHECK_THAT(second.err, Catch::Contains("run directory " + run + " is in use by pid " + std::to_string(::getpid())));
    CHECK(read_text(run + "/metrics.jsonl") == metrics);
    CHECK(read_text(run + "/train.log") == log);
  }
  // Released when its holder ends (here: goes out of scope), the run resumes.
  const auto resumed = run_trainer({"run", "--resume", run, "--set", "train.epochs=3"}, dir);
  INFO(resumed.err);
  CHECK(resumed.exit_code == 0);
  const std::string after = read_text(run + "/metrics.jsonl");
  CHECK(std::count(after.begin(), after.end(), '\n') == 3);
}

TEST_CASE("a live run refuses a second writer, and SIGHUP saves and stops it like SIGTERM", "[e2e][guard][signal]") {
  const std::string dir = fresh_dir("e2e-guard-hup");
  // Far more epochs than the test waits for: only the signal ends this run,
  // however slow or busy the machine (a two-epoch run used to finish first
  // under load, and the test could only skip).
  MlpExperiment spec = small_mlp("long", "run", "train: {epochs: 100000, batch_size: 32}\n");
  spec.samples = 60000;
  spec.features = 64;
  spec.units = 256;
  const std::string experiment = write_mlp_experiment(dir, spec);
  const std::string run = dir + "/runs/long/run";
  const pid_t pid = spawn_trainer({"run", experiment}, dir);
  for (int i = 0; i < 1200 && !fs::exists(run + "/run.json"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  const auto second = wait_trainer(spawn_trainer({"run", "--resume", run}, dir, {}, "second-"), dir, "second-");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGHUP);
  const auto cut = wait_trainer_within(pid, dir, 120);
  INFO(cut.err);
  REQUIRE_FALSE(cut.killed_at_deadline);
  CHECK(second.exit_code == 2);
  CHECK_THAT(second.err, Catch::Contains("is in use by pid " + std::to_string(pid) + " on host"));
  REQUIRE(cut.exit_code == 9);
  CHECK_THAT(cut.err, Catch::Contains("checkpoint saved to"));
  const std::string record = read_text(run + "/run.json");
  CHECK_THAT(record, Catch::Contains("\"status\":\"interrupted\""));
}

TEST_CASE("a closed stdout does not end the run: the records go on into train.log", "[e2e][guard][signal]") {
  const std::string dir = fresh_dir("e2e-guard-pipe");
  const std::string experiment = write_mlp_experiment(dir, small_mlp("piped", "run", "train: {epochs: 3}\n"));
  // `true` exits at once: every epoch record meets a pipe nobody reads.
  const pid_t pid = spawn_process(
      {"/bin/sh", "-c", "(\"$0\" run \"$1\"; echo \"trainer exit $?\" >&2) | true", binary_path(), experiment}, dir);
  const auto piped = wait_trainer(pid, dir);
  INFO(piped.err);
  CHECK_THAT(piped.err, Catch::Contains("trainer exit 0"));
  CHECK_THAT(piped.err, Catch::Contains("standard output was closed (EPIPE)"));
  const std::string metrics = read_text(dir + "/runs/piped/run/metrics.jsonl");
  CHECK(std::count(metrics.begin(), metrics.end(), '\n') == 3);
  CHECK_THAT(read_text(dir + "/runs/piped/run/train.log"), Catch::Contains("Epoch=3,"));
}

TEST_CASE("a stdout that cannot be written fails a command that prints, not a run", "[e2e][guard]") {
  const std::string dir = fresh_dir("e2e-guard-full-stdout");
  const std::string experiment = write_mlp_experiment(dir, small_mlp("full", "run", "train: {epochs: 2}\n"));
  // /dev/full refuses every write with ENOSPC, as a full disk does.
  const auto to_full = [&](const std::vector<std::string>& args) {
    std::vector<std::string> argv{"/bin/sh", "-c", "exec \"$0\" \"$@\" > /dev/full", binary_path()};
    argv.insert(argv.end(), args.begin(), args.end());
    return wait_trainer(spawn_process(argv, dir), dir);
  };
  const auto run = to_full({"run", experiment});
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.err, Catch::Contains("standard output cannot be written (No space left on device): epoch records "
                                      "go on into train.log"));
  CHECK(run.err.find("standard output cannot be written") == run.err.rfind("standard output cannot be written"));
  CHECK_THAT(read_text(dir + "/runs/full/run/train.log"), Catch::Contains("Epoch=2,"));
  for (const std::vector<std::string>& printing :
       {std::vector<std::string>{"runs", dir + "/runs", "--json"}, {"config", experiment},
        {"eval", "--checkpoint", dir + "/runs/full/run", "--json"}}) {
    const auto result = to_full(printing);
    INFO(printing[0] << ": " << result.err);
    CHECK(result.exit_code == 4);
    CHECK_THAT(result.err, Catch::Contains("trainer: error: standard output could not be written (No space left on "
                                           "device): what this command printed is incomplete"));
  }
}

TEST_CASE("a synthetic data set too large for memory is exit 6 naming its size and keys, before a run directory",
          "[e2e][guard][memory]") {
  const std::string dir = fresh_dir("e2e-guard-synthetic-size");
  // 10^14 samples of 10 floats: 3.6 PiB, past any machine's address space.
  MlpExperiment huge = small_mlp("huge", "r");
  huge.samples = 100'000'000'000'000;
  huge.features = 10;
  const auto result = run_trainer({"run", write_mlp_experiment(dir, huge)}, dir);
  INFO(result.err);
  CHECK(result.exit_code == 6);
  CHECK_THAT(result.err, Catch::Contains("data.synthetic: 100000000000000 samples of 10 floats (3725290.3 GiB)") &&
                             Catch::Contains("data.synthetic.train_samples") && !Catch::Contains("alloc_cpu"));
  CHECK_FALSE(std::filesystem::exists(dir + "/runs/huge"));
}

TEST_CASE("memory the system refuses on the CPU is exit 6 with the figures, and run.json holds no stack frames",
          "[e2e][guard][memory]") {
  const std::string dir = fresh_dir("e2e-guard-address-space");
  // A batch of 40,000 rows through a 16,384-unit layer: its output alone is
  // 2.6 GB, refused under a 3 GB address space before any arithmetic (two
  // 4096-unit layers on 2048 features took half a minute of it first).
  MlpExperiment big;
  big.name = "big";
  big.seed = 1;
  big.samples = 40000;
  big.features = 16;
  big.units = 16384;
  big.softmax = true;
  big.run_name = "r";
  big.extra = "train: {epochs: 1, batch_size: 40000}\n";
  const std::string experiment = write_mlp_experiment(dir, big);
  const std::string limit = "ulimit -v 3000000 && exec \"$0\" \"$@\"";
  const auto starts = wait_trainer(spawn_process({"/bin/sh", "-c", limit, binary_path(), "--version"}, dir), dir);
  if (starts.exit_code != 0) {
    WARN("SKIPPED: this build of trainer cannot start under a 3 GB address-space limit");
    return;
  }
  const auto result =
      wait_trainer(spawn_process({"/bin/sh", "-c", limit, binary_path(), "run", experiment}, dir), dir);
  INFO(result.err);
  CHECK(result.exit_code == 6);
  CHECK_THAT(result.err, Catch::Contains("cpu: out of memory (peak so far") && Catch::Contains("hint: lower train.batch_size"));
  CHECK(result.err.find("please report") == std::string::npos);
  const std::string record = read_text(dir + "/runs/big/r/run.json");
  CHECK_THAT(record, Catch::Contains("\"exit_code\":6") && Catch::Contains("cpu: out of memory"));
  CHECK(record.find("frame #") == std::string::npos);
}
