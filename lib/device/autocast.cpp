#include "device/autocast.h"

#include "util/torch_compat.h"

namespace trainer {

torch::ScalarType autocast_dtype(Precision precision, bool mixed_precision, bool gpu) {
  if (precision == Precision::kBf16) return torch::kBFloat16;
  if (precision == Precision::kFp16) return torch::kFloat16;
  if (mixed_precision) return gpu ? torch::kFloat16 : torch::kBFloat16;
  return torch::kFloat32;
}

const char* autocast_name(torch::ScalarType dtype) {
  return dtype == torch::kFloat32 ? "fp32" : dtype == torch::kBFloat16 ? "bf16" : "fp16";
}

bool cpu_autocast_supports_fp16() {
  static const bool supported = [] {
    try {
      auto weight = torch::full({4, 4}, 0.5, torch::requires_grad());
      auto kernel = torch::full({2, 1, 3}, 0.5, torch::requires_grad());
      torch::Tensor total;
      {
        AutocastScope scope(torch::kCPU, torch::kFloat16);
        const auto dense = torch::nn::functional::linear(torch::ones({2, 4}), weight);
        const auto conv = torch::conv1d(torch::ones({2, 1, 8}), kernel);
        if (dense.scalar_type() != torch::kFloat16 || conv.scalar_type() != torch::kFloat16) return false;
        total = dense.sum().to(torch::kFloat32) + conv.sum().to(torch::kFloat32);
      }
      total.backward();
      return weight.grad().defined() && kernel.grad().defined();
    } catch (const c10::Error&) {
      return false;  // "not implemented for 'Half'" and the like
    }
  }();
  return supported;
}

AutocastScope::AutocastScope(torch::DeviceType device, torch::ScalarType dtype)
    : device_(device), active_(dtype != torch::kFloat32) {
  if (active_) compat::set_autocast(device_, true, dtype);
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  compat::set_autocast(device_, false, device_ == torch::kCPU ? torch::kBFloat16 : torch::kFloat16);
  at::autocast::clear_cache();
}

}  // namespace trainer
