#pragma once
// The config's device entries, checked against this machine before any work:
// torch-free, for the command-line side (devices of a run, before it starts
// its ranks).
#include <string>
#include <vector>

namespace trainer {

// `entries` with gpu:all replaced by every visible GPU, each entry checked:
// a GPU where the LibTorch has no CUDA, or an index past the visible GPUs,
// throws DeviceError (exit code 5).
std::vector<std::string> expand_devices(const std::vector<std::string>& entries);

// The CUDA_VISIBLE_DEVICES entry behind visible index `index` ("3", a UUID),
// or the index itself when the variable is unset.
std::string physical_gpu_id(const char* cuda_visible_devices, int index);

}  // namespace trainer
