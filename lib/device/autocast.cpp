#include "device/autocast.h"

#include "util/torch_compat.h"

namespace trainer {

torch::ScalarType autocast_dtype(Precision precision, bool mixed_precision, bool gpu) {
  if (precision == Precision::kBf16) return torch::kBFloat16;
  if (precision == Precision::kFp16) return torch::kFloat16;
  if (mixed_precision) return gpu ? torch::kFloat16 : torch::kBFloat16;
  return torch::kFloat32;
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
