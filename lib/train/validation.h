#pragma once
#include "data/dataset.h"
#include "distributed/communicator.h"
#include "models/model.h"
#include "runs/class_scores.h"
#include "runs/epoch_log.h"
#include "spec/experiment_config.h"
#include "train/validation_graph.h"
#include "watch/progress.h"

namespace trainer {

struct Validation {
  std::vector<MetricValue> metrics;  // the loss first
  ConfusionMatrix confusion;         // counted when the metrics include precision, recall or f1
};

// Metrics of `model` over all of `data`, in eval mode without gradients;
// the model is left in training mode. Batches go to `device` (the model's).
// With several ranks each evaluates its shard and the sums are all-reduced:
// every sample counted exactly once, no padding duplicates. `progress`,
// when given, shows the validation of the epoch it last started. `graph`,
// when given (a run whose step is captured), replays its captured forward
// for the full batches and sums into its meters.
Validation validate_model(Model& model, const TensorDataset& data, const ExperimentConfig& config,
                          const torch::Device& device, Communicator& communicator, ProgressBar* progress = nullptr,
                          ValidationGraph* graph = nullptr);

// The meters validation sums into.
MetricAccumulator validation_meters(const Model& model, const ExperimentConfig& config);

// The metrics of the validation inputs themselves taken as the outputs,
// for data sets whose targets are images: the identity baseline a
// restoration model has to beat (a deblurring model's output must be closer
// to the sharp image than its blurred input is). Sums over the ranks.
std::vector<MetricValue> identity_baseline(const TensorDataset& data, const ExperimentConfig& config,
                                           Communicator& communicator);

// The validation batch: valid_batch_size, or when 0 the training batch on a
// CPU (larger batches only slow its matrix products) and 4 x it on a GPU
// (no gradients to keep: more samples fit); never above the data set.
int64_t validation_batch_size(const ExperimentConfig& config, const torch::Device& device, int64_t samples);

}  // namespace trainer
