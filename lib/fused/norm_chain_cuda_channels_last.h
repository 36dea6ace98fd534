#pragma once
// The fused norm chain's CUDA kernels for channels-last (NHWC) inputs
// (norm_chain_cuda_channels_last.cu): called by norm_chain_cuda.cu's entry
// points, with the same arguments and results.
#include "fused/norm_chain_backend.h"

namespace trainer::fused {

ChainForward chain_forward_channels_last(const at::Tensor& x, const at::Tensor& gamma, const at::Tensor& beta,
                                         const NormChainOptions& options, double dropout, const DropoutDraws& draws);
ChainBackward chain_backward_channels_last(const at::Tensor& grad_output, const at::Tensor& x,
                                           const at::Tensor& gamma, const at::Tensor& beta, const ChainForward& saved,
                                           const NormChainOptions& options, double dropout,
                                           const DropoutDraws& draws);

}  // namespace trainer::fused
