#include "models/sequence_layers.h"

#include <cmath>
#include <limits>

namespace trainer {
namespace {

namespace nn = torch::nn;
namespace rnn = torch::nn::utils::rnn;

// Keras's softmax mask: masked scores get a large negative number, not
// -inf, so a fully masked row is uniform instead of NaN.
constexpr double kMaskedScore = -1e9;

}  // namespace

RecurrentImpl::RecurrentImpl(const Options& options, std::shared_ptr<SequenceMask> mask)
    : options_(options), mask_(std::move(mask)) {
  const int64_t gates = (options.lstm ? 4 : 3) * options.units;
  const double bound = 1.0 / std::sqrt(static_cast<double>(options.units));  // LibTorch's default
  for (int direction = 0; direction < (options.bidirectional ? 2 : 1); ++direction) {
    const std::string suffix = direction ? "_reverse" : "";
    const auto uniform = [&](std::vector<int64_t> shape) { return torch::empty(shape).uniform_(-bound, bound); };
    weight_ih_.push_back(register_parameter("weight_ih" + suffix, uniform({gates, options.input})));
    weight_hh_.push_back(register_parameter("weight_hh" + suffix, uniform({gates, options.units})));
    bias_ih_.push_back(register_parameter("bias_ih" + suffix, uniform({gates})));
    if (!options.lstm) bias_hh_.push_back(register_parameter("bias_hh" + suffix, uniform({gates})));
  }
}

std::vector<KernelRef> RecurrentImpl::kernels() const {
  std::vector<KernelRef> kernels;
  const int64_t gates = weight_ih_[0].size(0);
  for (size_t d = 0; d < weight_ih_.size(); ++d) {
    kernels.push_back({weight_ih_[d], bias_ih_[d], options_.input, gates, false});
    kernels.push_back({weight_hh_[d], options_.lstm ? torch::Tensor() : bias_hh_[d], options_.units, gates, true});
  }
  return kernels;
}

std::vector<torch::Tensor> RecurrentImpl::flat_weights() const {
  std::vector<torch::Tensor> weights;
  for (size_t d = 0; d < weight_ih_.size(); ++d) {
    weights.push_back(weight_ih_[d]);
    weights.push_back(weight_hh_[d]);
    weights.push_back(bias_ih_[d]);
    // LibTorch's kernels take two biases; Keras's LSTM has one.
    weights.push_back(options_.lstm ? torch::zeros_like(bias_ih_[d]) : bias_hh_[d]);
  }
  return weights;
}

torch::Tensor RecurrentImpl::forward(const torch::Tensor& x) {
  torch::Tensor steps = x.transpose(1, 2);  // [N, length, features]
  const int64_t batch = steps.size(0), length = steps.size(1);
  if (is_training() && options_.dropout > 0) {
    // One mask of input features for every step, as Keras's `dropout`.
    const torch::Tensor keep =
        torch::empty({batch, 1, steps.size(2)}, steps.options()).bernoulli_(1 - options_.dropout);
    steps = steps * keep / (1 - options_.dropout);
  }
  const int64_t directions = options_.bidirectional ? 2 : 1;
  const torch::Tensor zeros = torch::zeros({directions, batch, options_.units}, steps.options());
  const auto weights = flat_weights();
  torch::Tensor outputs, last;
  if (!mask_) {
    if (options_.lstm) {
      std::tie(outputs, last, std::ignore) = torch::lstm(steps, {zeros, zeros}, weights, true, 1, 0.0, is_training(),
                                                         options_.bidirectional, /*batch_first=*/true);
    } else {
      std::tie(outputs, last) =
          torch::gru(steps, zeros, weights, true, 1, 0.0, is_training(), options_.bidirectional, true);
    }
  } else {
    // Keras skips masked steps: the same as reading only the real tokens.
    // They are moved to the front of each row in order (a stable sort),
    // packed by length, and the outputs put back where they came from.
    const torch::Tensor valid = mask_->valid;
    const torch::Tensor lengths = valid.sum(1).to(torch::kCPU);
    // (c10::optional: a plain `true` would pick the overload sort(dim, descending).)
    const torch::Tensor order =
        std::get<1>(torch::sort(valid.logical_not().to(torch::kInt8), c10::optional<bool>(true), 1, false));
    const torch::Tensor packed_order = order.unsqueeze(-1);
    const torch::Tensor front = steps.gather(1, packed_order.expand({batch, length, steps.size(2)}));
    const rnn::PackedSequence packed = rnn::pack_padded_sequence(front, lengths.clamp_min(1), true, false);
    torch::Tensor data;
    if (options_.lstm) {
      std::tie(data, last, std::ignore) = torch::lstm(packed.data(), packed.batch_sizes(), {zeros, zeros}, weights,
                                                      true, 1, 0.0, is_training(), options_.bidirectional);
    } else {
      std::tie(data, last) = torch::gru(packed.data(), packed.batch_sizes(), zeros, weights, true, 1, 0.0,
                                        is_training(), options_.bidirectional);
    }
    last = last.index_select(1, packed.unsorted_indices());
    const rnn::PackedSequence packed_outputs(data, packed.batch_sizes(), packed.sorted_indices(),
                                             packed.unsorted_indices());
    const torch::Tensor padded = std::get<0>(rnn::pad_packed_sequence(packed_outputs, true, 0.0, length));
    // Padded steps output zeros; a row of padding only outputs zeros.
    const torch::Tensor real = valid.to(padded.scalar_type()).unsqueeze(-1);
    outputs = torch::zeros_like(padded).scatter(1, packed_order.expand_as(padded), padded) * real;
    last = last * (lengths.to(last.device()) > 0).to(last.scalar_type()).unsqueeze(0).unsqueeze(-1);
  }
  if (options_.return_sequences) return outputs.transpose(1, 2);
  return options_.bidirectional ? torch::cat({last[0], last[1]}, 1) : last[0];
}

SelfAttentionImpl::SelfAttentionImpl(int64_t features, int64_t heads, int64_t key_dim, double dropout, bool causal,
                                     std::shared_ptr<SequenceMask> mask)
    : heads_(heads), key_dim_(key_dim), dropout_(dropout), causal_(causal), mask_(std::move(mask)) {
  query_ = register_module("query", nn::Linear(features, heads * key_dim));
  key_ = register_module("key", nn::Linear(features, heads * key_dim));
  value_ = register_module("value", nn::Linear(features, heads * key_dim));
  output_ = register_module("output", nn::Linear(heads * key_dim, features));
}

std::vector<KernelRef> SelfAttentionImpl::kernels() const {
  // Keras's fans of a kernel of more than two dimensions: the last two sizes,
  // each times the product of the others.
  const int64_t features = query_->weight.size(1);
  std::vector<KernelRef> kernels;
  for (const auto* projection : {&query_, &key_, &value_})
    kernels.push_back({(*projection)->weight, (*projection)->bias, heads_ * features, key_dim_ * features});
  kernels.push_back({output_->weight, output_->bias, key_dim_ * heads_, features * heads_});
  return kernels;
}

torch::Tensor SelfAttentionImpl::forward(const torch::Tensor& x) {
  const torch::Tensor steps = x.transpose(1, 2);  // [N, length, features]
  const int64_t batch = steps.size(0), length = steps.size(1);
  const auto heads_of = [&](const torch::Tensor& projected) {
    return projected.view({batch, length, heads_, key_dim_}).transpose(1, 2);  // [N, heads, length, key_dim]
  };
  const torch::Tensor q = heads_of(query_(steps)), k = heads_of(key_(steps)), v = heads_of(value_(steps));
  torch::Tensor scores = q.matmul(k.transpose(-2, -1)) / std::sqrt(static_cast<double>(key_dim_));
  // Keras: a query and a key attend when both are real and, causal, the key
  // is not later; the others' scores get kMaskedScore added.
  torch::Tensor allowed;  // [N or 1, 1, length, length]
  if (mask_) {
    const torch::Tensor valid = mask_->valid;
    allowed = valid.unsqueeze(1).unsqueeze(-1).logical_and(valid.unsqueeze(1).unsqueeze(2));
  }
  if (causal_) {
    const torch::Tensor earlier = torch::ones({1, 1, length, length}, x.options().dtype(torch::kBool)).tril();
    allowed = allowed.defined() ? allowed.logical_and(earlier) : earlier;
  }
  if (allowed.defined()) scores = scores + allowed.logical_not().to(scores.scalar_type()) * kMaskedScore;
  torch::Tensor weights = torch::softmax(scores, -1);
  if (dropout_ > 0) weights = torch::dropout(weights, dropout_, is_training());
  const torch::Tensor joined = weights.matmul(v).transpose(1, 2).reshape({batch, length, heads_ * key_dim_});
  return output_(joined).transpose(1, 2);
}

TransformerEncoderImpl::TransformerEncoderImpl(int64_t features, int64_t heads, int64_t intermediate, double dropout,
                                               bool causal, std::shared_ptr<SequenceMask> mask)
    : dropout_(dropout) {
  attention_ = register_module("attention",
                               SelfAttention(features, heads, features / heads, dropout, causal, std::move(mask)));
  attention_norm_ = register_module("attention_norm", nn::LayerNorm(nn::LayerNormOptions({features}).eps(1e-5)));
  intermediate_ = register_module("intermediate", nn::Linear(features, intermediate));
  output_ = register_module("output", nn::Linear(intermediate, features));
  feedforward_norm_ = register_module("feedforward_norm", nn::LayerNorm(nn::LayerNormOptions({features}).eps(1e-5)));
}

std::vector<KernelRef> TransformerEncoderImpl::kernels() const {
  std::vector<KernelRef> kernels = attention_->kernels();
  for (const auto* dense : {&intermediate_, &output_})
    kernels.push_back({(*dense)->weight, (*dense)->bias, (*dense)->weight.size(1), (*dense)->weight.size(0)});
  return kernels;
}

torch::Tensor TransformerEncoderImpl::forward(const torch::Tensor& x) {
  torch::Tensor attended = attention_(x).transpose(1, 2);  // [N, length, features]
  attended = torch::dropout(attended, dropout_, is_training() && dropout_ > 0);
  const torch::Tensor h = attention_norm_(attended + x.transpose(1, 2));
  torch::Tensor fed = output_(torch::relu(intermediate_(h)));
  fed = torch::dropout(fed, dropout_, is_training() && dropout_ > 0);
  return feedforward_norm_(fed + h).transpose(1, 2);
}

PositionalEmbeddingImpl::PositionalEmbeddingImpl(int64_t length, int64_t features) {
  weight_ = register_parameter("weight", torch::empty({length, features}));
  nn::init::xavier_uniform_(weight_);  // keras_hub PositionEmbedding: glorot_uniform
}

torch::Tensor GlobalPoolImpl::forward(const torch::Tensor& x) {
  if (!mask_ || x.dim() != 3) return max_ ? x.flatten(2).amax(2) : x.flatten(2).mean(2);
  const torch::Tensor real = mask_->valid.unsqueeze(1);  // [N, 1, length]
  if (max_) {
    const torch::Tensor lowest = torch::full({}, std::numeric_limits<float>::lowest(), x.options());
    // A row of padding only has no maximum: 0, as its mean.
    const torch::Tensor any = real.any(2);
    return torch::where(any, torch::where(real, x, lowest).amax(2), torch::zeros({}, x.options()));
  }
  const torch::Tensor weights = real.to(x.scalar_type());
  return (x * weights).sum(2) / weights.sum(2).clamp_min(1);
}

}  // namespace trainer
