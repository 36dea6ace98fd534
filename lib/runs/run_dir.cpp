#include "runs/run_dir.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/read_file.h"
#include "util/text.h"

namespace trainer {
namespace fs = std::filesystem;

std::string RunDir::checkpoint_for(int64_t epoch, int64_t step_in_epoch) const {
  char name[64];
  if (step_in_epoch == 0) std::snprintf(name, sizeof name, "/epoch-%04lld.pt", static_cast<long long>(epoch));
  else std::snprintf(name, sizeof name, "/epoch-%04lld-step-%07lld.pt", static_cast<long long>(epoch),
                     static_cast<long long>(step_in_epoch));
  return checkpoints() + name;
}

RunDir open_run_dir(const std::string& root, const std::string& experiment, const std::string& run_name,
                    const std::string& resume, const std::string& exact) {
  if (!resume.empty()) return find_resume_point(resume).run;
  if (!exact.empty()) return create_exact_run_dir(exact);
  RunDir run = create_run_dir(root, experiment, run_name);
  if (!run.taken_name.empty())
    warn_at_every_level("run directory " + fs::path(run.path).parent_path().string() + "/" + run.taken_name +
                        " exists: this run is " + run.path + " (give each run its own log.run_name, or --run-dir)");
  return run;
}

ProcessLock lock_run_dir(const RunDir& run) { return ProcessLock::take(run.lock(), "run directory " + run.path); }

RunDir create_exact_run_dir(const std::string& path) {
  std::error_code error;
  if (fs::exists(path, error)) {
    if (!fs::is_directory(path, error))
      throw UsageError("--run-dir " + path + " exists and is not a directory");
    if (!fs::is_empty(path, error))
      throw UsageError("--run-dir " + path + " exists and is not empty",
                       "continue that run with trainer run --resume " + path + ", or name a new directory");
  }
  fs::create_directories(fs::path(path) / "checkpoints", error);
  if (error) throw IoError("cannot create run directory " + path + ": " + error.message());
  return RunDir{path};
}

std::string update_latest_link(const RunDir& run, const std::string& root, const std::string& experiment) {
  std::error_code error;
  const fs::path folder = fs::path(root) / experiment;
  const fs::path run_path = fs::path(run.path);
  if (fs::weakly_canonical(run_path.parent_path(), error) != fs::weakly_canonical(folder, error) || error) return "";
  const fs::path link = folder / "latest";
  const fs::path temporary = folder / (".latest.tmp." + std::to_string(getpid()));
  fs::remove(temporary, error);
  fs::create_symlink(run_path.filename(), temporary, error);
  if (!error) fs::rename(temporary, link, error);
  if (!error) return "";
  fs::remove(temporary);
  return "cannot point " + link.string() + " at " + run.path + ": " + error.message();
}

RunDir create_run_dir(const std::string& root, const std::string& experiment, const std::string& run_name) {
  const std::string base = root + "/" + experiment + "/" + (run_name.empty() ? local_timestamp_compact() : run_name);
  std::error_code error;
  fs::create_directories(fs::path(base).parent_path(), error);
  if (error) {
    // The experiment's folder is made under log.dir, so log.dir is what the
    // user can change: name it, and say so when it is not a folder itself (a
    // file of that name, say) rather than a place this user cannot write.
    std::error_code kind;
    const bool root_not_folder = fs::exists(root, kind) && !fs::is_directory(root, kind);
    throw IoError("cannot create " + fs::path(base).parent_path().string() + ": " + error.message() +
                      (root_not_folder ? " (log.dir " + root + " exists and is not a folder)"
                                       : " (under log.dir " + root + ")"),
                  root_not_folder ? "set log.dir to a folder, or to a path that does not exist yet"
                                  : "set log.dir to a folder this user can write (--set log.dir=DIR)");
  }
  for (int attempt = 1; attempt < 1000; ++attempt) {
    const std::string candidate = attempt == 1 ? base : base + "-" + std::to_string(attempt);
    if (fs::create_directory(candidate, error)) {
      fs::create_directories(candidate + "/checkpoints", error);
      if (error) throw IoError("cannot create " + candidate + "/checkpoints: " + error.message());
      return RunDir{candidate, attempt == 1 ? "" : fs::path(base).filename().string()};
    }
    if (error) throw IoError("cannot create run directory " + candidate + ": " + error.message());
  }
  throw IoError("cannot find a free run directory name under " + base);
}

std::vector<std::string> list_checkpoints(const RunDir& run) {
  std::vector<std::string> files;
  std::error_code error;
  static const std::regex pattern(R"(^epoch-\d{4,}(-step-\d+)?\.pt$)");
  for (const auto& entry : fs::directory_iterator(run.checkpoints(), error))
    if (std::regex_match(entry.path().filename().string(), pattern)) files.push_back(entry.path().string());
  // Zero-padded numbers: name order is training order.
  std::sort(files.begin(), files.end());
  return files;
}

void prune_checkpoints(const RunDir& run, int64_t keep) {
  auto files = list_checkpoints(run);
  for (size_t i = 0; i + static_cast<size_t>(keep) < files.size(); ++i) std::remove(files[i].c_str());
}

void check_run_dir_free(const std::string& target) {
  std::error_code error;
  const fs::path path = fs::absolute(target);
  const RunDir run{fs::is_directory(path, error) ? path.string() : path.parent_path().parent_path().string()};
  if (fs::exists(run.lock(), error)) lock_run_dir(run);  // taken and at once released
}

ResumePoint find_resume_point(const std::string& target) {
  std::error_code error;
  if (fs::is_regular_file(target, error)) {
    const fs::path file = fs::absolute(target);
    return {RunDir{file.parent_path().parent_path().string()}, {file.string()}, true};
  }
  if (fs::is_directory(target, error)) {
    RunDir run{fs::absolute(target).string()};
    auto files = list_checkpoints(run);
    if (files.empty())
      throw UsageError("--resume " + target + ": the run directory has no checkpoints in " + run.checkpoints());
    std::reverse(files.begin(), files.end());
    return {run, files, false};
  }
  throw UsageError("--resume " + target + ": no such run directory or checkpoint file");
}

void truncate_jsonl(const std::string& path, const std::string& key, int64_t last) {
  const std::optional<std::string> text = read_text_file(path);
  if (!text) return;
  std::istringstream lines(*text);
  std::string kept;
  for (std::string line; std::getline(lines, line);) {
    // A line that is not a record (cut short by a full disk) goes too.
    const auto record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (record.is_object() && record.contains(key) && record[key].is_number_integer() &&
        record[key].get<int64_t>() <= last)
      kept += line + "\n";
  }
  write_file_atomic(path, kept);
}

void truncate_metrics(const RunDir& run, int64_t epoch) { truncate_jsonl(run.metrics(), "epoch", epoch); }

void keep_config_in_force(const RunDir& run, const std::string& config_yaml) {
  const std::optional<std::string> saved = read_text_file(run.config());
  if (saved == config_yaml) return;
  std::string kept;
  for (int n = 1; kept.empty() || std::filesystem::exists(kept); ++n)
    kept = run.path + "/config.resume-" + std::to_string(n) + ".yaml";
  if (saved) write_file_atomic(kept, *saved);
  write_file_atomic(run.config(), config_yaml);
  log().info("{} now holds the config in force{}", run.config(), saved ? "; the earlier one is " + kept : "");
}

void remove_debris(const RunDir& run) {
  for (const std::string& dir : {run.path, run.checkpoints()})
    for (const std::string& path : remove_stale_temp_files(dir))
      log().info("removed {}, the unfinished file of a process that no longer runs", path);
}

}  // namespace trainer
