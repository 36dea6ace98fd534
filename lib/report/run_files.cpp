#include "report/run_files.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <utility>
#include <sstream>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "config/document_limits.h"
#include "util/error.h"
#include "util/read_file.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

bool all_scalars(const YAML::Node& node) {
  for (const auto& item : node)
    if (!item.IsScalar() && !item.IsNull()) return false;
  return true;
}

void flatten(const YAML::Node& node, const std::string& path, std::map<std::string, std::string>& out) {
  if (node.IsMap()) {
    for (const auto& entry : node)
      flatten(entry.second, path.empty() ? entry.first.as<std::string>() : path + "." + entry.first.as<std::string>(),
              out);
  } else if (node.IsSequence() && !all_scalars(node)) {
    for (size_t i = 0; i < node.size(); ++i) flatten(node[i], path + "[" + std::to_string(i) + "]", out);
  } else {
    YAML::Emitter text;
    text << YAML::Flow << node;
    out[path] = node.IsNull() ? "null" : text.c_str();
  }
}

// One of the run's files: nothing when it is absent (a run that has not
// written it yet, or not that kind of run); one there that cannot be read (a
// FIFO, a folder, past the size cap, no permission) is named in `unread`.
std::optional<std::string> read_run_file(const fs::path& path, uint64_t cap, std::vector<std::string>& unread) {
  FileRead read = read_regular_file(path.string(), cap, "run's " + path.filename().string());
  if (read.ok()) return std::move(read.bytes);
  if (!read.missing) unread.push_back(path.string() + " " + read.problem);
  return std::nullopt;
}

}  // namespace

std::map<std::string, std::string> flatten_yaml(const std::string& text) {
  std::map<std::string, std::string> out;
  try {
    // A config.yaml edited by hand may hold aliases in the millions or to themselves.
    const YAML::Node document = YAML::Load(text);
    if (document_limit_problem(document, [](const YAML::Node&) { return std::string(); })) return out;
    flatten(document, "", out);
  } catch (const YAML::Exception&) {
    out.clear();
  }
  return out;
}

std::vector<NumberRecord> read_number_lines(const std::string& text) {
  std::vector<NumberRecord> records;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object()) continue;
    NumberRecord record;
    for (const auto& [key, value] : json.items()) {
      if (value.is_number()) record[key] = value.get<double>();
      if (value.is_null()) record[key] = std::numeric_limits<double>::quiet_NaN();
    }
    records.push_back(std::move(record));
  }
  return records;
}

RunFiles read_run_files(const std::string& dir) {
  const fs::path folder(dir);
  RunFiles run;
  run.dir = dir;
  const auto metrics = read_run_file(folder / "metrics.jsonl", kRecordFileCap, run.unread);
  const auto record = read_run_file(folder / "run.json", kRecordFileCap, run.unread);
  bool listed = false;
  if (record) {
    try {
      run.listing = run_listing_from_text(*record, dir);
      listed = true;
    } catch (const DataError&) {
      if (!metrics) throw;  // a damaged run.json and nothing else: nothing to show
    }
  }
  if (!listed) {
    if (!metrics && !run.unread.empty())
      throw DataError(run.unread.front(), "a run directory holds the run.json and metrics.jsonl trainer wrote there");
    if (!metrics)
      throw DataError(dir + ": not a run directory (no run.json or metrics.jsonl)",
                      "name a run's directory, such as runs/EXPERIMENT/RUN");
    const fs::path absolute = fs::absolute(folder).lexically_normal();
    run.listing.name = absolute.filename().string();
    run.listing.experiment = absolute.parent_path().filename().string();
    run.listing.path = dir;
  }
  if (metrics) {
    run.epochs = read_number_lines(*metrics);
    run.classes = read_class_report(*metrics, record.value_or(""));
  }
  if (const auto steps = read_run_file(folder / "steps.jsonl", kRecordFileCap, run.unread))
    run.steps = read_number_lines(*steps);
  if (const auto config = read_run_file(folder / "config.yaml", kConfigFileCap, run.unread)) {
    run.config_text = *config;
    run.config = flatten_yaml(*config);
  }
  run.samples = read_sample_pictures(dir);
  return run;
}

}  // namespace trainer
