#include "train/cuda_graph_plan.h"

namespace trainer {

CapturePlan plan_cuda_graph(const ExperimentConfig& config, const CaptureFacts& facts) {
  const auto refuse = [](std::string reason) { return CapturePlan{false, std::move(reason)}; };
  if (config.train.cuda_graph == CudaGraphMode::kOff) return refuse("train.cuda_graph: off");
  if (!facts.gpu) return refuse("the run is not on a GPU");
  if (config.train.accumulate > 1) return refuse("train.accumulate > 1 (several batches a step)");
  if (const CapturePlan model = plan_validation_graph(config, facts); !model.capture) return model;
  if (!facts.optimizer.empty()) return refuse("the optimizer (" + facts.optimizer + ")");
  return {true, ""};
}

CapturePlan plan_validation_graph(const ExperimentConfig& config, const CaptureFacts& facts) {
  const auto refuse = [](std::string reason) { return CapturePlan{false, std::move(reason)}; };
  if (config.train.cuda_graph == CudaGraphMode::kOff) return refuse("train.cuda_graph: off");
  if (!facts.gpu) return refuse("the run is not on a GPU");
  if (facts.masked_sequences)
    return refuse("masked sequences (a recurrent layer packs them by lengths read on the host)");
  if (facts.scripted) return refuse("a torchscript layer or loss (what it does on the host cannot be seen)");
  return {true, ""};
}

}  // namespace trainer
