#include "device/device_select.h"

#include <cstdlib>

#include "util/error.h"

namespace trainer {

torch::Device resolve_device(const std::string& entry) {
  if (entry == "cpu") return torch::Device(torch::kCPU);
  if (entry.rfind("gpu:", 0) != 0)
    throw DeviceError("'" + entry + "' is not a device", "use cpu or gpu:N (gpu:0 is the first visible GPU)");
  const std::string index_text = entry.substr(4);
  char* end = nullptr;
  const long index = std::strtol(index_text.c_str(), &end, 10);
  if (index_text.empty() || *end != '\0' || index < 0)
    throw DeviceError("'" + entry + "' is not a device", "use gpu:N with N a GPU index, e.g. gpu:0");
  if (!torch::cuda::is_available()) {
    const bool cuda_build = torch::cuda::device_count() > 0 || at::hasCUDA();
    throw DeviceError(entry + " was asked for, but " +
                          (cuda_build ? std::string("no GPU is visible") : std::string("this LibTorch has no CUDA")),
                      cuda_build ? "check nvidia-smi and CUDA_VISIBLE_DEVICES" : "use --device cpu, or build trainer "
                                                                                "against a CUDA LibTorch");
  }
  const auto count = static_cast<long>(torch::cuda::device_count());
  if (index >= count) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    throw DeviceError(entry + " does not exist: " + std::to_string(count) + " GPU(s) visible" +
                          (visible ? std::string(" (CUDA_VISIBLE_DEVICES=") + visible + ")" : std::string()),
                      "GPU indices count the visible GPUs from 0; `trainer devices` lists them");
  }
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

}  // namespace trainer
