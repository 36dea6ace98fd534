#include "device/device_select.h"

#include <cstdlib>

#include "device/cpu_info.h"
#include "device/gpu.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {

void throw_no_gpu(const std::string& asked) {
  const bool cuda_build = at::hasCUDA();
  throw DeviceError(asked + " asked for, but " +
                        (cuda_build ? std::string("no GPU is visible") : std::string("this LibTorch has no CUDA")),
                    cuda_build ? "check nvidia-smi and CUDA_VISIBLE_DEVICES"
                               : "use --devices cpu, or build trainer against a CUDA LibTorch "
                                 "(docs/development.md, 'Building')");
}

torch::Device resolve_device(const std::string& entry) {
  if (entry == "cpu") return torch::Device(torch::kCPU);
  if (entry.rfind("gpu:", 0) != 0)
    throw DeviceError("'" + entry + "' is not a device", "use cpu or gpu:N (gpu:0 is the first visible GPU)");
  const std::string index_text = entry.substr(4);
  char* end = nullptr;
  const long index = std::strtol(index_text.c_str(), &end, 10);
  if (index_text.empty() || *end != '\0' || index < 0)
    throw DeviceError("'" + entry + "' is not a device", "use gpu:N with N a GPU index, e.g. gpu:0");
  if (!torch::cuda::is_available()) throw_no_gpu(entry);
  const auto count = static_cast<long>(torch::cuda::device_count());
  if (index >= count) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    throw DeviceError(entry + " does not exist: " + std::to_string(count) + " GPU(s) visible" +
                          (visible ? std::string(" (CUDA_VISIBLE_DEVICES=") + visible + ")" : std::string()),
                      "GPU indices count the visible GPUs from 0; `trainer devices` lists them");
  }
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

std::string device_entry(const torch::Device& device) {
  return device.is_cuda() ? "gpu:" + std::to_string(device.index()) : "cpu";
}

torch::Device primary_device(const std::vector<std::string>& entries) {
  return resolve_device(expand_devices(entries).front());
}

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

std::string describe_device(const torch::Device& device) {
  if (device.is_cpu()) {
    const CpuInfo cpu = read_cpu_info();
    return "cpu: " + cpu.model + ", " + std::to_string(cpu.physical_cores) + " physical cores";
  }
  const int index = device.index();
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  std::string text = device_entry(device) + " = physical GPU " + physical_gpu_id(visible, index) +
                     (visible ? std::string(" (CUDA_VISIBLE_DEVICES=") + visible + ")" : std::string());
  for (const GpuInfo& gpu : query_gpus()) {
    if (gpu.index != index) continue;
    text += ": " + gpu.name + ", " + format_mib(gpu.total_bytes) + " total, " + format_mib(gpu.free_bytes) +
            " free, compute " + std::to_string(gpu.major) + "." + std::to_string(gpu.minor);
  }
  return text;
}

}  // namespace trainer
