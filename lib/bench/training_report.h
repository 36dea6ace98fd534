#pragma once
// `trainer bench FILE`: what one training step of an experiment costs, and
// the largest batch that fits its memory budget. Torch-free report side.
#include <cstdint>
#include <string>

#include "runs/step_times.h"

namespace trainer {

struct TrainingBenchResult {
  std::string experiment;
  std::string device;  // "cpu", "cuda:0"
  std::string precision;
  int64_t batch_size = 0;
  int64_t steps = 0;  // measured, after the warm-up
  StepTimes times;       // the phases' split (each phase waited for)
  double wall_seconds = 0;  // the same steps left to run as a run runs them; 0: the phases' sum
  // GPUs: the same steps again, replaying one captured step (train.cuda_graph);
  // 0: not measured, and `graph_note` says why where it matters.
  double graphed_wall_seconds = 0;
  std::string graph_note;
  // The input pipeline alone (time_feed): the samples it delivered to the
  // step's device, and in how long; 0: not measured.
  int64_t feed_samples = 0;
  double feed_seconds = 0;
  int64_t data_workers = 0;  // data.workers, which a slow pipeline may raise
  int64_t peak_memory_bytes = 0;
  int64_t memory_budget_bytes = 0;  // 0: none
  int64_t max_batch = 0;            // --find-max-batch; 0: not searched
  // The whole training set fitted: max_batch is the data set's size, and the
  // budget may allow more than it could show.
  bool max_batch_is_data_size = false;
  // One sample's forward multiply-adds, as trainer summary counts them; 0:
  // not counted (torchscript layers only).
  int64_t forward_multiply_adds = 0;
  // From the free-running steps where they were timed: on a GPU, waiting for
  // each phase costs the overlap of host and device that a run has.
  double steps_per_second() const {
    return static_cast<double>(steps) / (wall_seconds > 0 ? wall_seconds : times.total());
  }
  double samples_per_second() const { return steps_per_second() * static_cast<double>(batch_size); }
  double feed_samples_per_second() const {
    return feed_seconds > 0 ? static_cast<double>(feed_samples) / feed_seconds : 0.0;
  }
  // The model's arithmetic done a second: a training sample costs about
  // three forward passes (backward computes the gradients of both the
  // inputs and the weights), each multiply-add two floating-point operations.
  double model_flops_per_second(double samples_a_second) const {
    return 6.0 * static_cast<double>(forward_multiply_adds) * samples_a_second;
  }
};

std::string format_training_bench_text(const TrainingBenchResult& result);
std::string format_training_bench_json(const TrainingBenchResult& result);

}  // namespace trainer
