#include "models/graph_net.h"

namespace trainer {

int GraphNetImpl::add_node(std::vector<int> inputs, MergeOp merge, int64_t axis) {
  nodes_.push_back({std::move(inputs), merge, axis, {}, {}});
  planned_ = false;
  return static_cast<int>(nodes_.size());
}

void GraphNetImpl::append(const std::string& name, torch::nn::AnyModule module) {
  register_module(name, module.ptr());
  nodes_.back().modules.push_back(std::move(module));
}

void GraphNetImpl::replace(size_t node, size_t index, torch::nn::AnyModule module) {
  torch::nn::AnyModule& old = nodes_.at(node).modules.at(index);
  for (const auto& child : named_children())
    if (child.value().get() == old.ptr().get()) {
      replace_module(child.key(), module.ptr());
      old = std::move(module);
      nodes_[node].role = NodeRole();
      return;
    }
  TORCH_CHECK(false, "GraphNet::replace: module ", index, " of node ", node, " is not registered");
}

torch::Tensor GraphNetImpl::merge(const GraphNode& node, const std::vector<torch::Tensor>& inputs) {
  switch (node.merge) {
    case MergeOp::kNone: return inputs.front();
    case MergeOp::kConcatenate: return torch::cat(inputs, node.axis);
    case MergeOp::kMultiply: {
      torch::Tensor product = inputs[0] * inputs[1];
      for (size_t i = 2; i < inputs.size(); ++i) product = product * inputs[i];
      return product;
    }
    case MergeOp::kAdd:
    case MergeOp::kAverage: {
      torch::Tensor sum = inputs[0] + inputs[1];
      for (size_t i = 2; i < inputs.size(); ++i) sum = sum + inputs[i];
      return node.merge == MergeOp::kAdd ? sum : sum / static_cast<double>(inputs.size());
    }
  }
  return inputs.front();
}

torch::Tensor GraphNetImpl::merge_newest(const std::vector<torch::Tensor>& inputs) const {
  return merge(nodes_.back(), inputs);
}

void GraphNetImpl::plan_releases() {
  std::vector<int> last_reader(nodes_.size() + 1, -1);
  for (size_t i = 0; i < nodes_.size(); ++i)
    for (int slot : nodes_[i].inputs) last_reader[static_cast<size_t>(slot)] = static_cast<int>(i);
  release_after_.assign(nodes_.size(), {});
  for (size_t slot = 0; slot < nodes_.size(); ++slot)  // the last slot is the output
    if (last_reader[slot] >= 0) release_after_[static_cast<size_t>(last_reader[slot])].push_back(static_cast<int>(slot));
  planned_ = true;
}

torch::Tensor GraphNetImpl::forward(const torch::Tensor& input) {
  if (!planned_) plan_releases();
  std::vector<torch::Tensor> slots(nodes_.size() + 1);
  slots[0] = input;
  if (masks_) mask_->valid = input.ne(0);
  std::vector<torch::Tensor> inputs;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    GraphNode& node = nodes_[i];
    inputs.clear();
    for (int slot : node.inputs) inputs.push_back(slots[static_cast<size_t>(slot)]);
    torch::Tensor x = merge(node, inputs);
    for (auto& module : node.modules) x = module.forward(x);
    slots[i + 1] = std::move(x);
    for (int slot : release_after_[i]) slots[static_cast<size_t>(slot)] = torch::Tensor();
  }
  return slots.back();
}

}  // namespace trainer
