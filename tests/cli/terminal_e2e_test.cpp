// What a person at a terminal sees: the progress bar in a pseudo-terminal of
// a given width, and the run's log for those who look later.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "cli_runner.h"
#include "experiment_files.h"

using namespace trainer::testing;

namespace {

struct TerminalRun {
  int exit_code = -1;
  std::string screen;  // everything written to the terminal (stderr)
};

// Runs trainer with stderr on a pseudo-terminal `columns` wide, stdout to a file.
TerminalRun run_in_terminal(const std::vector<std::string>& args, const std::string& dir, int columns) {
  winsize size{};
  size.ws_row = 24;
  size.ws_col = static_cast<unsigned short>(columns);
  int terminal = -1;
  std::vector<std::string> argv_storage{binary_path()};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out_path = dir + "/stdout";
  const pid_t pid = forkpty(&terminal, nullptr, nullptr, &size);
  if (pid == 0) {
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    unsetenv("COLUMNS");
    execv(argv[0], argv.data());
    _exit(127);
  }
  TerminalRun run;
  REQUIRE(pid > 0);
  char buffer[4096];
  for (ssize_t n; (n = read(terminal, buffer, sizeof buffer)) > 0;) run.screen.append(buffer, static_cast<size_t>(n));
  close(terminal);
  int status = 0;
  waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

// The progress bar's lines as drawn: split at \r and \n, escape sequences removed.
std::vector<std::string> bar_lines(const std::string& screen) {
  const std::string plain = std::regex_replace(screen, std::regex("\x1b\\[[0-9;]*[A-Za-z]"), "");
  std::vector<std::string> lines;
  std::string line;
  for (const char c : plain + "\n") {
    if (c != '\r' && c != '\n') {
      line += c;
      continue;
    }
    if (line.rfind("Epoch ", 0) == 0 || line.rfind("Valid ", 0) == 0) lines.push_back(line);
    line.clear();
  }
  return lines;
}

// 40,000 samples in batches of 16: an epoch long enough to watch.
std::string long_experiment(const std::string& dir) {
  MlpExperiment spec;
  spec.name = "bar";
  spec.seed = 1;
  spec.samples = 40000;
  spec.valid_samples = 40000;
  spec.features = 64;
  spec.units = 64;
  spec.softmax = true;
  spec.file = "experiment.yaml";
  spec.run_name = "r";
  spec.extra = "metrics: [accuracy]\ntrain: {epochs: 1, batch_size: 16}\n";
  return write_mlp_experiment(dir, spec);
}

}  // namespace

TEST_CASE("the progress bar fits the terminal and shows training and validation", "[e2e][progress]") {
  for (const int columns : {40, 120}) {
    DYNAMIC_SECTION(columns << " columns") {
      const std::string dir = fresh_dir("e2e-terminal-" + std::to_string(columns));
      const TerminalRun run = run_in_terminal({"run", long_experiment(dir)}, dir, columns);
      INFO(run.screen);
      REQUIRE(run.exit_code == 0);
      const auto lines = bar_lines(run.screen);
      int training = 0, validation = 0;
      for (const auto& line : lines) {
        INFO(line);
        CHECK(static_cast<int>(line.size()) < columns);
        training += line.rfind("Epoch 1/1", 0) == 0;
        validation += line.rfind("Valid 1/1", 0) == 0;
      }
      CHECK(training >= 2);
      CHECK(validation >= 1);
      if (columns == 120) {
        CHECK_THAT(lines.front(), Catch::Contains("/2500 ") && Catch::Contains(" ETA ") && Catch::Contains("loss ") &&
                                      Catch::Contains("accuracy ") && Catch::Contains("samples/s"));
        CHECK_THAT(lines.back(), Catch::Contains("[============================]"));
      }
    }
  }
}

TEST_CASE("in a log file, progress is plain lines every progress_seconds, without carriage returns or escapes",
          "[e2e][progress]") {
  const std::string dir = fresh_dir("e2e-progress-lines");
  // stderr is a file here, as in a batch job's log.
  // 2,500 steps of a few hundred microseconds: several lines at 0.02 s.
  const auto result = run_trainer({"run", long_experiment(dir), "--set", "log.progress_seconds=0.02"}, dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(std::regex_search(result.err, std::regex(R"(\[\d\d:\d\d:\d\d progress\] Epoch 1/1 step \d+/2500 \d\d:\d\d ETA )"
                                                 R"(\d\d:\d\d loss \d\.\d{4} accuracy \d\.\d{4} \d+ samples/s\n)")));
  CHECK(result.err.find('\r') == std::string::npos);
  CHECK(result.err.find('\x1b') == std::string::npos);
  CHECK_THAT(result.out, !Catch::Contains("progress]"));  // the records on stdout stay as they are

  const auto never = run_trainer({"run", long_experiment(dir), "--set", "data.synthetic.train_samples=4000", "--set",
                                  "data.synthetic.valid_samples=4000", "--set", "log.progress_seconds=0.05", "--set",
                                  "log.progress=never", "--set", "log.run_name=quiet"},
                                 dir);
  REQUIRE(never.exit_code == 0);
  CHECK_THAT(never.err, !Catch::Contains("progress]"));
}

TEST_CASE("the run's train.log also holds what was logged before it existed", "[e2e][log]") {
  const std::string dir = fresh_dir("e2e-early-log");
  const auto result = run_trainer({"--log-level", "warn", "run", long_experiment(dir), "--set",
                                   "data.synthetic.train_samples=64", "--set", "data.synthetic.valid_samples=64"},
                                  dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.err, !Catch::Contains("data: synthetic"));  // --log-level warn on the console
  const std::string log = read_text(dir + "/runs/bar/r/train.log");
  CHECK_THAT(log, Catch::Contains("info] data: synthetic, 64 train / 64 valid samples"));
  CHECK(log.find("data: synthetic") < log.find(" on LibTorch "));  // in the order they happened
}

TEST_CASE("the thread count names what decided it", "[e2e][threads]") {
  const std::string dir = fresh_dir("e2e-threads");
  const std::vector<std::string> args{"run", long_experiment(dir), "--set", "cpu_threads=0", "--set",
                                      "data.synthetic.train_samples=64", "--set", "data.synthetic.valid_samples=64"};
  auto result = run_trainer(args, dir, {"OMP_NUM_THREADS=1"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.err, Catch::Contains("1 intra-op thread (OMP_NUM_THREADS=1)"));
  result = run_trainer(args, dir, {"OMP_NUM_THREADS=", "SLURM_CPUS_PER_TASK=1"});
  CHECK_THAT(result.err, Catch::Contains("1 intra-op thread (SLURM_CPUS_PER_TASK=1)"));
  result = run_trainer(args, dir, {"OMP_NUM_THREADS=two"});
  CHECK_THAT(result.err, Catch::Contains("OMP_NUM_THREADS='two' is not a positive count; ignored"));
}
