#pragma once
// What changes between the config a run was started with and the one a
// resume asks for, key by key, and which keys may change without breaking
// the promise that a resumed run continues the same run.
#include <string>
#include <vector>

#include "spec/experiment_config.h"

namespace trainer {

struct ConfigChange {
  std::string key;     // "train.epochs", "model.layers[2].units"
  std::string before;  // as YAML, flow style; "(absent)" when not there
  std::string after;
};

// Every key whose resolved value differs, in the order of the config.
std::vector<ConfigChange> diff_configs(const ExperimentConfig& before, const ExperimentConfig& after);

// Keys that change how long or where a run goes, or how fast, but not what
// it computes: train.epochs, log.*, data.workers, data.prefetch,
// cpu_threads, blas_threads, memory_limit, checkpoint and check intervals,
// dist.timeout, valid_batch_size.
bool may_change_on_resume(const std::string& key);
// The same for one change, which may also move a run to as many devices of
// the same kind ([gpu:0] -> [gpu:1]: what it computes stays the same).
bool may_change_on_resume(const ConfigChange& change);

// The keys of may_change_on_resume, for messages and docs.
std::vector<std::string> keys_that_may_change_on_resume();

}  // namespace trainer
