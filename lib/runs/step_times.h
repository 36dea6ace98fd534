#pragma once
// Where a training step's time goes, summed over steps (torch-free: the bench
// report formats it).

namespace trainer {

enum class StepPhase { kData, kForward, kBackward, kAllReduce, kOptimizer };

struct StepTimes {
  // data: fetching the batch (waiting for the loader) and copying it to the
  // device; all_reduce: waiting for the gradient all-reduce after backward.
  double data = 0, forward = 0, backward = 0, all_reduce = 0, optimizer = 0;  // seconds
  double total() const { return data + forward + backward + all_reduce + optimizer; }
  StepTimes scaled(double factor) const {
    return {data * factor, forward * factor, backward * factor, all_reduce * factor, optimizer * factor};
  }
  double& of(StepPhase phase) {
    switch (phase) {
      case StepPhase::kData: return data;
      case StepPhase::kForward: return forward;
      case StepPhase::kBackward: return backward;
      case StepPhase::kAllReduce: return all_reduce;
      case StepPhase::kOptimizer: break;
    }
    return optimizer;
  }
};

}  // namespace trainer
