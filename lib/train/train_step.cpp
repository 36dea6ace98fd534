#include "train/train_step.h"

#include <ATen/record_function.h>

#include "device/device_memory.h"
#include "device/device_select.h"
#include "device/runtime.h"
#include "optim/optimizer_factory.h"
#include "train/loss.h"
#include "train/parameter_groups.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/stopwatch.h"

namespace trainer {
namespace {

// LibTorch's clip_grad_norm_ with the same arithmetic, less its return value:
// reading the norm back as a double made the host wait for the device at
// every step.
void clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> gradients, norms;
  for (const auto& parameter : parameters)
    if (parameter.grad().defined()) gradients.push_back(parameter.grad());
  if (gradients.empty()) return;
  for (const auto& gradient : gradients) norms.push_back(gradient.norm(2));
  const torch::Tensor total = norms.size() == 1 ? norms[0] : torch::stack(norms).norm(2);
  const torch::Tensor coefficient = torch::clamp(max_norm / (total + 1e-6), c10::nullopt, 1.0);
  for (auto& gradient : gradients) gradient.mul_(coefficient);
}

}  // namespace

StepTimer::StepTimer(const torch::Device& device, StepTimes& times) : device_(device), times_(times) {
  if (DeviceTimeline::available(device)) marks_ = std::make_unique<Marks>(device);
}

void StepTimer::start() {
  if (marks_) {
    // The start mark sits behind the previous step's queued work, which
    // belongs to that step.
    collect();
    marks_->timeline.mark();
    return;
  }
  synchronize(device_);
  clock_.reset();
  last_ = 0;
}

void StepTimer::end(StepPhase phase) {
  if (marks_) {
    marks_->timeline.mark();
    marks_->phases.push_back(phase);
    return;
  }
  synchronize(device_);
  const double now = clock_.seconds();
  times_.of(phase) += now - last_;
  last_ = now;
}

void StepTimer::collect() {
  if (!marks_) return;
  const std::vector<double> seconds = marks_->timeline.take_intervals();
  for (size_t i = 0; i < seconds.size() && i < marks_->phases.size(); ++i) times_.of(marks_->phases[i]) += seconds[i];
  marks_->phases.clear();
}

TrainStep::TrainStep(const ExperimentConfig& config, Model& model, torch::optim::Optimizer& optimizer,
                     MixedPrecision& precision, const torch::Device& device, GradientReducer* reducer)
    : config_(config), model_(model), optimizer_(optimizer), precision_(precision), device_(device),
      reducer_(reducer),
      lr_scales_(scales_of(lr_scale_groups(model, config.optimizer.lr_scale))) {}

StepOutcome TrainStep::run(const Batch& batch, double lr, double share, bool stop_vote, const StepExtras& extras) {
  return run_group({&batch}, lr, share, stop_vote, extras);
}

void TrainStep::enable_graph(int64_t full_batch, bool race) {
  graphed_ = std::make_unique<GraphedStep>(optimizer_, device_, full_batch, race);
}

TrainStep::Forward TrainStep::forward(const torch::Tensor& inputs, const torch::Tensor& labels) {
  RECORD_USER_SCOPE("trainer/forward");
  Forward result;
  result.output = precision_.forward(model_, inputs);
  result.loss = compute_loss(config_.loss, result.output, labels, model_.final_softmax, class_weights_);
  if (const auto penalty = weight_penalty(model_); penalty.defined()) result.loss = result.loss + penalty;
  return result;
}

void TrainStep::backward(const Forward& forward, double weight) {
  RECORD_USER_SCOPE("trainer/backward");
  precision_.backward(weight == 1.0 ? forward.loss : forward.loss * weight);
}

void TrainStep::update(const torch::Tensor& skip) {
  if (config_.optimizer.clip_norm > 0) clip_gradient_norm(model_.trainable_parameters(), config_.optimizer.clip_norm);
  if (graphed_) graphed_->optimizer().step(skip);
  else optimizer_.step();
}

bool TrainStep::share_fits(double share) const {
  return !reducer_ || !graphed_->captured() || share == reducer_->weight();
}

std::optional<StepOutcome> TrainStep::replay(const Batch& batch, double share, bool stop_vote,
                                             const StepExtras& extras) {
  const auto phase_done = [&](StepPhase phase) {
    if (extras.timer) extras.timer->end(phase);
  };
  phase_done(StepPhase::kData);
  const bool capturing = !graphed_->captured();
  const auto backward_part = [&](const torch::Tensor& inputs, const torch::Tensor& labels) {
    // Dropped, not zeroed: the captured backward writes the gradients.
    model_.net->zero_grad(/*set_to_none=*/true);
    const Forward result = forward(inputs, labels);
    backward(result, 1.0);
    if (extras.meters) extras.meters->add_sums(result.loss, result.output, labels);
  };
  const auto update_part = [&] {
    captured_skip_ = precision_.unscale_on_device(model_.trainable_parameters());
    update(captured_skip_);
  };
  std::string update_failure;
  try {
    // One launch: a replayed step's whole compute is timed as its forward
    // phase (a data-parallel one's all-reduce as its own).
    RECORD_USER_SCOPE("trainer/graph_replay");
    if (!reducer_) {
      graphed_->replay(batch, extras.meters, [&](const torch::Tensor& inputs, const torch::Tensor& labels) {
        backward_part(inputs, labels);
        update_part();
      });
    } else {
      // Two graphs around the all-reduce; the hooks' copies into the
      // buckets are recorded in the first.
      if (capturing) reducer_->begin_capture(share);
      update_failure = graphed_->replay_split(
          batch, extras.meters,
          [&](const torch::Tensor& inputs, const torch::Tensor& labels) {
            backward_part(inputs, labels);
            reducer_->end_capture();
          },
          [&] {
            phase_done(StepPhase::kForward);
            if (extras.before_all_reduce) extras.before_all_reduce();
            RECORD_USER_SCOPE("trainer/all_reduce");
            reducer_->reduce_replayed(stop_vote ? 1.0f : 0.0f);
            phase_done(StepPhase::kAllReduce);
          },
          update_part);
    }
  } catch (const c10::OutOfMemoryError& error) {
    if (!capturing) throw;
    if (config_.train.cuda_graph == CudaGraphMode::kOn)
      throw device_out_of_memory(device_,
                                 std::string(error.what_without_backtrace()) +
                                     " (while capturing the training step as a CUDA graph, whose memory pool is "
                                     "its own)",
                                 out_of_memory_hint(config_, device_) + "; or set train.cuda_graph: auto or off");
    log().warn("cuda_graph: capturing the training step ran out of memory (the graph's pool is its own); eager "
               "steps from here");
    graphed_->give_up();
    return std::nullopt;
  } catch (const std::runtime_error& error) {
    if (!capturing) throw;
    if (config_.train.cuda_graph == CudaGraphMode::kOn)
      throw ConfigError({std::string("train.cuda_graph: on, but the training step could not be captured: ") +
                         error.what() + "; use auto to train with eager steps"});
    log().warn("cuda_graph: the training step could not be captured ({}); eager steps from here", error.what());
    graphed_->give_up();
    return std::nullopt;
  }
  phase_done(reducer_ ? StepPhase::kOptimizer : StepPhase::kForward);
  if (!update_failure.empty()) {
    // The step itself is whole: its update ran eagerly.
    if (config_.train.cuda_graph == CudaGraphMode::kOn)
      throw ConfigError({"train.cuda_graph: on, but the optimizer's part of the data-parallel step could not be "
                         "captured: " + update_failure + "; use auto to train with eager steps"});
    log().warn("cuda_graph: the optimizer's part of the data-parallel step could not be captured ({}); eager steps "
               "from here", update_failure);
  }
  if (const std::string verdict = graphed_->take_verdict(); !verdict.empty()) log().info("cuda_graph: {}", verdict);
  StepOutcome outcome;
  outcome.stepped = true;
  outcome.skipped_on_device = captured_skip_;
  record_stop(outcome, stop_vote);
  return outcome;
}

StepOutcome TrainStep::run_group(const std::vector<const Batch*>& group, double lr, double share, bool stop_vote,
                                 const StepExtras& extras) {
  if (graphed_) {
    // The rates go to the device scalars the captured optimizer reads.
    graphed_->optimizer().set_learning_rates(group_rates(optimizer_.param_groups().size(), lr, lr_scales_));
    if (group.size() == 1 && share_fits(share) && graphed_->replays(*group[0], extras.meters))
      if (const auto outcome = replay(*group[0], share, stop_vote, extras)) return *outcome;
  } else {
    set_learning_rate(optimizer_, lr, lr_scales_);
  }
  // auto's race: the last warm-up step, timed on the device.
  const bool timed = graphed_ && graphed_->times_eager_step();
  Stopwatch clock;
  if (timed) {
    synchronize(device_);
    clock.reset();
  }
  const StepOutcome outcome = run_eagerly(group, share, stop_vote, extras);
  if (graphed_) {
    if (timed) {
      synchronize(device_);
      graphed_->record_eager_seconds(clock.seconds());
    }
    graphed_->count_eager();
  }
  return outcome;
}

StepOutcome TrainStep::run_eagerly(const std::vector<const Batch*>& group, double share, bool stop_vote,
                                   const StepExtras& extras) {
  const auto phase_done = [&](StepPhase phase) {
    if (extras.timer) extras.timer->end(phase);
  };
  // Dropping the gradients (instead of zeroing them) lets backward write
  // them directly: no memset, no accumulate.
  model_.net->zero_grad(/*set_to_none=*/true);
  int64_t samples = 0;
  for (const Batch* batch : group) samples += batch->size();
  for (size_t i = 0; i < group.size(); ++i) {
    const Batch& batch = *group[i];
    const bool last = i + 1 == group.size();
    // The gradients of all but the last batch stay on this rank.
    if (reducer_) last ? reducer_->begin_step(share, stop_vote ? 1.0f : 0.0f) : reducer_->hold();
    // Each phase is also a named range in a profile (train.profile); the
    // ranges cost nothing when no profile is being taken.
    if (batch.size() == 0) continue;
    torch::Tensor inputs, labels;
    {
      RECORD_USER_SCOPE("trainer/to_device");
      inputs = batch.inputs.to(device_);
      labels = batch.labels.to(device_);
    }
    phase_done(StepPhase::kData);
    const Forward result = forward(inputs, labels);
    phase_done(StepPhase::kForward);
    backward(result, group.size() == 1 ? 1.0 : static_cast<double>(batch.size()) / static_cast<double>(samples));
    if (extras.meters) extras.meters->add(result.loss, result.output, labels);
  }
  if (reducer_) {
    phase_done(StepPhase::kBackward);
    if (extras.before_all_reduce) extras.before_all_reduce();
    {
      RECORD_USER_SCOPE("trainer/all_reduce");
      reducer_->finalize();
    }
    phase_done(StepPhase::kAllReduce);
  } else {
    phase_done(StepPhase::kBackward);
  }
  StepOutcome outcome;
  {
    RECORD_USER_SCOPE("trainer/optimizer");
    if (graphed_) {
      // The same decision as the captured step's, on the device.
      outcome.stepped = true;
      outcome.skipped_on_device = precision_.unscale_on_device(model_.trainable_parameters());
      update(outcome.skipped_on_device);
    } else {
      // Every rank holds the same averaged gradients, so all skip together.
      outcome.stepped = precision_.unscale_and_check(model_.trainable_parameters());
      if (outcome.stepped) update();
    }
  }
  phase_done(StepPhase::kOptimizer);
  record_stop(outcome, stop_vote);
  return outcome;
}

}  // namespace trainer
