// CapturableStep's groups stepped by LibTorch's fused multi-tensor kernels
// (at::_fused_adam_, _fused_adamw_, _fused_sgd_: torch.optim's
// `fused=True`), where the LibTorch in use has them with a device learning
// rate (2.2 and later). One launch steps all of a group's parameters; it
// reads the rate and each parameter's step count on the device and skips
// the whole update where `found_inf` is 1, so that a captured step stays
// right at every replay. The step counts are advanced around it as
// torch.optim's fused path advances them: +1 before, -found_inf after.
#include "optim/capturable_step.h"

#include "optim/libtorch_fused_kernels.h"

namespace trainer {

#if TRAINER_HAS_FUSED_OPTIMIZERS

namespace {

namespace optim = torch::optim;

// The kernels' restriction: every tensor of a list alike in type and device,
// dense and not overlapping itself (they walk the memory as a flat array).
bool walkable_alike(const std::vector<torch::Tensor>& tensors, const torch::Tensor& like) {
  for (const torch::Tensor& t : tensors)
    if (t.scalar_type() != like.scalar_type() || t.device() != like.device() || t.is_sparse() ||
        !t.is_non_overlapping_and_dense())
      return false;
  return true;
}

// Each of a parameter's tensors must walk its elements in the parameter's
// order: the same strides.
bool laid_out_alike(const std::vector<torch::Tensor>& params, const std::vector<torch::Tensor>& others) {
  for (size_t i = 0; i < params.size(); ++i)
    if (others[i].strides() != params[i].strides()) return false;
  return true;
}

}  // namespace

bool CapturableStep::fused_kernels_for(Kind kind) {
  return kind == Kind::kAdam || kind == Kind::kAdamW || kind == Kind::kSgd;
}

bool CapturableStep::step_group_fused(size_t group, const torch::Tensor& found_inf, std::vector<bool>& stepped) {
  std::vector<size_t> members;
  std::vector<torch::Tensor> params, grads, firsts, seconds, steps;
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].group != group || !slots_[i].param.grad().defined()) continue;
    Slot& slot = slot_of(i, slots_[i].param);
    members.push_back(i);
    params.push_back(slot.param);
    grads.push_back(slot.param.grad());
    if (slot.first.defined()) firsts.push_back(slot.first);
    if (slot.second.defined()) seconds.push_back(slot.second);
    steps.push_back(slot.step);
  }
  if (members.empty()) return false;
  const torch::Tensor& like = params.front();
  const bool float_type = like.scalar_type() == torch::kFloat || like.scalar_type() == torch::kHalf ||
                          like.scalar_type() == torch::kBFloat16 || like.scalar_type() == torch::kDouble;
  if (!float_type || !walkable_alike(params, like) || !walkable_alike(grads, like) || !laid_out_alike(params, grads))
    return false;
  for (const auto* state : {&firsts, &seconds})
    if (!state->empty() && (state->size() != params.size() || !walkable_alike(*state, like) ||
                            !laid_out_alike(params, *state)))
      return false;
  const torch::Tensor& lr = rates_[group];
  const auto& options = optimizer_.param_groups()[group].options();
  const c10::optional<torch::Tensor> inf = found_inf.defined() ? c10::optional<torch::Tensor>(found_inf) : c10::nullopt;
  switch (kind_) {
    case Kind::kAdam:
    case Kind::kAdamW: {
      at::_foreach_add_(steps, 1);
      if (kind_ == Kind::kAdam) {
        const auto& o = static_cast<const optim::AdamOptions&>(options);
        at::_fused_adam_(params, grads, firsts, seconds, {}, steps, lr, std::get<0>(o.betas()),
                            std::get<1>(o.betas()), o.weight_decay(), o.eps(), /*amsgrad=*/false,
                            /*maximize=*/false, /*grad_scale=*/c10::nullopt, inf);
      } else {
        const auto& o = static_cast<const optim::AdamWOptions&>(options);
        at::_fused_adamw_(params, grads, firsts, seconds, {}, steps, lr, std::get<0>(o.betas()),
                             std::get<1>(o.betas()), o.weight_decay(), o.eps(), /*amsgrad=*/false,
                             /*maximize=*/false, /*grad_scale=*/c10::nullopt, inf);
      }
      // A skipped step is no step: its count goes back.
      if (inf) at::_foreach_sub_(steps, std::vector<torch::Tensor>(steps.size(), *inf));
      break;
    }
    case Kind::kSgd: {
      const auto& o = static_cast<const optim::SGDOptions&>(options);
      // The momentum buffers start at zero (slot_of), so with no dampening
      // a first step's buffer is its gradient, as LibTorch's copy makes it:
      // never `is_first_step`, which a replayed graph would repeat.
      at::_fused_sgd_(params, grads, o.momentum() != 0 ? firsts : std::vector<torch::Tensor>(), o.weight_decay(),
                         o.momentum(), lr, o.dampening(), o.nesterov(), /*maximize=*/false,
                         /*is_first_step=*/false, /*grad_scale=*/c10::nullopt, inf);
      break;
    }
    default:
      return false;
  }
  for (size_t i : members) stepped[i] = true;
  return true;
}

#else

bool CapturableStep::fused_kernels_for(Kind) { return false; }
bool CapturableStep::step_group_fused(size_t, const torch::Tensor&, std::vector<bool>&) { return false; }

#endif

}  // namespace trainer
