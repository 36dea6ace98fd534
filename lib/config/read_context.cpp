#include "config/read_context.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>

namespace trainer {
namespace {
bool is_within(const std::string& path, const std::string& prefix) {
  return path == prefix || (path.rfind(prefix, 0) == 0 && (path[prefix.size()] == '.' || path[prefix.size()] == '['));
}

std::string parent_of(const std::string& path) {
  const size_t cut = path.find_last_of(".[");
  return cut == std::string::npos ? "" : path.substr(0, cut);
}
}  // namespace

void ReadContext::note_source(const std::string& path, const std::string& file) {
  // A value replaced whole: what was noted inside it came from elsewhere.
  for (auto it = sources_.begin(); it != sources_.end();)
    it = is_within(it->first, path) ? sources_.erase(it) : std::next(it);
  sources_[path] = file;
}

std::string ReadContext::recorded_location(const std::string& path) const {
  const auto found = locations_.find(path);
  return found == locations_.end() ? "" : found->second;
}

std::string ReadContext::where(const std::string& path, const YAML::Node& node) const {
  for (const auto& [prefix, text] : overrides_)
    if (is_within(path, prefix)) return "--set " + text;
  std::string file = source_;
  for (std::string p = path; !p.empty(); p = parent_of(p))
    if (const auto found = sources_.find(p); found != sources_.end()) {
      file = found->second;
      break;
    }
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return file;
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string ReadContext::location_of(const std::string& path) const {
  for (std::string p = path; !p.empty(); p = parent_of(p)) {
    auto found = locations_.find(p);
    if (found != locations_.end()) return found->second;
  }
  return source_;
}

std::string ReadContext::location_of_any(const std::vector<std::string>& paths) const {
  for (const std::string& path : paths)
    for (const auto& [prefix, text] : overrides_)
      if (is_within(path, prefix)) return "--set " + text;
  return paths.empty() ? source_ : location_of(paths.front());
}

std::vector<std::string> ReadContext::problems_in_file_order() const {
  // "exp.yaml:12:3: ..." -> (12, 3); anything else sorts after the file.
  const auto position = [&](const std::string& text) -> std::pair<long, long> {
    const std::string prefix = source_ + ":";
    constexpr long kLast = 1L << 40;
    if (text.rfind(prefix, 0) != 0) return {kLast, 0};
    char* end = nullptr;
    const long line = std::strtol(text.c_str() + prefix.size(), &end, 10);
    if (*end != ':') return {kLast, 0};
    return {line, std::strtol(end + 1, nullptr, 10)};
  };
  std::vector<std::string> sorted = problems_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const std::string& a, const std::string& b) { return position(a) < position(b); });
  return sorted;
}

}  // namespace trainer
