#pragma once
// `trainer bench FILE`: what one training step of an experiment costs, and
// the largest batch that fits its memory budget. Torch-free report side.
#include <cstdint>
#include <string>

#include "train/step_times.h"

namespace trainer {

struct TrainingBenchResult {
  std::string experiment;
  std::string device;  // "cpu", "cuda:0"
  std::string precision;
  int64_t batch_size = 0;
  int64_t steps = 0;  // measured, after the warm-up
  StepTimes times;
  int64_t peak_memory_bytes = 0;
  int64_t memory_budget_bytes = 0;  // 0: none
  int64_t max_batch = 0;            // --find-max-batch; 0: not searched
  double steps_per_second() const { return static_cast<double>(steps) / times.total(); }
  double samples_per_second() const { return steps_per_second() * static_cast<double>(batch_size); }
};

std::string format_training_bench_text(const TrainingBenchResult& result);
std::string format_training_bench_json(const TrainingBenchResult& result);

}  // namespace trainer
