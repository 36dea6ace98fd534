#include "runs/resume_config.h"

#include <filesystem>

#include "config/config_loader.h"
#include "runs/run_dir.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace fs = std::filesystem;
namespace {

std::string shell_quote(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-+=:,@") ==
                           std::string::npos)
    return text;
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string describe(const std::vector<ConfigChange>& changes) {
  std::string text;
  for (const ConfigChange& change : changes)
    text += "\n  " + change.key + ": " + change.before + " -> " + change.after +
            (may_change_on_resume(change) ? "" : "   (changes what the run computes)");
  return text;
}

}  // namespace

std::string resume_command(const std::string& run_dir) {
  return "trainer run --resume " + shell_quote(fs::absolute(run_dir).lexically_normal().string());
}

ResumeConfig resolve_resume_config(const std::string& resume, const std::string& file,
                                   const std::vector<std::string>& overrides, bool force) {
  ResumeConfig result;
  const RunDir run = find_resume_point(resume).run;
  result.run_dir = run.path;
  std::error_code error;
  if (!fs::exists(run.config(), error)) {
    if (file.empty())
      throw UsageError("--resume " + resume + ": the run has no " + run.config() + " to continue with",
                       "give the experiment file it was started with: trainer run FILE --resume " + resume);
    result.config = load_experiment(file, overrides);
    return result;
  }
  const ExperimentConfig saved = load_recorded_experiment(run.config());
  if (!file.empty())
    result.config = load_experiment(file, overrides);
  else
    result.config = overrides.empty() ? saved : load_recorded_experiment(run.config(), overrides);
  result.changes = diff_configs(saved, result.config);
  bool refused = false;
  for (const ConfigChange& change : result.changes) refused = refused || !may_change_on_resume(change);
  if (refused && !force)
    throw UsageError("--resume " + resume + ": the config differs from the run's " + run.config() +
                         " where a resumed run must stay the same:" + describe(result.changes),
                     "continue the run as it was with `" + resume_command(run.path) +
                         "` (its own config.yaml); only " + join(keys_that_may_change_on_resume(), ", ") +
                         " may change on resume; --force continues with the changes anyway");
  return result;
}

}  // namespace trainer
