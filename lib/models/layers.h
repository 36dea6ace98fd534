#pragma once
// Modules that LibTorch lacks in the form a Keras-like layer list needs.
#include <torch/torch.h>

namespace trainer {

// Embedding whose output is channels-first, [N, dim, length], the layout
// Conv1d and the pools expect.
struct ChannelsFirstEmbeddingImpl : torch::nn::Module {
  ChannelsFirstEmbeddingImpl(int64_t rows, int64_t dim)
      : embedding(register_module("embedding", torch::nn::Embedding(rows, dim))) {}
  torch::Tensor forward(const torch::Tensor& tokens) { return embedding(tokens).transpose(1, 2); }
  torch::nn::Embedding embedding;
};
TORCH_MODULE(ChannelsFirstEmbedding);

// Mean over every dimension after the channels: [N, C, ...] -> [N, C].
struct GlobalAvgPoolImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor& x) { return x.flatten(2).mean(2); }
};
TORCH_MODULE(GlobalAvgPool);

// Zero (or -inf, before a max pool) padding of the spatial dimensions, as
// Keras's asymmetric "same" padding needs: `pads` is (left, right) for the
// last dimension first, as torch::nn::functional::pad takes it.
struct SpatialPadImpl : torch::nn::Module {
  SpatialPadImpl(std::vector<int64_t> pads, double value) : pads_(std::move(pads)), value_(value) {}
  torch::Tensor forward(const torch::Tensor& x) {
    namespace F = torch::nn::functional;
    return F::pad(x, F::PadFuncOptions(pads_).value(value_));
  }
  std::vector<int64_t> pads_;
  double value_;
};
TORCH_MODULE(SpatialPad);

}  // namespace trainer
