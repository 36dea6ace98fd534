// A build without CUDA: CapturableStep asks nadam_step_cuda_compiled() first
// and steps a tensor at a time; nadam_step_cuda says so if ever called.
#include <c10/util/Exception.h>

#include "fused/nadam_step.h"

namespace trainer {

bool nadam_step_cuda_compiled() { return false; }

void nadam_step_cuda(const std::vector<torch::Tensor>&, const std::vector<torch::Tensor>&,
                     const std::vector<torch::Tensor>&, const std::vector<torch::Tensor>&, const torch::Tensor&,
                     const torch::Tensor&, const torch::Tensor&, const torch::Tensor&, const NadamHyper&,
                     const torch::Tensor&) {
  TORCH_CHECK(false, "nadam_step_cuda: this build has no CUDA kernels");
}

}  // namespace trainer
