#pragma once
// One optimizer step, the same for `trainer run` and `trainer bench FILE`:
// learning rate, forward, loss, backward, gradient all-reduce (data
// parallel), unscale and overflow check (fp16 loss scaling), clipping, step.
// A bench times the very step that trains.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "device/device_timeline.h"
#include "distributed/gradient_reducer.h"
#include "feed/batch_loader.h"
#include "models/model.h"
#include "runs/step_times.h"
#include "spec/experiment_config.h"
#include "train/graphed_step.h"
#include "train/metrics.h"
#include "train/mixed_precision.h"
#include "util/stopwatch.h"

namespace trainer {

// Adds the seconds of each phase of a step to `times`. GPU work is
// asynchronous: on a GPU each phase's end is a timing event on its queue,
// and the times between them are read when the next step is timed (or at
// collect()), when the GPU has long passed them, so the host never waits.
// Elsewhere (a CPU, or a build without CUDA) the device is waited for at
// the step's start and each phase's end, and a clock read: on a CPU the
// waits are free. A run times only sampled steps on a GPU (StepMonitor).
class StepTimer {
 public:
  StepTimer(const torch::Device& device, StepTimes& times);
  // Before the batch is fetched: the data phase starts here.
  void start();
  void end(StepPhase phase);
  // The last timed step's phases into `times`, where they are still on the
  // GPU's queue; before `times` is read.
  void collect();

 private:
  torch::Device device_;
  StepTimes& times_;
  Stopwatch clock_;
  double last_ = 0;
  // On a GPU: the marks of the step being timed, and the phase each mark
  // after the first ends.
  struct Marks {
    explicit Marks(const torch::Device& device) : timeline(device) {}
    DeviceTimeline timeline;
    std::vector<StepPhase> phases;
  };
  std::unique_ptr<Marks> marks_;
};

struct StepExtras {
  MetricAccumulator* meters = nullptr;        // loss and metrics of the batch, when given
  StepTimer* timer = nullptr;                 // phase times, when given
  std::function<void()> before_all_reduce;    // e.g. the heartbeat's phase
};

struct StepOutcome {
  bool stepped = false;  // false: skipped, the fp16 gradients overflowed
  bool stop = false;     // one process: an interrupt was asked for
  // Data-parallel: the ranks' summed stop votes (> 0: stop), a scalar on the
  // reducer's device, which the caller reads (on a GPU, late).
  torch::Tensor stop_votes;
  // A graphed run's fp16 loss scaling decides on the device: stepped is
  // then true, and this flag (1: the step was skipped) says the rest.
  torch::Tensor skipped_on_device;
};

class TrainStep {
 public:
  // `reducer` null: one process. All references must outlive the step.
  TrainStep(const ExperimentConfig& config, Model& model, torch::optim::Optimizer& optimizer,
            MixedPrecision& precision, const torch::Device& device, GradientReducer* reducer = nullptr);

  // One step on `batch` (this rank's part, `share` of the global batch; may
  // be empty) at learning rate `lr`. `stop_vote` travels with the gradients
  // so that every rank learns of an interrupt after the same step.
  StepOutcome run(const Batch& batch, double lr, double share = 1.0, bool stop_vote = false,
                  const StepExtras& extras = {});
  // One step on the batches of `group` (train.accumulate), their gradients
  // added before the step: each batch's mean loss weighed by its share of
  // this rank's samples in the group (its size / theirs), so that the step's
  // gradient is that of the group's mean loss, as one batch of all of them
  // would give; `share` is this rank's part of all ranks' groups, and the
  // gradients are reduced once, after the last batch.
  StepOutcome run_group(const std::vector<const Batch*>& group, double lr, double share = 1.0,
                        bool stop_vote = false, const StepExtras& extras = {});
  // loss.class_weights, one a class (class_weight_tensor); undefined: none.
  void set_class_weights(const torch::Tensor& weights) {
    class_weights_ = weights.defined() ? weights.to(device_) : weights;
  }
  // train.cuda_graph, once cuda_graph_plan allowed it: every step from now
  // on steps the optimizer through CapturableStep, and full batches of
  // `full_batch` samples replay one captured step after the warm-up.
  // `race` (auto in a run): eager steps again when the replay is slower.
  void enable_graph(int64_t full_batch, bool race = false);
  // Null unless enable_graph was called.
  const GraphedStep* graphed() const { return graphed_.get(); }
  // Before the optimizer's state is saved: the device step counts into it.
  void store_optimizer_state() {
    if (graphed_) graphed_->optimizer().store_state();
  }

 private:
  struct Forward {
    torch::Tensor output, loss;
  };
  // The output and loss (with weight penalties) of a batch on the device.
  Forward forward(const torch::Tensor& inputs, const torch::Tensor& labels);
  // Backward of the loss times `weight` (its share of an accumulated step).
  void backward(const Forward& forward, double weight);
  // Clipping and the optimizer's update; `skip`: CapturableStep's flag.
  void update(const torch::Tensor& skip = {});
  // The step without a graph: each batch's forward and backward, the
  // all-reduce, the loss scaler's verdict, the update.
  StepOutcome run_eagerly(const std::vector<const Batch*>& group, double share, bool stop_vote,
                          const StepExtras& extras);
  // A full batch through the captured step (captured first when it is the
  // first); nullopt when the capture failed under auto (then logged, and the
  // step is the caller's to take eagerly).
  std::optional<StepOutcome> replay(const Batch& batch, double share, bool stop_vote, const StepExtras& extras);
  // The step's stop verdict: this process's vote, or the ranks' sum.
  void record_stop(StepOutcome& outcome, bool stop_vote) const {
    if (reducer_)
      outcome.stop_votes = reducer_->control_votes();
    else
      outcome.stop = stop_vote;
  }
  // Whether a data-parallel step of this rank's `share` may replay: the
  // capture multiplies each gradient by the share it was captured with.
  bool share_fits(double share) const;

  const ExperimentConfig& config_;
  Model& model_;
  torch::optim::Optimizer& optimizer_;
  MixedPrecision& precision_;
  torch::Device device_;
  GradientReducer* reducer_;
  torch::Tensor class_weights_;
  std::vector<double> lr_scales_;  // optimizer.lr_scale: each parameter group's factor
  std::unique_ptr<GraphedStep> graphed_;
  // The captured step's skip flag (fp16 loss scaling): a tensor of the
  // graph, which every replay writes.
  torch::Tensor captured_skip_;
};

}  // namespace trainer
