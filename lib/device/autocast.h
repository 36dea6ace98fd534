#pragma once
// Mixed precision for one forward pass: autocast runs the matrix products and
// convolutions in bf16 (CPU) or fp16 (GPU) while the weights stay fp32. In
// C++ the cast weights are cached until clear_cache(): not clearing it after
// each forward would reuse the casts of weights the optimizer has since
// changed. The guard enables on construction, and disables and clears on
// destruction.
#include <torch/torch.h>

#include "spec/enums.h"

namespace trainer {

// What `precision` and `mixed_precision` ask for on a CPU or a GPU: kFloat32
// (no autocast), kBFloat16 or kFloat16. mixed_precision alone means bf16 on
// CPUs, fp16 on GPUs; an explicit precision wins.
torch::ScalarType autocast_dtype(Precision precision, bool mixed_precision, bool gpu);

// Whether this LibTorch runs fp16 autocast on a CPU, forward and backward,
// for the layers trainer builds (LibTorch 2.x: yes; 1.13: no). Probed once on
// tiny tensors.
bool cpu_autocast_supports_fp16();

// "fp32" (no autocast), "bf16" or "fp16": as `precision` writes the type.
const char* autocast_name(torch::ScalarType dtype);

class AutocastScope {
 public:
  // `dtype` kFloat32 means no autocast: the scope does nothing.
  AutocastScope(torch::DeviceType device, torch::ScalarType dtype);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  torch::DeviceType device_;
  bool active_;
};

}  // namespace trainer
