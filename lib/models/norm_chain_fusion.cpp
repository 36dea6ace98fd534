#include "models/norm_chain_fusion.h"

#include <algorithm>

#include "models/node_chains.h"

namespace trainer {

namespace F = torch::nn::functional;

FusedNormChainImpl::FusedNormChainImpl(const torch::nn::GroupNormOptions& norm, const NormChainOptions& tail,
                                       bool cpu)
    : DeviceGroupNormImpl(norm), chain(tail), fuse_on_cpu(cpu) {
  chain.eps = norm.eps();
}

torch::Tensor FusedNormChainImpl::forward(const torch::Tensor& x) {
  if ((x.is_cuda() || fuse_on_cpu) && norm_chain_unfit(x, chain).empty()) {
    ++fused_passes;
    return norm_chain(x, weight, bias, chain, is_training());
  }
  torch::Tensor y = DeviceGroupNormImpl::forward(x);
  if (chain.relu) y = torch::relu(y);
  if (chain.dropout > 0) y = torch::dropout(y, chain.dropout, is_training());
  const auto& p = chain.pad;
  if (std::any_of(p.begin(), p.end(), [](int64_t v) { return v > 0; }))
    y = F::pad(y, F::PadFuncOptions({p[2], p[3], p[0], p[1]}).mode(torch::kReflect));
  return y;
}

torch::Tensor LayoutKeepingPadImpl::forward(const torch::Tensor& x) {
  if ((x.is_cuda() || pad_on_cpu) && reflection_pad_unfit(x, pad).empty()) {
    ++own_passes;
    return reflection_pad(x, pad);
  }
  return F::pad(x, F::PadFuncOptions({pad[2], pad[3], pad[0], pad[1]}).mode(torch::kReflect));
}

namespace {

// A norm at node `norm` and the nodes it absorbs.
struct NormChain {
  size_t norm;
  NormChainOptions options;
  std::vector<size_t> absorbed;
};

std::vector<NormChain> find_norm_chains(const Model& model, bool lone_norms) {
  const NodeChains finder(model);
  const auto& nodes = model.net->nodes();
  std::vector<NormChain> chains;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!finder.is(i, NodeRole::kInstanceNorm)) continue;
    if (!std::dynamic_pointer_cast<DeviceGroupNormImpl>(nodes[i].modules[0].ptr())) continue;
    NormChain chain{i, {}, {}};
    size_t last = i;
    const auto take = [&](NodeRole::Kind role) {
      if (!finder.follows(last) || !finder.is(last + 1, role)) return false;
      chain.absorbed.push_back(++last);
      return true;
    };
    if (take(NodeRole::kRelu)) chain.options.relu = true;
    if (take(NodeRole::kDropout)) chain.options.dropout = nodes[last].role.rate;
    if (take(NodeRole::kReflectionPadding)) chain.options.pad = nodes[last].role.pad;
    // A norm alone gains nothing in NCHW: LibTorch's own is as good. In a
    // channels-last model LibTorch's would copy its input to NCHW and hand
    // the next convolution an NCHW output.
    if (chain.absorbed.empty() && !lone_norms) continue;
    chains.push_back(chain);
    i = last;
  }
  return chains;
}

}  // namespace

int fusible_norm_chains(const Model& model, bool lone_norms) {
  return static_cast<int>(find_norm_chains(model, lone_norms).size());
}

int fuse_norm_chains(Model& model, bool fuse_on_cpu, bool lone_norms) {
  const auto chains = find_norm_chains(model, lone_norms);
  for (const NormChain& chain : chains) {
    auto norm = std::dynamic_pointer_cast<DeviceGroupNormImpl>(model.net->nodes()[chain.norm].modules[0].ptr());
    FusedNormChain module(norm->options, chain.options, fuse_on_cpu);
    {
      torch::NoGradGuard no_grad;
      if (norm->weight.defined()) module->weight.set_data(norm->weight);
      if (norm->bias.defined()) module->bias.set_data(norm->bias);
    }
    if (norm->weight.defined()) module->weight.set_requires_grad(norm->weight.requires_grad());
    if (norm->bias.defined()) module->bias.set_requires_grad(norm->bias.requires_grad());
    if (!norm->is_training()) module->eval();
    model.net->replace(chain.norm, 0, torch::nn::AnyModule(module));
    for (size_t k : chain.absorbed) model.net->replace(k, 0, torch::nn::AnyModule(torch::nn::Identity()));
  }
  return static_cast<int>(chains.size());
}

int keep_layout_in_paddings(Model& model, bool pad_on_cpu) {
  int replaced = 0;
  const auto& nodes = model.net->nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GraphNode& node = nodes[i];
    // A padding a chain took is an identity now, its role cleared.
    if (node.role.kind != NodeRole::kReflectionPadding || node.modules.size() != 1 ||
        !std::dynamic_pointer_cast<SpatialPadImpl>(node.modules[0].ptr()))
      continue;
    model.net->replace(i, 0, torch::nn::AnyModule(LayoutKeepingPad(node.role.pad, pad_on_cpu)));
    ++replaced;
  }
  return replaced;
}

}  // namespace trainer
