#pragma once
// Reflection padding that keeps its input's layout. LibTorch's CUDA
// reflection padding copies a channels-last input to NCHW and returns
// NCHW, so that in a channels-last model the next convolution converts it
// back: two copies of the tensor each way. Here the padded output is
// written in the input's layout by one gather, and the gradient by another
// (each input element summing the padded positions that read it).
//
// CUDA kernels for channels-last tensors (reflection_pad_cuda.cu, where the
// build has CUDA); plain loops on the CPU in either layout, the reference
// the tests hold against LibTorch's padding. NCHW CUDA tensors go to
// LibTorch's own, which keeps NCHW.
#include <torch/torch.h>

#include <array>
#include <string>

namespace trainer {

// x (N, C, H, W) padded by `pad` (top, bottom, left, right) rows and
// columns, each smaller than the input's side. Differentiable in x.
torch::Tensor reflection_pad(const torch::Tensor& x, const std::array<int64_t, 4>& pad);

// Why reflection_pad would not run its own kernels on `x` ("" when it
// does): not 4 dimensions, a type other than float, half, bf16 or double,
// padding as large as the input, 2^31 elements, or (on CUDA) a layout
// other than channels-last or a build without the kernels.
std::string reflection_pad_unfit(const torch::Tensor& x, const std::array<int64_t, 4>& pad);

}  // namespace trainer
