#pragma once
// What norm_chain.cpp's autograd function asks of each implementation: the
// CPU loops (norm_chain_cpu.cpp) and the CUDA kernels (norm_chain_cuda.cu,
// or norm_chain_cuda_none.cpp where the build has no CUDA).
#include <ATen/ATen.h>

#include <array>
#include <cstdint>
#include <string>

#include "fused/norm_chain.h"

namespace trainer::fused {

// Where the dropout draws come from, as the forward took it, so that the
// backward draws the same: on the CPU a seed and an offset; on CUDA the
// generator's PhiloxCudaState, copied as bytes (it holds pointers while a
// graph is captured).
struct DropoutDraws {
  std::array<uint64_t, 4> words{};
};

// Whether `x` is laid out channels-last (NHWC) rather than NCHW; a tensor
// that is both (one channel, or planes of one element) counts as NCHW. The
// output and the input's gradient take the input's layout.
inline bool is_channels_last(const at::Tensor& x) {
  return !x.is_contiguous() && x.is_contiguous(at::MemoryFormat::ChannelsLast);
}
inline at::MemoryFormat layout_of(const at::Tensor& x) {
  return is_channels_last(x) ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
}

// Where a (sample, channel) plane's elements lie in a tensor contiguous in
// either layout: the CPU loops of the norm chain and of reflection_pad walk
// planes so.
struct PlaneAddressing {
  int64_t channels;
  bool channels_last;
  // Where plane `plane` (sample x channels + channel) begins, in a tensor of
  // `positions` positions a plane.
  int64_t base(int64_t plane, int64_t positions) const {
    return channels_last ? (plane / channels) * positions * channels + plane % channels : plane * positions;
  }
  // How far apart its elements lie.
  int64_t step() const { return channels_last ? channels : 1; }
};

// Why a (N, C, H, W) input padded by `pad` (top, bottom, left, right) is
// not one the fused kernels take ("" when it is): its rank or type, padding
// as large as the input, or a padded output of 2^31 elements (the kernels
// index in 32 bits). norm_chain_unfit and reflection_pad_unfit add their own.
std::string padded_input_unfit(const at::Tensor& x, const std::array<int64_t, 4>& pad);

struct ChainForward {
  at::Tensor output;  // (N, C, H + top + bottom, W + left + right), in the input's layout
  at::Tensor mean;    // (N * C), float32, in (sample, channel) order whatever the layout
  at::Tensor rstd;    // (N * C), float32: 1 / sqrt(variance + eps)
};

struct ChainBackward {
  at::Tensor grad_input;
  at::Tensor grad_gamma_parts;  // (N, C), float32: summed over N by the caller
  at::Tensor grad_beta_parts;
};

// gamma and beta: float32 (C) or undefined. The dropout rate is `dropout`
// (0: none); `draws` is written by forward and read by backward.
ChainForward chain_forward_cpu(const at::Tensor& x, const at::Tensor& gamma, const at::Tensor& beta,
                               const NormChainOptions& options, double dropout, DropoutDraws& draws);
ChainBackward chain_backward_cpu(const at::Tensor& grad_output, const at::Tensor& x, const at::Tensor& gamma,
                                 const at::Tensor& beta, const ChainForward& saved, const NormChainOptions& options,
                                 double dropout, const DropoutDraws& draws);
ChainForward chain_forward_cuda(const at::Tensor& x, const at::Tensor& gamma, const at::Tensor& beta,
                                const NormChainOptions& options, double dropout, DropoutDraws& draws);
ChainBackward chain_backward_cuda(const at::Tensor& grad_output, const at::Tensor& x, const at::Tensor& gamma,
                                  const at::Tensor& beta, const ChainForward& saved, const NormChainOptions& options,
                                  double dropout, const DropoutDraws& draws);
bool cuda_kernels_compiled();

}  // namespace trainer::fused
