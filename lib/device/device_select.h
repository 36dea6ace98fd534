#pragma once
// From the device entries of the config or command line ("cpu", "gpu:N",
// "gpu:all") to torch::Devices that exist, or a DeviceError (exit code 5)
// before any work.
#include <torch/torch.h>

#include <string>

#include "device/device_list.h"

namespace trainer {

// "gpu:N" counts the visible GPUs (CUDA_VISIBLE_DEVICES applies).
torch::Device resolve_device(const std::string& entry);

// The DeviceError (exit code 5) for GPU entries this machine cannot serve;
// `asked` names them: "gpu:0" or "gpu:0,gpu:1".
[[noreturn]] void throw_no_gpu(const std::string& asked);

// The config's name of `device`: "cpu" or "gpu:N" (never LibTorch's "cuda:N").
std::string device_entry(const torch::Device& device);

// The one device of a single-process command (`eval`, `bench FILE`): the
// first of `entries` once gpu:all is expanded, every entry checked.
torch::Device primary_device(const std::vector<std::string>& entries);

// Waits until `device` has finished its queued work (GPU work is
// asynchronous, so a timed phase ends here); nothing to wait for on a CPU.
void synchronize(const torch::Device& device);

// "gpu:1 = physical GPU 3 (CUDA_VISIBLE_DEVICES=2,3): NVIDIA H100 80GB HBM3,
// 79.1 GiB, 78.6 GiB free, compute 9.0", or the CPU's model and cores: what
// the run's log states at start.
std::string describe_device(const torch::Device& device);

}  // namespace trainer
