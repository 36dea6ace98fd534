#pragma once
// Experiment files become one typed ExperimentConfig here: YAML, then
// `--set a.b=c` overrides, then strict validation. Every problem is reported
// at once (ConfigError) with file:line:column or the --set that caused it.
#include <string>
#include <vector>

#include "config/read_context.h"
#include "spec/experiment_config.h"

namespace trainer {

// Reads `path`, applies `overrides` ("optimizer.lr=0.01", "model.layers.0.units=8").
ExperimentConfig load_experiment(const std::string& path, const std::vector<std::string>& overrides = {});

// A run's own config.yaml (resume, eval, export): as load_experiment, but
// keys of an optimizer other than the chosen one, which trainer wrote for
// every optimizer before each took only its own, are skipped.
ExperimentConfig load_recorded_experiment(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from text; `source_name` is what messages call the file.
ExperimentConfig parse_experiment(const std::string& yaml_text, const std::string& source_name,
                                  const std::vector<std::string>& overrides = {});

// parse_experiment, leaving in `context` where each value came from.
ExperimentConfig parse_experiment_in(const std::string& yaml_text, const std::vector<std::string>& overrides,
                                     ReadContext& context);

// `path` as text; UsageError when it cannot be read.
std::string read_experiment_text(const std::string& path);

// The files the experiment in `path` is made of: `path`, then each file it
// `extends:`, in turn (a writer checks its output against them). Throws
// what load_experiment throws for a file that cannot be read or composed.
std::vector<std::string> experiment_files(const std::string& path);

struct ExplainedKey {
  std::string key;     // "optimizer.lr"
  std::string value;   // as YAML flow text: "0.01", "[accuracy, top5]"
  std::string origin;  // "base.yaml:12:7", "--set optimizer.lr=0.01" or "default"
};

// Every key of the resolved experiment in `path`, with where its value came from.
std::vector<ExplainedKey> explain_experiment(const std::string& path, const std::vector<std::string>& overrides);

}  // namespace trainer
