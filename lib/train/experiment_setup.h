#pragma once
// What every subcommand that touches a model does after configure_runtime
// (device/runtime.h): seeds, data, model.
#include "data/dataset.h"
#include "models/model.h"
#include "runs/checkpoint.h"
#include "spec/experiment_config.h"

namespace trainer {

struct Experiment {
  DataSplits data;
  Model model;
};

// Seeds the global generator, loads the data and builds the model on
// `device`. Where the data set can be previewed (data/dataset.h), the model
// is built first, so that a graph error (ConfigError) comes before any
// data error or the wait for loading.
Experiment prepare_experiment(const ExperimentConfig& config, const torch::Device& device);

// Moves a model built (and initialised) on the CPU to `device`; on a GPU in
// the layout cuDNN runs fastest (gpu.channels_last) and with trainer's fused
// kernels in place (gpu.fused_kernels).
void place_model(Model& model, const torch::Device& device, const GpuConfig& gpu);

// The model alone, for data described by `info`.
Model build_seeded_model(const ExperimentConfig& config, const DataInfo& info);

// The model to look at (trainer summary) on the CPU, needing as little of
// the data as it can: the data set's preview (a header or one image), else
// what the experiment file fixes (describe_from_config: synthetic data,
// patch_size or images.size, a sequence_length), else the loaded data. Where
// the data is not at hand and the file fixes no shape, the DataError's hint
// names the key that would.
Model build_model_to_inspect(const ExperimentConfig& config);

// The model from the data set's description alone, without loading it, for
// a command that only needs the weights' shapes (`what`: "export",
// "predict"); a DataError where the data set cannot be described.
// A checkpoint's weights into `model` for evaluation or inference (trainer
// eval, predict, export): its weight average instead of the trained weights
// where it holds one and train.ema.evaluate says so. As load_checkpoint.
TrainingState load_weights_to_use(const std::string& checkpoint, Model& model, const ExperimentConfig& config,
                                  const torch::Device& device);

struct DescribedModel {
  DataInfo info;
  Model model;
};
DescribedModel build_model_from_description(const ExperimentConfig& config, const std::string& what);

}  // namespace trainer
