#pragma once
// LibTorch's Adam, AdamW, SGD (with or without momentum), RMSprop and
// Adagrad, each step updating every float32 CPU parameter in one pass over
// its elements (adam_kernel, root_mean_square_kernel) instead of four to
// seven tensor operations. The options,
// the state and what save() writes are the base class's, so checkpoints
// move freely between the fused and the plain optimizers. Adam and AdamW
// step parameters their loop cannot take (GPU parameters, double, a strided
// view) with LibTorch's multi-tensor operations: each of the step's tensor
// operations once for all parameters. Otherwise what the loops cannot take
// (AMSGrad, sparse gradients, any GPU parameter of the other optimizers)
// steps through the base class, as does an RMSprop with momentum or
// centered.
#include <torch/torch.h>

#include "optim/fused_switch.h"

namespace trainer {

class FusedAdam : public torch::optim::Adam, public FusedSwitch {
 public:
  using torch::optim::Adam::Adam;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

class FusedAdamW : public torch::optim::AdamW, public FusedSwitch {
 public:
  using torch::optim::AdamW::AdamW;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

class FusedSGD : public torch::optim::SGD, public FusedSwitch {
 public:
  using torch::optim::SGD::SGD;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

class FusedRMSprop : public torch::optim::RMSprop, public FusedSwitch {
 public:
  using torch::optim::RMSprop::RMSprop;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

class FusedAdagrad : public torch::optim::Adagrad, public FusedSwitch {
 public:
  using torch::optim::Adagrad::Adagrad;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace trainer
