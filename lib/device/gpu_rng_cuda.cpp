// Built only against a CUDA LibTorch (TRAINER_TORCH_HAS_CUDA).
#include "device/gpu_rng.h"

#include <ATen/cuda/CUDAGeneratorImpl.h>

#include "util/torch_compat.h"

namespace trainer {

torch::Tensor gpu_rng_state(int index) {
  return compat::generator_state(at::cuda::detail::getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(index)));
}

void set_gpu_rng_state(int index, const torch::Tensor& state) {
  at::Generator generator = at::cuda::detail::getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(index));
  compat::set_generator_state(generator, state);
}

}  // namespace trainer
