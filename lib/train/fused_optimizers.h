#pragma once
// LibTorch's Adam, AdamW and SGD (with or without momentum), each step
// updating every float32 CPU parameter in one pass over its elements
// (adam_kernel) instead of four to seven tensor operations. The options,
// the state and what save() writes are the base class's, so checkpoints
// move freely between the fused and the plain optimizers. A parameter group
// the loops cannot take (a GPU, double, a strided view, AMSGrad) steps
// through the base class.
#include <torch/torch.h>

namespace trainer {

class FusedAdam : public torch::optim::Adam {
 public:
  using torch::optim::Adam::Adam;
  torch::Tensor step(LossClosure closure = nullptr) override;
  void set_fused(bool fused) { fused_ = fused; }
  int64_t fused_updates() const { return fused_updates_; }  // parameters updated by the loop, for tests

 private:
  bool fused_ = true;
  int64_t fused_updates_ = 0;
};

class FusedAdamW : public torch::optim::AdamW {
 public:
  using torch::optim::AdamW::AdamW;
  torch::Tensor step(LossClosure closure = nullptr) override;
  void set_fused(bool fused) { fused_ = fused; }
  int64_t fused_updates() const { return fused_updates_; }

 private:
  bool fused_ = true;
  int64_t fused_updates_ = 0;
};

class FusedSGD : public torch::optim::SGD {
 public:
  using torch::optim::SGD::SGD;
  torch::Tensor step(LossClosure closure = nullptr) override;
  void set_fused(bool fused) { fused_ = fused; }
  int64_t fused_updates() const { return fused_updates_; }

 private:
  bool fused_ = true;
  int64_t fused_updates_ = 0;
};

}  // namespace trainer
