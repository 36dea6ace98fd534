#pragma once
// The visible GPUs, asked of the CUDA runtime. Compiled from
// gpu_query_cuda.cpp when the LibTorch has CUDA, else from
// gpu_query_none.cpp (no GPUs), so CPU builds never see CUDA headers.
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

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
// "12.4" or "" in a CPU build.
std::string cuda_runtime_version();
std::string cudnn_version();

}  // namespace trainer
