#pragma once
// memory_limit on a GPU, through the CUDA caching allocator: its per-process
// fraction of the card caps what this process may reserve, so colleagues
// sharing the card keep the rest. Compiled from gpu_memory_cuda.cpp when the
// LibTorch has CUDA, else from gpu_memory_none.cpp (never called there: no
// GPU resolves).
#include <cstdint>
#include <string>

#include "device/memory_budget.h"

namespace trainer {

struct GpuBudget {
  int64_t total_bytes = 0;
  int64_t budget_bytes = 0;  // 0: grow on demand
  double fraction = 1.0;     // of the card
};

// Before the first allocation on GPU `index`. Throws DeviceError when the
// budget exceeds the card.
GpuBudget set_gpu_memory_budget(int index, int64_t budget_bytes);
// What the caching allocator handed to tensors (current and peak).
MemoryUsage gpu_memory_usage(int index);
void reset_gpu_memory_peak(int index);

}  // namespace trainer
