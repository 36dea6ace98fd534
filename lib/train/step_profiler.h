#pragma once
// `train.profile: {epoch: E, steps: N}`: the first N training steps of epoch
// E recorded with LibTorch's profiler (every operator, and trainer's own
// phases as ranges named "trainer/data_wait", "trainer/to_device",
// "trainer/forward", "trainer/backward", "trainer/all_reduce",
// "trainer/optimizer", "trainer/step"; a step replaying its CUDA graph has
// one "trainer/graph_replay" range in place of the phases), written as a
// Chrome trace to RUN_DIR/profile-E.json (rank R > 0: profile-E-rank-R.json), which
// Perfetto and chrome://tracing open.
//
// On the CPU it is LibTorch's legacy profiler: host-side events in every
// LibTorch version, the same trace format everywhere. On a GPU it is Kineto
// (kernel_trace.h), which records each CUDA kernel with its time on the
// device beside the host's operators, where the LibTorch in use has it;
// elsewhere the legacy profiler, whose trace shows kernels only as their
// host-side launches (the log says why).
#include <memory>
#include <sstream>
#include <string>

#include <torch/torch.h>

#include "spec/experiment_config.h"

namespace torch::autograd::profiler {
struct RecordProfile;
}

namespace trainer {

class KernelTrace;

class StepProfiler {
 public:
  StepProfiler(const ProfileConfig& config, int rank, const torch::Device& device);
  ~StepProfiler();  // out of line: KernelTrace is complete there

  // Where the trace goes: known once the run directory is.
  void set_run_dir(std::string run_dir) { run_dir_ = std::move(run_dir); }

  // Before step `step` (from 1) of `epoch` is fetched: starts recording at
  // the profiled epoch's first step this process trains.
  void before_step(int64_t epoch, int64_t step);
  // After a step. The recording stops (and the trace is written) at the
  // next before_step once N steps are recorded, so that the last step's
  // enclosing range has closed, or at the epoch's end.
  void after_step();
  void end_epoch();

 private:
  void finish();
  bool recording() const { return recording_ || kernels_; }

  ProfileConfig config_;
  std::string run_dir_;
  int rank_;
  torch::Device device_;
  int64_t epoch_ = 0, first_step_ = 0, recorded_ = 0;
  std::ostringstream trace_;
  std::unique_ptr<torch::autograd::profiler::RecordProfile> recording_;
  std::unique_ptr<KernelTrace> kernels_;  // instead of recording_, on a GPU with Kineto
};

}  // namespace trainer
