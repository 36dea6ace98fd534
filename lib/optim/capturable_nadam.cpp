// CapturableStep's NAdam groups on a GPU through trainer's kernels
// (fused/nadam_step.h): a launch for the group's scalars and one a
// parameter, where the per-tensor path launches some 25 a parameter. The
// kernels read each parameter's step count and momentum product from one
// tensor a group; the slots keep views of it, so that the per-tensor path
// (a step where some parameter has no gradient) and store_state() read and
// write the same numbers.
#include "device/cuda_graph.h"
#include "fused/nadam_step.h"
#include "optim/capturable_step.h"
#include "optim/nadam.h"

namespace trainer {

bool CapturableStep::step_group_nadam(size_t group, const torch::Tensor& skip, std::vector<bool>& stepped) {
  if (!nadam_step_cuda_compiled()) return false;
  if (packed_.size() < rates_.size()) packed_.resize(rates_.size());
  PackedGroup& packed = packed_[group];
  std::vector<size_t> members;
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].group == group && slots_[i].param.grad().defined()) members.push_back(i);
  if (members.empty()) return false;
  if (!packed.tried) {
    const torch::Device device = slots_[members.front()].param.device();
    // Packing copies: inside a capture the copies would be the graph's, run
    // again at every replay. The eager warm-up steps come first.
    if (!device.is_cuda() || stream_capturing(device.index())) return false;
    packed.tried = true;
    for (size_t i : members) {
      const Slot& slot = slot_of(i, slots_[i].param);
      const torch::Tensor& p = slot.param;
      const torch::Tensor& g = p.grad();
      const bool fits = p.device() == device && p.scalar_type() == torch::kFloat && p.is_non_overlapping_and_dense() &&
                        g.scalar_type() == torch::kFloat && g.strides() == p.strides() &&
                        slot.first.strides() == p.strides() && slot.second.strides() == p.strides();
      if (!fits) return false;
    }
    std::vector<torch::Tensor> steps, mu_products;
    for (size_t i : members) {
      steps.push_back(slots_[i].step);
      mu_products.push_back(slots_[i].mu_product);
    }
    packed.steps = torch::stack(steps);
    packed.mu_products = torch::stack(mu_products);
    packed.coefficients = torch::empty({static_cast<int64_t>(members.size()), 3}, packed.steps.options());
    for (size_t k = 0; k < members.size(); ++k) {
      slots_[members[k]].step = packed.steps[static_cast<int64_t>(k)];
      slots_[members[k]].mu_product = packed.mu_products[static_cast<int64_t>(k)];
    }
    packed.members = members;
  }
  // A step whose parameters with gradients are not the packed ones steps a
  // tensor at a time, on the same (viewed) counts.
  if (packed.members != members) return false;
  // The kernels read the flag where the parameters are.
  if (skip.defined() && skip.device() != packed.steps.device()) return false;
  std::vector<torch::Tensor> params, grads, firsts, seconds;
  for (size_t i : members) {
    params.push_back(slots_[i].param);
    grads.push_back(slots_[i].param.grad());
    firsts.push_back(slots_[i].first);
    seconds.push_back(slots_[i].second);
  }
  const auto& options = static_cast<const NAdamOptions&>(optimizer_.param_groups()[group].options());
  const NadamHyper hyper{options.beta1(), options.beta2(), options.eps(), options.weight_decay(),
                         options.momentum_decay()};
  nadam_step_cuda(params, grads, firsts, seconds, packed.steps, packed.mu_products, packed.coefficients,
                  rates_[group], hyper, skip);
  for (size_t i : members) stepped[i] = true;
  return true;
}

}  // namespace trainer
