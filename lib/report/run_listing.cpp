#include "report/run_listing.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/json.h"
#include "util/read_file.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr int kMaxDepth = 4;  // LOG_DIR/EXPERIMENT/RUN/run.json, and a level to spare

// A "running" record whose process is gone from this host was killed; so
// was one whose pid no process can have (a damaged or hand-made record).
bool process_gone(const Json& record) {
  if (!record.contains("host") || !record["host"].is_string() || record["host"] != host_name()) return false;
  if (!record.contains("pid") || !record["pid"].is_number_integer()) return true;
  const int64_t pid = record["pid"].get<int64_t>();
  // Linux pids are at most 2^22 (pid_max); anything outside int is no pid.
  if (pid <= 0 || pid > std::numeric_limits<int32_t>::max()) return true;
  return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// The first configured metric's validation twin, else val_loss, else loss.
std::string comparison_metric(const Json& metrics) {
  std::string fallback;
  for (const auto& [key, value] : metrics.items()) {
    if (key.rfind("val_", 0) == 0 && key != "val_loss") return key;
    if (key == "val_loss" || (fallback.empty() && key == "loss")) fallback = key;
  }
  return fallback;
}

std::string text_field(const Json& record, const char* key) {
  return record.contains(key) && record[key].is_string() ? record[key].get<std::string>() : std::string();
}

int64_t int_field(const Json& record, const char* key) {
  return record.contains(key) && record[key].is_number_integer() ? record[key].get<int64_t>() : 0;
}

RunListing listing_of(const Json& record, const fs::path& run_dir) {
  RunListing run;
  run.experiment = text_field(record, "experiment");
  run.name = run_dir.filename().string();
  run.path = run_dir.string();
  run.status = text_field(record, "status");
  if (run.status == "running" && process_gone(record)) run.status = "killed";
  run.epochs = int_field(record, "epochs");
  run.epochs_done = int_field(record, "epochs_done");
  if (record.contains("metrics") && record["metrics"].is_object()) {
    const Json& metrics = record["metrics"];
    // train.monitor, as run.json names it; older runs: the first validation metric.
    const std::string monitor = text_field(record, "monitor");
    run.metric = !monitor.empty() && metrics.contains(monitor) ? monitor : comparison_metric(metrics);
    if (!run.metric.empty() && metrics[run.metric].is_object()) {
      const Json& history = metrics[run.metric];
      if (history.contains("best") && history["best"].is_number()) run.best = history["best"].get<double>();
      run.best_epoch = int_field(history, "best_epoch");
    }
  }
  run.started_at = text_field(record, "started_at");
  const auto started = parse_rfc3339(run.started_at);
  run.started_epoch_seconds = started.value_or(0);
  const auto ended = parse_rfc3339(text_field(record, "ended_at"));
  if (started && ended) run.seconds = static_cast<double>(*ended - *started);
  if (started && !ended && run.status == "running")
    run.seconds = static_cast<double>(static_cast<int64_t>(std::time(nullptr)) - *started);
  return run;
}

void scan(const fs::path& folder, int depth, RunScan& found) {
  std::error_code error;
  // A run.json that is not a file (a FIFO, a folder) is named as skipped,
  // not taken for a folder of runs.
  if (fs::symlink_status(folder / "run.json", error).type() != fs::file_type::not_found && !error) {
    try {
      found.runs.push_back(read_run_listing(folder.string()));
    } catch (const DataError& e) {
      found.problems.push_back(std::string(e.what()) + "; skipped");
    }
    return;  // a run directory holds no further runs
  }
  if (depth >= kMaxDepth) return;
  std::vector<fs::path> children;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error))
    if (!it->is_symlink(error) && it->is_directory(error) && it->path().filename() != "checkpoints")
      children.push_back(it->path());
  std::sort(children.begin(), children.end());
  for (const auto& child : children) scan(child, depth + 1, found);
}

std::string format_best(const RunListing& run) {
  if (!run.best) return "-";
  char value[40];
  std::snprintf(value, sizeof value, "%.4g", *run.best);
  return run.metric + " " + value + " @" + std::to_string(run.best_epoch);
}

}  // namespace

std::optional<int64_t> parse_rfc3339(const std::string& text) {
  std::tm time{};
  int offset_hours = 0, offset_minutes = 0;
  char sign = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &time.tm_year, &time.tm_mon, &time.tm_mday,
                  &time.tm_hour, &time.tm_min, &time.tm_sec, &consumed) != 6)
    return std::nullopt;
  const std::string zone = text.substr(static_cast<size_t>(consumed));
  if (zone == "Z") {
  } else if (std::sscanf(zone.c_str(), "%c%2d:%2d", &sign, &offset_hours, &offset_minutes) != 3 ||
             (sign != '+' && sign != '-')) {
    return std::nullopt;
  }
  time.tm_year -= 1900;
  time.tm_mon -= 1;
  const int64_t utc = static_cast<int64_t>(timegm(&time));
  const int64_t offset = (offset_hours * 3600 + offset_minutes * 60) * (sign == '-' ? -1 : 1);
  return utc - offset;
}

RunListing read_run_listing(const std::string& run_dir) {
  const std::string path = (fs::path(run_dir) / "run.json").string();
  const FileRead read = read_regular_file(path, kRecordFileCap, "run record");
  if (!read.ok()) throw DataError(path + " " + read.problem);
  return run_listing_from_text(read.bytes, run_dir);
}

RunListing run_listing_from_text(const std::string& text, const std::string& run_dir) {
  const Json record = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!record.is_object())
    throw DataError((fs::path(run_dir) / "run.json").string() + ": not a run record (a JSON object)");
  return listing_of(record, fs::path(run_dir));
}

RunScan scan_runs(const std::string& log_dir) {
  std::error_code error;
  if (!fs::is_directory(log_dir, error))
    throw UsageError("no folder " + log_dir, "name the log.dir of your experiments: trainer runs DIR (default: runs)");
  RunScan found;
  scan(log_dir, 0, found);
  std::stable_sort(found.runs.begin(), found.runs.end(), [](const RunListing& a, const RunListing& b) {
    return a.started_epoch_seconds > b.started_epoch_seconds;
  });
  return found;
}

std::string format_runs_table(const std::vector<RunListing>& runs) {
  std::vector<std::vector<std::string>> rows{{"RUN", "STATUS", "EPOCHS", "BEST", "TIME", "PATH"}};
  for (const RunListing& run : runs)
    // A hostile run.json's escape codes are shown, never sent to the terminal.
    rows.push_back({printable(run.experiment + "/" + run.name), run.status.empty() ? "-" : printable(run.status),
                    std::to_string(run.epochs_done) + "/" + std::to_string(run.epochs), printable(format_best(run)),
                    run.seconds ? format_time_taken(*run.seconds) : "-", printable(run.path)});
  return format_text_table(rows);
}

std::string format_runs_json(const std::vector<RunListing>& runs) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const RunListing& run : runs) {
    nlohmann::ordered_json entry;
    entry["experiment"] = run.experiment;
    entry["name"] = run.name;
    entry["status"] = run.status;
    entry["epochs"] = run.epochs;
    entry["epochs_done"] = run.epochs_done;
    entry["metric"] = run.metric.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(run.metric);
    entry["best"] = run.best ? json_number(*run.best) : nlohmann::ordered_json(nullptr);
    entry["best_epoch"] = run.best ? nlohmann::ordered_json(run.best_epoch) : nlohmann::ordered_json(nullptr);
    entry["started_at"] = run.started_at.empty() ? nlohmann::ordered_json(nullptr)
                                                 : nlohmann::ordered_json(run.started_at);
    entry["seconds"] = run.seconds ? json_number(*run.seconds) : nlohmann::ordered_json(nullptr);
    std::error_code error;
    const fs::path absolute = fs::absolute(run.path, error);
    entry["path"] = error ? run.path : absolute.lexically_normal().string();
    list.push_back(entry);
  }
  return json_line(list);
}

}  // namespace trainer
