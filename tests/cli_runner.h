#pragma once
// Runs the real trainer binary for end-to-end tests.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test_paths.h"

extern char** environ;

namespace trainer::testing {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Starts `argv` with stdout/stderr to files in `dir` (named
// `tag`stdout, `tag`stderr), the environment with `env` ("NAME=value")
// replacing or adding variables; returns the pid.
inline pid_t spawn_process(std::vector<std::string> argv_storage, const std::string& dir,
                           const std::vector<std::string>& env = {}, const std::string& tag = "") {
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, (dir + "/" + tag + "stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, (dir + "/" + tag + "stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  const auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=') + 1); };
  std::vector<std::string> env_storage(env.begin(), env.end());
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string inherited = *entry;
    bool replaced = false;
    for (const auto& given : env) replaced = replaced || name_of(given) == name_of(inherited);
    if (!replaced) env_storage.push_back(inherited);
  }
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid = -1;
  posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

inline pid_t spawn_trainer(const std::vector<std::string>& args, const std::string& dir,
                           const std::vector<std::string>& env = {}, const std::string& tag = "") {
  std::vector<std::string> argv{binary_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return spawn_process(argv, dir, env, tag);
}

// What an ended process left: its exit code (128 + the signal that killed
// it) and the output spawn_process sent to files.
inline void fill_result(CliResult& result, int status, const std::string& dir, const std::string& tag) {
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_text(dir + "/" + tag + "stdout");
  result.err = read_text(dir + "/" + tag + "stderr");
}

inline CliResult wait_trainer(pid_t pid, const std::string& dir, const std::string& tag = "") {
  int status = 0;
  waitpid(pid, &status, 0);
  CliResult result;
  fill_result(result, status, dir, tag);
  return result;
}

// wait_trainer with a deadline, for a run that only a signal ends: past
// `seconds` the process is killed (SIGKILL) and the result says so, so that a
// test of a broken signal path fails instead of hanging the suite.
struct BoundedResult : CliResult {
  bool killed_at_deadline = false;
};

inline BoundedResult wait_trainer_within(pid_t pid, const std::string& dir, int seconds, const std::string& tag = "") {
  BoundedResult result;
  int status = 0;
  pid_t ended = 0;
  for (int waited_ms = 0; (ended = waitpid(pid, &status, WNOHANG)) == 0 && waited_ms < seconds * 1000;
       waited_ms += 50)
    usleep(50 * 1000);
  if (ended == 0) {
    result.killed_at_deadline = true;
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  fill_result(result, status, dir, tag);
  return result;
}

inline CliResult run_trainer(const std::vector<std::string>& args, const std::string& dir,
                             const std::vector<std::string>& env = {}) {
  return wait_trainer(spawn_trainer(args, dir, env), dir);
}

// Whether the child `pid` has ended, without reaping it (wait_trainer still can).
inline bool child_has_ended(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Starts `args` in `dir` and, once the run in `run_dir` has finished its
// first epoch (its metrics.jsonl holds a record), sends `signal`. It lands
// in the second epoch: the callers make that thousands of steps long, so a
// poll every 2 ms catches it on a fast machine as on two loaded cores (a
// fixed delay after the start was too short for one and too long for the
// other).
inline CliResult signal_mid_run(const std::vector<std::string>& args, const std::string& dir,
                                const std::string& run_dir, int signal) {
  const pid_t pid = spawn_trainer(args, dir);
  const std::string metrics = run_dir + "/metrics.jsonl";
  struct stat written {};
  // Within the tests' 300 s limit; a run that never gets there ends below with what it said.
  for (int waited_ms = 0; waited_ms < 240 * 1000 && !child_has_ended(pid); waited_ms += 2) {
    if (stat(metrics.c_str(), &written) == 0 && written.st_size > 0) break;
    usleep(2000);
  }
  kill(pid, signal);
  return wait_trainer(pid, dir);
}

// Whether a run meant to be cut by a signal had already finished (exit 0)
// when the signal came: then the test says it skipped (ctest counts it so),
// with what it could not check (`nothing`), and ends.
inline bool finished_before_signal(const CliResult& run, const std::string& nothing = "nothing to resume") {
  if (run.exit_code != 0) return false;
  WARN("SKIPPED: the run finished before the signal arrived; " << nothing);
  return true;
}

// The number after "KEY": in the binary's --json output.
inline double number_after(const std::string& text, const std::string& key) {
  const std::regex pattern("\"" + key + "\":([-0-9.e+]+)");
  std::smatch m;
  REQUIRE(std::regex_search(text, m, pattern));
  return std::stod(m[1].str());
}

// What Python's json module (a parser that is not the one that wrote the
// text) reads at EXPRESSION, a Python expression of the parsed document `d`
// ("d['experiment']"), as UTF-8; "<unparsable>" when the text is not JSON.
// Callers check system_python_has("json") first.
inline std::string python_reads_json(const std::string& dir, const std::string& json_text,
                                     const std::string& expression) {
  const std::string document = dir + "/python-reads.json";
  std::ofstream(document) << json_text;
  const std::string script = "import json,sys\ntry: d = json.loads(open(sys.argv[1], encoding='utf-8').read())\n"
                             "except ValueError: sys.stdout.write('<unparsable>'); sys.exit(0)\n"
                             "sys.stdout.buffer.write(str(" + expression + ").encode('utf-8'))\n";
  std::ofstream(dir + "/python-reads.py") << script;
  const std::optional<std::string> out = system_python_output(dir + "/python-reads.py " + document);
  REQUIRE(out.has_value());
  return *out;
}

}  // namespace trainer::testing
