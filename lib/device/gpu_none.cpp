// The GPU facade (gpu.h) for a LibTorch without CUDA: there are no GPUs, so
// no GPU entry ever resolves and nothing here is reached in a run.
#include "device/gpu.h"

#include <ATen/core/Tensor.h>

#include "util/error.h"

namespace trainer {

std::vector<GpuInfo> query_gpus() { return {}; }
void make_gpu_current(int) {}
std::string gpu_pci_bus_id(int) { return {}; }
std::string cuda_runtime_version() { return ""; }
std::string cudnn_version() { return ""; }

GpuBudget set_gpu_memory_budget(int index, int64_t) {
  throw DeviceError("gpu:" + std::to_string(index) + ": this LibTorch has no CUDA");
}
MemoryUsage gpu_memory_usage(int) { return {}; }
void reset_gpu_memory_peak(int) {}

at::Tensor gpu_rng_state(int) { return {}; }
void set_gpu_rng_state(int, const at::Tensor&) {}

}  // namespace trainer
