#pragma once
// Experiment files written by tests: small MLPs on synthetic data.
#include <cstdint>
#include <fstream>
#include <string>

namespace trainer::testing {

struct MlpExperiment {
  std::string name = "mlp";
  int64_t seed = 3;
  int64_t samples = 600;        // training samples
  int64_t valid_samples = 50;
  int64_t features = 256;       // floats per sample
  int64_t classes = 4;
  int64_t units = 2048;         // hidden layers' width
  int64_t hidden_layers = 1;
  std::string activation = "relu";  // the hidden layers'
  bool softmax = false;         // the output layer gives probabilities; else logits (loss from_logits)
  std::string file;             // empty: NAME.yaml
  std::string run_name;         // empty: the start time
  std::string extra;            // further top-level YAML lines
};

// Writes DIR/FILE (runs go to DIR/runs) and returns its path.
inline std::string write_mlp_experiment(const std::string& dir, const MlpExperiment& spec) {
  const std::string path = dir + "/" + (spec.file.empty() ? spec.name + ".yaml" : spec.file);
  std::ofstream out(path);
  out << "experiment: {name: " << spec.name << ", seed: " << spec.seed << "}\n"
      << "data:\n  dataset: synthetic\n  synthetic: {train_samples: " << spec.samples
      << ", valid_samples: " << spec.valid_samples << ", shape: [" << spec.features << "], classes: " << spec.classes
      << "}\n"
      << "model:\n  layers:\n";
  for (int64_t i = 0; i < spec.hidden_layers; ++i)
    out << "    - {type: dense, units: " << spec.units << ", activation: " << spec.activation << "}\n";
  out << (spec.softmax ? "    - {type: dense, units: classes, activation: softmax}\n"
                       : "    - {type: dense, units: classes}\nloss: {from_logits: true}\n")
      << "cpu_threads: 1\nlog: {dir: " << dir << "/runs" << (spec.run_name.empty() ? "" : ", run_name: " + spec.run_name)
      << "}\n"
      << spec.extra;
  return path;
}

// A small MLP (16 features, 32 units, 400 training samples: a second a
// run) named `name`, its run directory DIR/runs/NAME/RUN_NAME.
inline MlpExperiment small_mlp(const std::string& name, const std::string& run_name, const std::string& extra = "") {
  MlpExperiment spec;
  spec.name = name;
  spec.samples = 400;
  spec.features = 16;
  spec.units = 32;
  spec.run_name = run_name;
  spec.extra = extra;
  return spec;
}

// DIR/experiment.yaml: an MLP with dropout trained by NAdam for 4 epochs,
// accuracy and top-2 measured, its run directory DIR/runs/e2e/full.
inline std::string write_dropout_experiment(const std::string& dir, int64_t train_samples = 512) {
  const std::string path = dir + "/experiment.yaml";
  std::ofstream(path) << "experiment: {name: e2e, seed: 7}\n"
                         "data:\n  dataset: synthetic\n  synthetic: {train_samples: "
                      << train_samples << R"(, valid_samples: 128, shape: [16], classes: 4}
model:
  layers:
    - {type: dense, units: 32, activation: relu}
    - {type: dropout, rate: 0.2}
    - {type: dense, units: classes, activation: softmax}
optimizer: {name: nadam, lr: 0.01}
metrics: [accuracy, top2]
train: {epochs: 4, batch_size: 32}
cpu_threads: 1
log: {dir: )" << dir << "/runs, run_name: full}\n";
  return path;
}

// DIR/bn.yaml: a dense layer, then a batchnorm over its one value a
// channel, trained for one epoch of batch 32 on `train_samples` samples (33
// leaves the last batch one sample), its runs under DIR/runs.
inline std::string write_batchnorm_experiment(const std::string& dir, int64_t train_samples) {
  const std::string path = dir + "/bn.yaml";
  std::ofstream(path) << "data:\n  dataset: synthetic\n  synthetic: {train_samples: " << train_samples
                      << ", valid_samples: 8, shape: [8], classes: 3}\n"
                      << "model:\n  layers:\n    - {type: dense, units: 8}\n    - {type: batchnorm}\n"
                      << "    - {type: dense, units: classes, activation: softmax}\n"
                      << "train: {epochs: 1, batch_size: 32}\nlog: {dir: " << dir << "/runs}\n";
  return path;
}

}  // namespace trainer::testing
