#pragma once
// The network of `model.layers` as a graph of nodes: each node reads one
// tensor (a layer) or merges several (add, concatenate, ...), then applies
// its modules in order. A chain is the graph whose every node reads the one
// before it; its parameters keep the names a torch::nn::Sequential gave them
// ("l3_0.weight"), so checkpoints of chain models are unchanged.
#include <torch/torch.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "models/sequence_layers.h"

namespace trainer {

enum class MergeOp { kNone, kAdd, kMultiply, kAverage, kConcatenate };

// What a node's layer is, where a pass over the built graph may replace it
// by a fused kernel (models/norm_chain_fusion.h); kOther for the rest.
struct NodeRole {
  enum Kind { kOther, kInstanceNorm, kRelu, kDropout, kReflectionPadding } kind = kOther;
  double rate = 0;                // kDropout
  std::array<int64_t, 4> pad{};   // kReflectionPadding: top, bottom, left, right
};

struct GraphNode {
  std::vector<int> inputs;  // slots: 0 is the model's input, node i writes slot i + 1
  MergeOp merge = MergeOp::kNone;
  int64_t axis = 1;  // kConcatenate
  std::vector<torch::nn::AnyModule> modules;
  NodeRole role;
};

class GraphNetImpl : public torch::nn::Module {
 public:
  // Adds a node reading `inputs`; returns the slot it writes.
  int add_node(std::vector<int> inputs, MergeOp merge = MergeOp::kNone, int64_t axis = 1);
  // Appends a module to the newest node, registered under `name`.
  void append(const std::string& name, torch::nn::AnyModule module);
  // Says what the newest node's layer is (GraphBuilder).
  void set_newest_role(const NodeRole& role) { nodes_.back().role = role; }
  // Puts `module` in place of module `index` of node `node`, under the
  // registered name of the one it replaces (so parameter names stay). The
  // node's role is then kOther: it is no longer the layer it was.
  void replace(size_t node, size_t index, torch::nn::AnyModule module);
  // The newest node's merge applied to `inputs` (the builder's probes).
  torch::Tensor merge_newest(const std::vector<torch::Tensor>& inputs) const;

  // The output of the last node.
  torch::Tensor forward(const torch::Tensor& input);

  const std::vector<GraphNode>& nodes() const { return nodes_; }

  // The padding mask the layers built to honour one read: computed from the
  // token input (token 0 is padding) at every forward once enabled.
  const std::shared_ptr<SequenceMask>& sequence_mask() const { return mask_; }
  void enable_mask() { masks_ = true; }
  bool masks() const { return masks_; }

 private:
  static torch::Tensor merge(const GraphNode& node, const std::vector<torch::Tensor>& inputs);
  // Slots no later node reads, freed after node i so that activations do not
  // outlive their last use.
  void plan_releases();

  std::vector<GraphNode> nodes_;
  std::vector<std::vector<int>> release_after_;
  std::shared_ptr<SequenceMask> mask_ = std::make_shared<SequenceMask>();
  bool masks_ = false;
  bool planned_ = false;
};
TORCH_MODULE(GraphNet);

}  // namespace trainer
