#include "device/device_list.h"

#include <sstream>

#include "device/device_select.h"
#include "util/text.h"

namespace trainer {

std::vector<std::string> expand_devices(const std::vector<std::string>& entries) {
  std::vector<std::string> gpus;
  for (const auto& entry : entries)
    if (entry.rfind("gpu:", 0) == 0) gpus.push_back(entry);
  if (!gpus.empty() && !torch::cuda::is_available()) throw_no_gpu(join(gpus, ","));
  std::vector<std::string> expanded;
  for (const auto& entry : entries) {
    if (entry != "gpu:all") {
      resolve_device(entry);
      expanded.push_back(entry);
      continue;
    }
    const auto visible = static_cast<int64_t>(torch::cuda::device_count());  // size_t in 1.13, int8 in 2.x
    for (int64_t i = 0; i < visible; ++i) expanded.push_back("gpu:" + std::to_string(i));
  }
  return expanded;
}

std::string physical_gpu_id(const char* cuda_visible_devices, int index) {
  if (cuda_visible_devices == nullptr) return std::to_string(index);
  std::stringstream list(cuda_visible_devices);
  std::string id;
  for (int i = 0; std::getline(list, id, ','); ++i)
    if (i == index) {
      const auto first = id.find_first_not_of(" \t");
      return first == std::string::npos ? "?" : id.substr(first, id.find_last_not_of(" \t") - first + 1);
    }
  return "?";
}

}  // namespace trainer
