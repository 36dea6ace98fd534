#pragma once
// Checkpoints hold everything a resumed run needs to continue exactly as the
// uninterrupted run would have: model, optimizer, counters, the position
// inside an interrupted epoch with its metric sums, and the global RNG
// (dropout). The data order needs no state: it is a function of seed and epoch.
#include <torch/torch.h>

#include <string>

#include "runs/checkpoint_seal.h"
#include "runs/epoch_monitor.h"
#include "runs/run_dir.h"

namespace trainer {

struct TrainingState {
  int64_t epoch = 0;          // epochs fully done
  int64_t step_in_epoch = 0;  // steps done in epoch `epoch + 1` (interrupted runs)
  int64_t global_step = 0;
  torch::Tensor epoch_metric_sums;  // MetricAccumulator::state() when step_in_epoch > 0
  torch::Tensor loss_scaler;        // LossScaler::state() of runs that scale their loss
  torch::Tensor rng_gpu;            // the training GPU's generator state (GPU runs)
  torch::Tensor weight_average;     // WeightAverage::state() of runs with train.ema
  std::string optimizer;            // "adam": its state loads only into the same kind
  MonitorCounters monitor;          // best epoch and early stopping's patience
};

// Written under a temporary name, then renamed: an existing checkpoint is
// never replaced by a partial one; sealed with its SHA-256 (checkpoint_seal.h).
// Weights that are NaN or infinite are never saved: throws DivergedError
// (and IoError when the file cannot be written).
void save_checkpoint(const std::string& path, torch::nn::Module& model, const torch::optim::Optimizer& optimizer,
                     const TrainingState& state);

// The names of the parameters and buffers of `model` that hold NaN or an
// infinity (one host sync for all of them).
std::vector<std::string> non_finite_tensors(torch::nn::Module& model);

// Throws DivergedError naming `path` (the checkpoint not saved) when
// `model` has non-finite weights.
void require_finite_weights(torch::nn::Module& model, const std::string& path);

// Restores into `model` and, when given, `optimizer` (of kind
// `optimizer_name`, compared with the checkpoint's), their tensors placed on
// `device` (a checkpoint written on a GPU loads on a CPU and vice versa).
// Throws UnusableCheckpoint when the file is damaged (seal or CRC-32) or
// holds non-finite weights; IoError when it cannot be read or does not fit
// the model; UsageError when the optimizer differs.
TrainingState load_checkpoint(const std::string& path, torch::nn::Module& model, torch::optim::Optimizer* optimizer,
                              const torch::Device& device = torch::kCPU, const std::string& optimizer_name = {});

// Resuming: loads the newest of `point`'s checkpoints that is usable into
// `state`, `model` and `optimizer` (as load_checkpoint), warning about each
// one skipped with the reason; returns its path. Throws IoError naming every
// reason when none is usable; a file named on its own is not skipped.
std::string load_newest_usable(const ResumePoint& point, TrainingState& state, torch::nn::Module& model,
                               torch::optim::Optimizer* optimizer, const torch::Device& device,
                               const std::string& optimizer_name);

}  // namespace trainer
