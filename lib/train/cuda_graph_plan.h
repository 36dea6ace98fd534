#pragma once
// Whether a run's training step can be captured as a CUDA graph
// (train.cuda_graph), and if not, why: a graph replays the GPU work of one
// step and nothing the host decides during it, so a step that reads a value
// back (a packed sequence's lengths), talks to
// other ranks, or runs code trainer cannot see into stays eager.
// Torch-free: what the model and optimizer are like comes in as facts.
#include <string>

#include "spec/experiment_config.h"

namespace trainer {

struct CaptureFacts {
  bool gpu = false;               // the run trains on a GPU
  bool data_parallel = false;     // several ranks
  bool masked_sequences = false;  // recurrent layers reading masked (packed) sequences
  bool scripted = false;          // a torchscript layer or loss
  std::string optimizer;          // CapturableStep::unsupported(): "" when it has a device-side step
};

struct CapturePlan {
  bool capture = false;
  std::string reason;  // when not: what prevents it, for the log and the config error
};

CapturePlan plan_cuda_graph(const ExperimentConfig& config, const CaptureFacts& facts);
// Validation's forward (no backward, no optimizer, its sums all-reduced
// after the last batch): what the model allows decides, under auto and on
// alike; data-parallel runs and any optimizer may.
CapturePlan plan_validation_graph(const ExperimentConfig& config, const CaptureFacts& facts);

}  // namespace trainer
