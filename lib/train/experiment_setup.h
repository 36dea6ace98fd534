#pragma once
// The work every subcommand that touches a model does first, in order:
// runtime (threads, BLAS), seeds, data, model.
#include "config/experiment_config.h"
#include "data/dataset.h"
#include "models/model.h"
#include "util/blas.h"

namespace trainer {

struct RuntimeInfo {
  int threads = 1;
  BlasInfo blas;
  std::string memory_budget;  // the budget's log line; empty: none to state
};

// Intra-op threads from cpu_threads (0: the physical cores split evenly
// between the `ranks_on_this_host`), BLAS pinned to one thread under them,
// `device` made current (a GPU) and given memory_limit. Must run before any
// other torch work.
RuntimeInfo configure_runtime(const ExperimentConfig& config, const torch::Device& device,
                              int ranks_on_this_host = 1);

// What an out-of-memory message suggests for this experiment on `device`.
std::string out_of_memory_hint(const ExperimentConfig& config, const torch::Device& device);

struct Experiment {
  DataSplits data;
  Model model;
};

// "trainer 0.1.0 (LibTorch 1.13.0, CPU)" for --version.
std::string version_text();

// Seeds the global generator, loads the data and builds the model on `device`.
Experiment prepare_experiment(const ExperimentConfig& config, const torch::Device& device);

// The model alone, for data described by `info` (trainer summary).
Model build_seeded_model(const ExperimentConfig& config, const DataInfo& info);

}  // namespace trainer
