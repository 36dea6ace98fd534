// The GPU facade (gpu.h) for a CUDA LibTorch (TRAINER_TORCH_HAS_CUDA).
#include "device/gpu.h"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include "util/error.h"
#include "util/text.h"
#include "util/torch_compat.h"

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

std::string gpu_pci_bus_id(int index) {
  char id[32] = {};
  if (cudaDeviceGetPCIBusId(id, sizeof id, index) != cudaSuccess) {
    cudaGetLastError();  // clear it: the next CUDA call must not report it
    return {};
  }
  return id;
}

std::string cuda_runtime_version() {
  int version = 0;
  if (cudaRuntimeGetVersion(&version) != cudaSuccess) return "";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string cudnn_version() {
  const long version = at::detail::getCUDAHooks().versionCuDNN();
  return version > 0 ? std::to_string(version) : "";
}

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

at::Tensor gpu_rng_state(int index) {
  return compat::generator_state(at::cuda::detail::getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(index)));
}

void set_gpu_rng_state(int index, const at::Tensor& state) {
  at::Generator generator = at::cuda::detail::getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(index));
  compat::set_generator_state(generator, state);
}

}  // namespace trainer
