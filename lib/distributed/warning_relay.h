#pragma once
// Warnings that every rank finds alike, printed once, not once per rank:
// each rank reads the same data set, so a bad file in it was warned of by
// all eight ranks of an eight-GPU run. Under trainer's supervisor each rank
// also writes its warnings and errors to a file of its own
// (kRankWarningsVariable). The node's first rank prints its own, as a single
// process does; the others print none, and the supervisor prints each of
// theirs that the first rank did not log as often, a few seconds later
// (the first rank may log it a moment after), the same text from several
// ranks as one line: "[12:22:02 warning] [ranks 1, 3] ...". A rank's full
// story stays in its worklog. Under torchrun or SLURM (no supervisor) each
// rank prints its own, as before. Torch-free.
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trainer {

inline constexpr const char* kRankWarningsVariable = "TRAINER_RANK_WARNINGS_FILE";

// In a rank: relays its warnings to the file the supervisor named, when it
// named one; `first_on_node` (local rank 0) keeps printing its own.
void relay_rank_warnings(bool first_on_node);

struct RelayedWarning {
  std::string time;   // "12:22:02", as the rank's console would show it
  std::string level;  // spdlog's: "warning", "error", "critical"
  std::string text;
};

// A relay file's line as a warning; false when it is not one.
bool parse_relayed_warning(const std::string& line, RelayedWarning& out);

// Which of the ranks' warnings to print, and when.
class WarningMerger {
 public:
  using Clock = std::chrono::steady_clock;
  // `reference_rank` prints its own warnings; another rank's are printed
  // `hold` after they arrive, unless the reference rank logged the text as
  // often by then.
  WarningMerger(int reference_rank, Clock::duration hold) : reference_(reference_rank), hold_(hold) {}

  int reference_rank() const { return reference_; }
  void add(int rank, const RelayedWarning& warning, Clock::time_point arrived);
  // The console lines now due (all that are left with `everything`, when the
  // ranks have ended), each ending in a newline.
  std::string take_due(Clock::time_point now, bool everything = false);

 private:
  struct Pending {
    int rank;
    RelayedWarning warning;
    int occurrence;  // this rank's how-manieth of the text
    Clock::time_point arrived;
  };
  bool covered(const Pending& pending) const;

  int reference_;
  Clock::duration hold_;
  std::map<std::pair<int, std::string>, int> logged_;  // (rank, text) -> how often
  std::vector<Pending> pending_;
};

// The supervisor's side: reads what the ranks add to their files.
class WarningRelay {
 public:
  // `paths`: each rank's file (rank -> path); the first rank of the node is
  // `reference_rank`. `shown` says whether the console shows a level
  // (--log-level).
  WarningRelay(std::map<int, std::string> paths, int reference_rank, WarningMerger::Clock::duration hold,
               std::function<bool(const std::string& level)> shown);
  ~WarningRelay();
  WarningRelay(const WarningRelay&) = delete;
  WarningRelay& operator=(const WarningRelay&) = delete;

  // What to print now: the lines the ranks added since the last call, read,
  // and those of them that are due.
  std::string poll(WarningMerger::Clock::time_point now);
  // Everything left, once the ranks have ended.
  std::string finish(WarningMerger::Clock::time_point now);

 private:
  struct Tail {
    std::string path;
    int fd = -1;
    std::string partial;  // a line not yet ended
  };
  void read_new_lines(WarningMerger::Clock::time_point now);

  std::map<int, Tail> tails_;
  WarningMerger merger_;
  std::function<bool(const std::string&)> shown_;
};

}  // namespace trainer
