#pragma once
// An instance norm with what so often follows it, in one pass over the
// tensor each way: normalise each (sample, channel) plane by its own mean
// and variance, scale and shift per channel, then optionally ReLU, dropout
// and reflection padding, writing the padded output at once. LibTorch runs
// these as four or five kernels, each reading and writing the whole tensor
// (and dropout a mask besides); here the forward reads the input twice and
// writes the padded output once, and the backward recomputes the ReLU and
// dropout masks instead of storing them.
//
// Implemented by CUDA kernels (norm_chain_cuda.cu and, for channels-last
// tensors, norm_chain_cuda_channels_last.cu, where the build has CUDA)
// and by plain loops on the CPU (norm_chain_cpu.cpp: the reference the tests
// compare with LibTorch's unfused layers; trainer's CPU runs keep LibTorch's
// own kernels, which are faster there).
#include <torch/torch.h>

#include <array>

namespace trainer {

struct NormChainOptions {
  double eps = 1e-5;
  bool relu = false;
  double dropout = 0;  // the rate dropped while training
  std::array<int64_t, 4> pad{};  // reflection padding: top, bottom, left, right
};

// The chain applied to x (N, C, H, W), NCHW or channels-last (the output
// and the gradient keep its layout: a channels-last model stays so between
// its convolutions, which LibTorch's instance norm and reflection padding
// on CUDA do not), weight and bias per channel (either may be undefined: 1
// and 0). Differentiable in x, weight and bias. Dropout
// draws from the device's default generator: on CUDA as PyTorch's dropout
// does (graph-safe: a captured step draws anew at every replay), on the CPU
// one seed per call.
torch::Tensor norm_chain(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                         const NormChainOptions& options, bool training);

// Whether this build has the CUDA kernels (configured with CUDA).
bool norm_chain_cuda_compiled();

// Why norm_chain cannot take `x` ("" when it can): its device (CUDA without
// the kernels), its rank or type, padding as large as the input, or 2^31
// elements.
std::string norm_chain_unfit(const torch::Tensor& x, const NormChainOptions& options);

}  // namespace trainer
