#include "distributed/warning_relay.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "util/logging.h"

namespace trainer {

void relay_rank_warnings(bool first_on_node) {
  const char* path = std::getenv(kRankWarningsVariable);
  if (path == nullptr || *path == '\0') return;
  relay_warnings_to(path, first_on_node);
}

bool parse_relayed_warning(const std::string& line, RelayedWarning& out) {
  const auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return false;
  for (const char* key : {"time", "level", "text"})
    if (!json.contains(key) || !json[key].is_string()) return false;
  out = {json["time"].get<std::string>(), json["level"].get<std::string>(), json["text"].get<std::string>()};
  return true;
}

void WarningMerger::add(int rank, const RelayedWarning& warning, Clock::time_point arrived) {
  const int occurrence = ++logged_[{rank, warning.text}];
  if (rank != reference_) pending_.push_back({rank, warning, occurrence, arrived});
}

// The reference rank logged the text at least as often as this rank had
// when it logged this one: the console has it already.
bool WarningMerger::covered(const Pending& pending) const {
  const auto found = logged_.find({reference_, pending.warning.text});
  return found != logged_.end() && found->second >= pending.occurrence;
}

std::string WarningMerger::take_due(Clock::time_point now, bool everything) {
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return covered(p); }),
                 pending_.end());
  std::string out;
  while (true) {
    const auto due = std::find_if(pending_.begin(), pending_.end(),
                                  [&](const Pending& p) { return everything || now - p.arrived >= hold_; });
    if (due == pending_.end()) break;
    // The same text from other ranks goes with it, due or not yet: the
    // reference rank has not logged it in all that time.
    const RelayedWarning first = due->warning;
    std::vector<int> ranks;  // each rank's earliest copy only: its second is a line of its own
    for (auto it = pending_.begin(); it != pending_.end();) {
      const bool same = it->warning.text == first.text && it->warning.level == first.level &&
                        std::find(ranks.begin(), ranks.end(), it->rank) == ranks.end();
      if (!same) {
        ++it;
        continue;
      }
      ranks.push_back(it->rank);
      it = pending_.erase(it);
    }
    std::sort(ranks.begin(), ranks.end());
    std::string label = ranks.size() == 1 ? "[rank " : "[ranks ";
    for (size_t i = 0; i < ranks.size(); ++i) label += (i > 0 ? ", " : "") + std::to_string(ranks[i]);
    out += "[" + first.time + " " + first.level + "] " + label + "] " + first.text + "\n";
  }
  return out;
}

WarningRelay::WarningRelay(std::map<int, std::string> paths, int reference_rank, WarningMerger::Clock::duration hold,
                           std::function<bool(const std::string& level)> shown)
    : merger_(reference_rank, hold), shown_(std::move(shown)) {
  for (auto& [rank, path] : paths)
    if (!path.empty()) tails_[rank].path = std::move(path);
}

WarningRelay::~WarningRelay() {
  for (auto& [rank, tail] : tails_)
    if (tail.fd >= 0) ::close(tail.fd);
}

void WarningRelay::read_new_lines(WarningMerger::Clock::time_point now) {
  for (auto& [rank, tail] : tails_) {
    // The rank makes its file when it starts relaying.
    if (tail.fd < 0) tail.fd = ::open(tail.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (tail.fd < 0) continue;
    char buffer[4096];
    for (ssize_t got; (got = ::read(tail.fd, buffer, sizeof buffer)) > 0;)
      tail.partial.append(buffer, static_cast<size_t>(got));
    for (size_t end; (end = tail.partial.find('\n')) != std::string::npos;) {
      RelayedWarning warning;
      // A level the console does not show is not printed, but the reference
      // rank's are all counted: they are what the others' are matched with.
      if (parse_relayed_warning(tail.partial.substr(0, end), warning) &&
          (rank == merger_.reference_rank() || shown_(warning.level)))
        merger_.add(rank, warning, now);
      tail.partial.erase(0, end + 1);
    }
  }
}

std::string WarningRelay::poll(WarningMerger::Clock::time_point now) {
  read_new_lines(now);
  return merger_.take_due(now);
}

std::string WarningRelay::finish(WarningMerger::Clock::time_point now) {
  read_new_lines(now);
  return merger_.take_due(now, /*everything=*/true);
}

}  // namespace trainer
