#pragma once
// Where each value came from (file:line:col, in the file itself or one it
// extends, or a --set), and the problems found.
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

namespace trainer {

class ReadContext {
 public:
  explicit ReadContext(std::string source_name) : source_(std::move(source_name)) {}
  const std::string& source() const { return source_; }

  // `path` uses dots and [i]: "model.layers[2].units".
  void note_override(const std::string& path, const std::string& text) { overrides_[path] = text; }
  std::string where(const std::string& path, const YAML::Node& node) const;
  void remember(const std::string& path, const YAML::Node& node) { locations_[path] = where(path, node); }
  // The value at `path` (and what it holds) came from `file` (`extends:`);
  // a path without a note of its own or of an enclosing path is the main file's.
  void note_source(const std::string& path, const std::string& file);
  // Every file read, the experiment first, then each it `extends:` in turn.
  void note_file(const std::string& file) { files_.push_back(file); }
  const std::vector<std::string>& files() const { return files_; }
  // Where the value read at exactly `path` came from; "" when it was not read (a default).
  std::string recorded_location(const std::string& path) const;
  // Location of a value read earlier, or of the nearest enclosing one.
  std::string location_of(const std::string& path) const;
  // For a problem that several values make together: a --set among them (the
  // change that brought it about), else the first one's location.
  std::string location_of_any(const std::vector<std::string>& paths) const;

  // A config.yaml a run recorded: trainer once wrote every optimizer's keys
  // whichever was chosen, so a key of another kind is skipped, not refused.
  void ignore_foreign_keys() { ignore_foreign_keys_ = true; }
  bool ignores_foreign_keys() const { return ignore_foreign_keys_; }

  void problem(const std::string& location, const std::string& message) {
    problems_.push_back(location + ": " + message);
  }
  const std::vector<std::string>& problems() const { return problems_; }
  // In file order (line, then column); problems from --set come last.
  std::vector<std::string> problems_in_file_order() const;

 private:
  std::string source_;
  std::map<std::string, std::string> overrides_;
  std::map<std::string, std::string> locations_;
  std::map<std::string, std::string> sources_;  // path -> file, from note_source
  std::vector<std::string> problems_;
  std::vector<std::string> files_;
  bool ignore_foreign_keys_ = false;
};

}  // namespace trainer
