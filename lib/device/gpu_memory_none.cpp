// A LibTorch without CUDA: no GPU ever resolves, so nothing has a budget.
#include "device/gpu_memory.h"

#include "util/error.h"

namespace trainer {

GpuBudget set_gpu_memory_budget(int index, int64_t) {
  throw DeviceError("gpu:" + std::to_string(index) + ": this LibTorch has no CUDA");
}
MemoryUsage gpu_memory_usage(int) { return {}; }
void reset_gpu_memory_peak(int) {}

}  // namespace trainer
