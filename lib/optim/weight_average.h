#pragma once
// train.ema: an exponential moving average of the model's weights, kept
// beside them and updated after every optimizer step with multi-tensor
// operations (no host sync on a GPU). Validation and inference can swap it
// into the model and back; checkpoints carry it as one flat tensor.
#include <torch/torch.h>

#include <vector>

namespace trainer {

class WeightAverage {
 public:
  // Starts as the parameters' current values.
  WeightAverage(std::vector<torch::Tensor> parameters, double decay);

  // average = decay * average + (1 - decay) * parameters. `skip` (a device
  // flag, 1 when fp16 loss scaling skipped the step on the device): then
  // the average is left as it is, as after a step not taken.
  void update(const torch::Tensor& skip = {});
  // The average into the parameters (the trained values kept aside), and back.
  void swap_in();
  void restore();
  // Starts again from the parameters' current values (a resumed run whose
  // checkpoint has no average).
  void reset();

  // The average as one flat float tensor, on the CPU, for a checkpoint.
  torch::Tensor state() const;
  void load_state(const torch::Tensor& flat);
  // Writes a checkpoint's average (state()) into `parameters` (inference).
  static void apply(const std::vector<torch::Tensor>& parameters, const torch::Tensor& flat);

 private:
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> average_;
  std::vector<torch::Tensor> kept_;  // the trained values while the average is swapped in
  double decay_;
};

}  // namespace trainer
