#pragma once
// From a device entry of the config or command line ("cpu", "gpu:N") to a
// torch::Device that exists, or a DeviceError (exit code 5) before any work.
#include <torch/torch.h>

#include <string>

namespace trainer {

// "gpu:N" counts the visible GPUs (CUDA_VISIBLE_DEVICES applies).
torch::Device resolve_device(const std::string& entry);

}  // namespace trainer
