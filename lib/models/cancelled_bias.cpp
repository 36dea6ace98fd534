#include "models/cancelled_bias.h"

#include <optional>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "models/layers.h"
#include "models/node_chains.h"
#include "util/torch_compat.h"

namespace trainer {

namespace {

namespace F = torch::nn::functional;
namespace nn = torch::nn;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Hands `x` on and gives `bias` a zero gradient: the gradient the plain
// convolution's bias gets under an instance norm, without the sum over
// the output's gradient that computes it.
struct ZeroGradientTie : torch::autograd::Function<ZeroGradientTie> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& bias) {
    ctx->save_for_backward({bias});
    return x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0], torch::zeros_like(ctx->get_saved_variables()[0])};
  }
};

// The options of `module` where it is exactly an `Impl` (not a subclass
// with a forward of its own) that adds a bias and pads with zeros.
template <class Impl>
const auto* plain_with_bias(const nn::Module& module) {
  using Options = std::remove_reference_t<decltype(std::declval<const Impl&>().options)>;
  const Options* none = nullptr;
  if (typeid(module) != typeid(Impl)) return none;
  const auto& options = dynamic_cast<const Impl&>(module).options;
  if (!options.bias() || compat::alternative<torch::enumtype::kZeros>(options.padding_mode()) == nullptr) return none;
  return &options;
}

template <class Impl, class FuncOptions, class Functional>
std::optional<BiasCancelledConvImpl::Convolve> convolution(const nn::Module& module, Functional functional) {
  const auto* o = plain_with_bias<Impl>(module);
  if (o == nullptr) return std::nullopt;
  const auto options = FuncOptions().stride(o->stride()).padding(o->padding()).dilation(o->dilation()).groups(o->groups());
  return [options, functional](const torch::Tensor& x, const torch::Tensor& w) { return functional(x, w, options); };
}

template <class Impl, class FuncOptions, class Functional>
std::optional<BiasCancelledConvImpl::Convolve> transposed(const nn::Module& module, Functional functional) {
  const auto* o = plain_with_bias<Impl>(module);
  if (o == nullptr) return std::nullopt;
  // A transposed convolution's padding is numbers (LibTorch's forward
  // refuses "same" and "valid").
  const auto* padding = compat::alternative<std::decay_t<decltype(o->stride())>>(o->padding());
  if (padding == nullptr) return std::nullopt;
  const auto options = FuncOptions().stride(o->stride()).padding(*padding)
                           .output_padding(o->output_padding())
                           .groups(o->groups()).dilation(o->dilation());
  return [options, functional](const torch::Tensor& x, const torch::Tensor& w) { return functional(x, w, options); };
}

// How `module` convolves without its bias; none where it is not a plain
// convolution with a bias.
std::optional<BiasCancelledConvImpl::Convolve> convolution_of(const nn::Module& module) {
  using Found = std::optional<BiasCancelledConvImpl::Convolve>;
  if (Found c = convolution<nn::Conv1dImpl, F::Conv1dFuncOptions>(
          module, [](const torch::Tensor& x, const torch::Tensor& w, const F::Conv1dFuncOptions& o) { return F::conv1d(x, w, o); }))
    return c;
  if (Found c = convolution<nn::Conv2dImpl, F::Conv2dFuncOptions>(
          module, [](const torch::Tensor& x, const torch::Tensor& w, const F::Conv2dFuncOptions& o) { return F::conv2d(x, w, o); }))
    return c;
  if (Found c = transposed<nn::ConvTranspose1dImpl, F::ConvTranspose1dFuncOptions>(
          module, [](const torch::Tensor& x, const torch::Tensor& w, const F::ConvTranspose1dFuncOptions& o) {
            return F::conv_transpose1d(x, w, o);
          }))
    return c;
  return transposed<nn::ConvTranspose2dImpl, F::ConvTranspose2dFuncOptions>(
      module, [](const torch::Tensor& x, const torch::Tensor& w, const F::ConvTranspose2dFuncOptions& o) {
        return F::conv_transpose2d(x, w, o);
      });
}

// Whether node `i` normalises each channel over its positions alone: an
// instance norm (a group norm of one channel a group), fused or not.
bool normalises_each_channel(const GraphNode& node) {
  if (node.modules.size() != 1) return false;
  const auto norm = std::dynamic_pointer_cast<DeviceGroupNormImpl>(node.modules[0].ptr());
  return norm && norm->options.num_groups() == norm->options.num_channels();
}

// Whether a convolution node's modules after the convolution keep each
// channel a constant apart: crops do (a transposed convolution's "same").
bool keeps_channel_constants(const GraphNode& node) {
  for (size_t k = 1; k < node.modules.size(); ++k)
    if (!std::dynamic_pointer_cast<Crop2dImpl>(node.modules[k].ptr())) return false;
  return true;
}

// The convolution nodes whose bias an instance norm cancels, with how each
// convolves without it.
std::vector<std::pair<size_t, BiasCancelledConvImpl::Convolve>> cancelled(const Model& model) {
  const NodeChains chains(model);
  const auto& nodes = model.net->nodes();
  std::vector<std::pair<size_t, BiasCancelledConvImpl::Convolve>> found;
  for (size_t i = 0; i + 1 < nodes.size(); ++i) {
    const GraphNode& node = nodes[i];
    if (node.modules.empty() || chains.frozen(node.modules[0].ptr().get())) continue;
    if (!chains.follows(i) || !normalises_each_channel(nodes[i + 1]) || !keeps_channel_constants(node)) continue;
    if (auto convolve = convolution_of(*node.modules[0].ptr())) found.emplace_back(i, std::move(*convolve));
  }
  return found;
}

}  // namespace

BiasCancelledConvImpl::BiasCancelledConvImpl(const torch::Tensor& kernel, const torch::Tensor& shift, Convolve convolve)
    : convolve_(std::move(convolve)) {
  // The same tensors, not copies: their names come from the node's slot.
  weight = register_parameter("weight", kernel, kernel.requires_grad());
  bias = register_parameter("bias", shift, shift.requires_grad());
}

torch::Tensor BiasCancelledConvImpl::forward(const torch::Tensor& x) {
  const torch::Tensor y = convolve_(x, weight);
  return bias.requires_grad() && torch::GradMode::is_enabled() ? ZeroGradientTie::apply(y, bias) : y;
}

int cancel_normalised_biases(Model& model) {
  const auto found = cancelled(model);
  for (const auto& [node, convolve] : found) {
    const auto& conv = model.net->nodes()[node].modules[0].ptr();
    const torch::Tensor weight = conv->named_parameters(/*recurse=*/false)["weight"];
    const torch::Tensor bias = conv->named_parameters(/*recurse=*/false)["bias"];
    model.net->replace(node, 0, torch::nn::AnyModule(BiasCancelledConv(weight, bias, convolve)));
  }
  return static_cast<int>(found.size());
}

int cancellable_biases(const Model& model) { return static_cast<int>(cancelled(model).size()); }

}  // namespace trainer
