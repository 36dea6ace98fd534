// Built only against a CUDA LibTorch (TRAINER_TORCH_HAS_CUDA).
#include "device/gpu_query.h"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

namespace trainer {

std::vector<GpuInfo> query_gpus() {
  std::vector<GpuInfo> gpus;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return gpus;
  for (int index = 0; index < count; ++index) {
    const cudaDeviceProp* properties = at::cuda::getDeviceProperties(index);
    GpuInfo gpu;
    gpu.index = index;
    gpu.name = properties->name;
    gpu.major = properties->major;
    gpu.minor = properties->minor;
    gpu.total_bytes = static_cast<int64_t>(properties->totalGlobalMem);
    c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(index));
    size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess) gpu.free_bytes = static_cast<int64_t>(free);
    gpus.push_back(gpu);
  }
  return gpus;
}

void make_gpu_current(int index) { c10::cuda::set_device(static_cast<c10::DeviceIndex>(index)); }

std::string cuda_runtime_version() {
  int version = 0;
  if (cudaRuntimeGetVersion(&version) != cudaSuccess) return "";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string cudnn_version() {
  const long version = at::detail::getCUDAHooks().versionCuDNN();
  return version > 0 ? std::to_string(version) : "";
}

}  // namespace trainer
