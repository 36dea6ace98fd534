// A LibTorch without CUDA: no GPU, no GPU generator.
#include "device/gpu_rng.h"

namespace trainer {

torch::Tensor gpu_rng_state(int) { return {}; }
void set_gpu_rng_state(int, const torch::Tensor&) {}

}  // namespace trainer
