#pragma once
// The config a resumed run continues with. The run directory is the truth:
// its config.yaml (the resolved config, overrides included) is the config,
// unless a file or --set asks for changes, which must be ones that keep the
// run the same run (config_diff.h) or be forced. Torch-free.
#include <string>
#include <vector>

#include "config/config_diff.h"
#include "spec/experiment_config.h"

namespace trainer {

struct ResumeConfig {
  ExperimentConfig config;            // what the resumed run uses
  std::vector<ConfigChange> changes;  // from the run's config.yaml
  std::string run_dir;
};

// `resume`: a run directory or a checkpoint in one. `file` empty: the run's
// own config.yaml, with `overrides` applied. Throws UsageError listing the
// changed keys when one may not change on resume and `force` is false, or
// when the run has no config.yaml and no `file` is given.
ResumeConfig resolve_resume_config(const std::string& resume, const std::string& file,
                                   const std::vector<std::string>& overrides, bool force);

// "trainer run --resume '/abs/run dir'": the command that continues the
// run in `run_dir`, quoted for a POSIX shell.
std::string resume_command(const std::string& run_dir);

}  // namespace trainer
