#pragma once
// Keras's weight initialisers, for a layer's kernel_initializer and
// bias_initializer. Fans are Keras's (of its kernel layout), given by the
// builder, since LibTorch's weight layouts differ from Keras's.
#include <torch/torch.h>

#include "spec/enums.h"

namespace trainer {

// Fills `weight` in place; kPytorch leaves LibTorch's initialisation.
void initialise_kernel(torch::Tensor& weight, Initializer scheme, int64_t fan_in, int64_t fan_out);
// Zeros, ones, or (kPytorch) LibTorch's initialisation left as it is.
void initialise_bias(torch::Tensor& bias, Initializer scheme);

}  // namespace trainer
