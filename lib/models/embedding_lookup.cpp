#include "models/embedding_lookup.h"

#include "kernels/intra_op.h"

namespace trainer {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

// Rows [first, last) of the weight's gradient: each thread scans every token
// and adds those in its rows, so no two threads write the same row and each
// row's sum runs in token order, as LibTorch's does.
void add_token_rows(const float* grad, const int64_t* tokens, int64_t count, int64_t dim, float* grad_weight,
                    int64_t first, int64_t last) {
  for (int64_t i = 0; i < count; ++i) {
    const int64_t row = tokens[i];
    if (row < first || row >= last) continue;
    float* __restrict out = grad_weight + row * dim;
    const float* __restrict in = grad + i * dim;
    for (int64_t d = 0; d < dim; ++d) out[d] += in[d];
  }
}

struct EmbeddingLookupFunction : torch::autograd::Function<EmbeddingLookupFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& weight, const torch::Tensor& tokens) {
    ctx->save_for_backward({tokens});
    ctx->saved_data["rows"] = weight.size(0);
    return torch::embedding(weight, tokens);
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const torch::Tensor tokens = ctx->get_saved_variables()[0].contiguous();
    const int64_t rows = ctx->saved_data["rows"].toInt();
    const int64_t dim = grads[0].size(-1);
    const torch::Tensor grad = grads[0].contiguous();
    torch::Tensor grad_weight = torch::zeros({rows, dim}, grad.options());
    const float* g = grad.data_ptr<float>();
    const int64_t* t = tokens.data_ptr<int64_t>();
    float* gw = grad_weight.data_ptr<float>();
    const int64_t count = tokens.numel();
    // LibTorch's split: ranges of at least 1000 rows.
    intra_op_chunks(0, rows, 1000,
                    [&](int64_t first, int64_t last) { add_token_rows(g, t, count, dim, gw, first, last); });
    return {grad_weight, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor embedding_lookup(const torch::Tensor& weight, const torch::Tensor& tokens) {
  const bool fits = weight.device().is_cpu() && weight.scalar_type() == torch::kFloat && weight.dim() == 2 &&
                    tokens.scalar_type() == torch::kInt64 && weight.requires_grad() && torch::GradMode::is_enabled();
  return fits ? EmbeddingLookupFunction::apply(weight, tokens) : torch::embedding(weight, tokens);
}

}  // namespace trainer
