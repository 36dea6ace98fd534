#pragma once
// Reading a few device values on the host without stalling the device's
// queue. A plain read (.item(), .cpu()) waits until the GPU has run every
// kernel queued before it, so the host stops queueing the next step's work
// and the GPU then idles while the host catches up. Here the copy goes into
// pinned host memory behind the work already queued, and the host looks at
// it later, by when the GPU has long finished it. On a CPU the values are
// read at once: there is no queue to stall.
#include <torch/torch.h>

#include <c10/core/Event.h>

#include <optional>

namespace trainer {

class DeferredRead {
 public:
  // Starts copying `values` (any device, any shape) to the host as float64.
  // A read still pending is dropped.
  void start(const torch::Tensor& values);
  bool pending() const { return host_.defined(); }
  // Whether the pending copy has landed (never waits).
  bool ready() const;
  // The pending values (waiting for their copy where it has not landed);
  // afterwards nothing is pending.
  torch::Tensor take();

 private:
  torch::Tensor host_;
  std::optional<c10::Event> landed_;
};

}  // namespace trainer
