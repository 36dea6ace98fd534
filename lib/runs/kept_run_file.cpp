#include "runs/kept_run_file.h"

#include <filesystem>
#include <regex>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

bool is_run_dir(const fs::path& folder) {
  std::error_code error;
  return !folder.empty() && fs::is_regular_file(folder / "run.json", error);
}

bool kept_name(const std::string& name) {
  static const std::regex kept(
      R"((config|config\.resume-[0-9]+)\.yaml|train\.log|metrics\.jsonl|steps\.jsonl|run\.json|run\.lock|)"
      R"(inputs\.json|vocabulary\.txt|events\.out\.tfevents\..*|worklog\.[0-9]+)");
  return std::regex_match(name, kept);
}

// `path` with its folders resolved (links, "..") where they exist.
fs::path resolved(const std::string& path) {
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  if (error) return fs::path(path).lexically_normal();
  const fs::path out = fs::weakly_canonical(absolute.parent_path(), error) / absolute.filename();
  return error ? absolute.lexically_normal() : out;
}

}  // namespace

std::string kept_run_file(const std::string& path) {
  const fs::path file = resolved(path);
  const fs::path folder = file.parent_path();
  // The run as the user spelled it, for the message.
  const fs::path spelled = fs::path(path).lexically_normal().parent_path();
  const auto shown = [](const fs::path& p) { return p.empty() ? std::string(".") : printable(p.string()); };
  if (is_run_dir(folder) && kept_name(file.filename().string()))
    return "the " + file.filename().string() + " of the run " + shown(spelled);
  if (folder.filename() == "checkpoints" && is_run_dir(folder.parent_path()))
    return "a file in the checkpoints folder of the run " + shown(spelled.parent_path());
  return {};
}

void check_not_a_kept_run_file(const std::string& option, const std::string& output) {
  const std::string kept = kept_run_file(output);
  if (kept.empty()) return;
  throw UsageError(option + " " + printable(output) + " names " + kept +
                       ", which the run keeps: writing it would replace part of the run",
                   "name a file outside the run directory, or a new name in it");
}

void check_output_file(const std::string& option, const std::string& output, const std::vector<ReadFile>& inputs) {
  check_replaceable(output);
  check_not_a_kept_run_file(option, output);
  check_not_an_input(option, output, inputs);
}

}  // namespace trainer
