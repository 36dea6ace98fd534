#pragma once
// Times between marks on a GPU's queue, read after the GPU has passed them:
// the phases of a timed training step (log.step_times) without the host
// waiting for the GPU at each phase's end, which would stop it queueing
// ahead. CUDA events with timing on; a build without CUDA has none
// (available() is false), and its callers wait for the device and read a
// clock, which on a CPU costs nothing.
#include <torch/torch.h>

#include <memory>
#include <vector>

namespace trainer {

class DeviceTimeline {
 public:
  // Whether this build can time `device`'s queue (a CUDA LibTorch, a GPU).
  static bool available(const torch::Device& device);

  explicit DeviceTimeline(const torch::Device& device);
  ~DeviceTimeline();
  DeviceTimeline(const DeviceTimeline&) = delete;
  DeviceTimeline& operator=(const DeviceTimeline&) = delete;

  // A mark behind the work queued so far on the device's current stream.
  void mark();
  // The seconds between consecutive marks (one fewer than the marks), once
  // the device has passed the last one (polled, as DeferredRead polls: read
  // a timed step later, it almost always has); the marks are cleared.
  std::vector<double> take_intervals();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainer
