#pragma once
// The per-step bookkeeping of a training run beside the step itself: which
// steps have their phases timed, and the per-step points for observers.
//
// Timing a phase means waiting for the device at its end. On a CPU that wait
// is free, so every step is timed; on a GPU it would cost the overlap of host
// and device, so one step in kGpuTimingInterval is, and the epoch's split is
// scaled from those.
#include <torch/torch.h>

#include <memory>
#include <optional>

#include "device/deferred_read.h"
#include "runs/epoch_log.h"
#include "runs/step_times.h"
#include "spec/experiment_config.h"
#include "train/metrics.h"
#include "train/train_step.h"
#include "util/stopwatch.h"
#include "watch/run_observer.h"

namespace trainer {

inline constexpr int64_t kGpuTimingInterval = 20;

class StepMonitor {
 public:
  StepMonitor(const LogConfig& log, const torch::Device& device);

  // At the epoch's start (after a resumed epoch's sums are loaded).
  void start_epoch(const MetricAccumulator& meters);
  // Before the step's batch is fetched: the timer to hand the step, already
  // started, or null when this step is not timed.
  StepTimer* before_step();
  // After every step. With `want_point`, a point every `log.scalars_every`
  // global steps. On a GPU a point's loss is read without waiting for the
  // device, so each point is handed out at the next one (or finish_point()).
  // `loss_scale`: the loss scaler's device scalar, read as the loss is
  // (undefined: no loss scaling).
  std::optional<StepPoint> after_step(int64_t global_step, int64_t epoch, double lr,
                                      const MetricAccumulator& meters, const torch::Tensor& loss_scale,
                                      bool want_point);
  // The point still waiting for its loss, at the epoch's end.
  std::optional<StepPoint> finish_point();
  // The epoch's step-time split, scaled to the `steps_run` steps this process ran.
  // (Collects the last timed step's GPU phases first.)
  void fill(EpochRecord& record, int64_t steps_run);

 private:
  LogConfig log_;
  torch::Device device_;
  int64_t interval_ = 1;  // time one step in this many
  StepTimes times_;
  std::unique_ptr<StepTimer> timer_;
  int64_t steps_ = 0, timed_ = 0;
  bool timing_ = false;  // the current step is timed
  // The previous point: the loss sum and sample count the epoch had then.
  double point_loss_sum_ = 0;
  int64_t point_samples_ = 0;
  Stopwatch point_clock_;
  // On a GPU: the last point, waiting for its loss sum (and loss scale) to
  // reach the host.
  DeferredRead point_loss_;
  StepPoint pending_point_;
  int64_t pending_samples_ = 0;
};

}  // namespace trainer
