#pragma once
// JSON-lines texts the binary writes (metrics.jsonl, predict's output), a
// parsed object a line, for end-to-end tests.
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace trainer::testing {

inline std::vector<nlohmann::json> parse_json_lines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// RUN_DIR/metrics.jsonl, an epoch a line.
inline std::vector<nlohmann::json> metrics_of(const std::string& run_dir) {
  return parse_json_lines(read_text(run_dir + "/metrics.jsonl"));
}

}  // namespace trainer::testing
