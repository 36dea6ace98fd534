#include "fused/norm_chain.h"

#include "fused/norm_chain_backend.h"

namespace trainer {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The per-channel parameters as the kernels read them: float32, contiguous;
// undefined for none (passed through autograd as empty tensors, which it
// takes where it does not take undefined ones).
at::Tensor as_float(const at::Tensor& t) {
  return t.numel() > 0 ? t.detach().to(at::kFloat).contiguous() : at::Tensor();
}
at::Tensor or_empty(const at::Tensor& t, const at::Tensor& like) {
  return t.defined() ? t : at::empty({0}, like.options().dtype(at::kFloat));
}

// The dropout draws are kept in the context as four integers.
void save_draws(AutogradContext* ctx, const fused::DropoutDraws& draws) {
  for (size_t i = 0; i < draws.words.size(); ++i)
    ctx->saved_data["draw" + std::to_string(i)] = static_cast<int64_t>(draws.words[i]);
}
fused::DropoutDraws saved_draws(AutogradContext* ctx) {
  fused::DropoutDraws draws;
  for (size_t i = 0; i < draws.words.size(); ++i)
    draws.words[i] = static_cast<uint64_t>(ctx->saved_data["draw" + std::to_string(i)].toInt());
  return draws;
}

struct NormChainFunction : torch::autograd::Function<NormChainFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                            NormChainOptions options, double dropout) {
    const at::Tensor gamma = as_float(weight), beta = as_float(bias);
    fused::DropoutDraws draws;
    fused::ChainForward result = x.is_cuda() ? fused::chain_forward_cuda(x, gamma, beta, options, dropout, draws)
                                             : fused::chain_forward_cpu(x, gamma, beta, options, dropout, draws);
    ctx->save_for_backward({x, weight, bias, result.mean, result.rstd});
    ctx->saved_data["eps"] = options.eps;
    ctx->saved_data["relu"] = options.relu;
    ctx->saved_data["dropout"] = dropout;
    ctx->saved_data["pad"] = std::vector<int64_t>(options.pad.begin(), options.pad.end());
    save_draws(ctx, draws);
    return result.output;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &weight = saved[1], &bias = saved[2];
    NormChainOptions options;
    options.eps = ctx->saved_data["eps"].toDouble();
    options.relu = ctx->saved_data["relu"].toBool();
    const auto pad = ctx->saved_data["pad"].toIntVector();
    std::copy(pad.begin(), pad.end(), options.pad.begin());
    const double dropout = ctx->saved_data["dropout"].toDouble();
    const fused::DropoutDraws draws = saved_draws(ctx);
    const fused::ChainForward stats{at::Tensor(), saved[3], saved[4]};
    const at::Tensor gamma = as_float(weight), beta = as_float(bias);
    const fused::ChainBackward result =
        x.is_cuda() ? fused::chain_backward_cuda(grads[0], x, gamma, beta, stats, options, dropout, draws)
                    : fused::chain_backward_cpu(grads[0], x, gamma, beta, stats, options, dropout, draws);
    at::Tensor grad_weight, grad_bias;
    if (weight.numel() > 0 && weight.requires_grad())
      grad_weight = result.grad_gamma_parts.sum(0).to(weight.scalar_type());
    if (bias.numel() > 0 && bias.requires_grad()) grad_bias = result.grad_beta_parts.sum(0).to(bias.scalar_type());
    return {result.grad_input, grad_weight, grad_bias, at::Tensor(), at::Tensor()};
  }
};

}  // namespace

torch::Tensor norm_chain(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                         const NormChainOptions& options, bool training) {
  const std::string unfit = norm_chain_unfit(x, options);
  TORCH_CHECK(unfit.empty(), "norm_chain: ", unfit);
  // A view with rows of their own stride (a transposed convolution's output
  // cropped to Keras's `same` size) is copied once here, in the layout its
  // strides follow (NCHW or channels-last), so that forward and backward
  // read the same contiguous tensor.
  const torch::Tensor input = x.contiguous(x.suggest_memory_format());
  return NormChainFunction::apply(input, or_empty(weight, x), or_empty(bias, x), options,
                                  training ? options.dropout : 0.0);
}

bool norm_chain_cuda_compiled() { return fused::cuda_kernels_compiled(); }

std::string norm_chain_unfit(const torch::Tensor& x, const NormChainOptions& options) {
  if (x.is_cuda() && !fused::cuda_kernels_compiled()) return "this build has no CUDA kernels";
  if (!x.is_cuda() && !x.is_cpu()) return "the kernels run on CUDA and CPU tensors only";
  return fused::padded_input_unfit(x, options.pad);
}

}  // namespace trainer
