#pragma once
// Models built from YAML snippets, for inputs described without a data set.
#include <string>

#include "config/config_loader.h"
#include "models/model.h"
#include "spec/data_info.h"
#include "util/error.h"

namespace trainer::testing {

// A synthetic experiment (logits out) with `model_yaml`, a `model:` section.
inline ExperimentConfig experiment_of(const std::string& model_yaml) {
  return parse_experiment("data: {dataset: synthetic}\nloss: {from_logits: true}\n" + model_yaml, "m.yaml");
}

// The layers of a flow list: "[{type: dense, units: 3}]". They start on line 4 of m.yaml.
inline ModelConfig model_of(const std::string& flow_list) {
  return experiment_of("model:\n  layers: " + flow_list + "\n").model;
}

// The layers of a block list ("    - {type: ...}\n" lines). The first is on line 5 of m.yaml.
inline ModelConfig layers_of(const std::string& block_list) {
  return experiment_of("model:\n  layers:\n" + block_list).model;
}

inline DataInfo tokens(int64_t length, int64_t vocabulary, int64_t classes) {
  DataInfo info;
  info.name = "test";
  info.input_shape = {length};
  info.token_inputs = true;
  info.vocabulary = vocabulary;
  info.classes = classes;
  return info;
}

// Rows of `features` numbers in `classes` classes (a dense model's input).
inline DataInfo feature_rows(int64_t features, int64_t classes) {
  DataInfo info;
  info.name = "test";
  info.input_shape = {features};
  info.classes = classes;
  return info;
}

inline DataInfo images(int64_t channels, int64_t height, int64_t width, int64_t classes) {
  DataInfo info;
  info.name = "test";
  info.input_shape = {channels, height, width};
  info.classes = classes;
  return info;
}

// The ConfigError that building `block_list` for `data` gives; "(no error)" when none.
inline std::string build_problem(const std::string& block_list, const DataInfo& data) {
  try {
    build_model(layers_of(block_list), data);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// Keras's "Total params" (or "Trainable params") of the summary.
inline int64_t parameter_count(const Model& model, bool trainable_only = false) {
  int64_t sum = 0;
  for (const auto& row : model.summary) sum += trainable_only ? row.trainable : row.parameters;
  return sum;
}

}  // namespace trainer::testing
