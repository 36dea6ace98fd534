#pragma once
// train.cuda_graph: the training step captured once as a CUDA graph and
// replayed for every full batch. Each batch is copied into static input
// buffers that the captured forward pass reads; the optimizer steps through
// CapturableStep (step counts and rates on the device) at every step of
// such a run, eager or replayed, so that a resumed run computes exactly
// what an uninterrupted one does. The first `warmup_steps` steps run eagerly
// (cuDNN picks its algorithms, the optimizer state is made, the allocator
// settles), and so does every batch of another size (an epoch's last).
#include <torch/torch.h>

#include <algorithm>

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "feed/batch_loader.h"
#include "optim/capturable_step.h"
#include "train/batch_graph.h"
#include "models/model.h"
#include "train/cuda_graph_plan.h"
#include "train/metrics.h"

namespace trainer {

// Eager steps before the capture: cuDNN's algorithm search, the optimizer's
// state and the allocator settle first, as torch.cuda.graph's users do.
inline constexpr int64_t kGraphWarmupSteps = 3;

// auto keeps eager steps where they are faster: the warm-up steps after the
// first (which searches cuDNN's algorithms and makes the optimizer's state)
// and the replays after the first are timed on the device, and a graph
// whose fastest replay is slower than the fastest eager step by more than
// 5 % is dropped.
inline constexpr int64_t kTimedReplays = 3;
bool graph_pays(double eager_seconds, double replay_seconds);

// The race's two figures: each side's fastest timed step, so that one step
// slowed by something else on the machine (another process, the host's
// scheduler) does not decide, as one timed eager step could.
struct StepRace {
  double eager = 0, replay = 0;  // seconds; 0 until a step is timed
  void eager_step(double seconds) { eager = eager > 0 ? std::min(eager, seconds) : seconds; }
  void replayed_step(double seconds) { replay = replay > 0 ? std::min(replay, seconds) : seconds; }
  bool graph_pays() const { return trainer::graph_pays(eager, replay); }
};

// The facts cuda_graph_plan decides on, asked of a run's parts.
CaptureFacts capture_facts(const ExperimentConfig& config, const Model& model, const torch::optim::Optimizer& optimizer,
                           const torch::Device& device, bool data_parallel);

class GraphedStep {
 public:
  // What a captured step does with the static inputs and labels: forward,
  // loss, backward, the metric sums, clipping and the optimizer step.
  using Body = BatchGraph::Body;

  // `race`: time eager against replayed steps and keep the faster (auto).
  GraphedStep(torch::optim::Optimizer& optimizer, const torch::Device& device, int64_t full_batch, bool race,
              int64_t warmup_steps = kGraphWarmupSteps);

  CapturableStep& optimizer() { return optimizer_; }
  // Whether `batch` replays the graph (after the warm-up, a full batch, the
  // same accumulator the capture added into, no failed capture); otherwise
  // the caller steps eagerly and calls count_eager().
  bool replays(const Batch& batch, const MetricAccumulator* meters) const;
  // After a capture failed: eager steps from now on. Nothing of the failed
  // step ran (a capture records, it does not run), so it can run eagerly.
  void give_up() { failed_ = true; }
  void count_eager() { ++eager_steps_; }
  // Whether the next eager step is one of those timed against the replays
  // (a warm-up step after the first), and its seconds (the device waited
  // for at both ends).
  bool times_eager_step() const { return race_ && eager_steps_ >= 1 && eager_steps_ < warmup_steps_; }
  void record_eager_seconds(double seconds) { race_figures_.eager_step(seconds); }
  // What the race found, once it is decided (empty before, and after it was
  // taken): the two times, and whether the graph was dropped.
  std::string take_verdict() { return std::exchange(verdict_, std::string()); }
  // Copies `batch` into the static buffers and replays the step, capturing
  // `body` first when nothing is captured yet. Throws std::runtime_error
  // with CUDA's reason when the step cannot be captured.
  void replay(const Batch& batch, MetricAccumulator* meters, const Body& body);
  // A data-parallel step, in two graphs around the all-reduce, which runs
  // eagerly between them (NCCL inside a graph would tie every rank's
  // replays together; outside, a rank that steps eagerly still meets the
  // others' collectives): `backward` (forward, loss, backward, the metric
  // sums, the gradients into the reducer's buckets) is replayed as replay()
  // replays its body, then `reduce` runs, then `update` (unscaling,
  // clipping, the optimizer step) is captured the first time and replayed.
  // Throws as replay() does while the first part is captured. When the
  // second cannot be captured, `update` runs eagerly, so that the step is
  // whole, eager steps follow, and CUDA's reason is returned ("" otherwise).
  std::string replay_split(const Batch& batch, MetricAccumulator* meters, const Body& backward,
                           const std::function<void()>& reduce, const std::function<void()>& update);

  bool captured() const { return graph_.captured(); }
  int64_t replayed_steps() const { return replayed_steps_; }
  int64_t eager_steps() const { return eager_steps_; }

 private:
  CapturableStep optimizer_;
  torch::Device device_;
  int64_t full_batch_;
  int64_t warmup_steps_;
  int64_t eager_steps_ = 0, replayed_steps_ = 0;
  BatchGraph graph_;
  CudaGraph update_graph_;  // data-parallel runs: the step after the all-reduce
  const MetricAccumulator* captured_meters_ = nullptr;
  bool failed_ = false;
  bool race_;
  StepRace race_figures_;
  std::string verdict_;
};

}  // namespace trainer
