#include "train/step_profiler.h"

#include <torch/csrc/autograd/profiler_legacy.h>

#include "train/kernel_trace.h"
#include "util/atomic_file.h"
#include "util/logging.h"

namespace trainer {

StepProfiler::StepProfiler(const ProfileConfig& config, int rank, const torch::Device& device)
    : config_(config), rank_(rank), device_(device) {}

StepProfiler::~StepProfiler() = default;

void StepProfiler::before_step(int64_t epoch, int64_t step) {
  // The last recorded step's ranges closed when its loop iteration ended.
  if (recording() && recorded_ >= config_.steps) finish();
  if (recording() || epoch != config_.epoch || epoch_ == epoch) return;
  epoch_ = epoch;
  first_step_ = step;
  recorded_ = 0;
  if (device_.is_cuda()) {
    std::string why;
    kernels_ = KernelTrace::start(device_, why);
    if (kernels_) return;
    log().info("profile: host-side operators only, the GPU's kernels as their launches (no Kineto: {})", why);
  }
  trace_.str({});
  recording_ = std::make_unique<torch::autograd::profiler::RecordProfile>(trace_);
}

void StepProfiler::after_step() {
  if (recording()) ++recorded_;
}

void StepProfiler::end_epoch() {
  if (recording()) finish();
}

void StepProfiler::finish() {
  const std::string name = "profile-" + std::to_string(epoch_) +
                           (rank_ > 0 ? "-rank-" + std::to_string(rank_) : std::string()) + ".json";
  const std::string path = run_dir_ + "/" + name;
  if (kernels_) {
    kernels_->save(path);
    kernels_.reset();
  } else {
    recording_.reset();  // writes the trace into trace_
    write_file_atomic(path, trace_.str());
    trace_.str({});
  }
  log().info("profile of epoch {}, steps {} to {}: {} (open it in https://ui.perfetto.dev or chrome://tracing)",
             epoch_, first_step_, first_step_ + recorded_ - 1, path);
}

}  // namespace trainer
