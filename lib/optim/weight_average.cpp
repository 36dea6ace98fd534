#include "optim/weight_average.h"

#include "util/error.h"

namespace trainer {

WeightAverage::WeightAverage(std::vector<torch::Tensor> parameters, double decay)
    : parameters_(std::move(parameters)), decay_(decay) {
  reset();
}

void WeightAverage::reset() {
  torch::NoGradGuard no_grad;
  average_.clear();
  for (const auto& p : parameters_) average_.push_back(p.detach().clone());
}

void WeightAverage::update(const torch::Tensor& skip) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> values;
  for (const auto& p : parameters_) values.push_back(p.detach());
  if (!skip.defined()) {
    torch::_foreach_mul_(average_, decay_);
    torch::_foreach_add_(average_, values, 1.0 - decay_);
    return;
  }
  // The same two operations per tensor, then the choice.
  const torch::Tensor skipped = skip.to(torch::kBool);
  for (size_t i = 0; i < average_.size(); ++i)
    average_[i].copy_(torch::where(skipped, average_[i], average_[i].mul(decay_).add_(values[i], 1.0 - decay_)));
}

void WeightAverage::swap_in() {
  torch::NoGradGuard no_grad;
  kept_.clear();
  for (size_t i = 0; i < parameters_.size(); ++i) {
    kept_.push_back(parameters_[i].detach().clone());
    parameters_[i].detach().copy_(average_[i]);
  }
}

void WeightAverage::restore() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < kept_.size(); ++i) parameters_[i].detach().copy_(kept_[i]);
  kept_.clear();
}

torch::Tensor WeightAverage::state() const {
  std::vector<torch::Tensor> flat;
  for (const auto& a : average_) flat.push_back(a.detach().to(torch::kCPU, torch::kFloat32).flatten());
  return flat.empty() ? torch::zeros({0}) : torch::cat(flat);
}

void WeightAverage::load_state(const torch::Tensor& flat) {
  torch::NoGradGuard no_grad;
  int64_t numel = 0;
  for (const auto& a : average_) numel += a.numel();
  if (flat.numel() != numel)
    throw IoError("the checkpoint's weight average holds " + std::to_string(flat.numel()) + " values, the model " +
                  std::to_string(numel),
                  "the checkpoint belongs to a different model; resume with the experiment file that wrote it");
  int64_t offset = 0;
  for (auto& a : average_) {
    a.copy_(flat.narrow(0, offset, a.numel()).view_as(a));
    offset += a.numel();
  }
}

void WeightAverage::apply(const std::vector<torch::Tensor>& parameters, const torch::Tensor& flat) {
  WeightAverage average(parameters, 0.0);
  average.load_state(flat);
  average.swap_in();
}

}  // namespace trainer
