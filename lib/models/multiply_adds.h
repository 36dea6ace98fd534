#pragma once
// How much arithmetic a layer's forward pass does, as multiply-adds for one
// sample: the work its weights do, which is what half precision speeds up.
// Counted from the weight matrices of the layers that multiply by them
// (convolutions, transposed ones, dense, recurrent, attention and
// transformer layers), each applied once per position of the sequence or
// image it reads or writes, and for attention the products of queries with
// keys and of scores with values, which have no weights. Norms,
// activations, pools and merges are not counted: a few operations an
// element, small beside the products. A torchscript layer counts 0:
// trainer cannot see into it.
#include <torch/torch.h>

#include <cstdint>

namespace trainer {

// `input` and `output`: the module's probe sample before and after it (a
// batch of one, channels in dimension 1).
int64_t forward_multiply_adds(const torch::nn::Module& module, const torch::Tensor& input,
                              const torch::Tensor& output);

}  // namespace trainer
