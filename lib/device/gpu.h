#pragma once
// Everything trainer asks of GPUs, in one place: the visible GPUs, the memory
// budget, the random generator. gpu_cuda.cpp implements it when the LibTorch
// has CUDA (TRAINER_TORCH_HAS_CUDA); gpu_none.cpp otherwise, where there are
// no GPUs, so CPU builds never see CUDA headers. Torch-free: the generator
// state is an at::Tensor, declared, not included.
#include <cstdint>
#include <string>
#include <vector>

#include "device/memory_budget.h"

namespace at {
class Tensor;
}  // namespace at

namespace trainer {

// --- the visible GPUs, asked of the CUDA runtime

struct GpuInfo {
  int index = 0;  // among the visible GPUs (what gpu:N means)
  std::string name;
  int64_t total_bytes = 0;
  int64_t free_bytes = 0;
  int major = 0, minor = 0;  // compute capability
};

std::vector<GpuInfo> query_gpus();
// Makes GPU `index` this process's current one (NCCL, streams and new
// tensors without an index use it).
void make_gpu_current(int index);
// The PCI bus id of visible GPU `index` ("0000:3B:00.0"), by which NVML
// finds the same card whatever CUDA_VISIBLE_DEVICES renumbered; "" in a CPU
// build or when the runtime cannot say.
std::string gpu_pci_bus_id(int index);
// "12.4" or "" in a CPU build.
std::string cuda_runtime_version();
std::string cudnn_version();

// --- memory_limit on a GPU, through the CUDA caching allocator: its
// per-process fraction of the card caps what this process may reserve, so
// colleagues sharing the card keep the rest.

struct GpuBudget {
  int64_t total_bytes = 0;
  int64_t budget_bytes = 0;  // 0: grow on demand
  double fraction = 1.0;     // of the card
};

// Before the first allocation on GPU `index`. Throws DeviceError when the
// budget exceeds the card (or, in a build without CUDA, always: no GPU ever
// resolves there).
GpuBudget set_gpu_memory_budget(int index, int64_t budget_bytes);
// What the caching allocator handed to tensors (current and peak).
MemoryUsage gpu_memory_usage(int index);
void reset_gpu_memory_peak(int index);

// --- a GPU's default random generator (dropout masks drawn there), for
// checkpoints: a resumed GPU run draws the masks an uninterrupted one would.

// Undefined in a build without CUDA.
at::Tensor gpu_rng_state(int index);
void set_gpu_rng_state(int index, const at::Tensor& state);

}  // namespace trainer
