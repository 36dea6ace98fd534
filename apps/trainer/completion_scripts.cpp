#include "completion_scripts.h"

namespace trainer::app {

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_positional()) continue;
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

const std::set<std::string>& path_options() {
  static const std::set<std::string> options{"--checkpoint", "--resume", "--run-dir", "--input", "--output", "-o"};
  return options;
}

std::string one_line(const std::string& description) {
  std::string line;
  for (char c : description) line += (c == '\n' || c == '\t') ? ' ' : c;
  // The first sentence: ". " ends it, a decimal point does not.
  if (const size_t end = line.find(". "); end != std::string::npos) line = line.substr(0, end);
  while (!line.empty() && (line.back() == '.' || line.back() == ' ')) line.pop_back();
  return line.size() > 100 ? line.substr(0, 97) + "..." : line;
}

}  // namespace trainer::app
