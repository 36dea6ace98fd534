// A stand-in for libnvidia-ml.so.1 with the NVML functions GpuMonitor calls,
// so that its loading, device lookup and sampling run here without a GPU.
// One card, at PCI bus id 0000:3B:00.0 and index 0: 50 % busy, its memory
// use growing by 1 MiB a sample.
#include <cstring>

namespace {
int card;
unsigned long long samples;
}  // namespace

extern "C" {

struct FakeUtilization {
  unsigned int gpu, memory;
};
struct FakeMemory {
  unsigned long long total, free, used;
};

int nvmlInit_v2() { return 0; }
int nvmlShutdown() { return 0; }

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (index != 0) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *device = &card;
  return 0;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char* id, void** device) {
  if (std::strcmp(id, "0000:3B:00.0") != 0) return 6;  // NVML_ERROR_NOT_FOUND
  *device = &card;
  return 0;
}

int nvmlDeviceGetUtilizationRates(void* device, FakeUtilization* utilization) {
  if (device != &card) return 2;
  utilization->gpu = 50;
  utilization->memory = 20;
  return 0;
}

int nvmlDeviceGetMemoryInfo(void* device, FakeMemory* memory) {
  if (device != &card) return 2;
  ++samples;
  memory->total = 16ull << 30;
  memory->used = samples << 20;
  memory->free = memory->total - memory->used;
  return 0;
}
}
