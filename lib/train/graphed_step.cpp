#include "train/graphed_step.h"

#include <fmt/format.h>

#include "device/device_select.h"
#include "util/stopwatch.h"

namespace trainer {

CaptureFacts capture_facts(const ExperimentConfig& config, const Model& model, const torch::optim::Optimizer& optimizer,
                           const torch::Device& device, bool data_parallel) {
  CaptureFacts facts;
  facts.gpu = device.is_cuda();
  facts.data_parallel = data_parallel;
  facts.masked_sequences = model.net->masks();
  facts.scripted = model.scripted || config.loss.name == LossKind::kTorchScript;
  facts.optimizer = CapturableStep::unsupported(optimizer);
  return facts;
}

bool graph_pays(double eager_seconds, double replay_seconds) { return replay_seconds <= 1.05 * eager_seconds; }

GraphedStep::GraphedStep(torch::optim::Optimizer& optimizer, const torch::Device& device, int64_t full_batch,
                         bool race, int64_t warmup_steps)
    : optimizer_(optimizer), device_(device), full_batch_(full_batch), warmup_steps_(warmup_steps), graph_(device),
      race_(race) {}

bool GraphedStep::replays(const Batch& batch, const MetricAccumulator* meters) const {
  if (failed_ || eager_steps_ < warmup_steps_ || batch.size() != full_batch_) return false;
  return !captured() || meters == captured_meters_;
}

void GraphedStep::replay(const Batch& batch, MetricAccumulator* meters, const Body& body) {
  replay_split(batch, meters, body, nullptr, nullptr);
}

std::string GraphedStep::replay_split(const Batch& batch, MetricAccumulator* meters, const Body& backward,
                                      const std::function<void()>& reduce, const std::function<void()>& update) {
  if (!captured()) captured_meters_ = meters;
  graph_.load(batch, backward);
  // The first replay (just after the capture) is left out of the race.
  const bool timed = race_ && race_figures_.eager > 0 && replayed_steps_ >= 1 && replayed_steps_ <= kTimedReplays;
  Stopwatch clock;
  if (timed) {
    synchronize(device_);
    clock.reset();
  }
  graph_.replay();
  std::string failure;
  if (reduce) {
    reduce();
    if (!update_graph_.captured() && !failed_) {
      try {
        update_graph_.capture(device_.index(), update);
      } catch (const std::runtime_error& error) {
        failure = error.what();
      } catch (const c10::OutOfMemoryError& error) {
        failure = std::string("out of memory: ") + error.what_without_backtrace();
      }
    }
    if (failure.empty()) {
      update_graph_.replay();
    } else {
      update();
      failed_ = true;
    }
  }
  if (timed) {
    synchronize(device_);
    race_figures_.replayed_step(clock.seconds());
    if (replayed_steps_ == kTimedReplays) {
      failed_ = failed_ || !race_figures_.graph_pays();
      verdict_ = fmt::format("the fastest replayed step took {:.3f} ms, the fastest eager one {:.3f} ms{}",
                             1e3 * race_figures_.replay, 1e3 * race_figures_.eager,
                             failed_ ? ": eager steps from here (train.cuda_graph: auto)" : "");
    }
  }
  if (meters) meters->add_samples(batch.size());
  ++replayed_steps_;
  return failure;
}

}  // namespace trainer
