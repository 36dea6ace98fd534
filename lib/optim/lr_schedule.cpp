#include "optim/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace trainer {

double scheduled_lr(const ScheduleConfig& schedule, double base_lr, double epoch_progress, double total_epochs) {
  double lr = base_lr;
  switch (schedule.name) {
    case ScheduleKind::kConstant:
      break;
    case ScheduleKind::kStep:
      lr = base_lr * std::pow(schedule.gamma, std::floor(epoch_progress / schedule.step_epochs));
      break;
    case ScheduleKind::kExponential:
      lr = base_lr * std::pow(schedule.gamma, epoch_progress);
      break;
    case ScheduleKind::kCosine: {
      const double done = std::clamp(epoch_progress / total_epochs, 0.0, 1.0);
      lr = schedule.min_lr + (base_lr - schedule.min_lr) * 0.5 * (1.0 + std::cos(M_PI * done));
      break;
    }
  }
  if (schedule.warmup_epochs > 0 && epoch_progress < schedule.warmup_epochs)
    lr *= epoch_progress / schedule.warmup_epochs;
  return lr;
}

}  // namespace trainer
