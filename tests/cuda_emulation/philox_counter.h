#pragma once
// The emulated CUDA generator's state (the stand-in for LibTorch's in
// include/ATen/cuda/CUDAGeneratorImpl.h): the seed and offset the next
// dropout call is handed. Tests set them so that the kernels draw what the
// CPU loops drew.
#include <stdint.h>

namespace trainer_emulation {

struct PhiloxCounter {
  uint64_t seed = 0, offset = 0;
};
PhiloxCounter& philox_counter();

}  // namespace trainer_emulation
