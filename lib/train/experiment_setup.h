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
};

// Intra-op threads from cpu_threads (0: the cores split evenly between the
// `ranks_on_this_host`), BLAS pinned to one thread under them. Must run
// before any other torch work.
RuntimeInfo configure_runtime(const ExperimentConfig& config, int ranks_on_this_host = 1);

struct Experiment {
  DataSplits data;
  Model model;
};

// "trainer 0.1.0 (LibTorch 1.13.0, CPU)" for --version.
std::string version_text();

// Seeds the global generator, loads the data and builds the model.
Experiment prepare_experiment(const ExperimentConfig& config);

// The model alone, for data described by `info` (trainer summary).
Model build_seeded_model(const ExperimentConfig& config, const DataInfo& info);

}  // namespace trainer
