#pragma once
// Stands in for LibTorch's CUDA context header under the CUDA emulation
// (../../../cuda_emulation.h): the current stream and the device's
// properties, as the kernel sources ask for them.
#include <ATen/ATen.h>

#include "cuda_emulation.h"

#define C10_CUDA_KERNEL_LAUNCH_CHECK() ((void)0)

namespace at::cuda {

struct EmulatedStream {};
inline EmulatedStream getCurrentCUDAStream() { return {}; }

struct EmulatedDeviceProperties {
  int multiProcessorCount = 4;
};
inline EmulatedDeviceProperties* getCurrentDeviceProperties() {
  static EmulatedDeviceProperties properties;
  return &properties;
}

}  // namespace at::cuda
