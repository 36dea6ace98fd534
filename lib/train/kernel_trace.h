#pragma once
// A profile that sees the GPU's kernels: LibTorch's Kineto profiler (host
// operators and the CUDA kernels they launch, each on its stream, with its
// duration on the device), where the LibTorch in use has it (2.x builds
// with Kineto; Debian 12's 1.13 has not). train.profile uses it on GPUs, so
// that a profile says what the device spent a step on, not only what the
// host launched.
#include <memory>
#include <string>

#include <torch/torch.h>

namespace trainer {

class KernelTrace {
 public:
  // Starts recording, or returns nullptr with the reason in `why` (no
  // Kineto in this LibTorch, not a GPU, or Kineto's own refusal).
  static std::unique_ptr<KernelTrace> start(const torch::Device& device, std::string& why);
  ~KernelTrace();
  // Stops recording and writes the Chrome trace to `path` (through a
  // temporary file, renamed into place).
  void save(const std::string& path);

 private:
  KernelTrace() = default;
  bool recording_ = false;
};

}  // namespace trainer
