#pragma once
// Stands in for LibTorch's device guard under the CUDA emulation: there is
// one device, the CPU.
#include <c10/core/Device.h>

namespace c10::cuda {

struct CUDAGuard {
  explicit CUDAGuard(c10::Device) {}
};

}  // namespace c10::cuda
