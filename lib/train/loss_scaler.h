#pragma once
// Dynamic loss scaling for fp16 training (PyTorch's GradScaler, which the C++
// API lacks): the loss is multiplied by the scale before backward so small
// gradients survive fp16; the gradients are divided by it before the step.
// A step whose gradients hold inf or NaN is skipped and the scale halved;
// after `growth_interval` good steps in a row the scale doubles.
//
// The scale, the count of good steps and the count of skipped ones live on
// the run's device, and unscale() and update() only queue work there: the
// verdict is a device flag, so a CUDA graph can capture the whole decision
// (CapturableStep skips the update on the flag). An eager step that must
// know it on the host reads it once (MixedPrecision::unscale_and_check).
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
  explicit LossScaler(const Options& options, const torch::Device& device = torch::Device(torch::kCPU));

  torch::Tensor scale(const torch::Tensor& loss) const { return loss * scale_; }
  // Divides every defined gradient by the scale. Returns a float64 device
  // scalar: 1 when any gradient is not finite (the optimizer step must then
  // be skipped), else 0. Nothing waits for the device.
  torch::Tensor unscale(const std::vector<torch::Tensor>& parameters) const;
  // After each step, with unscale()'s flag, on the device: backs off (and
  // counts a skipped step) or, after enough good steps, grows.
  void update(const torch::Tensor& non_finite);

  // The scale as a device scalar, for a reading that must not wait.
  const torch::Tensor& scale_tensor() const { return scale_; }
  // These wait for the device: once an epoch, or for a checkpoint.
  double scale_value() const;
  int64_t skipped_steps() const;
  void reset_skipped_steps();

  // [scale, good steps in a row, skipped steps] on the CPU, for checkpoints.
  torch::Tensor state() const;
  void load_state(const torch::Tensor& state);

 private:
  Options options_;
  // float64 scalars on the device; counts in float64 are exact to 2^53.
  torch::Tensor scale_, good_steps_, skipped_;
};

}  // namespace trainer
