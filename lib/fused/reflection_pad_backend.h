#pragma once
// What reflection_pad.cpp's autograd function asks of the CUDA kernels
// (reflection_pad_cuda.cu, or reflection_pad_cuda_none.cpp without CUDA).
#include <ATen/ATen.h>

#include <array>

namespace trainer::fused {

bool reflection_pad_cuda_compiled();
// x: channels-last, contiguous so. The output channels-last.
at::Tensor reflection_pad_forward_cuda(const at::Tensor& x, const std::array<int64_t, 4>& pad);
// grad: the padded output's gradient; returns the input's (of `input_sizes`,
// in grad's type), channels-last.
at::Tensor reflection_pad_backward_cuda(const at::Tensor& grad, at::IntArrayRef input_sizes,
                                        const std::array<int64_t, 4>& pad);

}  // namespace trainer::fused
