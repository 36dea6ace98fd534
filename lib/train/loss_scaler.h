#pragma once
// Dynamic loss scaling for fp16 training (PyTorch's GradScaler, which the C++
// API lacks): the loss is multiplied by the scale before backward so small
// gradients survive fp16; the gradients are divided by it before the step.
// A step whose gradients hold inf or NaN is skipped and the scale halved;
// after `growth_interval` good steps in a row the scale doubles.
#include <torch/torch.h>

#include <vector>

namespace trainer {

class LossScaler {
 public:
  struct Options {
    double initial_scale = 65536.0;  // 2^16
    double growth_factor = 2.0;
    double backoff_factor = 0.5;
    int64_t growth_interval = 2000;
  };

  LossScaler();
  explicit LossScaler(const Options& options);

  torch::Tensor scale(const torch::Tensor& loss) const { return loss * scale_; }
  // Divides every defined gradient by the scale; false when any gradient is
  // not finite (the optimizer step must then be skipped).
  bool unscale(const std::vector<torch::Tensor>& parameters) const;
  // After each step, with unscale()'s verdict: backs off (and counts a skipped
  // step) or, after enough good steps, grows.
  void update(bool gradients_finite);

  double scale_value() const { return scale_; }
  int64_t skipped_steps() const { return skipped_; }
  void reset_skipped_steps() { skipped_ = 0; }

  // [scale, good steps in a row, skipped steps] for checkpoints.
  torch::Tensor state() const;
  void load_state(const torch::Tensor& state);

 private:
  Options options_;
  double scale_;
  int64_t good_steps_ = 0;
  int64_t skipped_ = 0;
};

}  // namespace trainer
