// TrainingLoop's decision on train.cuda_graph: capture the step, or say why not.
#include "train/training_loop.h"

#include "train/validation.h"
#include "util/error.h"
#include "util/logging.h"

namespace trainer {

void TrainingLoop::plan_graph() {
  const CaptureFacts facts =
      capture_facts(config_, experiment_.model, *optimizer_, device_, cluster_.distributed());
  if (plan_validation_graph(config_, facts).capture && experiment_.data.valid.size() > 0) {
    const int64_t batch = validation_batch_size(config_, device_, experiment_.data.valid.size());
    validation_graph_ =
        std::make_unique<ValidationGraph>(validation_meters(experiment_.model, config_), device_, batch);
    log().info("cuda_graph: validation replays one captured forward pass for its full batches of {} after one "
               "eager batch", batch);
  }
  const CapturePlan plan = plan_cuda_graph(config_, facts);
  if (plan.capture) {
    step_->enable_graph(config_.train.batch_size.value, config_.train.cuda_graph == CudaGraphMode::kAuto);
    log().info("cuda_graph: full batches replay one captured training step{} after {} eager warm-up steps; "
               "shorter batches step eagerly",
               facts.data_parallel ? " (two graphs, the all-reduce between them)" : "", kGraphWarmupSteps);
    return;
  }
  if (config_.train.cuda_graph == CudaGraphMode::kOn)
    throw ConfigError({"train.cuda_graph: on, but this run cannot capture its step: " + plan.reason +
                       "; use auto to train with eager steps"});
  if (facts.gpu && config_.train.cuda_graph == CudaGraphMode::kAuto)
    log().info("cuda_graph: eager steps: {}", plan.reason);
}

}  // namespace trainer
