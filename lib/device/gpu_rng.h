#pragma once
// A GPU's default random generator (dropout masks drawn there), for
// checkpoints: a resumed GPU run draws the masks an uninterrupted one would.
// Compiled from gpu_rng_cuda.cpp with a CUDA LibTorch, else gpu_rng_none.cpp.
#include <torch/torch.h>

namespace trainer {

// Undefined in a build without CUDA.
torch::Tensor gpu_rng_state(int index);
void set_gpu_rng_state(int index, const torch::Tensor& state);

}  // namespace trainer
