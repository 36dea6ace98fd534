// A LibTorch without CUDA: there are no GPUs to list.
#include "device/gpu_query.h"

namespace trainer {

std::vector<GpuInfo> query_gpus() { return {}; }
void make_gpu_current(int) {}
std::string cuda_runtime_version() { return ""; }
std::string cudnn_version() { return ""; }

}  // namespace trainer
