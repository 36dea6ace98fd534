#pragma once
// A convolution whose output an instance norm reads next, and nothing else
// reads: the norm subtracts each channel's mean over the positions, so the
// convolution's bias, one constant a channel, cancels exactly, and its
// gradient is zero. On a GPU that bias costs two passes over the
// convolution's output a step (LibTorch adds it with a kernel of its own
// after cuDNN's, and sums the output's gradient for it in the backward):
// for the DeblurGAN generator, 23 convolutions and some 1.5 GB of memory
// traffic a step at batch 8 in bf16. This pass runs those convolutions
// without their biases.
//
// The bias stays a parameter, under its name, with its value: checkpoints,
// summaries and the optimizer's parameters are unchanged, and a checkpoint
// runs the same anywhere. Its gradient is exactly zero (what the plain
// model's gradient is, less rounding), so optimizers, weight decay,
// gradient clipping and the data-parallel reduction see every parameter
// they saw before.
#include <torch/torch.h>

#include <functional>
#include <memory>

#include "models/model.h"

namespace trainer {

// A convolution run without its bias, holding the very tensors of the one
// it replaces (so that anything holding them, as a kernel_regularizer's
// penalty does, still holds the model's parameters).
struct BiasCancelledConvImpl : torch::nn::Module {
  using Convolve = std::function<torch::Tensor(const torch::Tensor& x, const torch::Tensor& weight)>;
  BiasCancelledConvImpl(const torch::Tensor& kernel, const torch::Tensor& shift, Convolve convolve);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight, bias;

 private:
  Convolve convolve_;
};
TORCH_MODULE(BiasCancelledConv);

// Runs each convolution of `model` whose bias an instance norm cancels
// without it; returns how many. Frozen layers are left as they are.
int cancel_normalised_biases(Model& model);
// How many cancel_normalised_biases would take, leaving the model as it is.
int cancellable_biases(const Model& model);

}  // namespace trainer
