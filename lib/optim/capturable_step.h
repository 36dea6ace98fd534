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
//
// With LibTorch 2.2 or later, Adam, AdamW and SGD step each parameter group
// through LibTorch's fused multi-tensor kernels (those of torch.optim's
// `fused=True`: one launch for all of a group's parameters, the rate and
// the step counts read on the device, an overflowed step skipped there):
// a parameter at a time, each step is some twenty small kernels a tensor,
// which a replayed graph runs one after another on the GPU
// (capturable_fused.cpp). Older LibTorch, and groups those kernels cannot
// take, step a parameter at a time. NAdam, which LibTorch has no fused
// kernel for, steps through trainer's own (fused/nadam_step.h) on GPUs
// where the build has them (capturable_nadam.cpp).
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
    torch::Tensor step;        // float64 scalar on the parameter's device (float32 where fused_groups_)
    torch::Tensor mu_product;  // NAdam: float32, as torch.optim.NAdam keeps it
    torch::Tensor first, second;  // momentum buffer / first and second moments / Adagrad's sum
  };
  void update(Slot& slot, const torch::Tensor& gradient);
  // Steps group `group`'s parameters that have gradients through LibTorch's
  // fused kernel, marking them in `stepped`; false (nothing done) where it
  // cannot (capturable_fused.cpp). `found_inf`: float32 1 to skip, or undefined.
  bool step_group_fused(size_t group, const torch::Tensor& found_inf, std::vector<bool>& stepped);
  // The same for NAdam through fused/nadam_step.h's CUDA kernels, whose
  // step counts and momentum products are packed into one tensor a group
  // the first time (outside a capture), the slots keeping views of them
  // (capturable_nadam.cpp). `skip` as step() takes it.
  bool step_group_nadam(size_t group, const torch::Tensor& skip, std::vector<bool>& stepped);
  // Whether this build's LibTorch has the fused kernels for kind_.
  static bool fused_kernels_for(Kind kind);
  // The type of the device scalars: float32 where the fused kernels read
  // them (their step counts and rates are float32), float64 otherwise.
  torch::ScalarType scalar_type() const { return fused_groups_ ? torch::kFloat32 : torch::kFloat64; }
  // The slot takes a moments state's tensors and its step count, on the device.
  template <typename State> void with_moments(Slot& slot, State& state) const {
    slot.first = state.exp_avg();
    slot.second = state.exp_avg_sq();
    slot.step = device_scalar(static_cast<double>(state.step()), slot.param.device(), scalar_type());
  }
  Slot& slot_of(size_t group, const torch::Tensor& param);
  static torch::Tensor device_scalar(double value, const torch::Device& device,
                                     torch::ScalarType type = torch::kFloat64) {
    return torch::full({}, value, torch::TensorOptions(type).device(device));
  }

  torch::optim::Optimizer& optimizer_;
  Kind kind_;
  std::vector<torch::Tensor> rates_;  // one a group, float64 scalars on the parameters' device
  std::vector<double> written_rates_;  // what rates_ hold
  bool fused_groups_ = false;          // Adam, AdamW and SGD on LibTorch 2.2+
  // NAdam's packed groups (capturable_nadam.cpp): the slots stepped, their
  // step counts (float64) and momentum products (float32) in one tensor
  // each, and the kernels' scratch for the step's coefficients.
  struct PackedGroup {
    bool tried = false;
    std::vector<size_t> members;
    torch::Tensor steps, mu_products, coefficients;
  };
  std::vector<PackedGroup> packed_;
  std::vector<Slot> slots_;
};

}  // namespace trainer
