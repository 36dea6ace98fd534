#pragma once
// Modules that LibTorch lacks in the form a Keras-like layer list needs.
#include <torch/torch.h>

#include <limits>

#include "models/embedding_lookup.h"

namespace trainer {

// Embedding whose output is channels-first, [N, dim, length], the layout
// Conv1d and the pools expect.
struct ChannelsFirstEmbeddingImpl : torch::nn::Module {
  ChannelsFirstEmbeddingImpl(int64_t rows, int64_t dim)
      : embedding(register_module("embedding", torch::nn::Embedding(rows, dim))) {}
  torch::Tensor forward(const torch::Tensor& tokens) {
    return embedding_lookup(embedding->weight, tokens).transpose(1, 2);
  }
  torch::nn::Embedding embedding;
};
TORCH_MODULE(ChannelsFirstEmbedding);

// Padding of the spatial dimensions: zeros as Keras's asymmetric "same"
// padding needs, or reflected / replicated edges (the padding layers).
// `pads` is (left, right) for the last dimension first, as
// torch::nn::functional::pad takes it.
struct SpatialPadImpl : torch::nn::Module {
  explicit SpatialPadImpl(torch::nn::functional::PadFuncOptions options) : options_(std::move(options)) {}
  SpatialPadImpl(std::vector<int64_t> pads, double value)
      : options_(torch::nn::functional::PadFuncOptions(std::move(pads)).value(value)) {}
  torch::Tensor forward(const torch::Tensor& x) { return torch::nn::functional::pad(x, options_); }
  torch::nn::functional::PadFuncOptions options_;
};
TORCH_MODULE(SpatialPad);

// A convolution with one group per input channel and several filters per
// group (a depthwise convolution with depth_multiplier > 1). LibTorch 2.6's
// CPU kernel gives wrong results for it on channels-last inputs (1.13's does
// not), so it always runs on the plain layout and hands back the layout it got.
struct ChannelMultiplierConv2dImpl : torch::nn::Conv2dImpl {
  using Conv2dImpl::Conv2dImpl;
  torch::Tensor forward(const torch::Tensor& x) {
    const auto format = x.suggest_memory_format();
    return Conv2dImpl::forward(x.contiguous()).contiguous(format);
  }
};
TORCH_MODULE(ChannelMultiplierConv2d);

// Layer normalisation over the channels (dimension 1) at every position: what
// Keras's LayerNormalization does to channels-last data.
struct ChannelLayerNormImpl : torch::nn::Module {
  ChannelLayerNormImpl(int64_t channels, double epsilon, bool center, bool scale) : channels_(channels), epsilon_(epsilon) {
    if (scale) weight = register_parameter("weight", torch::ones({channels}));
    if (center) bias = register_parameter("bias", torch::zeros({channels}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    const torch::Tensor last = x.movedim(1, -1);
    return torch::layer_norm(last, {channels_}, weight, bias, epsilon_).movedim(-1, 1);
  }
  int64_t channels_;
  double epsilon_;
  torch::Tensor weight, bias;
};
TORCH_MODULE(ChannelLayerNorm);

// Drops whole channels while training, scaling the rest by 1 / (1 - rate).
struct SpatialDropoutImpl : torch::nn::Module {
  explicit SpatialDropoutImpl(double rate) : rate_(rate) {}
  torch::Tensor forward(const torch::Tensor& x) {
    if (!is_training() || rate_ == 0) return x;
    std::vector<int64_t> mask_shape{x.size(0), x.size(1)};
    mask_shape.resize(static_cast<size_t>(x.dim()), 1);
    const torch::Tensor keep = torch::empty(mask_shape, x.options()).bernoulli_(1 - rate_);
    return x * keep / (1 - rate_);
  }
  double rate_;
};
TORCH_MODULE(SpatialDropout);

// Adds N(0, stddev^2) noise while training.
struct GaussianNoiseImpl : torch::nn::Module {
  explicit GaussianNoiseImpl(double stddev) : stddev_(stddev) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return is_training() && stddev_ > 0 ? x + torch::randn_like(x) * stddev_ : x;
  }
  double stddev_;
};
TORCH_MODULE(GaussianNoise);

// A Keras "same" pool whose padding LibTorch's pools cannot give: padded
// explicitly (`pads` as F::pad takes them), with -inf for a max pool; an
// average pool divides by the real elements of each window, as Keras's.
struct PaddedPoolImpl : torch::nn::Module {
  PaddedPoolImpl(bool max, std::vector<int64_t> window, std::vector<int64_t> strides, std::vector<int64_t> pads)
      : max_(max), window_(std::move(window)), strides_(std::move(strides)), pads_(std::move(pads)) {}
  torch::Tensor forward(const torch::Tensor& x) {
    namespace F = torch::nn::functional;
    if (max_) {
      const auto padded = F::pad(x, F::PadFuncOptions(pads_).value(-std::numeric_limits<double>::infinity()));
      return x.dim() == 3 ? torch::max_pool1d(padded, window_, strides_) : torch::max_pool2d(padded, window_, strides_);
    }
    std::vector<int64_t> ones_shape{1, 1};
    ones_shape.insert(ones_shape.end(), x.sizes().begin() + 2, x.sizes().end());
    const auto average = [&](const torch::Tensor& t) {
      const auto padded = F::pad(t, F::PadFuncOptions(pads_));
      return t.dim() == 3 ? torch::avg_pool1d(padded, window_, strides_) : torch::avg_pool2d(padded, window_, strides_);
    };
    return average(x) / average(torch::ones(ones_shape, x.options()));
  }
  bool max_;
  std::vector<int64_t> window_, strides_, pads_;
};
TORCH_MODULE(PaddedPool);

// An instance norm (a group norm with one channel a group) computed as
// PyTorch's InstanceNorm2d computes it: one batch norm over the batch's
// channels taken as N*C channels, in the input's own type (cuDNN takes
// bf16/fp16 inputs with float32 weights and statistics).
torch::Tensor per_channel_norm(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                               double eps);

// Group (and instance) normalisation in the type each device does best. On
// GPUs an instance norm runs in the input's own type (per_channel_norm): in
// bf16/fp16 that halves its memory traffic and drops the casts around it.
// Elsewhere the statistics are taken in float32: CPU autocast in LibTorch
// 1.13 leaves group_norm out of its float32 list, so its float32 weights
// would meet a bf16 input, and CUDA autocast casts group_norm to float32
// anyway. The same parameters, under the same names, as torch::nn::GroupNorm.
struct DeviceGroupNormImpl : torch::nn::GroupNormImpl {
  using torch::nn::GroupNormImpl::GroupNormImpl;
  torch::Tensor forward(const torch::Tensor& x) {
    if (x.is_cuda() && options.num_groups() == options.num_channels() && x.dim() > 2)
      return per_channel_norm(x, weight, bias, options.eps());
    return torch::nn::GroupNormImpl::forward(x.scalar_type() == torch::kFloat ? x : x.to(torch::kFloat));
  }
};
TORCH_MODULE(DeviceGroupNorm);

// Rows and columns cut from each side: amounts, not a size, so that a fully
// convolutional model runs on images of any size (trainer predict).
struct Crop2dImpl : torch::nn::Module {
  Crop2dImpl(int64_t top, int64_t bottom, int64_t left, int64_t right)
      : top_(top), bottom_(bottom), left_(left), right_(right) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return x.narrow(2, top_, x.size(2) - top_ - bottom_).narrow(3, left_, x.size(3) - left_ - right_);
  }
  int64_t top_, bottom_, left_, right_;
};
TORCH_MODULE(Crop2d);

}  // namespace trainer
