#include "models/multiply_adds.h"

#include "models/sequence_layers.h"

namespace trainer {
namespace {

// The positions a sample's tensor has per channel: pixels, time steps, or 1.
int64_t positions(const torch::Tensor& t) { return t.dim() <= 2 ? 1 : t.numel() / t.size(1); }

// Every weight matrix or kernel of `module` (not its biases or norm scales),
// each element one multiply-add per position.
int64_t weight_elements(const torch::nn::Module& module) {
  int64_t elements = 0;
  for (const auto& parameter : module.parameters())
    if (parameter.dim() >= 2) elements += parameter.numel();
  return elements;
}

template <class... Impl>
bool is_one_of(const torch::nn::Module& module) {
  return (... || (dynamic_cast<const Impl*>(&module) != nullptr));
}

}  // namespace

int64_t forward_multiply_adds(const torch::nn::Module& module, const torch::Tensor& input,
                              const torch::Tensor& output) {
  namespace nn = torch::nn;
  // A convolution's kernel slides over the positions it writes; a transposed
  // one's over those it reads.
  if (is_one_of<nn::Conv1dImpl, nn::Conv2dImpl, nn::Conv3dImpl>(module))
    return weight_elements(module) * positions(output);
  // Dense layers, recurrent cells and attention projections: once per input
  // position (a dense layer reads one vector; a sequence layer each step).
  if (is_one_of<nn::ConvTranspose1dImpl, nn::ConvTranspose2dImpl, nn::LinearImpl, RecurrentImpl>(module))
    return weight_elements(module) * positions(input);
  // Attention (alone or in a transformer encoder) adds its scores' products,
  // which grow with the sequence's length squared.
  if (is_one_of<SelfAttentionImpl, TransformerEncoderImpl>(module)) {
    int64_t scores = 0;
    for (const auto& part : module.modules(/*include_self=*/true))
      if (const auto* attention = dynamic_cast<const SelfAttentionImpl*>(part.get()))
        scores += attention->score_multiply_adds(positions(input));
    return weight_elements(module) * positions(input) + scores;
  }
  return 0;  // lookups (embeddings), norms, pools, activations, padding
}

}  // namespace trainer
