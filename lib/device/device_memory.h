#pragma once
// memory_limit for the device a rank trains on, whichever it is: the CPU's
// counting allocator (memory_budget.h) or a GPU's caching allocator
// (gpu.h), and the usage figures of logs and benchmarks.
#include <torch/torch.h>

#include <string>

#include "device/memory_budget.h"
#include "util/error.h"

namespace trainer {

// Before any tensor exists. The CPU allocator always counts (and caps when
// the device is the CPU); a GPU is capped through its caching allocator.
// `what_to_try` ends the out-of-memory message. Returns a line for the log,
// empty when there is nothing to say (CPU without a budget).
std::string apply_memory_budget(const torch::Device& device, int64_t budget_bytes, const std::string& what_to_try);

MemoryUsage device_memory_usage(const torch::Device& device);
// What this rank may use of a GPU: its memory_limit, or else the whole card;
// 0 for a CPU (whose memory is not this process's to plan).
int64_t gpu_budget_bytes(const torch::Device& device);
void reset_device_memory_peak(const torch::Device& device);

// An allocator's refusal as ours (exit code 6): the CUDA caching
// allocator's c10::OutOfMemoryError, or the CPU allocator's (the system
// refused: an address-space limit, no memory left): device, budget, peak,
// and the allocator's own line (the bytes requested), no stack frames.
OutOfMemoryError device_out_of_memory(const torch::Device& device, const std::string& torch_message,
                                      const std::string& what_to_try);

}  // namespace trainer
