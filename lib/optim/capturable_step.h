#pragma once
// An optimizer step that a CUDA graph can capture and replay: the arithmetic
// of the experiment's optimizer (LibTorch's SGD with or without momentum,
// Adam, AdamW, RMSprop and Adagrad, trainer's NAdam) on that optimizer's own
// state tensors, with every number that changes from one step to the next
// held on the device: each parameter's step count, NAdam's momentum product
// and each parameter group's learning rate. LibTorch keeps step counts and
// rates on the host, and a graph bakes host numbers in as constants: a
// replayed Adam would apply its first bias corrections forever.
//
// The state stays the optimizer's, so checkpoints keep their format:
// store_state() writes the device step counts back before one is saved.
// Runs on any device (the CPU tests compare it with the optimizers' own
// steps); nothing in step() waits for the device.
#include <torch/torch.h>

#include <string>
#include <vector>

namespace trainer {

class CapturableStep {
 public:
  // "" when `optimizer` can be stepped so, otherwise why not ("RMSprop with
  // momentum"), for the log line that says why a run stays eager.
  static std::string unsupported(const torch::optim::Optimizer& optimizer);

  // Reads the optimizer's state (step counts where it has some); the state
  // of a parameter it has not stepped yet starts at the first step, as the
  // optimizer's own would.
  explicit CapturableStep(torch::optim::Optimizer& optimizer);

  // Outside a capture: each parameter group's rate (`rates` in the groups'
  // order). A device write, no wait.
  void set_learning_rates(const std::vector<double>& rates);
  // One step of every parameter that has a gradient. `skip` (fp16 loss
  // scaling's device flag, 1 when the gradients overflowed): where it is 1
  // the step changes nothing, neither weights nor state nor step counts, as
  // an optimizer step not taken; decided on the device, with no wait.
  void step(const torch::Tensor& skip = {});
  // The device step counts (and NAdam's product) into the optimizer's own
  // state, before it is saved or stepped itself. Waits for the device.
  void store_state();

 private:
  enum class Kind { kSgd, kAdam, kAdamW, kRmsprop, kAdagrad, kNadam };
  struct Slot {
    torch::Tensor param;
    size_t group = 0;
    torch::Tensor step;        // float64 scalar on the parameter's device
    torch::Tensor mu_product;  // NAdam: float32, as torch.optim.NAdam keeps it
    torch::Tensor first, second;  // momentum buffer / first and second moments / Adagrad's sum
  };
  void update(Slot& slot, const torch::Tensor& gradient);
  // The slot takes a moments state's tensors and its step count, on the device.
  template <typename State> static void with_moments(Slot& slot, State& state) {
    slot.first = state.exp_avg();
    slot.second = state.exp_avg_sq();
    slot.step = device_scalar(static_cast<double>(state.step()), slot.param.device());
  }
  Slot& slot_of(size_t group, const torch::Tensor& param);
  static torch::Tensor device_scalar(double value, const torch::Device& device,
                                     torch::ScalarType type = torch::kFloat64) {
    return torch::full({}, value, torch::TensorOptions(type).device(device));
  }

  torch::optim::Optimizer& optimizer_;
  Kind kind_;
  std::vector<torch::Tensor> rates_;  // one a group, float64 scalars on the parameters' device
  std::vector<Slot> slots_;
};

}  // namespace trainer
