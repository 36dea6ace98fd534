#pragma once
// Where a training step's time goes, summed over steps (torch-free: the bench
// report formats it).

namespace trainer {

enum class StepPhase { kData, kForward, kBackward, kOptimizer };

struct StepTimes {
  double data = 0, forward = 0, backward = 0, optimizer = 0;  // seconds
  double total() const { return data + forward + backward + optimizer; }
  double& of(StepPhase phase) {
    switch (phase) {
      case StepPhase::kData: return data;
      case StepPhase::kForward: return forward;
      case StepPhase::kBackward: return backward;
      case StepPhase::kOptimizer: break;
    }
    return optimizer;
  }
};

}  // namespace trainer
