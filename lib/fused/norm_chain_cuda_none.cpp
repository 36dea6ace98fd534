// A build without CUDA: norm_chain never calls these (norm_chain_unfit turns
// CUDA tensors away first); they say so if it ever did.
#include <c10/util/Exception.h>

#include "fused/norm_chain_backend.h"

namespace trainer::fused {

bool cuda_kernels_compiled() { return false; }

ChainForward chain_forward_cuda(const at::Tensor&, const at::Tensor&, const at::Tensor&, const NormChainOptions&,
                                double, DropoutDraws&) {
  TORCH_CHECK(false, "norm_chain: this build has no CUDA kernels");
}

ChainBackward chain_backward_cuda(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                  const ChainForward&, const NormChainOptions&, double, const DropoutDraws&) {
  TORCH_CHECK(false, "norm_chain: this build has no CUDA kernels");
}

}  // namespace trainer::fused
