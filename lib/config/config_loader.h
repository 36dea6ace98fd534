#pragma once
// Experiment files become one typed ExperimentConfig here: YAML, then
// `--set a.b=c` overrides, then strict validation. Every problem is reported
// at once (ConfigError) with file:line:column or the --set that caused it.
#include <string>
#include <vector>

#include "config/experiment_config.h"

namespace trainer {

// Reads `path`, applies `overrides` ("optimizer.lr=0.01", "model.layers.0.units=8").
ExperimentConfig load_experiment(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from text; `source_name` is what messages call the file.
ExperimentConfig parse_experiment(const std::string& yaml_text, const std::string& source_name,
                                  const std::vector<std::string>& overrides = {});

}  // namespace trainer
