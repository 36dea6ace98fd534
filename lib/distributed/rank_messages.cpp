#include "distributed/rank_messages.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/read_file.h"

namespace trainer {
namespace {

// "trainer [rank 2]", "trainer [ranks 1, 3]".
std::string label_of(const std::vector<int>& ranks) {
  std::string label = ranks.size() == 1 ? "trainer [rank " : "trainer [ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) label += (i > 0 ? ", " : "") + std::to_string(ranks[i]);
  return label + "]";
}

}  // namespace

std::string relabel_lines(const std::string& text, const std::string& label) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    out += (line.rfind("trainer:", 0) == 0 ? label + line.substr(7) : line) + "\n";
    start = end + 1;
  }
  return out;
}

bool send_message_to_supervisor(const std::string& text) {
  const char* path = std::getenv(kRankMessageVariable);
  if (path == nullptr || *path == '\0') return false;
  try {
    // Whole or absent: a part would be printed as if it were the message.
    write_file_atomic(path, text);
    return true;
  } catch (const IoError&) {
    return false;
  }
}

std::string merged_rank_messages(const std::vector<RankMessage>& messages) {
  struct Group {
    std::string text;
    std::vector<int> ranks;
  };
  std::vector<Group> groups;
  for (const RankMessage& message : messages) {
    if (message.text.empty()) continue;
    auto same = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.text == message.text; });
    if (same == groups.end()) same = groups.insert(groups.end(), Group{message.text, {}});
    same->ranks.push_back(message.rank);
  }
  std::string out;
  for (Group& group : groups) {
    std::sort(group.ranks.begin(), group.ranks.end());
    const bool rank0 = group.ranks.front() == 0;
    out += rank0 ? relabel_lines(group.text, "trainer") : relabel_lines(group.text, label_of(group.ranks));
  }
  return out;
}

RankMessageFiles::RankMessageFiles() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/trainer-ranks.XXXXXX";
  if (::mkdtemp(pattern.data()) != nullptr) folder_ = pattern;
}

RankMessageFiles::~RankMessageFiles() {
  if (folder_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

std::string RankMessageFiles::path_for(int rank) const {
  return folder_.empty() ? std::string() : folder_ + "/message." + std::to_string(rank);
}

std::string RankMessageFiles::warnings_path_for(int rank) const {
  return folder_.empty() ? std::string() : folder_ + "/warnings." + std::to_string(rank);
}

std::string RankMessageFiles::read(int rank) const {
  if (folder_.empty()) return {};
  return read_text_file(path_for(rank)).value_or("");
}

}  // namespace trainer
