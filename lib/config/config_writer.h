#pragma once
// The fully resolved config as YAML (`trainer config`, a run's config.yaml).
#include <string>

#include "spec/experiment_config.h"

namespace trainer {

// Every field, defaults filled in; parses back to the same config.
std::string to_yaml(const ExperimentConfig& config);

}  // namespace trainer
