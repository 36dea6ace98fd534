#pragma once
// NAdam's step for CapturableStep on a GPU in 1 + P kernel launches for P
// parameters, where stepping a tensor at a time with LibTorch's operations
// takes some 25 small kernels each (the device scalars' arithmetic and the
// moments' passes), which a replayed graph runs one after another:
//   1. one thread a parameter advances its step count and momentum product
//      and writes the step's coefficients (the two step sizes, the second
//      moment's bias correction), or nothing where the step is skipped;
//   2. one element-wise launch a parameter: the moments, then the update,
//      in one pass over its tensors.
// The arithmetic is the per-tensor path's (optim/capturable_step.cpp, after
// nadam.cpp): the scalars in float64 (the momentum product in float32), the
// element work in float32 with the scalars rounded to float32 first.
#include <torch/torch.h>

#include <vector>

namespace trainer {

struct NadamHyper {
  double beta1, beta2, eps, weight_decay, momentum_decay;
};

// Whether this build has the CUDA kernels (configured with CUDA).
bool nadam_step_cuda_compiled();

// One step of float32 CUDA `params` (dense, each with its gradient and
// moments laid out alike). `steps`: (P) float64, `mu_products`: (P)
// float32, `coefficients`: (P, 3) float64 scratch, `lr`: a float64 scalar,
// all on the same device; `skip`: undefined, or a scalar that is nonzero
// when the step is to change nothing.
void nadam_step_cuda(const std::vector<torch::Tensor>& params, const std::vector<torch::Tensor>& grads,
                     const std::vector<torch::Tensor>& firsts, const std::vector<torch::Tensor>& seconds,
                     const torch::Tensor& steps, const torch::Tensor& mu_products, const torch::Tensor& coefficients,
                     const torch::Tensor& lr, const NadamHyper& hyper, const torch::Tensor& skip);

}  // namespace trainer
