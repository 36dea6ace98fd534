#pragma once
// What `--checkpoint` names for eval and predict: a checkpoint file, or a
// run directory, which stands for its best.pt (train.monitor) or else its
// newest checkpoint. The run's own config.yaml is the experiment when the
// command is given no file. Torch-free.
#include <string>
#include <vector>

#include "spec/experiment_config.h"

namespace trainer {

struct CheckpointChoice {
  std::string checkpoint;
  std::string run_config;  // RUN_DIR/config.yaml of the run it belongs to; empty when none
};

// Throws UsageError when `path` is neither a file nor a run directory with
// a checkpoint.
CheckpointChoice choose_checkpoint(const std::string& path);

// Whether `path`, given where an experiment file goes, names a checkpoint
// instead: a folder (a run directory) or a checkpoint file (a zip archive,
// as LibTorch writes them), as in `trainer eval runs/exp/latest`. An
// experiment file is YAML text, never either.
bool names_checkpoint(const std::string& path);

// `file` (when given) or the run's config.yaml, with `overrides` applied.
// Throws UsageError when neither exists.
ExperimentConfig experiment_for_checkpoint(const std::string& file, const std::vector<std::string>& overrides,
                                           const CheckpointChoice& choice);

}  // namespace trainer
