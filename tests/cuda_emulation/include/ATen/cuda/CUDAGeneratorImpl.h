#pragma once
// Stands in for LibTorch's CUDA generator under the CUDA emulation: the seed
// and offset of philox_counter.h, which philox_cuda_state hands out and
// advances as the real generator does.
#include <ATen/ATen.h>

#include <cstdint>
#include <mutex>

#include "cuda_emulation.h"
#include "philox_counter.h"
// LibTorch's own definition of the state the kernels unpack.
#include <ATen/cuda/detail/PhiloxCudaStateRaw.cuh>

namespace at {

struct CUDAGeneratorImpl {
  std::mutex lock;
  PhiloxCudaState philox_cuda_state(uint64_t increment) {
    // As the real one: the offset advances by the increment rounded up to 4.
    auto& counter = trainer_emulation::philox_counter();
    const PhiloxCudaState state(counter.seed, counter.offset);
    counter.offset += (increment + 3) / 4 * 4;
    return state;
  }
};

inline CUDAGeneratorImpl& emulated_generator() {
  static CUDAGeneratorImpl generator;
  return generator;
}

// A handle to it, copied as LibTorch's Generator is.
struct EmulatedGenerator {
  CUDAGeneratorImpl* impl;
  std::mutex& mutex() const { return impl->lock; }
};

template <typename T>
T* check_generator(const EmulatedGenerator& generator) {
  return generator.impl;
}

namespace cuda::detail {
inline EmulatedGenerator getDefaultCUDAGenerator(c10::DeviceIndex) { return {&emulated_generator()}; }
}  // namespace cuda::detail

}  // namespace at
