#pragma once
// The last message of each rank the supervisor starts (its error, with the
// hint), collected by the supervisor and printed once: a config or data
// error every rank finds alike is shown once, as one process shows it, not
// once per rank. Ranks write theirs to a file the supervisor names in
// kRankMessageVariable instead of to stderr; under torchrun or SLURM (no
// supervisor) each rank prints its own, as before. Torch-free.
#include <string>
#include <vector>

namespace trainer {

inline constexpr const char* kRankMessageVariable = "TRAINER_RANK_MESSAGE_FILE";

// In a rank: writes `text` (lines starting "trainer: ...") to the file the
// supervisor named and returns true; false (the caller prints it) when there
// is no supervisor or the file cannot be written.
bool send_message_to_supervisor(const std::string& text);

// `text` with each line's leading "trainer" replaced by `label` ("trainer
// [rank 2]"); lines that do not start "trainer:" stay as they are.
std::string relabel_lines(const std::string& text, const std::string& label);

struct RankMessage {
  int rank = 0;
  std::string text;  // as the rank wrote it: lines starting "trainer"
};

// The messages merged for the console: identical texts once, the first
// rank's to end first (`messages` in the order they should appear). A text
// that rank 0 wrote keeps "trainer:" as a single process prints it; one
// only other ranks wrote names them: "trainer [rank 2]:", "trainer [ranks
// 1, 3]:". Ends with a newline unless empty.
std::string merged_rank_messages(const std::vector<RankMessage>& messages);

// The supervisor's side: a private folder of one message file per rank,
// removed with the object.
class RankMessageFiles {
 public:
  RankMessageFiles();  // no folder (and so no files) when none can be made
  ~RankMessageFiles();
  RankMessageFiles(const RankMessageFiles&) = delete;
  RankMessageFiles& operator=(const RankMessageFiles&) = delete;

  // The file rank `rank` writes to; "" when there is no folder.
  std::string path_for(int rank) const;
  // The file rank `rank` relays its warnings to (warning_relay.h); "" when
  // there is no folder.
  std::string warnings_path_for(int rank) const;
  // What rank `rank` wrote ("" if nothing).
  std::string read(int rank) const;

 private:
  std::string folder_;
};

}  // namespace trainer
