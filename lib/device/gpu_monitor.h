#pragma once
// GPU utilisation and memory sampled once a second through NVML, the library
// behind nvidia-smi and nvtop, loaded when the run starts
// (dlopen("libnvidia-ml.so.1")): no build dependency, and a machine without
// the NVIDIA driver simply has no samples. Torch-free.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace trainer {

struct NvmlLibrary;

// What the samples of one period (an epoch) came to.
struct GpuSamples {
  int64_t count = 0;
  double mean_utilization = 0;  // % of the time a kernel ran, averaged over the samples
  int64_t peak_memory_used_bytes = 0;  // the whole card's, every process's
};

class GpuMonitor {
 public:
  // Opens `library` and finds the card with PCI bus id `pci_bus_id` (or, if
  // empty, NVML's device `index`). When either fails, available() is false
  // and why() says why; nothing is sampled.
  GpuMonitor(const std::string& library, const std::string& pci_bus_id, int index,
             double interval_seconds = 1.0);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  bool available() const { return device_ != nullptr; }
  const std::string& why() const { return why_; }
  // The samples since the last call (or the start), and starts a new period.
  // A period too short for a sample of its own takes one now.
  GpuSamples take();

 private:
  void sample();
  void run();

  std::unique_ptr<NvmlLibrary> nvml_;
  void* device_ = nullptr;
  std::string why_;
  double interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  GpuSamples period_;
  double utilization_sum_ = 0;
  std::thread thread_;
};

}  // namespace trainer
