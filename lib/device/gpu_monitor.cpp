#include "device/gpu_monitor.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>

namespace trainer {

// NVML's C interface, as far as it is used here (nvml.h: every function
// returns nvmlReturn_t, 0 being NVML_SUCCESS).
struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};
struct NvmlMemory {
  unsigned long long total, free, used;
};

struct NvmlLibrary {
  void* handle = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*by_index)(unsigned int, void**) = nullptr;
  int (*by_pci_bus_id)(const char*, void**) = nullptr;
  int (*utilization)(void*, NvmlUtilization*) = nullptr;
  int (*memory)(void*, NvmlMemory*) = nullptr;
  bool initialized = false;

  ~NvmlLibrary() {
    if (initialized) shutdown();
    if (handle) dlclose(handle);
  }

  template <class F> bool find(F& function, const char* name) {
    function = reinterpret_cast<F>(dlsym(handle, name));
    return function != nullptr;
  }
};

GpuMonitor::GpuMonitor(const std::string& library, const std::string& pci_bus_id, int index, double interval_seconds)
    : nvml_(std::make_unique<NvmlLibrary>()), interval_(interval_seconds) {
  NvmlLibrary& nvml = *nvml_;
  nvml.handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!nvml.handle) {
    why_ = library + " could not be loaded (no NVIDIA driver here?)";
    return;
  }
  if (!nvml.find(nvml.init, "nvmlInit_v2") || !nvml.find(nvml.shutdown, "nvmlShutdown") ||
      !nvml.find(nvml.by_index, "nvmlDeviceGetHandleByIndex_v2") ||
      !nvml.find(nvml.by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2") ||
      !nvml.find(nvml.utilization, "nvmlDeviceGetUtilizationRates") ||
      !nvml.find(nvml.memory, "nvmlDeviceGetMemoryInfo")) {
    why_ = library + " lacks the NVML functions needed";
    return;
  }
  if (nvml.init() != 0) {
    why_ = "NVML did not initialise (" + library + ")";
    return;
  }
  nvml.initialized = true;
  void* device = nullptr;
  const int found = pci_bus_id.empty() ? nvml.by_index(static_cast<unsigned int>(index), &device)
                                       : nvml.by_pci_bus_id(pci_bus_id.c_str(), &device);
  if (found != 0 || device == nullptr) {
    why_ = "NVML does not know the GPU " + (pci_bus_id.empty() ? "of index " + std::to_string(index) : pci_bus_id);
    return;
  }
  device_ = device;
  thread_ = std::thread([this] { run(); });
}

GpuMonitor::~GpuMonitor() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GpuMonitor::sample() {
  NvmlUtilization utilization{};
  NvmlMemory memory{};
  const bool have_utilization = nvml_->utilization(device_, &utilization) == 0;
  const bool have_memory = nvml_->memory(device_, &memory) == 0;
  if (!have_utilization && !have_memory) return;
  std::lock_guard<std::mutex> lock(mutex_);
  ++period_.count;
  if (have_utilization) utilization_sum_ += utilization.gpu;
  if (have_memory) period_.peak_memory_used_bytes = std::max(period_.peak_memory_used_bytes,
                                                              static_cast<int64_t>(memory.used));
}

void GpuMonitor::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    sample();
    lock.lock();
    wake_.wait_for(lock, std::chrono::duration<double>(interval_), [this] { return stopping_; });
  }
}

GpuSamples GpuMonitor::take() {
  if (!available()) return {};
  bool empty = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    empty = period_.count == 0;
  }
  if (empty) sample();
  std::lock_guard<std::mutex> lock(mutex_);
  GpuSamples out = period_;
  out.mean_utilization = out.count > 0 ? utilization_sum_ / static_cast<double>(out.count) : 0;
  period_ = {};
  utilization_sum_ = 0;
  return out;
}

}  // namespace trainer
