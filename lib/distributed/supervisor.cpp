#include "distributed/supervisor.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <thread>

#include "distributed/launch_env.h"
#include "distributed/rank_messages.h"
#include "distributed/warning_relay.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/signals.h"

extern char** environ;

namespace trainer {
namespace {

using Clock = std::chrono::steady_clock;

struct Rank {
  int rank = 0;
  pid_t pid = -1;
  bool running = false;
  bool killed_by_us = false;
  bool was_stopped = false;  // found stopped (SIGSTOP, a debugger) when it was terminated
  int status = 0;            // waitpid status once ended
  Clock::time_point ended;
};

// Environment for one rank: the supervisor's, with the launch variables set.
std::vector<std::string> rank_environment(const SupervisorPlan& plan, int local_rank, int port,
                                          const std::string& message_file, const std::string& warnings_file) {
  const std::vector<std::string> ours{"RANK",
                                      "WORLD_SIZE",
                                      "LOCAL_RANK",
                                      "LOCAL_WORLD_SIZE",
                                      "MASTER_ADDR",
                                      "MASTER_PORT",
                                      "TRAINER_SUPERVISED",
                                      kRunDirVariable,
                                      kRankMessageVariable,
                                      kRankWarningsVariable,
                                      "TORCHELASTIC_USE_AGENT_STORE"};
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const std::string name = text.substr(0, text.find('='));
    if (std::find(ours.begin(), ours.end(), name) == ours.end()) env.push_back(text);
  }
  const int rank = plan.node_rank * plan.local_ranks + local_rank;
  env.push_back("RANK=" + std::to_string(rank));
  env.push_back("WORLD_SIZE=" + std::to_string(plan.nnodes * plan.local_ranks));
  env.push_back("LOCAL_RANK=" + std::to_string(local_rank));
  env.push_back("LOCAL_WORLD_SIZE=" + std::to_string(plan.local_ranks));
  env.push_back("MASTER_ADDR=" + plan.master_addr);
  env.push_back("MASTER_PORT=" + std::to_string(port));
  env.push_back("TRAINER_SUPERVISED=1");
  // LibTorch's glog lines repeat, unformatted, what the rank's own error
  // message says (a port in use prints three); GLOG_minloglevel set by the
  // user wins.
  if (std::getenv("GLOG_minloglevel") == nullptr) env.push_back("GLOG_minloglevel=3");
  if (!plan.run_dir.empty()) env.push_back(std::string(kRunDirVariable) + "=" + plan.run_dir);
  if (!message_file.empty()) env.push_back(std::string(kRankMessageVariable) + "=" + message_file);
  if (!warnings_file.empty()) env.push_back(std::string(kRankWarningsVariable) + "=" + warnings_file);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

pid_t start_rank(std::vector<std::string> argv, std::vector<std::string> env) {
  // Everything exec needs is built before fork: the child may only make
  // async-signal-safe calls.
  auto argv_pointers = pointers(argv);
  auto env_pointers = pointers(env);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw IoError(std::string("cannot start a rank: fork failed: ") + std::strerror(errno));
  if (pid > 0) return pid;
  // Its own process group: a Ctrl-C at the terminal reaches the supervisor
  // alone, which forwards it once (twice would mean "exit without saving").
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(static_cast<int>(ExitCode::kDistributed));
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigaction(SIGINT, &default_action, nullptr);
  sigaction(SIGTERM, &default_action, nullptr);
  execve("/proc/self/exe", argv_pointers.data(), env_pointers.data());
  _exit(127);
}

std::string describe_end(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  const int signal = WTERMSIG(status);
  const char* name = strsignal(signal);
  return "was killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return static_cast<int>(ExitCode::kDistributed);
}

// Whether `pid` is stopped (state T or t in /proc/PID/stat).
bool is_stopped(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t name_end = text.rfind(')');
  return name_end != std::string::npos && name_end + 2 < text.size() &&
         (text[name_end + 2] == 'T' || text[name_end + 2] == 't');
}

bool failed(int status) {
  if (!WIFEXITED(status)) return true;
  const int code = WEXITSTATUS(status);
  return code != 0 && code != static_cast<int>(ExitCode::kInterrupted) && code != static_cast<int>(ExitCode::kRequeue);
}

// The rank that caused the failure: the first to fail of its own accord,
// preferring a real cause (an error, a signal from outside) over the peers
// that only noticed it (exit code 8).
const Rank* root_cause(const std::vector<Rank>& ranks) {
  const Rank* best = nullptr;
  auto better = [](const Rank& a, const Rank* b) {
    if (b == nullptr) return true;
    const bool a_noticed = WIFEXITED(a.status) && WEXITSTATUS(a.status) == static_cast<int>(ExitCode::kDistributed);
    const bool b_noticed = WIFEXITED(b->status) && WEXITSTATUS(b->status) == static_cast<int>(ExitCode::kDistributed);
    if (a_noticed != b_noticed) return !a_noticed;
    return a.ended < b->ended;
  };
  for (const auto& rank : ranks)
    if (!rank.running && !rank.killed_by_us && failed(rank.status) && better(rank, best)) best = &rank;
  return best;
}

bool noticed_a_peer(const Rank& rank) {
  return WIFEXITED(rank.status) && WEXITSTATUS(rank.status) == static_cast<int>(ExitCode::kDistributed);
}

// A rank found stopped after the others noticed a failure is the one that
// hung.
// Only a rank found stopped is certain: exit code 8 is also a rank's own
// start-up failure (a port in use), which leaves the others waiting.
const Rank* stuck_rank(const std::vector<Rank>& ranks, const Rank& cause) {
  if (!noticed_a_peer(cause)) return nullptr;
  for (const auto& rank : ranks)
    if (rank.killed_by_us && rank.was_stopped) return &rank;
  return nullptr;
}

void report_failure(const SupervisorPlan& plan, const std::vector<Rank>& ranks, const Rank& cause) {
  const auto how_ended = [](const Rank& rank) {
    if (!rank.killed_by_us) return describe_end(rank.status);
    return std::string(rank.was_stopped ? "was found stopped (SIGSTOP) and " : "") + "was terminated by the supervisor";
  };
  if (const Rank* stuck = stuck_rank(ranks, cause)) {
    // The headline names the rank that hung, not the one that noticed.
    std::string others;
    for (const auto& rank : ranks)
      if (&rank != stuck)
        others += (others.empty() ? "" : ", ") + std::string("rank ") + std::to_string(rank.rank) + " " +
                  how_ended(rank);
    std::fprintf(stderr, "trainer: rank %d (pid %d) stopped responding and %s; %s\n", stuck->rank,
                 static_cast<int>(stuck->pid), how_ended(*stuck).c_str(), others.c_str());
  } else {
    std::string others;
    for (const auto& rank : ranks) {
      if (&rank == &cause) continue;
      others += (others.empty() ? "" : ", ") + std::string("rank ") + std::to_string(rank.rank) + " " +
                how_ended(rank);
    }
    std::fprintf(stderr, "trainer: rank %d (pid %d) %s; %s\n", cause.rank, static_cast<int>(cause.pid),
                 describe_end(cause.status).c_str(), others.empty() ? "" : others.c_str());
  }
  if (plan.run_dir.empty()) {
    std::fprintf(stderr, "trainer: its log is worklog.%d in the run directory rank 0 created\n", cause.rank);
    return;
  }
  const std::string path = plan.run_dir + "/worklog." + std::to_string(cause.rank);
  const std::string tail = last_lines(path, 12);
  if (tail.empty()) {
    std::fprintf(stderr, "trainer: rank %d wrote nothing to %s (it failed before opening it; its message is above)\n",
                 cause.rank, path.c_str());
    return;
  }
  std::fprintf(stderr, "trainer: last lines of %s:\n", path.c_str());
  size_t start = 0;
  while (start < tail.size()) {
    const size_t end = tail.find('\n', start);
    std::fprintf(stderr, "  | %s\n", tail.substr(start, end - start).c_str());
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

// The ranks' last messages, each text once: the failure's cause first, then
// in the order the ranks ended.
void print_rank_messages(const std::vector<Rank>& ranks, const Rank* cause, const RankMessageFiles& files) {
  std::vector<const Rank*> order;
  for (const auto& rank : ranks) order.push_back(&rank);
  std::stable_sort(order.begin(), order.end(), [&](const Rank* a, const Rank* b) {
    if ((a == cause) != (b == cause)) return a == cause;
    return a->ended < b->ended;
  });
  std::vector<RankMessage> messages;
  for (const Rank* rank : order) messages.push_back({rank->rank, files.read(rank->rank)});
  const std::string text = merged_rank_messages(messages);
  std::fwrite(text.data(), 1, text.size(), stderr);
}

// Rank 0 writes config.yaml first thing once the run starts: a directory
// without one holds only the start-up failure's worklogs, already shown.
void remove_unstarted_run_dir(const std::string& run_dir) {
  std::error_code error;
  if (run_dir.empty() || std::filesystem::exists(run_dir + "/config.yaml", error) ||
      !std::filesystem::is_directory(run_dir, error))
    return;
  if (std::filesystem::remove_all(run_dir, error) != static_cast<std::uintmax_t>(-1) && !error)
    std::fprintf(stderr, "trainer: removed %s: the run never started\n", run_dir.c_str());
}

}  // namespace

int find_free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw IoError(std::string("cannot open a socket: ") + std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  close(fd);
  if (!ok) throw IoError(std::string("cannot find a free port: ") + std::strerror(errno));
  return ntohs(address.sin_port);
}

std::string last_lines(const std::string& path, int count) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (static_cast<int>(lines.size()) > count) lines.pop_front();
  }
  std::string out;
  for (const auto& line : lines) out += (out.empty() ? "" : "\n") + line;
  return out;
}

int supervise(const SupervisorPlan& plan) {
  const int port = plan.master_port > 0 ? plan.master_port : find_free_port();
  install_signal_counters();
  install_requeue_handler(plan.requeue_signal);
  bool requeue_passed_on = false;
  const RankMessageFiles messages;
  std::vector<Rank> ranks(static_cast<size_t>(plan.local_ranks));
  std::map<int, std::string> warning_files;
  for (int local = 0; local < plan.local_ranks; ++local) {
    auto& rank = ranks[static_cast<size_t>(local)];
    rank.rank = plan.node_rank * plan.local_ranks + local;
    warning_files[rank.rank] = messages.warnings_path_for(rank.rank);
    rank.pid = start_rank(plan.argv, rank_environment(plan, local, port, messages.path_for(rank.rank),
                                                      warning_files[rank.rank]));
    rank.running = true;
  }
  // The node's first rank prints its own warnings; the others' are printed
  // here, those it did not log too, after waiting this long for it to.
  WarningRelay warnings(warning_files, ranks.front().rank, std::chrono::seconds(5), [](const std::string& level) {
    return console_shows(spdlog::level::from_str(level));
  });
  const auto print = [](const std::string& text) { std::fwrite(text.data(), 1, text.size(), stderr); };
  int forwarded = 0;
  std::optional<Clock::time_point> failure_seen, terminated_at;
  auto running = [&] { return std::any_of(ranks.begin(), ranks.end(), [](const Rank& r) { return r.running; }); };
  while (running()) {
    // Forward every SIGINT/SIGTERM once, to every live rank.
    for (; forwarded < received_signal_count(); ++forwarded)
      for (const auto& rank : ranks)
        if (rank.running) kill(rank.pid, last_received_signal());
    if (requeue_requested() && !requeue_passed_on) {
      for (const auto& rank : ranks)
        if (rank.running) kill(rank.pid, plan.requeue_signal);
      requeue_passed_on = true;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      for (auto& rank : ranks)
        if (rank.pid == pid) {
          rank.running = false;
          rank.status = status;
          rank.ended = Clock::now();
          if (failed(status) && !failure_seen) failure_seen = Clock::now();
        }
      continue;
    }
    const auto now = Clock::now();
    print(warnings.poll(now));
    // One rank failed: the others notice within dist.timeout and stop; those
    // that do not are terminated, then killed.
    if (failure_seen && !terminated_at && now - *failure_seen > std::chrono::duration<double>(plan.grace_seconds)) {
      for (auto& rank : ranks)
        if (rank.running) {
          rank.was_stopped = is_stopped(rank.pid);
          kill(rank.pid, SIGTERM);
          kill(rank.pid, SIGCONT);  // a stopped rank would never see the SIGTERM
          rank.killed_by_us = true;
        }
      terminated_at = now;
    }
    // A rank of a failed job cannot save anything (its peers are gone) and
    // may sit in a collective until its own timeout: it gets a moment to
    // flush its log, no more.
    if (terminated_at && now - *terminated_at > std::chrono::duration<double>(plan.kill_after_seconds))
      for (const auto& rank : ranks)
        if (rank.running) kill(rank.pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  print(warnings.finish(Clock::now()));
  print_rank_messages(ranks, root_cause(ranks), messages);
  if (const Rank* cause = root_cause(ranks)) {
    report_failure(plan, ranks, *cause);
    remove_unstarted_run_dir(plan.run_dir);
    return exit_code_of(cause->status);
  }
  for (const auto& rank : ranks)
    if (failed(rank.status)) return exit_code_of(rank.status);
  if (forwarded > 1) return 130;
  for (const auto& rank : ranks)
    if (WIFEXITED(rank.status) && WEXITSTATUS(rank.status) == static_cast<int>(ExitCode::kRequeue))
      return static_cast<int>(ExitCode::kRequeue);
  for (const auto& rank : ranks)
    if (WIFEXITED(rank.status) && WEXITSTATUS(rank.status) == static_cast<int>(ExitCode::kInterrupted))
      return static_cast<int>(ExitCode::kInterrupted);
  return 0;
}

}  // namespace trainer
