#include "train/step_monitor.h"

namespace trainer {

StepMonitor::StepMonitor(const LogConfig& log, const torch::Device& device)
    : log_(log), device_(device), interval_(device.is_cuda() ? kGpuTimingInterval : 1) {}

void StepMonitor::start_epoch(const MetricAccumulator& meters) {
  times_ = {};
  timer_ = std::make_unique<StepTimer>(device_, times_);
  steps_ = timed_ = 0;
  point_loss_ = DeferredRead();
  point_loss_sum_ = meters.samples() > 0 ? meters.loss_sum() : 0.0;
  point_samples_ = meters.samples();
  point_clock_.reset();
}

StepTimer* StepMonitor::before_step() {
  timing_ = log_.step_times && steps_ % interval_ == 0;
  if (!timing_) return nullptr;
  timer_->start();
  return timer_.get();
}

std::optional<StepPoint> StepMonitor::after_step(int64_t global_step, int64_t epoch, double lr,
                                                 const MetricAccumulator& meters, const torch::Tensor& loss_scale,
                                                 bool want_point) {
  // Counted here, not before the fetch: the fetch that finds the epoch's end is no step.
  ++steps_;
  if (timing_) ++timed_;
  if (!want_point || global_step % log_.scalars_every != 0) return std::nullopt;
  const int64_t samples = meters.samples() - point_samples_;
  if (samples <= 0) return std::nullopt;
  StepPoint point;
  point.step = global_step;
  point.epoch = epoch;
  point.lr = lr;
  point.samples_per_second = static_cast<double>(samples) / std::max(point_clock_.seconds(), 1e-9);
  point_samples_ = meters.samples();
  point_clock_.reset();
  const torch::Tensor loss_sum = meters.loss_sum_tensor().reshape({1});
  if (!loss_sum.is_cuda()) {
    const double sum = loss_sum.item<double>();
    point.loss = (sum - point_loss_sum_) / static_cast<double>(samples);
    point.loss_scale = loss_scale.defined() ? loss_scale.item<double>() : 0;
    point_loss_sum_ = sum;
    return point;
  }
  std::optional<StepPoint> previous = finish_point();
  // One copy: [loss sum, loss scale] (the sum alone without scaling).
  point_loss_.start(loss_scale.defined() ? torch::cat({loss_sum, loss_scale.reshape({1}).to(loss_sum.dtype())})
                                         : loss_sum);
  pending_point_ = point;
  pending_samples_ = samples;
  return previous;
}

std::optional<StepPoint> StepMonitor::finish_point() {
  if (!point_loss_.pending()) return std::nullopt;
  const torch::Tensor values = point_loss_.take();
  const double sum = values[0].item<double>();
  pending_point_.loss_scale = values.numel() > 1 ? values[1].item<double>() : 0;
  pending_point_.loss = (sum - point_loss_sum_) / static_cast<double>(pending_samples_);
  point_loss_sum_ = sum;
  return pending_point_;
}

void StepMonitor::fill(EpochRecord& record, int64_t steps_run) {
  if (timer_) timer_->collect();
  if (timed_ == 0) return;
  record.timed_steps = timed_;
  record.step_times = times_.scaled(static_cast<double>(steps_run) / static_cast<double>(timed_));
}

}  // namespace trainer
