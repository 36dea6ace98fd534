#pragma once
// Learning rate as a function of training progress, evaluated before every
// step. Stateless, so a resumed run needs only its step counter.
#include "spec/experiment_config.h"

namespace trainer {

// `epoch_progress` is fractional epochs done (step / steps_per_epoch);
// `total_epochs` is train.epochs.
double scheduled_lr(const ScheduleConfig& schedule, double base_lr, double epoch_progress, double total_epochs);

}  // namespace trainer
