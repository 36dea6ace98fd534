#pragma once
// Questions the passes that rewrite a built graph (fused norm chains,
// cancelled biases) ask of its nodes before they join two of them.
#include <algorithm>
#include <vector>

#include "models/graph_net.h"
#include "models/model.h"

namespace trainer {

class NodeChains {
 public:
  explicit NodeChains(const Model& model) : model_(model), nodes_(model.net->nodes()) {
    readers_.assign(nodes_.size() + 1, 0);
    for (const auto& node : nodes_)
      for (int slot : node.inputs) ++readers_[static_cast<size_t>(slot)];
  }

  // Whether node `i` is one of `role`, with one module, not frozen.
  bool is(size_t i, NodeRole::Kind role) const {
    return i < nodes_.size() && nodes_[i].role.kind == role && nodes_[i].modules.size() == 1 &&
           !frozen(nodes_[i].modules[0].ptr().get());
  }
  // Whether `module` belongs to a frozen layer (its parameters do not train).
  bool frozen(const torch::nn::Module* module) const {
    const auto& modules = model_.frozen_modules;
    return std::any_of(modules.begin(), modules.end(), [&](const auto& m) { return m.get() == module; });
  }
  // Node i + 1 reads node i's output, and nothing else does: node i + 1 may
  // take node i's work into its own, or rely on seeing all of its output.
  bool follows(size_t i) const {
    if (i + 1 >= nodes_.size()) return false;
    const GraphNode& next = nodes_[i + 1];
    const int slot = static_cast<int>(i) + 1;
    return next.merge == MergeOp::kNone && next.inputs == std::vector<int>{slot} &&
           readers_[static_cast<size_t>(slot)] == 1;
  }

 private:
  const Model& model_;
  const std::vector<GraphNode>& nodes_;
  std::vector<int> readers_;
};

}  // namespace trainer
