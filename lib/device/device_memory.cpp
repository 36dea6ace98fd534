#include "device/device_memory.h"

#include "device/device_select.h"
#include "device/gpu.h"
#include "util/text.h"

namespace trainer {

std::string apply_memory_budget(const torch::Device& device, int64_t budget_bytes, const std::string& what_to_try) {
  set_cpu_memory_budget(device.is_cpu() ? budget_bytes : 0, what_to_try);
  if (device.is_cpu())
    return budget_bytes > 0 ? "memory budget: " + format_mib(budget_bytes) +
                                  " on the CPU for this rank (what LibTorch allocates)"
                            : std::string();
  const GpuBudget budget = set_gpu_memory_budget(device.index(), budget_bytes);
  const std::string gpu = device_entry(device);
  if (budget.budget_bytes == 0)
    return "memory budget: none on " + gpu + " (" + format_mib(budget.total_bytes) +
           "): the caching allocator grows on demand";
  return "memory budget: " + format_mib(budget.budget_bytes) + " of " + gpu + "'s " + format_mib(budget.total_bytes) +
         " (the caching allocator's fraction " + std::to_string(budget.fraction).substr(0, 6) + ")";
}

MemoryUsage device_memory_usage(const torch::Device& device) {
  return device.is_cuda() ? gpu_memory_usage(device.index()) : cpu_memory_usage();
}

int64_t gpu_budget_bytes(const torch::Device& device) {
  if (!device.is_cuda()) return 0;
  if (const int64_t budget = gpu_memory_usage(device.index()).budget_bytes; budget > 0) return budget;
  for (const GpuInfo& gpu : query_gpus())
    if (gpu.index == device.index()) return gpu.total_bytes;
  return 0;
}

void reset_device_memory_peak(const torch::Device& device) {
  if (device.is_cuda()) reset_gpu_memory_peak(device.index());
  else reset_cpu_memory_peak();
}

OutOfMemoryError device_out_of_memory(const torch::Device& device, const std::string& torch_message,
                                      const std::string& what_to_try) {
  const MemoryUsage usage = device_memory_usage(device);
  const std::string first_line = torch_message.substr(0, torch_message.find('\n'));
  return OutOfMemoryError(device_entry(device) + ": out of memory" +
                              (usage.budget_bytes > 0 ? " under memory_limit " + format_mib(usage.budget_bytes)
                                                      : std::string()) +
                              " (peak so far " + format_mib(usage.peak_bytes) + "): " + first_line,
                          what_to_try);
}

}  // namespace trainer
