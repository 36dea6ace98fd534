// Built only against a CUDA LibTorch (TRAINER_TORCH_HAS_CUDA).
#include "device/gpu_memory.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <ATen/ATen.h>
#include <cuda_runtime_api.h>

#include "device/gpu_query.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

// StatType::AGGREGATE is entry 0 of every stat array; the enum moved between
// namespaces in LibTorch 2.x, the layout did not.
constexpr size_t kAggregate = 0;
int64_t budget_of[64] = {};

}  // namespace

GpuBudget set_gpu_memory_budget(int index, int64_t budget_bytes) {
  // The caching allocator is set up at CUDA's lazy initialisation, which the
  // first CUDA tensor triggers (whatever the LibTorch version calls it); an
  // empty one allocates nothing.
  at::empty({0}, at::TensorOptions().device(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(index))));
  GpuBudget budget;
  for (const GpuInfo& gpu : query_gpus())
    if (gpu.index == index) budget.total_bytes = gpu.total_bytes;
  budget.budget_bytes = budget_bytes;
  if (budget_bytes <= 0 || budget.total_bytes <= 0) return budget;
  if (budget_bytes > budget.total_bytes)
    throw DeviceError("memory_limit " + format_mib(budget_bytes) + " is more than gpu:" + std::to_string(index) +
                          " has (" + format_mib(budget.total_bytes) + ")",
                      "lower memory_limit, or leave it 0 to grow on demand");
  budget.fraction = static_cast<double>(budget_bytes) / static_cast<double>(budget.total_bytes);
  c10::cuda::CUDACachingAllocator::setMemoryFraction(budget.fraction, static_cast<c10::DeviceIndex>(index));
  if (index >= 0 && index < 64) budget_of[index] = budget_bytes;
  return budget;
}

MemoryUsage gpu_memory_usage(int index) {
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  MemoryUsage usage;
  usage.budget_bytes = index >= 0 && index < 64 ? budget_of[index] : 0;
  usage.current_bytes = stats.allocated_bytes[kAggregate].current;
  usage.peak_bytes = stats.allocated_bytes[kAggregate].peak;
  return usage;
}

void reset_gpu_memory_peak(int index) {
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(index));
}

}  // namespace trainer
